#version 460
// vkfx blur, small radii (the Tile method): a separable Gaussian or box blur of radius kRadius
// (both axes) of one region of an image into another image, in one dispatch.
//
// A workgroup owns `segment` tiles of kTileWidth output columns by kTileHeight output rows of
// one layer, one below the other. For each, it loads the tile's source texels with the halo
// (kRadius texels on each side) into shared memory, every load issued before any is stored;
// blurs those rows horizontally, each row's results written over its own source texels once they
// are read (store caching: the horizontal result never leaves shared memory, and the tile takes
// one array, not two); and writes the tile blurred vertically out of it. The next tile's loads
// are issued as soon as this tile is staged, so that their latency overlaps both passes. From
// radius 5 or 7 (kCarry) a tile's last 2r rows of horizontal results, which are the next tile's first
// 2r, are kept in registers across the vertical pass and stored back as the next tile's first
// rows, so that each tile after a workgroup's first stages and filters only its kTileHeight new
// rows (at radius 15 in 16-row tiles, 16 rows instead of 46). The weights come from the push
// constants or are made by every invocation in registers (no barrier): at radii up to the host's
// blurTileMaxRadius this is faster than walking a strip (blur.comp). The halo texels are read again
// by the neighbouring tiles (from the L2 cache, mostly).
//
// Borders, weights and precision as in blur.comp.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require

#include "common/format.glsl"
#include "common/srgb.glsl"

layout(local_size_x = 256) in;
const uint kGroupSize = 256u;

layout(constant_id = 0) const bool kSrgb = false;
#include "blur/border.glsl"

// The radius of both axes (the taps are constants: loops unroll), and a tile's output rows and
// columns: 16 x 64, or 32, 24 or 16 x 32 (kTileHeight a multiple of 8, and of kBandRows where it
// is larger).
layout(constant_id = 1) const uint kRadius = 1u;
layout(constant_id = 2) const uint kTileHeight = 16u;
layout(constant_id = 3) const uint kTileWidth = 64u;
// Rows of shared memory one slot longer than their texels (an odd number of slots), with lanes
// mapped so that the passes' shared-memory accesses take distinct banks (below). The host sets it
// for formats whose staged rows are 16-byte slots (fp32 RGBA), where it fits.
layout(constant_id = 4) const bool kPadRows = false;
// 1: the rows of horizontal results that a tile shares with the next one below it (its last 2r)
// are carried over to the next tile instead of being staged and filtered again: each tile after a
// workgroup's first stages and filters only its kTileHeight new rows (the host's
// blurTileCarries: from radius 5 for fp32 RGBA slots, 7 for the others; below, the registers it
// takes cost more than it saves).
layout(constant_id = 5) const uint kCarry = 0u;
const uint kBandRows = kGroupSize * 4u / kTileWidth; // output rows of one vertical round
const uint kColumnGroups = kTileWidth / 16u;          // warps side by side in a vertical round

// Source texels and then their horizontal results in shared memory: packed halves for 8-bit
// formats (within their 1-code bound), else fp32 (RGBA16F's halves exactly, and its horizontal
// results to fp32 precision).
#if VKFX_BLUR_PACKED
#define STAGED uvec2
STAGED toStaged(VEC v) { return uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw)); }
VEC fromStaged(STAGED s) { return VEC(unpackHalf2x16(s.x), unpackHalf2x16(s.y)); }
#else
#define STAGED VEC
STAGED toStaged(VEC v) { return v; }
VEC fromStaged(STAGED s) { return s; }
#endif

