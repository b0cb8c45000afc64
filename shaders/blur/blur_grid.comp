#version 460
// vkfx blur, decimated path: a Gaussian blur whose cost does not grow with sigma.
//
// A Gaussian-blurred image f = G * S is smooth at the scale of sigma, so vkfx computes f exactly
// (the same truncated, normalized weights as the direct path) only on a grid of points spaced
// (kx, ky) texels apart (k about sigma / 3), then interpolates every output texel from the 4x4
// grid points around it with cubic Lagrange weights. Three dispatches through one scratch buffer
// that holds V (rows x width) and then F (rows x columns), fp32:
//
//   pass 1 (VKFX_BLUR_PASS 1): V, the vertical blur at the grid rows only, for every column of
//     the region. A workgroup takes 32 columns and up to 8 grid rows; its invocations read the
//     taps straight from the source (the grid rows share them through the cache), a long
//     kernel's taps split among up to 8 invocations (partial sums added in shared memory).
//   pass 2 (VKFX_BLUR_PASS 2): F, the horizontal blur of V at the grid columns: f on the grid,
//     the taps of a point split among up to 32 invocations where the grid is small; where it fits
//     (pc.staged), the workgroup's run of V is first staged in shared memory.
//   pass 3 (VKFX_BLUR_PASS 3): a workgroup takes an output tile of 64 columns, loads the grid
//     points around it and interpolates each output texel from them.
//
// Where the row spacing is large, V comes from two passes instead of pass 1 (the moments form):
//
//   pass 4 (VKFX_BLUR_PASS 4): the rows of the border-extended region are cut into blocks of ky
//     rows, aligned so that grid row gy's 2 ry + 1 taps are blocks gy .. gy + n - 1 (n = (2 ry +
//     1) / ky) and the first q = 2 ry + 1 - n ky rows of block gy + n (the head). For every column
//     and block: the block's first kMoments moments against the orthonormal discrete Chebyshev
//     polynomials of its ky rows, and the head's first kHeadMoments against those of q rows. Each
//     source texel is read once.
//   pass 5 (VKFX_BLUR_PASS 5): V at grid row gy = sum over j < n and m of A[j][m] M[gy + j][m],
//     plus the head's terms, where A[j][m] is the projection of the Gaussian's taps j ky .. j ky +
//     ky - 1 on polynomial m. The Gaussian is smooth across a block, so degree 3 (and degree 1 on
//     the head) leaves at most 4.6e-5 of the value range (the L1 norm of the kernel's error,
//     computed in double for sigma 9 to 341 at radius floor(3 sigma), ceil(3 sigma) and 4 sigma),
//     and the constant polynomial keeps every block's weight sum, so a constant image stays
//     constant.
//
// Grid row gy (-1 .. gridRows - 2) is row gy + 1 of V and F, grid column gx (-1 ..
// gridCols - 2) column gx + 1 of F. Cost per texel: (2 ry + 1) / ky taps (about 19) from the
// cache, (2 rx + 1) / (kx ky) more, 2 x 4 for the interpolation, one write.
//
// The same file holds the TwoPass method's two passes (an exact blur, Gaussian or box, through
// H: layers x height x width values of the scratch, fp32, or fp16 for 8-bit four-channel formats):
//
//   pass 6 (VKFX_BLUR_PASS 6): H, the horizontal blur of every row. A workgroup stages a run of
//     one row (pc.outRows outputs and rx texels each side, border-mapped) in shared memory; each
//     invocation makes 8 consecutive outputs from a sliding window of taps, and the workgroup's
//     outputs go back through shared memory so that a subgroup stores consecutive values of H.
//   pass 7 (VKFX_BLUR_PASS 7): the vertical blur of H's columns into the destination; each
//     invocation makes 8 (from a radius the host chooses: 16) consecutive rows of one column from
//     H, the lanes of a subgroup reading consecutive values of a row, from a sliding window of
//     weights.
//
// Cost per texel: 2 (2r + 1) multiply-adds per channel as the Direct method, one read of the
// source, one write and (2r + K) / K reads (from the cache) of H, K pass 7's rows per invocation.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "common/format.glsl"
#include "common/srgb.glsl"

const uint kGroupSize = 256u;
const uint kColumnsPerGroup = 32u; // pass 1: columns per workgroup (consecutive invocations)
const uint kRowsPerGroup = 8u;     // pass 1: grid rows per workgroup
const uint kOutCols = 64u;         // pass 3: output columns per workgroup

layout(local_size_x = 256) in;

layout(constant_id = 0) const bool kSrgb = false;
#include "blur/border.glsl"

// Pass 2: 32-bit words of shared memory for a staged run of V; pass 3: for the grid points of a
// tile (both sized by the host).
layout(constant_id = 1) const uint kSharedWords = 1024u;
// The weight table of passes 1 and 2 holds radii up to kTableRadius and spacings up to
// kTableStep (pass 2 has a second pipeline with a small table for small kernels).
layout(constant_id = 2) const uint kTableRadius = 1024u;
layout(constant_id = 3) const uint kTableStep = 113u;

