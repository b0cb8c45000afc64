#version 460
// vkfx blur, decimated path: a Gaussian blur whose cost does not grow with sigma.
//
// A Gaussian-blurred image f = G * S is smooth at the scale of sigma, so vkfx computes f exactly
// (the same truncated, normalized weights as the direct path) only on a grid of points spaced
// (kx, ky) texels apart (k about sigma / 3), then interpolates every output texel from the 4x4
// grid points around it with cubic Lagrange weights. Two dispatches, one scratch buffer:
//
//   pass 1 (VKFX_BLUR_PASS 1): a workgroup takes 32 rows of the border-extended region and 32
//     grid columns. It blurs the rows horizontally at the grid columns only (h(gx, y), the taps
//     staged in shared memory chunk by chunk), then sums its 32 rows into every grid row they
//     reach vertically (partial sums of the vertical taps) and writes those partials to scratch.
//   pass 2 (VKFX_BLUR_PASS 2): a workgroup takes an output tile of 64 columns. It adds up the
//     partials of the grid points around the tile (f on the grid, exact up to fp32 rounding) and
//     interpolates each output texel from them.
//
// Cost per texel: one source read, (2 rx + 1) / kx multiply-adds per channel (about 18), one
// write; the scratch holds about 1 / kx of the image in fp32.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "common/format.glsl"
#include "common/srgb.glsl"

const uint kGroupSize = 256u;
const uint kTileRows = 32u;   // pass 1: rows per workgroup (one per lane of a 32-wide group)
const uint kTileCols = 32u;   // pass 1: grid columns per workgroup (4 per warp of 32)
const uint kColsPerLane = 4u; // pass 1: grid columns each invocation sums
const uint kOutCols = 64u;    // pass 2: output columns per workgroup
const uint kStageLoads = 4u;  // source texels each invocation has in flight while staging

layout(local_size_x = 256) in;

layout(constant_id = 0) const bool kSrgb = false;
#include "blur/border.glsl"

// 32-bit words of shared memory for staged texels, the h tile and the grid (sized by the host).
layout(constant_id = 1) const uint kSharedWords = 1024u;
// Largest radius (the horizontal weight table).
const uint kMaxRadius = 1024u;

layout(set = 0, binding = 0) uniform sampler2DArray src;
VKFX_DST_LAYOUT(1) uniform writeonly image2DArray dst;
layout(set = 0, binding = 2, std430) buffer Scratch { VEC partials[]; };

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
    uint gridCols;    // grid columns: gx = -1 .. gridCols - 2 (scratch column gx + 1)
    int firstRow;     // first row of the extended region that pass 1 blurs (-ry - ky)
    uint tiles;       // pass 1 row tiles per layer
    uint partRows;    // grid rows each row tile has partials for
    uint outRows;     // pass 2: output rows per workgroup (a multiple of 4)
    uint chunk;       // pass 1: source columns staged per round (even)
} pc;

shared uint sWords[kSharedWords];
shared float sWeightX[2u * kMaxRadius + 1u];

int floorDiv(int i, int n)
{
    return i >= 0 ? i / n : -1 - (-1 - i) / n;
}

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

// Staged source texels: packed halves for 8-bit and fp16 formats (exact for fp16), else fp32.
#if VKFX_BLUR_PACKED
const uint kSlotWords = 2u;
void storeSlot(uint slot, VEC v)
{
    sWords[2u * slot] = packHalf2x16(v.xy);
    sWords[2u * slot + 1u] = packHalf2x16(v.zw);
}
VEC loadSlot(uint slot) { return VEC(unpackHalf2x16(sWords[2u * slot]), unpackHalf2x16(sWords[2u * slot + 1u])); }
#else
const uint kSlotWords = kVecWords;
void storeSlot(uint slot, VEC v) { storeVec(slot * kVecWords, v); }
VEC loadSlot(uint slot) { return loadVec(slot * kVecWords); }
#endif

VEC constantColor() { return VEC_FROM4(pc.borderColor); }

float weightY(int d)
{
    return abs(d) <= int(pc.radius.y) ? exp(pc.weightScale.y * float(d * d)) * pc.weightNorm.y : 0.0;
}

uint partialIndex(uint layer, uint tile, uint row, uint col)
{
    return ((layer * pc.tiles + tile) * pc.partRows + row) * pc.gridCols + col;
}