// The push constants (detail::BlurTilePush): offsets, extent, border and tiles per workgroup as
// 16-bit halves, then VKFX_BLUR_TILE_WEIGHTS weights: 24 in 128 bytes (what every device takes),
// 56 in 256 bytes for the radii above 11 where the device takes 256 (the "_wide" variants). Up to
// radius kHostWeightsMaxRadius the host computes the weights: the multiply-adds take them from
// the push constants, and the kernel keeps no registers for them (docs/blur-performance.md v46-v47:
// up to 11% faster than weights made in registers). Above it the kernel makes them from the
// scales.
#ifndef VKFX_BLUR_TILE_WEIGHTS
#define VKFX_BLUR_TILE_WEIGHTS 24
#endif
#define VKFX_BLUR_TILE_PUSH
layout(push_constant) uniform Push {
    uint srcOffset;     // region origin in the source level: x | y << 16
    uint dstOffset;     // region origin in the destination level: x | y << 16
    uint extent;        // region size: width | height << 16
    uint borderSegment; // kBorder* | tiles per workgroup (one below the other) << 16
    vec4 borderColor;   // kBorderConstant: linear RGBA
    float weights[VKFX_BLUR_TILE_WEIGHTS]; // kRadius <= kHostWeightsMaxRadius: the normalized
                        // weights of taps 0..kRadius of x, then of y; else [0], [1]: x's and y's
                        // -1 / (2 sigma^2) (0: a box)
} pc;
const uint kHostWeightsMaxRadius = uint(VKFX_BLUR_TILE_WEIGHTS) / 2u - 1u; // 11, or 27 (wide)
ivec2 unpackHalves(uint v) { return ivec2(v & 0xFFFFu, v >> 16u); }

#include "blur/direct.glsl"

const uint kTaps = 2u * kRadius + 1u;
const uint kStagedWidth = kTileWidth + 2u * kRadius;
const uint kRows = kTileHeight + 2u * kRadius;                     // staged rows, and horizontal rows
const uint kCarryRows = 2u * kRadius;                              // rows a tile shares with the next
const uint kNewRows = kRows - kCarry * kCarryRows;                 // rows staged per tile (kCarry: after the first)
const uint kLoads = (kStagedWidth * kNewRows + kGroupSize - 1u) / kGroupSize; // per invocation
const uint kHaloLoads = (kStagedWidth * kCarryRows + kGroupSize - 1u) / kGroupSize; // kCarry: the first tile's top rows
const uint kHaloChunk = kLoads < kHaloLoads ? kLoads : kHaloLoads;   // kCarry: those loaded at a time
const uint kCarrySlots = (kCarryRows * kTileWidth + kGroupSize - 1u) / kGroupSize;   // kCarry: results carried per invocation
const uint kStagedStride = kStagedWidth + (kPadRows ? 1u : 0u); // slots of a staged row

// Source rows y0 - kRadius .., kStagedWidth texels each; row r's horizontal results go to its
// slots 0 .. kTileWidth - 1.
shared STAGED sStaged[kStagedStride * kRows];
void putStaged(uint i, VEC v) { sStaged[i] = toStaged(v); }
VEC getStaged(uint i) { return fromStaged(sStaged[i]); }

// kCarry: the slot of carried result j (of the kCarryRows rows a tile shares with the next, row by
// row, kTileWidth results each) where those rows begin at horizontal row row0.
uint carriedSlot(uint row0, uint j)
{
    uint r = j / kTileWidth;
    return (row0 + r) * kStagedStride + j - r * kTileWidth;
}

// Normalized weights of taps 0..kRadius of axis `axis` (tap -k has the weight of tap k): the
// host's up to kHostWeightsMaxRadius; above, Gaussian exp(-k^2 / (2 sigma^2)) / sum (a box: scale
// 0, all 1 / (2r + 1)), summed in blur.comp's order (smallest first), made by every invocation: no
// shared memory, no barrier.
// (A macro: arrays sized by specialization constants do not pass as function parameters.)
#define MAKE_WEIGHTS(axis, w)                                                                      \
    if (kRadius <= kHostWeightsMaxRadius) {                                                        \
        [[unroll]] for (uint k = 0u; k <= kRadius; ++k)                                           \
            w[k] = pc.weights[(axis) * (kRadius + 1u) + k];                                        \
    } else {                                                                                       \
        float scale = pc.weights[(axis)];                                                          \
        [[unroll]] for (uint k = 0u; k <= kRadius; ++k) w[k] = exp(scale * float(k) * float(k));  \
        float sum = 0.0;                                                                           \
        [[unroll]] for (uint k = kRadius; k >= 1u; --k) sum += 2.0 * w[k];                        \
        sum += w[0];                                                                               \
        float inv = 1.0 / sum;                                                                     \
        [[unroll]] for (uint k = 0u; k <= kRadius; ++k) w[k] *= inv;                              \
    }