layout(set = 0, binding = 0) uniform sampler2DArray src;
VKFX_DST_LAYOUT(1) uniform writeonly image2DArray dst;
#if (VKFX_BLUR_PASS == 6 || VKFX_BLUR_PASS == 7) && (defined(VKFX_FMT_rgba8) || defined(VKFX_FMT_bgra8))
// The TwoPass method's H for 8-bit four-channel formats: fp16, four halves per value (the host's
// blurTwoPassValueBytes), and so pass 6's stage. Each rounding, 2^-11 of a value at most, is an
// eighth of the output's last place (two of them: the source staged, H); the clamp keeps a
// constant border colour beyond fp16's range finite.
#define VKFX_BLUR_HALF_H 1
layout(set = 0, binding = 2, std430) buffer Scratch { uvec2 values[]; };
uvec2 packH(vec4 v)
{
    v = clamp(v, vec4(-65504.0), vec4(65504.0));
    return uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw));
}
vec4 unpackH(uvec2 u) { return vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y)); }
#else
layout(set = 0, binding = 2, std430) buffer Scratch { VEC values[]; };
#define packH(v) (v)
#define unpackH(v) (v)
#endif

layout(push_constant) uniform Push {
    vec4 borderColor; // Constant: linear RGBA
    ivec2 srcOffset;  // region origin in the source level
    ivec2 dstOffset;  // region origin in the destination level
    uvec2 extent;     // region size
    uvec2 radius;     // taps each side
    vec2 weightScale; // -1 / (2 sigma^2) per axis
    vec2 weightNorm;  // 1 / (sum of the unnormalized weights) per axis (from the host, in double)
    uvec2 grid;       // grid spacing (kx, ky)
    uint border;      // kBorder*
    uint gridCols;    // grid columns: gx = -1 .. gridCols - 2
    uint gridRows;    // grid rows: gy = -1 .. gridRows - 2
    uint gridOffset;  // where F starts in the scratch (VEC elements; V starts at 0)
    uvec2 splits;     // passes 1 and 2: invocations that share a point's taps (powers of two)
    uint outRows;     // pass 3: output rows per workgroup (a multiple of 4); pass 6: outputs
    uint staged;      // pass 2: 1 = the workgroup's run of V staged in shared memory first
    uint columnTaps;  // pass 7: the taps filtered, 2 ry + 1 and the zeros after them (the host's)
} pc;

int floorDiv(int i, int n)
{
    return i >= 0 ? i / n : -1 - (-1 - i) / n;
}

VEC constantColor() { return VEC_FROM4(pc.borderColor); }

#if VKFX_BLUR_PASS == 4 || VKFX_BLUR_PASS == 5

// The moments form (passes 4 and 5): moments per block and column, stored after V (where F goes
// later) as kMomentSlots values: the block's kMoments, then its head's kHeadMoments.
const uint kMoments = 4u;
const uint kHeadMoments = 2u;
const uint kMomentSlots = kMoments + kHeadMoments;

// The blocks of the partition: grid row gy takes blocks gy .. gy + n; block b + 1 is stored.
uint fullBlocks() { return (2u * pc.radius.y + 1u) / pc.grid.y; }
uint headRows() { return 2u * pc.radius.y + 1u - fullBlocks() * pc.grid.y; }
uint momentBlocks() { return pc.gridRows + fullBlocks(); }

// The scale of each orthonormal discrete Chebyshev polynomial of degree 0 .. 3 on len points
// (0 where the degree is len or more), and their values at point s.
vec4 chebyshevNorms(float len)
{
    float l2 = len * len;
    return vec4(inversesqrt(max(len, 1.0)), len > 1.0 ? inversesqrt(len * (l2 - 1.0) / 12.0) : 0.0,
                len > 2.0 ? inversesqrt(len * (l2 - 1.0) * (l2 - 4.0) / 180.0) : 0.0,
                len > 3.0 ? inversesqrt(len * (l2 - 1.0) * (l2 - 4.0) * (l2 - 9.0) / 2800.0) : 0.0);
}
vec4 chebyshev(float s, float len, vec4 norms)
{
    float u = s - 0.5 * (len - 1.0);
    float l2 = len * len;
    return norms * vec4(1.0, u, u * u - (l2 - 1.0) / 12.0, u * (u * u - (3.0 * l2 - 7.0) / 20.0));
}

uint momentIndex(uint layer, uint block, uint slot, int x, int width)
{
    return pc.gridOffset + ((layer * momentBlocks() + block) * kMomentSlots + slot) * uint(width) + uint(x);
}

// The kernel's projections on the polynomials (pass 4 writes them, pass 5 reads them): one value
// each after every layer's moments, with kProjectionPad blocks of zeros each side so that pass
// 5's 4 grid rows index them without bounds.
const uint kProjectionPad = 3u;
uint projectionCount() { return (fullBlocks() + 2u * kProjectionPad) * kMoments + kHeadMoments; }
uint projectionIndex(uint i)
{
    return pc.gridOffset + gl_NumWorkGroups.z * momentBlocks() * kMomentSlots * pc.extent.x + i;
}

#if VKFX_CHANNELS == 1
#define VKFX_FIRST(v) (v)
#else
#define VKFX_FIRST(v) (v).x
#endif

#endif

#if VKFX_BLUR_PASS == 1 || VKFX_BLUR_PASS == 2 || VKFX_BLUR_PASS == 5

// Passes 1, 2 and 5 split a point's taps (or blocks) among `splits` invocations.
shared VEC sPart[kGroupSize];

// The sum of the `splits` partial sums of a point, kept by the invocations whose split index is
// 0 (the others' results are undefined). The partials are `stride` invocations apart.
VEC sumSplits(VEC acc, uint splits, uint split, uint stride)
{
    if (splits == 1u) return acc;
    uint tid = gl_LocalInvocationIndex;
    barrier();
    sPart[tid] = acc;
    barrier();
    if (split == 0u) {
        for (uint s = 1u; s < splits; ++s) acc += sPart[tid + s * stride];
    }
    return acc;
}