// The first grid row a row tile has partials for.
int firstPartialRow(uint tile)
{
    int e0 = pc.firstRow + int(tile * kTileRows);
    return -floorDiv(-(e0 - int(pc.radius.y)), int(pc.grid.y)); // ceil((e0 - ry) / ky)
}

#if VKFX_BLUR_PASS == 1

void main()
{
    uint tid = gl_LocalInvocationIndex;
    uint lane = tid % 32u;
    uint warp = tid / 32u;
    uint layer = gl_WorkGroupID.z;
    uint tile = gl_WorkGroupID.y;
    int width = int(pc.extent.x);
    int height = int(pc.extent.y);
    int rx = int(pc.radius.x);
    int kx = int(pc.grid.x);
    uint chunk = pc.chunk;
    uint stride = chunk + 1u; // staged row stride in slots (odd: lanes on different rows hit different banks)

    for (uint i = tid; i <= 2u * pc.radius.x; i += kGroupSize) {
        float d = float(int(i) - rx);
        sWeightX[i] = exp(pc.weightScale.x * d * d) * pc.weightNorm.x;
    }

    uint gc0 = gl_WorkGroupID.x * kTileCols;   // the group's first scratch column
    int gx0 = int(gc0) - 1;                     // its grid column
    int e0 = pc.firstRow + int(tile * kTileRows);
    int xBegin = gx0 * kx - rx;
    int xEnd = (gx0 + int(kTileCols) - 1) * kx + rx + 1;
    // This warp's grid columns and the source columns they read.
    int wx0 = gx0 + int(warp * kColsPerLane);
    int bandBegin = wx0 * kx - rx;
    int bandEnd = (wx0 + int(kColsPerLane) - 1) * kx + rx + 1;
    bool live = gc0 + warp * kColsPerLane < pc.gridCols;

    VEC acc[kColsPerLane];
    [[unroll]] for (uint j = 0u; j < kColsPerLane; ++j) acc[j] = VEC(0.0);

    for (int xc = xBegin; xc < xEnd; xc += int(chunk)) {
        // Stage rows e0 .. e0 + 31, columns xc .. xc + chunk - 1 (border-mapped).
        uint count = kTileRows * chunk;
        for (uint round = 0u; round < count; round += kStageLoads * kGroupSize) {
            VEC loaded[kStageLoads];
            [[unroll]] for (uint k = 0u; k < kStageLoads; ++k) {
                uint i = round + k * kGroupSize + tid;
                uint r = i / chunk;
                int sx = borderIndex(xc + int(i - r * chunk), width, pc.border);
                int sy = borderIndex(e0 + int(r), height, pc.border);
                loaded[k] = (i >= count || sx < 0 || sy < 0)
                    ? constantColor()
                    : VEC_FROM4(texelFetch(src, ivec3(pc.srcOffset + ivec2(sx, sy), int(layer)), 0));
            }
            [[unroll]] for (uint k = 0u; k < kStageLoads; ++k) {
                uint i = round + k * kGroupSize + tid;
                uint r = i / chunk;
                if (i < count) storeSlot(r * stride + (i - r * chunk), loaded[k]);
            }
        }
        barrier();
        // h at this warp's grid columns, row e0 + lane: the taps in this chunk.
        int lo = max(xc, bandBegin);
        int hi = min(xc + int(chunk), bandEnd);
        if (live) {
            for (int x = lo; x < hi; ++x) {
                VEC v = loadSlot(lane * stride + uint(x - xc));
                [[unroll]] for (uint j = 0u; j < kColsPerLane; ++j) {
                    int d = x - (wx0 + int(j)) * kx;
                    float w = abs(d) <= rx ? sWeightX[d + rx] : 0.0;
                    acc[j] += w * v;
                }
            }
        }
        barrier();
    }

    // The h tile (32 rows x 32 grid columns, fp32) into shared memory, row stride 33 VECs.
    const uint hStride = (kTileCols + 1u) * kVecWords;
    [[unroll]] for (uint j = 0u; j < kColsPerLane; ++j)
        storeVec(lane * hStride + (warp * kColsPerLane + j) * kVecWords, acc[j]);
    barrier();

    // Partials: for grid row gy = firstPartialRow + j, the vertical taps that fall on this tile's
    // rows. Invocations of a warp take consecutive columns (coalesced writes).
    int gyFirst = firstPartialRow(tile);
    int ky = int(pc.grid.y);
    for (uint o = tid; o < pc.partRows * kTileCols; o += kGroupSize) {
        uint j = o / kTileCols;
        uint col = o % kTileCols;
        int centre = (gyFirst + int(j)) * ky;
        VEC p = VEC(0.0);
        for (uint r = 0u; r < kTileRows; ++r) {
            float w = weightY(e0 + int(r) - centre);
            if (w != 0.0) p += w * loadVec(r * hStride + col * kVecWords);
        }
        if (gc0 + col < pc.gridCols) partials[partialIndex(layer, tile, j, gc0 + col)] = p;
    }
}