VEC constantColor() { return VEC_FROM4(pc.borderColor); }

VEC fetchSource(int x, int y, uint layer)
{
    return VEC_FROM4(texelFetch(src, ivec3(unpackHalves(pc.srcOffset) + ivec2(x, y), int(layer)), 0));
}

// Issues the loads of staged rows ys .. ys + nRows - 1 (source rows; columns x0 - kRadius ..) into
// `loaded`: nLoads per invocation, the rows' texels first * kGroupSize + tid, (first + 1) *
// kGroupSize + tid, ... (a macro: `loaded` is sized by a specialization constant). Rows whose
// texels are all inside the region (most) skip the border mapping.
#define STAGE_LOADS(x0, ys, nRows, first, nLoads, loaded)                                           \
    {                                                                                              \
        bool inside = x0 >= int(kRadius) && ys >= 0 && x0 + int(kStagedWidth - kRadius) <= width &&  \
                      ys + int(nRows) <= height;                                                   \
        if (inside) {                                                                              \
            [[unroll]] for (uint k = 0u; k < nLoads; ++k) {                                        \
                uint i = min(((first) + k) * kGroupSize + tid, kStagedWidth * (nRows) - 1u);       \
                uint r = i / kStagedWidth;                                                         \
                loaded[k] = fetchSource(x0 - int(kRadius) + int(i - r * kStagedWidth), ys + int(r), layer); \
            }                                                                                      \
        } else {                                                                                   \
            [[unroll]] for (uint k = 0u; k < nLoads; ++k) {                                        \
                uint i = ((first) + k) * kGroupSize + tid;                                         \
                uint r = i / kStagedWidth;                                                         \
                int sx = borderIndex(x0 - int(kRadius) + int(i - r * kStagedWidth), width, border); \
                int sy = borderIndex(ys + int(r), height, border);                                 \
                bool outside = i >= kStagedWidth * (nRows) || sx < 0 || sy < 0;                    \
                loaded[k] = outside ? constantColor() : fetchSource(sx, sy, layer);                \
            }                                                                                      \
        }                                                                                          \
    }

// Stores `loaded` (STAGE_LOADS of nRows rows, from `first`) at staged row `row0` on.
#define STAGE_STORES(row0, nRows, first, nLoads, loaded)                                            \
    [[unroll]] for (uint k = 0u; k < nLoads; ++k) {                                                \
        uint i = ((first) + k) * kGroupSize + tid;                                                 \
        uint r = i / kStagedWidth;                                                                 \
        if (i < kStagedWidth * (nRows)) putStaged((row0) * kStagedStride + i + (kPadRows ? r : 0u), loaded[k]); \
    }