// The taps [begin, end) of `span` an invocation adds up: range `split` of `splits` even ones.
void splitRange(int span, uint splits, uint split, out int begin, out int end)
{
    int per = (span + int(splits) - 1) / int(splits);
    begin = int(split) * per;
    end = min(begin + per, span);
}

#endif

#if VKFX_BLUR_PASS == 1 || VKFX_BLUR_PASS == 2 || VKFX_BLUR_PASS == 6 || VKFX_BLUR_PASS == 7

// The weights of one axis, padded with 3 k zeros each side: sWeight[u] is the weight of tap
// u - 3 k (0 .. 2 r), 0 outside, for u in 0 .. 2 r + 6 k (k = pc.grid; 0 in passes 6 and 7).
// Pass 7 adds the zeros that its window reads past the last weight (the host's kTableStep leaves
// room for them).
shared float sWeight[2u * kTableRadius + 1u + 6u * kTableStep];

// sWeight for an axis, and `tail` zeros after it; the caller's barrier makes it visible (or
// loadWeights').
void storeWeights(uint axis, uint tail)
{
    int r = int(pc.radius[axis]);
    int pad = 3 * int(pc.grid[axis]);
    for (uint u = gl_LocalInvocationIndex; u < uint(2 * r + 1 + 2 * pad) + tail; u += kGroupSize) {
        int i = int(u) - pad;
        float d = float(i - r);
        sWeight[u] = i >= 0 && i <= 2 * r ? exp(pc.weightScale[axis] * d * d) * pc.weightNorm[axis] : 0.0;
    }
}

void loadWeights(uint axis, uint tail)
{
    storeWeights(axis, tail);
    barrier();
}

#endif

#if VKFX_BLUR_PASS == 1 || VKFX_BLUR_PASS == 2

// Grid points per invocation: 4 consecutive grid rows (pass 1) or columns (pass 2), whose tap
// windows overlap: one read of a tap serves all 4.
const uint kPointsPerInvocation = 4u;

// acc[m] += the weight of tap t of point m (taps start k apart) times v.
#define VKFX_ACCUMULATE(acc, t, k, v)                                                            \
    [[unroll]] for (uint m = 0u; m < kPointsPerInvocation; ++m)                                  \
        acc[m] += sWeight[(t) + int(3u - m) * (k)] * (v)

#endif

#if VKFX_BLUR_PASS == 1 || VKFX_BLUR_PASS == 4 || VKFX_BLUR_PASS == 6

// Source reads an invocation issues together before adding up their taps. H200, RGBA8
// 3840x2160, the whole method at sigma 64: 2 (one loop step of two taps) 150 us, 4 141, 8 128,
// 16 133 (more registers).
const uint kTapsInFlight = 8u;

VEC fetch(int x, int y, int layer)
{
    return VEC_FROM4(texelFetch(src, ivec3(pc.srcOffset + ivec2(x, y), layer), 0));
}

#endif

#if VKFX_BLUR_PASS == 1

// Invocation: lane = column, warp-sized block = (4 grid rows, split); the taps of the 4 rows
// (2 ry + 1 + 3 ky rows) are split into pc.splits.x consecutive ranges.
void main()
{
    loadWeights(1u, 0u);
    uint tid = gl_LocalInvocationIndex;
    uint splits = pc.splits.x;
    uint block = tid / kColumnsPerGroup;
    uint split = block % splits;
    int width = int(pc.extent.x);
    int height = int(pc.extent.y);
    int k = int(pc.grid.y);
    int x = int(gl_WorkGroupID.x * kColumnsPerGroup + tid % kColumnsPerGroup);
    uint row0 = (gl_WorkGroupID.y * (kRowsPerGroup / splits) + block / splits) * kPointsPerInvocation; // gy + 1
    bool live = x < width && row0 < pc.gridRows;
    int layer = int(gl_WorkGroupID.z);
    int tBegin, tEnd;
    splitRange(2 * int(pc.radius.y) + 1 + 3 * k, splits, split, tBegin, tEnd);
    int y0 = (int(row0) - 1) * k - int(pc.radius.y); // the first row's first tap
    VEC acc[kPointsPerInvocation];
    [[unroll]] for (uint m = 0u; m < kPointsPerInvocation; ++m) acc[m] = VEC(0.0);
    if (!live) {
    } else if (y0 + tBegin >= 0 && y0 + tEnd <= height) {
        // kTapsInFlight reads issued together, then their taps.
        int t = tBegin;
        for (; t + int(kTapsInFlight) <= tEnd; t += int(kTapsInFlight)) {
            VEC a[kTapsInFlight];
            [[unroll]] for (uint u = 0u; u < kTapsInFlight; ++u) a[u] = fetch(x, y0 + t + int(u), layer);
            [[unroll]] for (uint u = 0u; u < kTapsInFlight; ++u) VKFX_ACCUMULATE(acc, t + int(u), k, a[u]);
        }
        for (; t < tEnd; ++t) {
            VEC a = fetch(x, y0 + t, layer);
            VKFX_ACCUMULATE(acc, t, k, a);
        }
    } else {
        for (int t = tBegin; t < tEnd; ++t) {
            int sy = borderIndex(y0 + t, height, pc.border);
            VEC a = sy < 0 ? constantColor() : fetch(x, sy, layer);
            VKFX_ACCUMULATE(acc, t, k, a);
        }
    }
    [[unroll]] for (uint m = 0u; m < kPointsPerInvocation; ++m) {
        VEC sum = sumSplits(acc[m], splits, split, kColumnsPerGroup);
        if (live && split == 0u && row0 + m < pc.gridRows)
            values[(uint(layer) * pc.gridRows + row0 + m) * uint(width) + uint(x)] = sum;
    }
}