#else // VKFX_BLUR_PASS == 2

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
    int ry = int(pc.radius.y);
    int x0 = int(gl_WorkGroupID.x * kOutCols);
    int y0 = int(gl_WorkGroupID.y * pc.outRows);

    // The grid points the tile interpolates from: gx in gxLo .. gxLo + nx - 1, gy alike.
    int gxLo = floorDiv(x0, kx) - 1;
    int nx = floorDiv(min(x0 + int(kOutCols) - 1, width - 1), kx) + 2 - gxLo + 1;
    int gyLo = floorDiv(y0, ky) - 1;
    int ny = floorDiv(min(y0 + int(pc.outRows) - 1, height - 1), ky) + 2 - gyLo + 1;

    // f at each grid point: the partials of the row tiles its vertical taps fall on.
    for (uint o = tid; o < uint(nx * ny); o += kGroupSize) {
        int gx = gxLo + int(o % uint(nx));
        int gy = gyLo + int(o / uint(nx));
        int e = gy * ky - ry - pc.firstRow; // the first tap's row in the extended region (>= 0)
        uint tFirst = uint(e) / kTileRows;
        uint tLast = min(uint(e + 2 * ry) / kTileRows, pc.tiles - 1u);
        VEC g = VEC(0.0);
        for (uint t = tFirst; t <= tLast; ++t)
            g += partials[partialIndex(layer, t, uint(gy - firstPartialRow(t)), uint(gx + 1))];
        storeVec(o * kVecWords, g);
    }
    barrier();

    // Each invocation: one column, outRows / 4 consecutive rows. A window of 4 values
    // interpolated across x at consecutive grid rows slides down with the rows.
    int x = x0 + int(tid % kOutCols);
    if (x >= width) return;
    int fx = floorDiv(x, kx);
    vec4 cx = lagrange(float(x - fx * kx) / float(kx));
    int colBase = fx - 1 - gxLo;
    uint rowsPer = pc.outRows / 4u;
    int yStart = y0 + int((tid / kOutCols) * rowsPer);
    int yEnd = min(yStart + int(rowsPer), height);
    VEC win[4];
    int winRow = -0x7fffffff; // grid row of win[0], relative to gyLo
#define ACROSS(gyi) (cx.x * loadVec(uint((gyi) * nx + colBase) * kVecWords) +                   \
                     cx.y * loadVec(uint((gyi) * nx + colBase + 1) * kVecWords) +               \
                     cx.z * loadVec(uint((gyi) * nx + colBase + 2) * kVecWords) +               \
                     cx.w * loadVec(uint((gyi) * nx + colBase + 3) * kVecWords))
    for (int y = yStart; y < yEnd; ++y) {
        int fy = floorDiv(y, ky);
        int first = fy - 1 - gyLo;
        if (first == winRow + 1) {
            win[0] = win[1];
            win[1] = win[2];
            win[2] = win[3];
            win[3] = ACROSS(first + 3);
        } else if (first != winRow) {
            [[unroll]] for (int n = 0; n < 4; ++n) win[n] = ACROSS(first + n);
        }
        winRow = first;
        vec4 cy = lagrange(float(y - fy * ky) / float(ky));
        VEC v = cy.x * win[0] + cy.y * win[1] + cy.z * win[2] + cy.w * win[3];
        imageStore(dst, ivec3(pc.dstOffset + ivec2(x, y), int(layer)), encode(v));
    }
#undef ACROSS
}

#endif