void main()
{
    uint tid = gl_LocalInvocationIndex;
    uint layer = gl_WorkGroupID.z;
    int width = unpackHalves(pc.extent).x;
    int height = unpackHalves(pc.extent).y;
    uint border = pc.borderSegment & 0xFFFFu;
    uint segment = pc.borderSegment >> 16u;
    ivec2 dstOffset = unpackHalves(pc.dstOffset);
    int x0 = int(gl_WorkGroupID.x * kTileWidth);
    int yGroup = int(gl_WorkGroupID.y * kTileHeight * segment);

    // 1. Load the first tile's source rows y0 - kRadius .., columns x0 - kRadius .. (border-
    //    mapped), all at once (kCarry: its top kCarryRows rows first, in chunks stored as they
    //    arrive, then the others at once); make the weights while they are in flight.
    VEC loaded[kLoads];
    if (kCarry != 0u) {
        // The first tile's top kCarryRows rows straight into shared memory, kHaloChunk at a time
        // (in the registers of the later tiles' loads), then its other rows as any tile's.
        [[dont_unroll]] for (uint c = 0u; c < kHaloLoads; c += kHaloChunk) {
            STAGE_LOADS(x0, yGroup - int(kRadius), kCarryRows, c, kHaloChunk, loaded)
            STAGE_STORES(0u, kCarryRows, c, kHaloChunk, loaded)
        }
        STAGE_LOADS(x0, yGroup + int(kRadius), kNewRows, 0u, kLoads, loaded)
    } else {
        STAGE_LOADS(x0, yGroup - int(kRadius), kNewRows, 0u, kLoads, loaded)
    }
    float wx[kRadius + 1u], wy[kRadius + 1u];
    MAKE_WEIGHTS(0u, wx)
    MAKE_WEIGHTS(1u, wy)

    uint lane = tid & 31u;
    uint warp = tid >> 5u;
    uint vWarp = warp / kColumnGroups; // which 16 x 8 block of a band's rows the warp covers
    // The vertical pass: a warp covers 16 columns x 2 rows (see 3.); kPadRows (16-byte rows):
    // each 16 of its invocations one row (consecutive slots: distinct banks), else 4 columns x 2
    // rows at a time (8-byte slots: as fast as one row, and 2 bank passes either way).
    uint vCol = 16u * (warp % kColumnGroups) + (kPadRows ? lane & 15u : (lane & 3u) + 4u * (lane >> 3u));
    uint vRow = 8u * (vWarp & 1u) + 16u * (vWarp >> 1u) + (kPadRows ? lane >> 4u : (lane >> 2u) & 1u);
    // The horizontal pass: an invocation makes 4 consecutive outputs of a row. kPadRows: each 16
    // invocations take 4 rows x 4 groups of 4 columns (each 8 of them 4 rows x 2 groups), so that
    // with rows of an odd number of slots their accesses, 4 slots apart in a row, fall on distinct
    // banks in a pass of 8-byte slots (16 invocations) and of 16-byte slots (8); in one row they
    // would share 4 and 2 banks. The blocks of a round go row block by row block, so that a last
    // round of fewer rows keeps whole warps busy. Else kTileWidth / 4 invocations a row.
    // The invocations of a row lie within one aligned span of kRowSpan values of hTid: where a
    // subgroup holds such a span, the horizontal pass's rounds synchronize the subgroup only (hTid
    // numbers the invocations subgroup by subgroup), else the workgroup.
    const uint kRowsPerRound = kGroupSize * 4u / kTileWidth;
    const uint kGroupBlocks = kTileWidth / 16u; // blocks of 4 x 4 groups side by side
    const uint kRowSpan = kPadRows ? 16u * kGroupBlocks : kTileWidth / 4u;
    bool fullSubgroups = gl_NumSubgroups * gl_SubgroupSize == kGroupSize;
    bool rowInSubgroup = fullSubgroups && kRowSpan <= gl_SubgroupSize;
    uint hTid = fullSubgroups ? gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID : tid;
    uint block = hTid >> 4u;
    uint hRow = kPadRows ? 4u * (block / kGroupBlocks) + (hTid & 3u) : hTid / (kTileWidth / 4u);
    uint hCol = kPadRows ? 4u * (4u * (block % kGroupBlocks) + ((hTid >> 2u) & 3u)) : (hTid % (kTileWidth / 4u)) * 4u;
    int x = x0 + int(vCol);
    // kCarry: the horizontal results of a tile's last kCarryRows rows, kept for the next tile's
    // first rows.
    STAGED carried[kCarrySlots];
    const uint stageRow = kCarry * kCarryRows; // where a tile's staged loads go
    for (uint tile = 0u; tile < segment; ++tile) {
        int y0 = yGroup + int(tile * kTileHeight);
        if (y0 >= height) break; // uniform
        bool carryIn = kCarry != 0u && tile > 0u;
        if (tile > 0u) barrier(); // the previous tile's vertical reads are done
        if (carryIn) {
            [[unroll]] for (uint k = 0u; k < kCarrySlots; ++k) {
                uint j = k * kGroupSize + tid;
                if (j < kCarryRows * kTileWidth) sStaged[carriedSlot(0u, j)] = carried[k];
            }
        }
        STAGE_STORES(stageRow, kNewRows, 0u, kLoads, loaded)
        barrier();

        // The next tile's loads (their registers are free once this tile is staged), in flight
        // during this tile's passes and stores.
        if (tile + 1u < segment)
            STAGE_LOADS(x0, y0 + int(kTileHeight) - int(kRadius) + int(stageRow), kNewRows, 0u, kLoads, loaded)

        // 2. Horizontal: rows hRow + kRowsPerRound k, columns hCol .. hCol + 3, from a window of
        //    taps that slides through registers; each round's results are stored over their rows'
        //    first kTileWidth slots once every invocation has read its taps.
        //    kCarry: after a workgroup's first tile, only the new rows (the others were carried).
        uint hFirst = carryIn ? kCarryRows : 0u;
        uint rounds = (kRows - hFirst + kRowsPerRound - 1u) / kRowsPerRound;
        for (uint round = 0u; round < rounds; ++round) {
            uint row = hFirst + hRow + round * kRowsPerRound;
            uint base = row * kStagedStride + hCol;
            VEC acc[4];
            [[unroll]] for (uint j = 0u; j < 4u; ++j) acc[j] = VEC(0.0);
            if (row < kRows) {
                [[unroll]] for (uint i = 0u; i < kTaps + 3u; ++i) {
                    VEC t = getStaged(base + i);
                    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
                        if (i >= j && i - j < kTaps) acc[j] += wx[abs(int(i - j) - int(kRadius))] * t;
                    }
                }
            }
            if (rowInSubgroup) { // uniform
                subgroupMemoryBarrierShared();
                subgroupBarrier();
            } else {
                barrier();
            }
            if (row < kRows) {
                [[unroll]] for (uint j = 0u; j < 4u; ++j) putStaged(base + j, acc[j]);
            }
        }
        barrier();
        if (kCarry != 0u && tile + 1u < segment) {
            // The results the next tile shares (rows kTileHeight ..), read before this tile's
            // vertical pass and stored after the barrier that ends it.
            [[unroll]] for (uint k = 0u; k < kCarrySlots; ++k)
                carried[k] = sStaged[carriedSlot(kTileHeight, min(k * kGroupSize + tid, kCarryRows * kTileWidth - 1u))];
        }

        // 3. Vertical and the stores. A warp-sized run of 32 invocations covers 16 columns x 2
        //    rows per store (whole 16-byte x 2-row sectors of a block-linear image: one row at a
        //    time wrote half sectors and ran at a third of the copy rate), each 16 of them one row
        //    (consecutive slots: distinct banks). Invocation: column vCol, output rows vRow + 2j
        //    (j = 0..3) of each band of kBandRows rows.
        for (uint band = 0u; band < kTileHeight; band += kBandRows) {
            // Output row band + vRow + 2j reads horizontal rows band + vRow + 2j + i (i = 0..2r).
            // A warp's 8 rows (vRow rounded down to 8 on) lie in the tile or not at all (tiles of
            // fewer than kBandRows rows leave warps idle here).
            uint first = band + vRow;
            if (band + (vRow & ~7u) >= kTileHeight) continue;
            VEC acc[4];
            [[unroll]] for (uint j = 0u; j < 4u; ++j) acc[j] = VEC(0.0);
            [[unroll]] for (uint i = 0u; i < kTaps + 6u; ++i) {
                VEC t = getStaged((first + i) * kStagedStride + vCol);
                [[unroll]] for (uint j = 0u; j < 4u; ++j) {
                    if (i >= 2u * j && i - 2u * j < kTaps) acc[j] += wy[abs(int(i - 2u * j) - int(kRadius))] * t;
                }
            }
            if (x < width) {
                [[unroll]] for (uint j = 0u; j < 4u; ++j) {
                    int y = y0 + int(first + 2u * j);
                    if (y < height) imageStore(dst, ivec3(dstOffset + ivec2(x, y), int(layer)), encode(acc[j]));
                }
            }
        }
    }
}