#elif VKFX_BLUR_PASS == 4

const uint kBlocksPerGroup = kGroupSize / kColumnsPerGroup;
// The polynomials' values at each row of a block (sBasis) and of the head (sHeadBasis), and
// zeros after them for the last batch of a walk's reads.
shared vec4 sBasis[kTableStep + kTapsInFlight];
shared vec2 sHeadBasis[kTableStep + kTapsInFlight];

// The projections of the vertical kernel on the polynomials (see pass 5), written after the
// moments by workgroup 0: entry (j + kProjectionPad) kMoments + m for block j (0 .. n - 1;
// kProjectionPad blocks of zeros each side), then the head's kHeadMoments.
void storeProjections(int k, int q)
{
    uint n = fullBlocks();
    int r = int(pc.radius.y);
    for (uint i = gl_LocalInvocationIndex; i < projectionCount(); i += kGroupSize) {
        bool head = i >= (n + 2u * kProjectionPad) * kMoments;
        uint row = i / kMoments, m = head ? i - (n + 2u * kProjectionPad) * kMoments : i % kMoments;
        int first = head ? int(n) * k : (int(row) - int(kProjectionPad)) * k; // the kernel's tap (0 .. 2 r)
        int len = head ? q : k;
        float sum = 0.0;
        if (head || (row >= kProjectionPad && row < n + kProjectionPad)) {
            vec4 norms = chebyshevNorms(float(len));
            for (int s = 0; s < len; ++s) {
                float d = float(first + s - r);
                sum += exp(pc.weightScale.y * d * d) * chebyshev(float(s), float(len), norms)[m];
            }
            sum *= pc.weightNorm.y;
        }
        values[projectionIndex(i)] = VEC(sum);
    }
}

// Invocation: lane = column, warp-sized block = one block of ky rows; its moments and its head's.
void main()
{
    uint tid = gl_LocalInvocationIndex;
    int width = int(pc.extent.x);
    int height = int(pc.extent.y);
    int k = int(pc.grid.y);
    int q = int(headRows());
    if (tid < uint(k)) {
        sBasis[tid] = chebyshev(float(tid), float(k), chebyshevNorms(float(k)));
        sHeadBasis[tid] = chebyshev(float(tid), float(q), chebyshevNorms(float(q))).xy;
    } else if (tid < uint(k) + kTapsInFlight) {
        sBasis[tid] = vec4(0.0);
        sHeadBasis[tid] = vec2(0.0);
    }
    barrier();
    if (gl_WorkGroupID == uvec3(0u)) storeProjections(k, q);
    int x = int(gl_WorkGroupID.x * kColumnsPerGroup + tid % kColumnsPerGroup);
    uint block = gl_WorkGroupID.y * kBlocksPerGroup + tid / kColumnsPerGroup; // b + 1
    if (x >= width || block >= momentBlocks()) return;
    int layer = int(gl_WorkGroupID.z);
    int y0 = (int(block) - 1) * k - int(pc.radius.y); // the block's first row
    VEC full[kMoments];
    VEC head[kHeadMoments];
    [[unroll]] for (uint m = 0u; m < kMoments; ++m) full[m] = VEC(0.0);
    [[unroll]] for (uint m = 0u; m < kHeadMoments; ++m) head[m] = VEC(0.0);
#define VKFX_ADD_ROW(s, a)                                                                          \
    {                                                                                              \
        vec4 p = sBasis[s];                                                                        \
        [[unroll]] for (uint m = 0u; m < kMoments; ++m) full[m] += p[m] * (a);                     \
        if ((s) < q) {                                                                             \
            vec2 h = sHeadBasis[s];                                                                \
            [[unroll]] for (uint m = 0u; m < kHeadMoments; ++m) head[m] += h[m] * (a);             \
        }                                                                                          \
    }
    if (y0 >= 0 && y0 + k <= height) {
        // kTapsInFlight reads issued together, then their moments; the last batch reads rows of
        // the block again, whose polynomials past row k - 1 are 0 (one round trip instead of one
        // per row left).
        for (int s = 0; s < k; s += int(kTapsInFlight)) {
            VEC a[kTapsInFlight];
            [[unroll]] for (uint u = 0u; u < kTapsInFlight; ++u) a[u] = fetch(x, y0 + min(s + int(u), k - 1), layer);
            [[unroll]] for (uint u = 0u; u < kTapsInFlight; ++u) VKFX_ADD_ROW(s + int(u), a[u])
        }
    } else {
        for (int s = 0; s < k; ++s) {
            int sy = borderIndex(y0 + s, height, pc.border);
            VEC a = sy < 0 ? constantColor() : fetch(x, sy, layer);
            VKFX_ADD_ROW(s, a)
        }
    }
#undef VKFX_ADD_ROW
    [[unroll]] for (uint m = 0u; m < kMoments; ++m)
        values[momentIndex(uint(layer), block, m, x, width)] = full[m];
    [[unroll]] for (uint m = 0u; m < kHeadMoments; ++m)
        values[momentIndex(uint(layer), block, kMoments + m, x, width)] = head[m];
}

#elif VKFX_BLUR_PASS == 5

// The projections of the vertical kernel on the polynomials (from pass 4): sFull[(j +
// kProjectionPad) kMoments + m] for block j, sHead[m] for the head.
const uint kMaxBlocks = 64u; // the host's kBlurMomentMaxBlocks
const uint kPointsPerInvocation = 4u;
shared float sFull[(kMaxBlocks + 2u * kProjectionPad) * kMoments];
shared float sHead[kHeadMoments];
// Blocks whose moments an invocation loads together before adding them up.
const uint kBlocksInFlight = 2u;

// Invocation: lane = column, warp-sized block = (4 consecutive grid rows, split): the n + 3
// blocks of the 4 rows are split into pc.splits.x consecutive ranges (as pass 1's taps).
void main()
{
    uint tid = gl_LocalInvocationIndex;
    int width = int(pc.extent.x);
    uint n = fullBlocks();
    for (uint i = tid; i < projectionCount(); i += kGroupSize) {
        float a = VKFX_FIRST(values[projectionIndex(i)]);
        if (i < (n + 2u * kProjectionPad) * kMoments) sFull[i] = a;
        else sHead[i - (n + 2u * kProjectionPad) * kMoments] = a;
    }
    barrier();
    uint splits = pc.splits.x;
    uint block = tid / kColumnsPerGroup;
    uint split = block % splits;
    uint rowsPerGroup = kPointsPerInvocation * (kGroupSize / kColumnsPerGroup / splits);
    int x = int(gl_WorkGroupID.x * kColumnsPerGroup + tid % kColumnsPerGroup);
    uint row0 = gl_WorkGroupID.y * rowsPerGroup + (block / splits) * kPointsPerInvocation; // gy + 1
    bool live = x < width && row0 < pc.gridRows;
    uint layer = gl_WorkGroupID.z;
    uint last = momentBlocks() - 1u;
    int tBegin, tEnd;
    splitRange(int(n + kPointsPerInvocation - 1u), splits, split, tBegin, tEnd);
    VEC acc[kPointsPerInvocation];
    [[unroll]] for (uint p = 0u; p < kPointsPerInvocation; ++p) acc[p] = VEC(0.0);
    if (live) {
        // Block row0 + t serves grid row row0 + p as its block t - p.
#define VKFX_ADD_BLOCK(t, mo)                                                                       \
    [[unroll]] for (uint p = 0u; p < kPointsPerInvocation; ++p)                                   \
        [[unroll]] for (uint m = 0u; m < kMoments; ++m)                                            \
            acc[p] += sFull[((t) + kProjectionPad - p) * kMoments + m] * (mo)[m]
        uint t = uint(tBegin);
        for (; t + kBlocksInFlight <= uint(tEnd); t += kBlocksInFlight) {
            VEC mo[kBlocksInFlight][kMoments];
            [[unroll]] for (uint u = 0u; u < kBlocksInFlight; ++u)
                [[unroll]] for (uint m = 0u; m < kMoments; ++m)
                    mo[u][m] = values[momentIndex(layer, min(row0 + t + u, last), m, x, width)];
            [[unroll]] for (uint u = 0u; u < kBlocksInFlight; ++u) VKFX_ADD_BLOCK(t + u, mo[u]);
        }
        for (; t < uint(tEnd); ++t) {
            VEC mo[kMoments];
            [[unroll]] for (uint m = 0u; m < kMoments; ++m)
                mo[m] = values[momentIndex(layer, min(row0 + t, last), m, x, width)];
            VKFX_ADD_BLOCK(t, mo);
        }
#undef VKFX_ADD_BLOCK
        if (split == splits - 1u) {
            [[unroll]] for (uint p = 0u; p < kPointsPerInvocation; ++p) {
                uint head = min(row0 + p + n, last);
                [[unroll]] for (uint m = 0u; m < kHeadMoments; ++m)
                    acc[p] += sHead[m] * values[momentIndex(layer, head, kMoments + m, x, width)];
            }
        }
    }
    [[unroll]] for (uint p = 0u; p < kPointsPerInvocation; ++p) {
        VEC sum = sumSplits(acc[p], splits, split, kColumnsPerGroup);
        if (live && split == 0u && row0 + p < pc.gridRows)
            values[(layer * pc.gridRows + row0 + p) * uint(width) + uint(x)] = sum;
    }
}

#elif VKFX_BLUR_PASS == 2

// The run of V a staged workgroup reads: (4 lanes - 1) kx + 2 rx + 1 values (the host makes it
// fit). Value j is kept at j + j / (4 kx): an invocation's taps start 4 kx values after its
// neighbour's, and the padding makes that stride odd, so a subgroup's reads hit distinct banks.
shared VEC sStage[kSharedWords / uint(VKFX_CHANNELS)];
// Values each invocation stages: the run is at most kStageLoads x 256 values (the host's
// kBlurGridStageBytes: 2048 four-channel values).
const uint kStageLoads = 8u;

// V at column x of the row starting at element v (outside the region: the border-mapped column,
// or for Constant the colour, whose vertical weights sum to 1).
VEC loadV(uint v, int x, int width)
{
    if (x >= 0 && x < width) return values[v + uint(x)];
    int sx = borderIndex(x, width, pc.border);
    return sx < 0 ? constantColor() : values[v + uint(sx)];
}

// Invocation: 4 consecutive grid columns of one grid row, split = tid / (256 / splits); the
// taps of the 4 columns (2 rx + 1 + 3 kx columns of V) are split into pc.splits.y ranges.
void main()
{
    uint tid = gl_LocalInvocationIndex;
    uint splits = pc.splits.y;
    uint lanes = kGroupSize / splits;
    uint split = tid / lanes;
    int width = int(pc.extent.x);
    int k = int(pc.grid.x);
    uint col0 = (gl_WorkGroupID.x * lanes + tid % lanes) * kPointsPerInvocation; // gx + 1
    uint row = gl_WorkGroupID.y;                                                  // gy + 1
    bool live = col0 < pc.gridCols;
    uint layer = gl_WorkGroupID.z;
    int tBegin, tEnd;
    splitRange(2 * int(pc.radius.x) + 1 + 3 * k, splits, split, tBegin, tEnd);
    int x0 = (int(col0) - 1) * k - int(pc.radius.x); // the first column's first tap
    uint v = (layer * pc.gridRows + row) * uint(width);
    VEC acc[kPointsPerInvocation];
    [[unroll]] for (uint m = 0u; m < kPointsPerInvocation; ++m) acc[m] = VEC(0.0);
    if (pc.staged != 0u) {
        // The whole group's run of V into shared memory with coalesced loads (lanes reading V
        // directly are 4 kx values apart: a cache line each), then the taps from there.
        uint lane = tid % lanes;
        int runX = (int(gl_WorkGroupID.x * lanes) * int(kPointsPerInvocation) - 1) * k - int(pc.radius.x);
        uint run = (lanes * kPointsPerInvocation - 1u) * uint(k) + 2u * pc.radius.x + 1u;
        uint quad = kPointsPerInvocation * uint(k);
        // Every load of the run first (kStageLoads per invocation cover it), then the weights
        // while they are in flight, then the stores: one barrier for both.
        VEC staged[kStageLoads];
        if (runX >= 0 && runX + int(run) <= width) {
            [[unroll]] for (uint i = 0u; i < kStageLoads; ++i) {
                uint j = min(tid + i * kGroupSize, run - 1u);
                staged[i] = values[v + uint(runX + int(j))];
            }
        } else {
            [[unroll]] for (uint i = 0u; i < kStageLoads; ++i)
                staged[i] = loadV(v, runX + int(min(tid + i * kGroupSize, run - 1u)), width);
        }
        storeWeights(0u, 0u);
        [[unroll]] for (uint i = 0u; i < kStageLoads; ++i) {
            uint j = tid + i * kGroupSize;
            if (j < run) sStage[j + j / quad] = staged[i];
        }
        barrier();
        if (live) {
            // Tap t of this invocation is value lane * quad + t of the run.
            uint base = lane * (quad + 1u);
            uint tq = uint(tBegin) / quad, tr = uint(tBegin) % quad;
            for (int t = tBegin; t < tEnd; ++t) {
                VEC a = sStage[base + uint(t) + tq];
                VKFX_ACCUMULATE(acc, t, k, a);
                if (++tr == quad) {
                    tr = 0u;
                    ++tq;
                }
            }
        }
    } else {
        loadWeights(0u, 0u);
        if (!live) {
        } else if (x0 + tBegin >= 0 && x0 + tEnd <= width) {
            for (int t = tBegin; t < tEnd; ++t) {
                VEC a = values[v + uint(x0 + t)];
                VKFX_ACCUMULATE(acc, t, k, a);
            }
        } else {
            for (int t = tBegin; t < tEnd; ++t) {
                VEC a = loadV(v, x0 + t, width);
                VKFX_ACCUMULATE(acc, t, k, a);
            }
        }
    }
    [[unroll]] for (uint m = 0u; m < kPointsPerInvocation; ++m) {
        VEC sum = sumSplits(acc[m], splits, split, lanes);
        if (live && split == 0u && col0 + m < pc.gridCols)
            values[pc.gridOffset + (layer * pc.gridRows + row) * pc.gridCols + col0 + m] = sum;
    }
}

#elif VKFX_BLUR_PASS == 3

shared uint sWords[kSharedWords];

// VEC values in shared words (fp32).
void storeVec(uint word, VEC v)
{
#if VKFX_CHANNELS == 1
    sWords[word] = floatBitsToUint(v);
#else
    [[unroll]] for (uint c = 0u; c < uint(VKFX_CHANNELS); ++c) sWords[word + c] = floatBitsToUint(v[c]);
#endif
}

VEC loadVec(uint word)
{
#if VKFX_CHANNELS == 1
    return uintBitsToFloat(sWords[word]);
#else
    VEC v;
    [[unroll]] for (uint c = 0u; c < uint(VKFX_CHANNELS); ++c) v[c] = uintBitsToFloat(sWords[word + c]);
    return v;
#endif
}

const uint kVecWords = uint(VKFX_CHANNELS);
// Output rows of one grid interval an invocation interpolates together (independent of each
// other, so their arithmetic and stores overlap).
const uint kRowsAtOnce = 4u;

// Cubic Lagrange weights of nodes -1, 0, 1, 2 at t in [0, 1).
vec4 lagrange(float t)
{
    return vec4(-t * (t - 1.0) * (t - 2.0) / 6.0, (t + 1.0) * (t - 1.0) * (t - 2.0) / 2.0,
                -(t + 1.0) * t * (t - 2.0) / 2.0, (t + 1.0) * t * (t - 1.0) / 6.0);
}

void main()
{
    uint tid = gl_LocalInvocationIndex;
    uint layer = gl_WorkGroupID.z;
    int width = int(pc.extent.x);
    int height = int(pc.extent.y);
    int kx = int(pc.grid.x);
    int ky = int(pc.grid.y);
    int x0 = int(gl_WorkGroupID.x * kOutCols);
    int y0 = int(gl_WorkGroupID.y * pc.outRows);

    // The grid points the tile interpolates from: gx in gxLo .. gxLo + nx - 1, gy alike.
    int gxLo = floorDiv(x0, kx) - 1;
    int nx = floorDiv(min(x0 + int(kOutCols) - 1, width - 1), kx) + 2 - gxLo + 1;
    int gyLo = floorDiv(y0, ky) - 1;
    int ny = floorDiv(min(y0 + int(pc.outRows) - 1, height - 1), ky) + 2 - gyLo + 1;

    // f at the grid points around the tile.
    for (uint o = tid; o < uint(nx * ny); o += kGroupSize) {
        uint col = uint(gxLo + 1) + o % uint(nx);
        uint row = uint(gyLo + 1) + o / uint(nx);
        storeVec(o * kVecWords, values[pc.gridOffset + (layer * pc.gridRows + row) * pc.gridCols + col]);
    }
    barrier();

    // Each invocation: one column, outRows / 4 consecutive rows.
    int x = x0 + int(tid % kOutCols);
    if (x >= width) return;
    int fx = floorDiv(x, kx);
    vec4 cx = lagrange(float(x - fx * kx) / float(kx));
    int colBase = fx - 1 - gxLo;
    uint rowsPer = pc.outRows / 4u;
    int yStart = y0 + int((tid / kOutCols) * rowsPer);
    int yEnd = min(yStart + int(rowsPer), height);
    if (yStart >= yEnd) return;
#define ACROSS(gyi) (cx.x * loadVec(uint((gyi) * nx + colBase) * kVecWords) +                   \
                     cx.y * loadVec(uint((gyi) * nx + colBase + 1) * kVecWords) +               \
                     cx.z * loadVec(uint((gyi) * nx + colBase + 2) * kVecWords) +               \
                     cx.w * loadVec(uint((gyi) * nx + colBase + 3) * kVecWords))
    // Row y lies ry rows below grid row fy; the window holds the 4 grid rows from fy - 1,
    // interpolated across x, and slides down one grid row each time ry wraps (no division per
    // row, and the rows of one grid interval are independent).
    int fy = floorDiv(yStart, ky);
    int ry = yStart - fy * ky;
    int first = fy - 1 - gyLo; // window row 0, relative to gyLo
    float invKy = 1.0 / float(ky);
    VEC win[4];
    [[unroll]] for (int n = 0; n < 4; ++n) win[n] = ACROSS(first + n);
#define ROW(yy, rr)                                                                                \
    {                                                                                              \
        vec4 cy = lagrange(float(rr) * invKy);                                                     \
        VEC v = cy.x * win[0] + cy.y * win[1] + cy.z * win[2] + cy.w * win[3];                     \
        imageStore(dst, ivec3(pc.dstOffset + ivec2(x, yy), int(layer)), encode(v));                \
    }
    for (int y = yStart; y < yEnd;) {
        if (ry == ky) {
            ry = 0;
            ++first;
            win[0] = win[1];
            win[1] = win[2];
            win[2] = win[3];
            win[3] = ACROSS(first + 3);
        }
        // The rows of this grid interval: kRowsAtOnce at a time (independent of each other).
        int run = min(ky - ry, yEnd - y);
        int i = 0;
        for (; i + int(kRowsAtOnce) <= run; i += int(kRowsAtOnce)) {
            [[unroll]] for (int u = 0; u < int(kRowsAtOnce); ++u) ROW(y + i + u, ry + i + u)
        }
        for (; i < run; ++i) ROW(y + i, ry + i)
        y += run;
        ry += run;
    }
#undef ROW
#undef ACROSS
}

#elif VKFX_BLUR_PASS == 6 || VKFX_BLUR_PASS == 7

// The TwoPass method (module comment): kOutputs consecutive outputs per invocation from a
// sliding window (blur/window.glsl) of taps in pass 6, of weights in pass 7; sWeight[t] is the
// weight of tap t (the host pushes grid = 0: no padding before it).
// Outputs per invocation: consecutive columns in pass 6 (the host's kBlurRowInvocationOutputs: 8),
// rows in pass 7 (kBlurColumnOutputs, 8, or from the host's blurColumnWideRadius on
// kBlurColumnWideOutputs, 16: one pipeline each).
layout(constant_id = 4) const uint kOutputs = 8u;
#include "blur/window.glsl"
#define WEIGHT(i) sWeight[i]

#if VKFX_BLUR_PASS == 6

// The row segment's source texels (pc.outRows outputs and rx each side), value j at slot
// j + j / kOutputs: an invocation's window starts kOutputs values after its neighbour's, and the
// padding makes that kOutputs + 1 slots, so that a subgroup's reads take distinct banks. Slots
// hold values as H does (fp16 for 8-bit four-channel formats: half the shared memory, which leaves
// the texture reads more L1; H100, RGBA8 3840x2160 radius 16 / 64 / 128, whole method: 202 / 541 /
// 1005 us against 235 / 581 / 1049 with fp32 slots; docs v58).
#ifdef VKFX_BLUR_HALF_H
shared uvec2 sRun[kSharedWords / 2u];
#else
shared VEC sRun[kSharedWords / uint(VKFX_CHANNELS)];
#endif
// Source texels each invocation stages: the run is at most kRunLoads x 256 (the host's
// blurRowOutputs, at most 256 kOutputs, + 2 kMaxRadius).
const uint kRunLoads = kOutputs + 1u;

// Invocation: kOutputs consecutive columns of one row; workgroup: pc.outRows columns.
void main()
{
    uint tid = gl_LocalInvocationIndex;
    int width = int(pc.extent.x);
    int rx = int(pc.radius.x);
    uint outputs = pc.outRows;
    int x0 = int(gl_WorkGroupID.x * outputs);
    int y = int(gl_WorkGroupID.y);
    int layer = int(gl_WorkGroupID.z);
    // Every load first, then the weights while they are in flight, then the stores: one barrier.
    uint run = outputs + 2u * uint(rx);
    int runX = x0 - rx;
    bool inside = runX >= 0 && runX + int(run) <= width; // uniform
    VEC staged[kRunLoads];
    [[unroll]] for (uint k = 0u; k < kRunLoads; ++k) {
        int sx = runX + int(min(tid + k * kGroupSize, run - 1u));
        if (!inside) sx = borderIndex(sx, width, pc.border);
        staged[k] = sx < 0 ? constantColor() : fetch(sx, y, layer);
    }
    storeWeights(0u, 0u);
    [[unroll]] for (uint k = 0u; k < kRunLoads; ++k) {
        uint j = tid + k * kGroupSize;
        if (j < run) sRun[j + j / kOutputs] = packH(staged[k]);
    }
    barrier();
    uint c = tid * kOutputs;
    bool working = c < outputs && x0 + int(c) < width;
    uint b = (kOutputs + 1u) * tid; // value kOutputs tid
    VEC acc[kOutputs];
    if (working) {
#define AT_RUN(i) unpackH(sRun[b + (i) + (i) / kOutputs])
        FILTER_OUTPUTS(acc, 2u * uint(rx) + 1u, WEIGHT, AT_RUN)
#undef AT_RUN
    }
    // The outputs go back through sRun (output j at slot j + j / kOutputs, as the run), and then
    // invocation tid stores outputs tid, tid + 256, ...: a subgroup writes consecutive values of H,
    // where storing its own kOutputs would spread a subgroup's stores over kOutputs times the bytes
    // (H100, pass 6 alone, RGBA8 3840x2160 radius 16 / 64 / 128: 151 / 299 / 498 us against 181 /
    // 331 / 536; R32F 46 / 97 / 170 against 55 / 110 / 200 with 4 outputs per invocation; docs v56).
    barrier();
    if (working) {
        [[unroll]] for (uint j = 0u; j < kOutputs; ++j) sRun[b + j] = packH(acc[j]);
    }
    barrier();
    uint count = min(outputs, uint(width - x0));
    uint v = (uint(layer) * pc.extent.y + uint(y)) * uint(width) + uint(x0);
    [[unroll]] for (uint k = 0u; k < kOutputs; ++k) {
        uint j = tid + k * kGroupSize;
        if (j < count) values[v + j] = sRun[j + j / kOutputs]; // as H stores it
    }
}

#else // VKFX_BLUR_PASS == 7

// H at row y of the column starting at element `column` (outside the region: the border-mapped
// row, or for Constant the colour, whose horizontal weights sum to 1).
VEC loadH(uint column, int y, int height, int width)
{
    int sy = borderIndex(y, height, pc.border);
    return sy < 0 ? constantColor() : unpackH(values[column + uint(sy) * uint(width)]);
}

// Invocation: lane = column, warp-sized block = kOutputs consecutive rows; workgroup: 32 columns
// by 8 kOutputs rows. A subgroup's lanes read consecutive values of a row of H. The window holds
// weights (FILTER_OUTPUTS_SCATTER): each texel of H is loaded into one register and reused
// kOutputs times, where a window of texels would hold kOutputs vectors (H100, pass 7 alone, RGBA8
// 3840x2160 radius 16 / 64 / 128: 98 / 278 / 529 us with 8 outputs, against 123 / 358 / 668 for
// the window of texels at 4 (8: 228 / 651 / 1201); R32F 44 / 93 / 185 with 16 against 53 / 129 /
// 234 at 8; docs v56).
void main()
{
    // pc.columnTaps taps: 2 ry + 1, and zeros that make the window's texels (taps + kOutputs - 1)
    // whole rounds of kOutputs, so that no round is taken a texel at a time under a branch (the
    // host's blurColumnTaps); then the kOutputs - 1 zeros the scatter form reads past the last.
    uint taps = pc.columnTaps;
    loadWeights(1u, taps - (2u * pc.radius.y + 1u) + kOutputs - 1u);
    uint tid = gl_LocalInvocationIndex;
    int width = int(pc.extent.x);
    int height = int(pc.extent.y);
    int x = int(gl_WorkGroupID.x * kColumnsPerGroup + tid % kColumnsPerGroup);
    int row0 = int((gl_WorkGroupID.y * (kGroupSize / kColumnsPerGroup) + tid / kColumnsPerGroup) * kOutputs);
    if (x >= width || row0 >= height) return;
    uint layer = gl_WorkGroupID.z;
    uint column = layer * pc.extent.y * uint(width) + uint(x);
    int y0 = row0 - int(pc.radius.y); // the first output's first tap
    VEC acc[kOutputs];
    if (y0 >= 0 && y0 + int(taps + kOutputs - 1u) <= height) {
#define AT_COLUMN(i) unpackH(values[column + uint(y0 + int(i)) * uint(width)])
        FILTER_OUTPUTS_SCATTER(acc, taps, WEIGHT, AT_COLUMN)
#undef AT_COLUMN
    } else {
#define AT_BORDER(i) loadH(column, y0 + int(i), height, width)
        FILTER_OUTPUTS_SCATTER(acc, taps, WEIGHT, AT_BORDER)
#undef AT_BORDER
    }
    [[unroll]] for (uint j = 0u; j < kOutputs; ++j) {
        int y = row0 + int(j);
        if (y < height) imageStore(dst, ivec3(pc.dstOffset + ivec2(x, y), int(layer)), encode(acc[j]));
    }
}

#endif

#endif
