#version 460
// Single-pass downsampler: every level of a mip chain, for every array layer, in one dispatch.
//
// The chain. Level 0 is the source (a sampled view); level k+1 has the extent max(1, e_k / 2)
// (Vulkan's mip sizes). Texel x of level k+1 reduces texels 2x and 2x+1 of level k, and also 2x+2
// when it is the last texel and e_k is odd (the odd edge folds into the last texel); when e_k is
// 1 it reduces texel 0 alone. The same holds for y. Levels 1..N are written, level k to destination
// slot k - 1 + kCopyLevel0 (a depth pyramid may also copy level 0 into slot 0).
//
// The work. Level 6 of the chain partitions level 0 into blocks: block (I, J) is everything under
// level-6 texel (I, J) - 64x64 texels, or up to 127x127 on the right and bottom edges, where the
// last texel folds in the rest. A workgroup reduces one, two side by side or a 2x2 of blocks (by
// how many there are and the waves they make, pc.shape), one block at a time, to their level-6
// texels, writing levels 1..6 on the way. When the chain goes on, the group publishes those level-6
// values (fp32) in the scratch buffer and takes one ticket for them from the counter of the
// level-12 block that contains them; the last group to arrive there reduces that block (levels
// 7..12) from the published values, and so on up a tree of counters - so any extent takes one
// dispatch. Large images may take two instead (pc.split, chosen by the host): the first makes stage
// 0 and publishes without tickets, the second (after a barrier; the kAboveOnly pipeline) runs one
// group per level-12 block from the published values - every stage-0 group's ticket, a release and
// an atomic round trip under full load, costs more there than a second launch, and the second
// pipeline reduces a regular block of level-6 texels from registers (4096x4096 takes two for it).
//
// Memory model: the published values and the counters live in a Coherent buffer (device-scope
// availability and visibility); the counter increment is a device-scope AcquireRelease atomic, so
// it releases the writer's value and, for the last group, acquires everyone's; a workgroup-scope
// acquire-release control barrier then orders the whole group's reads after it. That group resets the
// counter and zeroes what it read, so the scratch is all zero again for the next dispatch.
// (The module keeps the GLSL450 memory model, whose Coherent and explicit-semantics atomics the
// Vulkan memory model defines: Mesa 22's lavapipe drops image stores in modules that declare
// VulkanMemoryModel.)

// Inside a regular block (64x64, every footprint 2x2) of stage 0, level 1 is made as four 2x2
// footprints per invocation, 16 texels apart (a subgroup reads contiguous patches), into shared
// memory - with the sampler where it is exact enough (one textureGather or one bilinear sample per
// footprint, all four issued together; one textureGather per channel, two footprints at a time,
// for RGBA16F), else texelFetch, two footprints' reads at a time; with
// subgroups of 16 or more, level 2 comes from shared memory and levels 3, 4 from subgroup
// butterflies, then the rest through shared memory. Edge blocks make level 2 first (each texel's
// reads issued together where its footprints are 2x2), then loop over shared memory; a continuing
// group reads all of its published inputs at once when they fit in shared memory.
// Reads that feed one result are issued before anything consumes them: a chain of dependent reads
// costs a round trip to memory each, which is what the edge and continuing paths are made of.
// Every footprint is reduced in one order on every path (each row, then the row results), so the
// results are identical. Stores go to views the compiler knows wherever it matters (see main()).
// (Cold paths are kept small: on NVIDIA, adding code that never runs on a regular image changed
// the compilation of the hot loop for some formats, 2-3x slower; docs/downsample-performance.md.)

#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require

#include "common/format.glsl"
#include "common/reduce.glsl"
#include "common/srgb.glsl"

const uint kGroupSize = 256u;
const uint kBlockLevels = 6u;     // levels one block reduction produces
const uint kBlockSpan = 64u;      // 1 << kBlockLevels: a block's size at its input level
const uint kMaxOutputs = 15u;     // destination slots (enough for a 32768 texel chain)
const uint kL1 = 32u;             // a regular block's width at input level + 1 (edge blocks keep
                                  // level +2 here, at most 31x31)
// Scratch words per published value: three-channel values (B10G11R11) are padded to four and move
// as one 16-byte quad, as four-channel ones do (word by word, the continuing group's code took the
// kernel from 80 to 99 registers: H200, B10G11R11 4096^2 53.0 -> 44.7 us, 8192^2 155 -> 127).
const uint kVecWords = VKFX_CHANNELS == 3 ? 4u : uint(VKFX_CHANNELS);
const uint kAccWords = kVecWords * (1 + VKFX_MINMAX); // scratch words per published texel

layout(local_size_x = 256) in;

layout(constant_id = 1) const bool kUseSubgroups = true;
layout(constant_id = 2) const bool kSrgb = false;
// 1: level 0 is also copied into slot 0 (depth pyramids, DepthLevelZero::Copy). A constant, like
// everything that picks a destination view: a store whose view is chosen at run time is much
// slower than one to a view the compiler knows.
layout(constant_id = 3) const uint kCopyLevel0 = 0u;

// How a regular block reads level 0 (Downsampler::create picks it; see sampleFootprint()).
const uint kReadFetch = 0u;    // four texelFetch per 2x2 footprint
const uint kReadBilinear = 1u; // one bilinear sample at the footprint's centre (Average)
const uint kReadGather = 2u;   // one textureGather of the footprint per channel
layout(constant_id = 4) const uint kReadMode = kReadFetch;
// Whether reduceShared and reduceLevel1 read a footprint as one 3x3 window, and reduceLevel2 a row
// of an edge's 2x2 children together (true, GPUs), or in loops (CPU implementations, whose
// compilers take about 1.9x as long with the window unrolled at every call site: lavapipe, RGBA8,
// 11.1 against 5.8 s a pipeline). The same bits either way, but for a bilinear read of level 0,
// where the rows sample an edge's 2x2 children and the loops fetch them.
layout(constant_id = 5) const bool kWindowReads = true;
// Whether a regular block reads each footprint with one sampler read (sampleFootprint): a
// bilinear sample, or the one gather of a one-channel format. (Written per channel count, so that
// one-channel kernels keep the exact expression they were tuned with.)
#if VKFX_CHANNELS == 1
const bool kOneReadPerFootprint = kReadMode != kReadFetch;
#else
const bool kOneReadPerFootprint = kReadMode == kReadBilinear;
#endif

// The pipeline of a second dispatch (pc.split == kAbove on every call): stage 0 compiles away,
// and a regular block above stage 0 takes reduceRegularAbove. (A separate pipeline, so that the
// code above stage 0 can change without changing how the compiler builds stage 0.)
layout(constant_id = 6) const bool kAboveOnly = false;

// Whether an edge block makes its interior level-2 texels first and the others of its last column
// and row after them (reduceBlock). Those reduce up to 3x3 children each, whose footprints are up
// to 3x3; in row-major order every round of the loop holds one such lane in each subgroup, which
// the subgroup waits for. The host binds a pipeline with this on for chains whose width or height
// is not a multiple of 4 (the only ones whose stage-0 edge blocks have such texels) of at most 1024
// or 2048 blocks, and keeps the one without it for the rest: the compiler built every stage 0
// differently with the reordered loop in it (H100, sRGB8 3840x2160 +3%).
layout(constant_id = 7) const bool kEdgeOrder = false;

// Whether reduceBlock makes level +1 of a non-regular block above stage 0 in shared memory.
const bool kSpreadLevel1 = VKFX_CHANNELS > 1;

// Level 0, with an immutable sampler (linear for kReadBilinear, else nearest).
#ifndef VKFX_PACKED_HALF
#define VKFX_PACKED_HALF 0
#endif
#if VKFX_PACKED_HALF
// RGBA16F level 0 through an R32G32_UINT view: a texel is two words of packed halves, so that one
// textureGather per word (two per footprint instead of four) reads all four channels.
layout(set = 0, binding = 0) uniform usampler2DArray src;
vec4 unpackTexel(uvec2 w) { return vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y)); }
vec4 fetchSource(ivec3 p) { return unpackTexel(texelFetch(src, p, 0).xy); }
#else
layout(set = 0, binding = 0) uniform sampler2DArray src;
vec4 fetchSource(ivec3 p) { return texelFetch(src, p, 0); }
#endif
VKFX_DST_LAYOUT(1) uniform writeonly image2DArray dstA[kMaxOutputs];
#if VKFX_MINMAX
VKFX_DST_LAYOUT(2) uniform writeonly image2DArray dstB[kMaxOutputs];
#endif
layout(set = 0, binding = 3) coherent buffer Scratch { uint words[]; } scratch;
// The same buffer seen as 16-byte quads: 3- and 4-channel texels are published 16-byte aligned, so
// that one load and one store move each (the continuing group's reads are a latency chain).
layout(set = 0, binding = 3) coherent buffer ScratchQuads { uvec4 quads[]; } scratchQuads;

layout(push_constant) uniform Push {
    uvec2 extent;          // chain level 0
    vec2 invExtent;        // 1 / extent, rounded once (coordinates of the sampler reads)
    uint levelCount;       // N: last chain level written
    uint counterOffset1;   // scratch words: counters of the level-12 blocks, all layers
    uint counterOffset2;   // counters of the level-18 blocks
    uint dataOffset6;      // published level-6 texels, all layers
    uint dataOffset12;     // published level-12 texels
    uint shape;            // regular blocks a stage-0 workgroup holds: 0 one, 1 a 2x2, 2 a 2x1
    uint split;            // kWhole, kStage0 or kAbove (see main())
} pc;

// What a dispatch does (pc.split).
const uint kWhole = 0u;  // the whole chain: stage 0, and the last group of each block goes on
const uint kStage0 = 1u; // stage 0 only: publishes its level-6 texels and takes no ticket
const uint kAbove = 2u;  // after a kStage0 dispatch (and a barrier): one workgroup per stage-1
                         // block makes the levels above 6 from the published texels

// Level +1 of a regular block (32x32), or level +2 of an edge block (up to 31x31), and the levels
// above. (Exactly 32 KiB for 4-channel min+max, the least any device offers, so the "continue"
// flag of main() travels through sLo[0] rather than a variable of its own.)
//
// 8-bit RGBA / BGRA and B10G11R11 (one result image): level 1 of a regular block of stage 0
// (reduceRegularBlock: 32x32 texels, most of the shared-memory traffic) is held as packed halves,
// one 8-byte word pair a texel; every other level, and every level of the generic path, as fp32,
// two word pairs a texel. Both paths of a regular block read its level 1 from shared memory, so
// they still agree bit for bit, and the one rounding keeps the result within its bound: for 8-bit
// formats at most 2^-12 (0.0623 of a code; less in linear light for sRGB), so 0.0623 + 0.5 < 1
// code; for B10G11R11 (non-negative, at most 65024, exact in fp16) at most 2^-11 of the value,
// 1/16 of the 5- or 6-bit mantissa's unit at worst, so 1/16 + 1/2 < 1 unit. Min and max stay
// exact: rounding is monotonic, B10G11R11 values are exact in fp16, and an 8-bit value moves by
// less than half a code, so its store gives the same code back.
#if (defined(VKFX_FMT_rgba8) || defined(VKFX_FMT_bgra8) || defined(VKFX_FMT_r11g11b10f)) && !VKFX_MINMAX
#define VKFX_HALF_STAGE0 1
shared uvec2 sLo[kL1 * kL1 * 2];
#else
#define VKFX_HALF_STAGE0 0
shared VEC sLo[kL1 * kL1];
#endif
#if VKFX_MINMAX
shared VEC sHi[kL1 * kL1];
#endif

// --- chain geometry --------------------------------------------------------------------------

uvec2 levelExtent(uint k) { return max(pc.extent >> k, uvec2(1u)); }

// Footprint in level k of texel p of level k+1: first texel and count per axis.
uvec2 footprintCount(uvec2 p, uint k)
{
    uvec2 e = levelExtent(k);
    uvec2 n = levelExtent(k + 1u);
    uvec2 count = uvec2(2u);
    [[unroll]] for (int i = 0; i < 2; ++i) {
        if (e[i] == 1u) count[i] = 1u;
        else if ((e[i] & 1u) == 1u && p[i] == n[i] - 1u) count[i] = 3u;
    }
    return count;
}

// Texels of level base+k under block b (a texel of level base+6): [first, end).
void blockRange(uvec2 b, uint base, uint k, out uvec2 first, out uvec2 end)
{
    uint shift = kBlockLevels - k;
    uvec2 last = levelExtent(base + kBlockLevels) - 1u;
    first = b << shift;
    end = mix((b + 1u) << shift, levelExtent(base + k), equal(b, last));
}

// Extent of block b's texels of level base+k.
uvec2 blockSize(uvec2 b, uint base, uint k)
{
    uvec2 first, end;
    blockRange(b, base, k, first, end);
    return end - first;
}

// A block that is 64x64 at its input level halves exactly all the way: every footprint in it is
// 2x2 (edge blocks that fold odd leftovers are larger).
bool isRegular(uvec2 b, uint base)
{
    uvec2 first, end;
    blockRange(b, base, 0u, first, end);
    return all(equal(end - first, uvec2(kBlockSpan)));
}

// --- scratch -----------------------------------------------------------------------------------

uint dataOffset(uint level) { return level == kBlockLevels ? pc.dataOffset6 : pc.dataOffset12; }

uint dataIndex(uint level, uvec2 p, uint layer)
{
    uvec2 e = levelExtent(level);
    return dataOffset(level) + ((layer * e.y + p.y) * e.x + p.x) * kAccWords;
}

VEC loadVec(uint i)
{
#if VKFX_CHANNELS == 1
    return uintBitsToFloat(scratch.words[i]);
#elif VKFX_CHANNELS == 4
    return uintBitsToFloat(scratchQuads.quads[i / 4u]);
#elif VKFX_CHANNELS == 3
    return uintBitsToFloat(scratchQuads.quads[i / 4u].xyz);
#else
    VEC v;
    [[unroll]] for (int c = 0; c < VKFX_CHANNELS; ++c) v[c] = uintBitsToFloat(scratch.words[i + c]);
    return v;
#endif
}

void storeVec(uint i, VEC v)
{
#if VKFX_CHANNELS == 1
    scratch.words[i] = floatBitsToUint(v);
#elif VKFX_CHANNELS == 4
    scratchQuads.quads[i / 4u] = floatBitsToUint(v);
#elif VKFX_CHANNELS == 3
    scratchQuads.quads[i / 4u] = uvec4(floatBitsToUint(v), 0u);
#else
    [[unroll]] for (int c = 0; c < VKFX_CHANNELS; ++c) scratch.words[i + c] = floatBitsToUint(v[c]);
#endif
}

Acc loadPublished(uint level, uvec2 p, uint layer)
{
    uint i = dataIndex(level, p, layer);
#if VKFX_MINMAX
    return Acc(loadVec(i), loadVec(i + kVecWords));
#else
    return Acc(loadVec(i));
#endif
}

// Each published texel is read exactly once, by the group that continues; it zeroes the words
// after reading them, so that the whole scratch is zero again when the dispatch ends, whatever
// the next one's layout.
void clearPublished(uint level, uvec2 p, uint layer)
{
    uint i = dataIndex(level, p, layer);
#if VKFX_CHANNELS >= 3
    for (uint w = 0u; w < kAccWords; w += 4u) scratchQuads.quads[(i + w) / 4u] = uvec4(0u);
#else
    for (uint w = 0u; w < kAccWords; ++w) scratch.words[i + w] = 0u;
#endif
}

void publish(uint level, uvec2 p, uint layer, Acc a)
{
    uint i = dataIndex(level, p, layer);
#if VKFX_MINMAX
    storeVec(i, a.lo);
    storeVec(i + kVecWords, a.hi);
#else
    storeVec(i, a.v);
#endif
}

// --- destinations ------------------------------------------------------------------------------

vec4 encode(VEC v)
{
    vec4 c = VEC_TO4(v);
    return kSrgb ? srgbEncodeColor(c) : VKFX_ROUND(c);
}

#if VKFX_MINMAX
#define VKFX_STORE_B(i) imageStore(dstB[i], p, hi)
#else
#define VKFX_STORE_B(i)
#endif
#define VKFX_STORE_CASE(i)                                                                         \
    case i:                                                                                        \
        imageStore(dstA[i], p, lo);                                                                \
        VKFX_STORE_B(i);                                                                           \
        break;

void storeSlot(uint slot, ivec3 p, Acc a)
{
#if VKFX_MINMAX
    vec4 lo = encode(a.lo);
    vec4 hi = encode(a.hi);
#else
    vec4 lo = encode(a.v);
#endif
    // Constant indices (dynamic indexing of storage image arrays is an optional feature), behind
    // a switch on a uniform value: one branch, one store.
    switch (slot) {
        VKFX_STORE_CASE(0) VKFX_STORE_CASE(1) VKFX_STORE_CASE(2) VKFX_STORE_CASE(3)
        VKFX_STORE_CASE(4) VKFX_STORE_CASE(5) VKFX_STORE_CASE(6) VKFX_STORE_CASE(7)
        VKFX_STORE_CASE(8) VKFX_STORE_CASE(9) VKFX_STORE_CASE(10) VKFX_STORE_CASE(11)
        VKFX_STORE_CASE(12) VKFX_STORE_CASE(13) VKFX_STORE_CASE(14)
    }
}

void storeLevel(uint level, uvec2 p, uint layer, Acc a)
{
    if (level <= pc.levelCount) storeSlot(level - 1u + kCopyLevel0, ivec3(p, layer), a);
}

// --- shared memory -----------------------------------------------------------------------------

// Shared slot i: packed halves where `halves` (level 1 of a regular block of stage 0) and
// VKFX_HALF_STAGE0, else fp32.
void sharedStore(bool halves, uint i, Acc a)
{
#if VKFX_MINMAX
    sLo[i] = a.lo;
    sHi[i] = a.hi;
#elif VKFX_HALF_STAGE0
    vec4 v = VEC_TO4(a.v);
    if (halves) {
        sLo[i] = uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw));
    } else {
        sLo[2u * i] = floatBitsToUint(v.xy);
        sLo[2u * i + 1u] = floatBitsToUint(v.zw);
    }
#else
    sLo[i] = a.v;
#endif
}

Acc sharedLoad(bool halves, uint i)
{
#if VKFX_MINMAX
    return Acc(sLo[i], sHi[i]);
#elif VKFX_HALF_STAGE0
    if (halves) return Acc(VEC_FROM4(vec4(unpackHalf2x16(sLo[i].x), unpackHalf2x16(sLo[i].y))));
    return Acc(VEC_FROM4(vec4(uintBitsToFloat(sLo[2u * i]), uintBitsToFloat(sLo[2u * i + 1u]))));
#else
    return Acc(sLo[i]);
#endif
}

Acc shuffleXor(Acc a, uint mask)
{
#if VKFX_MINMAX
    return Acc(subgroupShuffleXor(a.lo, mask), subgroupShuffleXor(a.hi, mask));
#else
    return Acc(subgroupShuffleXor(a.v, mask));
#endif
}

// --- the reduction -----------------------------------------------------------------------------
//
// Every footprint is reduced in one order, whichever path computes it: each row left to right,
// then the row results top to bottom, then accFinish. For a 2x2 footprint that is (a.b).(c.d),
// which the subgroup butterfly computes exactly (the operators are commutative), so every path
// gives the same bits.

// The one reduction order for a 2x2 footprint a=(0,0) b=(1,0) c=(0,1) d=(1,1).
Acc reduce2x2(Acc a, Acc b, Acc c, Acc d)
{
    return accFinish(accCombine(accCombine(a, b), accCombine(c, d)), 4.0);
}

// The 2x2 reduction of four lanes {l, l^xMask, l^yMask, l^xMask^yMask} (x / y neighbours);
// every lane of the four gets the result.
Acc butterfly(Acc v, uint xMask, uint yMask)
{
    Acc row = accCombine(v, shuffleXor(v, xMask));
    return accFinish(accCombine(row, shuffleXor(row, yMask)), 4.0);
}

// Texel p of the block's input level `base`: the source image on the first step, published
// values above it. Reads are issued before any consumeInput, so that a footprint's reads are in
// flight together.
Acc readInput(uint base, uvec2 p, uint layer)
{
    if (base == 0u) return accInit(VEC_FROM4(fetchSource(ivec3(p, layer))));
    return loadPublished(base, p, layer);
}

// After readInput of texel p: copies level 0 out (depth pyramids) or zeroes the published value.
void consumeInput(uint base, uvec2 p, uint layer, Acc a)
{
    if (base == 0u) {
        if (kCopyLevel0 != 0u) storeSlot(0u, ivec3(p, layer), a);
    } else {
        clearPublished(base, p, layer);
    }
}

// Sampler coordinates of the 2x2 footprint of level-1 texel q: its centre, nudged by 2^-10 texel,
// so that the rounding of the coordinate (a few 2^-24 relative) can never move a bilinear weight
// off 1/2 nor gather wrong texels.
vec3 footprintCoord(uvec2 q, uint layer)
{
    vec2 centre = vec2(q * 2u + 1u) + 0.0009765625;
    return vec3(centre * pc.invExtent, float(layer));
}

// One sampler read of the 2x2 footprint of level-1 texel q (kOneReadPerFootprint).
vec4 sampleFootprint(uvec2 q, uint layer)
{
    vec3 uvw = footprintCoord(q, layer);
#if VKFX_PACKED_HALF
    return vec4(0.0); // (never called: four-channel gathers read through gatherLevel1Pair)
#else
    if (kReadMode == kReadGather) return textureGather(src, uvw, 0);
    return textureLod(src, uvw, 0.0);
#endif
}

#if VKFX_CHANNELS > 1
// Level-1 texel q of a regular block, kReadGather with several channels: one textureGather per
// channel of its footprint, issued for two texels together. (Edge blocks fetch: gathered and
// fetched texels are the same values.)
void gatherLevel1Pair(uvec2 q0, uvec2 q1, uint layer, out Acc r0, out Acc r1)
{
    vec4 g[2][VKFX_CHANNELS];
#if VKFX_PACKED_HALF
    [[unroll]] for (uint i = 0u; i < 2u; ++i) {
        vec3 uvw = footprintCoord(i == 0u ? q0 : q1, layer);
        uvec4 rg = textureGather(src, uvw, 0);
        uvec4 ba = textureGather(src, uvw, 1);
        [[unroll]] for (uint k = 0u; k < 4u; ++k) {
            vec4 v = unpackTexel(uvec2(rg[k], ba[k]));
            g[i][0][k] = v.x;
            g[i][1][k] = v.y;
            g[i][2][k] = v.z;
            g[i][3][k] = v.w;
        }
    }
#else
    [[unroll]] for (uint i = 0u; i < 2u; ++i) {
        vec3 uvw = footprintCoord(i == 0u ? q0 : q1, layer);
        g[i][0] = textureGather(src, uvw, 0);
        g[i][1] = textureGather(src, uvw, 1);
#if VKFX_CHANNELS > 2
        g[i][2] = textureGather(src, uvw, 2);
#endif
#if VKFX_CHANNELS > 3
        g[i][3] = textureGather(src, uvw, 3);
#endif
    }
#endif
    Acc r[2];
    [[unroll]] for (uint i = 0u; i < 2u; ++i) {
        // gathered components: x = texel (0,1), y = (1,1), z = (1,0), w = (0,0)
        VEC t[4];
        [[unroll]] for (uint c = 0u; c < VKFX_CHANNELS; ++c) {
            t[0][c] = g[i][c].w;
            t[1][c] = g[i][c].z;
            t[2][c] = g[i][c].x;
            t[3][c] = g[i][c].y;
        }
        if (kCopyLevel0 != 0u) {
            [[unroll]] for (uint j = 0u; j < 4u; ++j)
                storeSlot(0u, ivec3((i == 0u ? q0 : q1) * 2u + uvec2(j & 1u, j >> 1u), layer), accInit(t[j]));
        }
        r[i] = reduce2x2(accInit(t[0]), accInit(t[1]), accInit(t[2]), accInit(t[3]));
    }
    r0 = r[0];
    r1 = r[1];
}
#endif

// Level-1 texel q from sampleFootprint's result r; with `copy`, kCopyLevel0 and a gather, the
// footprint's four texels are also written into slot 0.
Acc level1Sampled(vec4 r, uvec2 q, uint layer, bool copy)
{
#if VKFX_CHANNELS == 1
    if (kReadMode == kReadGather) {
        // r = texels (0,1), (1,1), (1,0), (0,0) of the footprint
        if (kCopyLevel0 != 0u && copy) {
            ivec3 f = ivec3(q * 2u, layer);
            storeSlot(0u, f, accInit(r.w));
            storeSlot(0u, f + ivec3(1, 0, 0), accInit(r.z));
            storeSlot(0u, f + ivec3(0, 1, 0), accInit(r.x));
            storeSlot(0u, f + ivec3(1, 1, 0), accInit(r.y));
        }
        return reduce2x2(accInit(r.w), accInit(r.z), accInit(r.x), accInit(r.y));
    }
#endif
    return accInit(VEC_FROM4(r)); // the sampler averaged the footprint
}

// reduceLevel1 for a 2x2 footprint: the four reads issued together.
Acc reduceQuadLevel1(uint base, uvec2 q, uint layer)
{
    uvec2 f = q * 2u;
    Acc a = readInput(base, f, layer);
    Acc b = readInput(base, f + uvec2(1u, 0u), layer);
    Acc c = readInput(base, f + uvec2(0u, 1u), layer);
    Acc d = readInput(base, f + uvec2(1u, 1u), layer);
    consumeInput(base, f, layer, a);
    consumeInput(base, f + uvec2(1u, 0u), layer, b);
    consumeInput(base, f + uvec2(0u, 1u), layer, c);
    consumeInput(base, f + uvec2(1u, 1u), layer, d);
    Acc acc = reduce2x2(a, b, c, d);
    storeLevel(base + 1u, q, layer, acc);
    return acc;
}

// reduceQuadLevel1 for two texels at once: their eight reads issued together (one round trip).
void reduceQuadLevel1Pair(uint base, uvec2 q0, uvec2 q1, uint layer, out Acc r0, out Acc r1)
{
    Acc v[8];
    [[unroll]] for (uint j = 0u; j < 8u; ++j) {
        v[j] = readInput(base, (j < 4u ? q0 : q1) * 2u + uvec2(j & 1u, (j >> 1u) & 1u), layer);
    }
    [[unroll]] for (uint j = 0u; j < 8u; ++j) {
        consumeInput(base, (j < 4u ? q0 : q1) * 2u + uvec2(j & 1u, (j >> 1u) & 1u), layer, v[j]);
    }
    r0 = reduce2x2(v[0], v[1], v[2], v[3]);
    r1 = reduce2x2(v[4], v[5], v[6], v[7]);
    storeLevel(base + 1u, q0, layer, r0);
    storeLevel(base + 1u, q1, layer, r1);
}

// Texel q of level base+1, reduced from level base (and written out), in the one order. With
// kWindowReads all of its (up to 3x3) reads are issued together (H100, the odd edges of 2047^2,
// 3839x2159 and 1919x1080: 14-18% faster with reduceQuadLevel1Row), else a row's at a time.
Acc reduceLevel1(uint base, uvec2 q, uint layer)
{
    uvec2 n = footprintCount(q, base);
    uvec2 f = q * 2u;
    Acc acc;
    if (kWindowReads) {
        // The whole footprint's reads issued together: a 3x3 window clamped to it.
        Acc v[9];
        [[unroll]] for (uint j = 0u; j < 9u; ++j)
            v[j] = readInput(base, f + uvec2(min(j % 3u, n.x - 1u), min(j / 3u, n.y - 1u)), layer);
        [[unroll]] for (uint y = 0u; y < 3u; ++y) {
            if (y >= n.y) break;
            Acc row = v[3u * y];
            [[unroll]] for (uint x = 0u; x < 3u; ++x) {
                if (x >= n.x) break;
                consumeInput(base, f + uvec2(x, y), layer, v[3u * y + x]);
                if (x > 0u) row = accCombine(row, v[3u * y + x]);
            }
            acc = y == 0u ? row : accCombine(acc, row);
        }
        acc = accFinish(acc, float(n.x * n.y));
        storeLevel(base + 1u, q, layer, acc);
        return acc;
    }
    for (uint y = 0u; y < n.y; ++y) {
        Acc v[3];
        [[unroll]] for (uint x = 0u; x < 3u; ++x) v[x] = readInput(base, f + uvec2(min(x, n.x - 1u), y), layer);
        Acc row = v[0];
        [[unroll]] for (uint x = 0u; x < 3u; ++x) {
            if (x >= n.x) break;
            consumeInput(base, f + uvec2(x, y), layer, v[x]);
            if (x > 0u) row = accCombine(row, v[x]);
        }
        acc = y == 0u ? row : accCombine(acc, row);
    }
    acc = accFinish(acc, float(n.x * n.y));
    storeLevel(base + 1u, q, layer, acc);
    return acc;
}

// Level base+1 texels q .. q + (count - 1, 0) (count 1 to 3, every footprint 2x2), written out,
// combined left to right: one sampler read each on level 0 with kOneReadPerFootprint, all issued
// together, else a pair's eight reads together, then the third's four.
Acc reduceQuadLevel1Row(uint base, uvec2 q, uint count, uint layer)
{
    Acc row;
    if (base == 0u && kOneReadPerFootprint) {
        vec4 r[3];
        [[unroll]] for (uint j = 0u; j < 3u; ++j) r[j] = sampleFootprint(q + uvec2(min(j, count - 1u), 0u), layer);
        [[unroll]] for (uint j = 0u; j < 3u; ++j) {
            if (j >= count) break;
            Acc v = level1Sampled(r[j], q + uvec2(j, 0u), layer, true);
            storeLevel(base + 1u, q + uvec2(j, 0u), layer, v);
            row = j == 0u ? v : accCombine(row, v);
        }
        return row;
    }
    if (count == 1u) return reduceQuadLevel1(base, q, layer);
    Acc right;
    reduceQuadLevel1Pair(base, q, q + uvec2(1u, 0u), layer, row, right);
    row = accCombine(row, right);
    if (count > 2u) row = accCombine(row, reduceQuadLevel1(base, q + uvec2(2u, 0u), layer));
    return row;
}

// Texel p of level base+2, reduced through level base+1 (both written out). Where every
// footprint under p is 2x2, its 16 inputs are read together (four samples with the sampler read
// modes on level 0, the same reads and results as a regular block).
Acc reduceLevel2(uint base, uvec2 p, uint layer)
{
    uvec2 n = footprintCount(p, base + 1u);
    uvec2 f = p * 2u;
    Acc acc;
    bool interior = all(equal(n, uvec2(2u))) && all(equal(footprintCount(f + 1u, base), uvec2(2u)));
    if (base < 2u * kBlockLevels && interior) { // (stage 2 is a few texels: kept small)
        if (base == 0u && kOneReadPerFootprint) {
            vec4 r[4];
            [[unroll]] for (uint j = 0u; j < 4u; ++j) r[j] = sampleFootprint(f + uvec2(j & 1u, j >> 1u), layer);
            Acc l1[4];
            [[unroll]] for (uint j = 0u; j < 4u; ++j) {
                l1[j] = level1Sampled(r[j], f + uvec2(j & 1u, j >> 1u), layer, true);
                storeLevel(base + 1u, f + uvec2(j & 1u, j >> 1u), layer, l1[j]);
            }
            acc = reduce2x2(l1[0], l1[1], l1[2], l1[3]);
        } else {
            // A row of two level +1 texels at a time, from 8 reads issued together (all 16 at
            // once would raise the register count of the whole kernel).
            [[dont_unroll]] for (uint h = 0u; h < 2u; ++h) {
                Acc left, right;
                reduceQuadLevel1Pair(base, f + uvec2(0u, h), f + uvec2(1u, h), layer, left, right);
                Acc row = accCombine(left, right);
                acc = h == 0u ? row : accCombine(acc, row);
            }
            acc = accFinish(acc, 4.0);
        }
    } else if (!kWindowReads) {
        // Edges of odd levels on CPU drivers: one child at a time (one reduceLevel1 in the code,
        // which keeps their compile time down: lavapipe compiled RGBA8 kernels about 1.3x as long
        // with the rows below), in the one order.
        Acc row;
        for (uint i = 0u; i < n.x * n.y; ++i) {
            uvec2 d = uvec2(i % n.x, i / n.x);
            Acc v = reduceLevel1(base, f + d, layer);
            row = d.x == 0u ? v : accCombine(row, v);
            if (d.x == n.x - 1u) acc = d.y == 0u ? row : accCombine(acc, row);
        }
        acc = accFinish(acc, float(n.x * n.y));
    } else {
        // Edges of odd levels, a row of (up to 3) children at a time in the one order: the children
        // of a row whose footprints are 2x2 (only the last child of a level can be wider; a row
        // shares its height) have their reads issued together, the others go one at a time.
        for (uint y = 0u; y < n.y; ++y) {
            uvec2 c = f + uvec2(0u, y);
            Acc row;
            uvec2 last = footprintCount(c + uvec2(n.x - 1u, 0u), base);
            uint quads = last.y != 2u ? 0u : last.x == 2u ? n.x : n.x - 1u;
            if (quads > 0u) row = reduceQuadLevel1Row(base, c, quads, layer);
            for (uint x = quads; x < n.x; ++x) {
                Acc v = reduceLevel1(base, c + uvec2(x, 0u), layer);
                row = x == 0u ? v : accCombine(row, v);
            }
            acc = y == 0u ? row : accCombine(acc, row);
        }
        acc = accFinish(acc, float(n.x * n.y));
    }
    storeLevel(base + 2u, p, layer, acc);
    return acc;
}

// Morton order within a square tile: bit 2i of t is bit i of x, bit 2i+1 is bit i of y.
uvec2 mortonDecode(uint t)
{
    uvec2 p = uvec2(t, t >> 1) & 0x55u;
    p = (p | (p >> 1)) & 0x33u;
    p = (p | (p >> 2)) & 0x0Fu;
    return p;
}

// Texel q of level+1, reduced from level `level` held in shared memory (row-major from texel
// firstIn, widthIn texels wide, fp32 slots), in the one reduction order. Its (up to 3x3) reads are
// issued together, a 3x3 window clamped to the footprint, before any is combined: in loops over
// the footprint each read waited for the one before (H200, RGBA8 1920x1080 17.0 -> 15.3 us,
// 2047^2 35.9 -> 32.8, 1917x1079 29.6 -> 27.0; the edge blocks and the continuing groups' small
// levels run this). Where !kWindowReads, the loops instead.
Acc reduceShared(uint level, uvec2 q, uvec2 firstIn, uint widthIn)
{
    uvec2 n = footprintCount(q, level);
    uvec2 f = q * 2u - firstIn;
    if (!kWindowReads) {
        Acc acc;
        for (uint y = 0u; y < n.y; ++y) {
            uint i = (f.y + y) * widthIn + f.x;
            Acc row = sharedLoad(false, i);
            for (uint x = 1u; x < n.x; ++x) row = accCombine(row, sharedLoad(false, i + x));
            if (y == 0u) acc = row;
            else acc = accCombine(acc, row);
        }
        return accFinish(acc, float(n.x * n.y));
    }
    uint i0 = f.y * widthIn + f.x;
    Acc v[9];
    [[unroll]] for (uint j = 0u; j < 9u; ++j) {
        uint y = min(j / 3u, n.y - 1u), x = min(j % 3u, n.x - 1u);
        v[j] = sharedLoad(false, i0 + y * widthIn + x);
    }
    Acc acc;
    [[unroll]] for (uint y = 0u; y < 3u; ++y) {
        Acc row = v[3u * y];
        if (n.x > 1u) row = accCombine(row, v[3u * y + 1u]);
        if (n.x > 2u) row = accCombine(row, v[3u * y + 2u]);
        if (y == 0u) acc = row;
        else if (y < n.y) acc = accCombine(acc, row);
    }
    return accFinish(acc, float(n.x * n.y));
}

// reduceShared for a 2x2 footprint whose top-left texel is shared slot i (regular blocks).
Acc reduceShared2x2(bool halves, uint i, uint widthIn)
{
    return reduce2x2(sharedLoad(halves, i), sharedLoad(halves, i + 1u), sharedLoad(halves, i + widthIn),
                     sharedLoad(halves, i + widthIn + 1u));
}

// A regular block above stage 0 in the kAboveOnly pipeline, with full subgroups of 4 or more
// lanes: invocation t (its Morton position, numbered by subgroup and lane) reads the 4x4 published
// texels under its texel of level base+2 all at once and makes levels base+1 and base+2 in
// registers, then levels above by butterflies while a texel's children share a subgroup, and the
// rest in one subgroup where the level left has at most a subgroup's texels; the published
// texels are zeroed in rows (whole cache lines) once every invocation has read its own. Returns
// the level it leaves in shared memory (row-major over the block; level base+6 in slot 0).
uint reduceRegularAbove(uint base, uvec2 b, uint layer, uint lastLevel)
{
    uint t = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    uvec2 q2 = b * (kL1 / 2u) + mortonDecode(t); // texel of level base+2
    uvec2 f = q2 * 4u;
    Acc v[16];
    [[unroll]] for (uint j = 0u; j < 16u; ++j) v[j] = loadPublished(base, f + uvec2(j & 3u, j >> 2u), layer);
    Acc l1[4];
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        uint i = (j >> 1u) * 8u + (j & 1u) * 2u;
        l1[j] = reduce2x2(v[i], v[i + 1u], v[i + 4u], v[i + 5u]);
        storeLevel(base + 1u, q2 * 2u + uvec2(j & 1u, j >> 1u), layer, l1[j]);
    }
    Acc acc = reduce2x2(l1[0], l1[1], l1[2], l1[3]);
    storeLevel(base + 2u, q2, layer, acc);
    uint steps = 0u;
    [[unroll]] for (uint s = 0u; s < 3u; ++s) {
        uint span = 4u << (2u * s);
        if (span > gl_SubgroupSize || base + 3u + s > lastLevel) break;
        acc = butterfly(acc, span / 4u, span / 2u);
        steps = s + 1u;
        if ((t & (span - 1u)) == 0u) {
            uvec2 q = (b << (kBlockLevels - 3u - s)) + mortonDecode(t >> (2u * s + 2u));
            storeLevel(base + 3u + s, q, layer, acc);
        }
    }
    // Level base+2+steps (count texels) in shared memory: in Morton order where one subgroup
    // makes the levels above it alone (by butterflies, without further barriers), else row-major.
    uint count = 256u >> (2u * steps);
    bool oneSubgroup = count <= gl_SubgroupSize;
    if ((t & ((1u << (2u * steps)) - 1u)) == 0u) {
        uint m = t >> (2u * steps);
        uvec2 local = mortonDecode(m);
        sharedStore(false, oneSubgroup ? m : local.y * (16u >> steps) + local.x, acc);
    }
    // Every published texel of the block has been read (buffer semantics too: other invocations
    // zero texels this one read).
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease);
    uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint j = 0u; j < kBlockSpan * kBlockSpan / kGroupSize; ++j) {
        uint i = tid + j * kGroupSize;
        clearPublished(base, b * kBlockSpan + uvec2(i % kBlockSpan, i / kBlockSpan), layer);
    }
    if (!oneSubgroup) return base + 2u + steps;
    uint u = gl_SubgroupInvocationID;
    if (gl_SubgroupID == 0u && u < count) {
        acc = sharedLoad(false, u);
        [[unroll]] for (uint s = 0u; s < 3u; ++s) {
            uint span = 4u << (2u * s);
            if (span > count) break;
            acc = butterfly(acc, span / 4u, span / 2u);
            uint k = 3u + steps + s; // the level made, relative to base
            if ((u & (span - 1u)) == 0u)
                storeLevel(base + k, (b << (kBlockLevels - k)) + mortonDecode(u >> (2u * s + 2u)), layer, acc);
        }
        if (u == 0u) sharedStore(false, 0u, acc);
    }
    barrier();
    return base + kBlockLevels;
}

// Reduces block b (a texel of level base+6) and writes levels base+1 .. min(base+6, N).
// Leaves the level base+6 value in shared slot 0 (when base+6 <= N or the chain goes on).
void reduceBlock(uint base, uvec2 b, uint layer)
{
    uint tid = gl_LocalInvocationIndex;
    uint lastLevel = min(base + kBlockLevels, pc.levelCount);
    bool regular = isRegular(b, base);
    bool fullSubgroups = gl_NumSubgroups * gl_SubgroupSize == kGroupSize;
    uint level; // the level now held in shared memory, row-major over the block
    if (kAboveOnly && kUseSubgroups && regular && fullSubgroups && gl_SubgroupSize >= 4u) {
        level = reduceRegularAbove(base, b, layer, lastLevel);
    } else {
        if (regular) {
            // Level +1 (32x32) in four rounds of one 2x2 footprint per invocation: round j covers a
            // 16x16 quarter, and a subgroup reads a contiguous patch of the input.
            uvec2 first1 = b * kL1;
            uvec2 t16 = uvec2(tid % 16u, tid / 16u);
            if (base > 0u) {
                // A continuing group (published inputs): two rounds of two footprints, their eight
                // reads issued together (H200, RGBA8 8192^2 125.3 -> 124.3 us, 16384^2 434 -> 429).
                [[dont_unroll]] for (uint j = 0u; j < 4u; j += 2u) {
                    uvec2 l0 = t16 + uvec2(0u, j >> 1u) * 16u;
                    uvec2 l1 = l0 + uvec2(16u, 0u);
                    Acc a0, a1;
                    reduceQuadLevel1Pair(base, first1 + l0, first1 + l1, layer, a0, a1);
                    sharedStore(false, l0.y * kL1 + l0.x, a0);
                    sharedStore(false, l1.y * kL1 + l1.x, a1);
                }
            } else {
                [[dont_unroll]] for (uint j = 0u; j < 4u; ++j) {
                    uvec2 local = t16 + uvec2(j & 1u, j >> 1u) * 16u;
                    sharedStore(false, local.y * kL1 + local.x, reduceQuadLevel1(base, first1 + local, layer));
                }
            }
            level = base + 1u;
        } else if (kSpreadLevel1 && base > 0u && all(lessThanEqual(blockSize(b, base, 1u), uvec2(kL1)))) {
            // A block of a stage above 0 whose level +1 fits in shared memory (the odd 63x63 of a
            // 4095^2 chain, say): level +1 a texel per invocation and round, its reads issued
            // together where its footprint is 2x2, so that no invocation walks the odd corner's nine
            // footprints alone (H200, RGBA8: 3840x2160 35.3 -> 32.8 us, 4095^2 53.8 -> 50.7). Not in
            // one-channel kernels, whose stage 0 compiled slower with it (R32F min 1920x1080 14.7 ->
            // 15.7 us) while their published values are single words.
            uvec2 first1, end1;
            blockRange(b, base, 1u, first1, end1);
            uvec2 size1 = end1 - first1;
            uint count = size1.x * size1.y;
            for (uint i = tid; i < count; i += kGroupSize) {
                uvec2 q = first1 + uvec2(i % size1.x, i / size1.x);
                bool quad = all(equal(footprintCount(q, base), uvec2(2u)));
                sharedStore(false, i, quad ? reduceQuadLevel1(base, q, layer) : reduceLevel1(base, q, layer));
            }
            level = base + 1u;
        } else {
            uvec2 first2, end2;
            blockRange(b, base, 2u, first2, end2);
            uvec2 size2 = end2 - first2;
            uint count = size2.x * size2.y;
            // With kEdgeOrder, `odd` is 1 where the block's last column (row) of level +2 is not
            // interior (a child 3 wide, or one with a footprint 3 wide), and the loop takes the
            // interior texels (size2 - odd) row-major, then the last column's, then the last
            // row's. (One loop and one reduceLevel2 either way: a second copy in a branch that the
            // constant removes still took lavapipe 1.5x as long to compile.)
            uint innerCount = count, columnCount = 0u;
            uvec2 inner = size2;
            if (kEdgeOrder) {
                uvec2 last = end2 - 1u;
                uvec2 odd = uvec2(notEqual(footprintCount(last, base + 1u), uvec2(2u))) |
                            uvec2(notEqual(footprintCount(last * 2u + 1u, base), uvec2(2u)));
                inner = max(size2 - odd, uvec2(1u)); // (only to divide by while innerCount is 0)
                innerCount = (size2.x - odd.x) * (size2.y - odd.y);
                columnCount = odd.x * (size2.y - odd.y);
            }
            for (uint i = tid; i < count; i += kGroupSize) {
                uvec2 local = uvec2(i % size2.x, i / size2.x);
                uint slot = i;
                if (kEdgeOrder) {
                    uint j = i - innerCount;
                    local = i < innerCount   ? uvec2(i % inner.x, i / inner.x)
                            : j < columnCount ? uvec2(size2.x - 1u, j)
                                              : uvec2(j - columnCount, size2.y - 1u);
                    slot = local.y * size2.x + local.x;
                }
                sharedStore(false, slot, reduceLevel2(base, first2 + local, layer));
            }
            level = base + 2u;
        }
        barrier();

        // With full subgroups, level +2 of a regular block is reduced from shared memory by
        // invocation t = its Morton position (t numbered by subgroup and lane: no assumption about
        // how local invocation indices map to lanes), and the levels above by butterflies while a
        // texel's children share a subgroup.
        if (kUseSubgroups && regular && fullSubgroups && gl_SubgroupSize >= 4u && level < lastLevel) {
            uint t = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
            uvec2 local = mortonDecode(t);
            uvec2 q = b * (kL1 / 2u) + local;
            uvec2 f = local * 2u;
            Acc acc = reduceShared2x2(false, f.y * kL1 + f.x, kL1);
            storeLevel(base + 2u, q, layer, acc);
            // Unrolled with constant levels (relative to base), so that each store's view is known.
            uint steps = 0u;
            [[unroll]] for (uint s = 0u; s < 3u; ++s) {
                uint span = 4u << (2u * s);
                if (span > gl_SubgroupSize || base + 3u + s > lastLevel) break;
                acc = butterfly(acc, span / 4u, span / 2u);
                steps = s + 1u;
                if ((t & (span - 1u)) == 0u) {
                    uvec2 q = (b << (kBlockLevels - 3u - s)) + mortonDecode(t >> (2u * s + 2u));
                    storeLevel(base + 3u + s, q, layer, acc);
                }
            }
            level = base + 2u + steps;
            barrier(); // every read of level +1 from shared memory is done
            if ((t & ((1u << (2u * steps)) - 1u)) == 0u) {
                uvec2 local = mortonDecode(t >> (2u * steps));
                sharedStore(false, local.y * (16u >> steps) + local.x, acc);
            }
            barrier();
        }
    }

    // Remaining levels through shared memory, one texel per invocation (at most 16x16); unrolled
    // with constant levels (relative to base) so that each store's view is known.
    [[unroll]] for (uint k = 1u; k < kBlockLevels; ++k) {
        uint from = base + k;
        if (from < level || from >= lastLevel) continue;
        uvec2 firstIn, endIn, firstOut, endOut;
        blockRange(b, base, k, firstIn, endIn);
        blockRange(b, base, k + 1u, firstOut, endOut);
        uvec2 sizeOut = endOut - firstOut;
        bool owner = tid < sizeOut.x * sizeOut.y;
        Acc acc;
        uvec2 q;
        if (owner) {
            q = firstOut + uvec2(tid % sizeOut.x, tid / sizeOut.x);
            uint widthIn = endIn.x - firstIn.x;
            uvec2 f = q * 2u - firstIn;
            acc = regular ? reduceShared2x2(false, f.y * widthIn + f.x, widthIn)
                          : reduceShared(from, q, firstIn, widthIn);
        }
        barrier();
        if (owner) {
            sharedStore(false, tid, acc);
            storeLevel(from + 1u, q, layer, acc);
        }
        barrier();
    }
}

// Reduces block b of input level `base` (a stage above 0) when its published texels fit in
// shared memory (at most kL1 * kL1, so every level above has at most 256): reads them all at once
// (up to four per invocation), then makes each level from the one below in shared memory. One
// loop for every level (stores pick their view at run time), which keeps the code small.
// Writes levels base+1 .. min(base+6, N); leaves the level base+6 value in shared slot 0.
void reduceSmallBlock(uint base, uvec2 b, uint layer)
{
    uint tid = gl_LocalInvocationIndex;
    uvec2 first, end;
    blockRange(b, base, 0u, first, end);
    uvec2 size = end - first;
    uint count = size.x * size.y;
    Acc v[4];
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        uint i = min(tid + j * kGroupSize, count - 1u);
        v[j] = loadPublished(base, first + uvec2(i % size.x, i / size.x), layer);
    }
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        uint i = tid + j * kGroupSize;
        if (i < count) {
            clearPublished(base, first + uvec2(i % size.x, i / size.x), layer);
            sharedStore(false, i, v[j]);
        }
    }
    barrier();
    uint lastLevel = min(base + kBlockLevels, pc.levelCount);
    [[dont_unroll]] for (uint from = base; from < lastLevel; ++from) {
        uvec2 firstIn, endIn, firstOut, endOut;
        blockRange(b, base, from - base, firstIn, endIn);
        blockRange(b, base, from - base + 1u, firstOut, endOut);
        uvec2 sizeOut = endOut - firstOut;
        bool owner = tid < sizeOut.x * sizeOut.y;
        Acc acc;
        uvec2 q;
        if (owner) {
            q = firstOut + uvec2(tid % sizeOut.x, tid / sizeOut.x);
            acc = reduceShared(from, q, firstIn, endIn.x - firstIn.x);
        }
        barrier();
        if (owner) {
            sharedStore(false, tid, acc);
            storeLevel(from + 1u, q, layer, acc);
        }
        barrier();
    }
}

// --- regular blocks of stage 0 ------------------------------------------------------------------
//
// A regular block of stage 0 (64x64 texels of level 0, every footprint 2x2) when the chain has
// at least 6 levels: every level and view is a constant here. Level 1 is made as four 2x2
// footprints per invocation (one per 16x16 quarter, so that a subgroup reads a contiguous patch):
// four sampler reads issued together - the next regular block's as soon as this one has made
// level 1, so that they are in flight during its levels 2..6 (RGBA8 8192^2 on an H200: 147 -> 129
// us) - or two rounds of two footprints' texelFetch or per-channel gathers.

// Depth pyramids that copy level 0, regular blocks, gathered footprints: where subgroups are
// full and at least 4 wide, a subgroup's invocations hold consecutive footprints of each round
// (roundInvocation), pass them on through sCopy, and write the subgroup's patch of level 0 (under
// its footprints, 16 a row) in runs of 4x2 texels, each run by 8 lanes of one store: whole
// 32-byte sectors of a 4-byte format in a block-linear image (16 bytes x 2 rows). Each invocation
// storing its own footprint instead writes every other texel of 2 rows a store. H200, D32 depth
// attachment -> R32F min pyramid (vkfx-bench), median us, own footprint / this: 1920x1080 24.0 /
// 21.4, 2560x1440 28.7 / 25.2, 3840x2160 50.6 / 47.0, 4096^2 78.4 / 70.4, 8192^2 260.6 / 225.3
// (the same stores with the wrong texels and no exchange: 18.8, 24.0, 45.0, 67.0, 221). A store's
// place found by division by the subgroup size (not a constant here) instead of shifts: 4096^2
// 96.2, slower than before; four subgroupShuffle a round and those divisions, 141
// (docs/downsample-performance.md v47, v48).
#if VKFX_CHANNELS == 1
shared vec4 sCopy[kCopyLevel0 * (kGroupSize - 1u) + 1u];
#endif
bool sortedCopy()
{
    return VKFX_CHANNELS == 1 && kCopyLevel0 != 0u && kReadMode == kReadGather && kUseSubgroups &&
           gl_NumSubgroups * gl_SubgroupSize == kGroupSize && gl_SubgroupSize >= 4u;
}

// The invocation's place in the rounds of a regular block (0..255): numbered by subgroup and lane
// for sortedCopy (no assumption about how local invocation indices map to lanes), else its index.
uint roundInvocation()
{
    return sortedCopy() ? gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID : gl_LocalInvocationIndex;
}

// Level-1 texel of round j (0..3: the 16x16 quarter) of invocation t (roundInvocation) in regular
// block b.
uvec2 roundTexelOf(uvec2 b, uint j, uint t)
{
    return b * kL1 + uvec2(t % 16u, t / 16u) + uvec2(j & 1u, j >> 1u) * 16u;
}
uvec2 roundTexel(uvec2 b, uint j) { return roundTexelOf(b, j, roundInvocation()); }

#if VKFX_CHANNELS == 1
// Texel n (0 .. 4 x lanes - 1) of a subgroup's patch of level 0 in the order copyLevel0Sorted
// writes it: runs of 4x2 texels (8 lanes a run: x from bits 0 and 2 of n, y from bit 1), 2^rowLog
// runs a row. Bitwise in n: texel (i x lanes + L) = texel (i x lanes) + texel L.
uvec2 copyTexel(uint n, uint rowLog)
{
    uint run = n >> 3u;
    return uvec2(((run & ((1u << rowLog) - 1u)) << 2u) | (n & 1u) | ((n >> 1u) & 2u),
                 ((run >> rowLog) << 1u) | ((n >> 1u) & 1u));
}

// Writes level 0 under the subgroup's footprints of round j of regular block b (sortedCopy); r:
// this invocation's gather (texels (0,1), (1,1), (1,0), (0,0) of its footprint). Lane L's store i
// writes texel copyTexel(i x lanes + L), read from the footprint of the lane that gathered it.
void copyLevel0Sorted(vec4 r, uvec2 b, uint j, uint layer)
{
    uint lanes = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
    uint lanesLog = uint(findLSB(lanes));
    uint rowLog = min(lanesLog, 4u) - 1u; // runs a row of the patch: half its footprints a row
    uint first = gl_SubgroupID << lanesLog;
    // sCopy is the subgroup's alone: a barrier of the subgroup on shared memory orders the last
    // round's reads before these writes, and these writes before the reads below.
    controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
    sCopy[first + lane] = vec4(r.w, r.z, r.x, r.y); // texels (0,0), (1,0), (0,1), (1,1)
    controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
    uvec2 origin = roundTexelOf(b, j, first) * 2u;
    uvec2 mine = copyTexel(lane, rowLog);
    uint c = lane & 3u; // = (mine.x & 1) + 2 (mine.y & 1), the same in every store
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        uvec2 p = mine + copyTexel(i << lanesLog, rowLog);
        storeSlot(0u, ivec3(origin + p, layer), accInit(sCopy[first + (p.x >> 1u) + ((p.y >> 1u) << 4u)][c]));
    }
}
#endif

// Level k (2..6, a constant) of regular block b from level k-1 in shared memory (row-major,
// 2 * (64 >> k) wide), one texel per invocation; leaves level k in shared memory the same way.
void sharedLevel(uint k, uvec2 b, uint layer)
{
    uint widthOut = kBlockSpan >> k;
    uint tid = gl_LocalInvocationIndex;
    bool owner = tid < widthOut * widthOut;
    uvec2 q = uvec2(tid % widthOut, tid / widthOut);
    Acc acc;
    if (owner) acc = reduceShared2x2(k == 2u, q.y * 4u * widthOut + q.x * 2u, widthOut * 2u);
    barrier();
    if (owner) {
        sharedStore(false, tid, acc);
        storeSlot(k - 1u + kCopyLevel0, ivec3((b << (kBlockLevels - k)) + q, layer), acc);
    }
    barrier();
}

// Writes levels 1..6 of regular block b (stage 0); leaves level 6 in shared slot 0.
// The sampler reads of regular block b (sampler read modes), issued together.
void sampleBlock(uvec2 b, uint layer, out vec4 r[4])
{
    [[unroll]] for (uint j = 0u; j < 4u; ++j) r[j] = sampleFootprint(roundTexel(b, j), layer);
}

// r: block b's sampler reads (sampler read modes); when hasNext, replaced by block next's, issued
// once level 1 of b is made (their latency then overlaps levels 2..6 of b).
void reduceRegularBlock(uvec2 b, uint layer, inout vec4 r[4], bool hasNext, uvec2 next)
{
    if (kReadMode == kReadFetch) {
        // Two rounds of two footprints per invocation, their eight reads issued together.
        [[dont_unroll]] for (uint j = 0u; j < 4u; j += 2u) {
            uvec2 q0 = roundTexel(b, j);
            uvec2 q1 = roundTexel(b, j + 1u);
            Acc a0, a1;
            reduceQuadLevel1Pair(0u, q0, q1, layer, a0, a1);
            uvec2 l0 = q0 - b * kL1;
            uvec2 l1 = q1 - b * kL1;
            sharedStore(true, l0.y * kL1 + l0.x, a0);
            sharedStore(true, l1.y * kL1 + l1.x, a1);
        }
#if VKFX_CHANNELS > 1
    } else if (kReadMode == kReadGather) {
        // Two rounds of two footprints per invocation, one textureGather per channel each.
        [[dont_unroll]] for (uint j = 0u; j < 4u; j += 2u) {
            uvec2 q0 = roundTexel(b, j);
            uvec2 q1 = roundTexel(b, j + 1u);
            Acc a0, a1;
            gatherLevel1Pair(q0, q1, layer, a0, a1);
            storeSlot(kCopyLevel0, ivec3(q0, layer), a0);
            storeSlot(kCopyLevel0, ivec3(q1, layer), a1);
            uvec2 l0 = q0 - b * kL1;
            uvec2 l1 = q1 - b * kL1;
            sharedStore(true, l0.y * kL1 + l0.x, a0);
            sharedStore(true, l1.y * kL1 + l1.x, a1);
        }
#endif
    } else {
        bool sorted = sortedCopy();
        [[unroll]] for (uint j = 0u; j < 4u; ++j) {
            uvec2 q = roundTexel(b, j);
            Acc acc = level1Sampled(r[j], q, layer, !sorted);
#if VKFX_CHANNELS == 1
            if (sorted) copyLevel0Sorted(r[j], b, j, layer);
#endif
            storeSlot(kCopyLevel0, ivec3(q, layer), acc);
            uvec2 local = q - b * kL1;
            sharedStore(true, local.y * kL1 + local.x, acc);
        }
        if (hasNext) sampleBlock(next, layer, r);
    }
    barrier();

    bool fullSubgroups = gl_NumSubgroups * gl_SubgroupSize == kGroupSize;
    if (kUseSubgroups && fullSubgroups && gl_SubgroupSize >= 16u) {
        // Level 2 by invocation t = its Morton position (numbered by subgroup and lane: no
        // assumption about how local invocation indices map to lanes), levels 3 and 4 by
        // butterflies inside 16 lanes, then levels 5 and 6 through shared memory.
        uint t = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
        uvec2 m = mortonDecode(t);
        Acc acc = reduceShared2x2(true, m.y * 2u * kL1 + m.x * 2u, kL1);
        storeSlot(1u + kCopyLevel0, ivec3(b * 16u + m, layer), acc);
        acc = butterfly(acc, 1u, 2u);
        if ((t & 3u) == 0u) storeSlot(2u + kCopyLevel0, ivec3(b * 8u + mortonDecode(t >> 2u), layer), acc);
        acc = butterfly(acc, 4u, 8u);
        uvec2 m4 = mortonDecode(t >> 4u);
        if ((t & 15u) == 0u) storeSlot(3u + kCopyLevel0, ivec3(b * 4u + m4, layer), acc);
        barrier(); // every read of level 1 is done
        if ((t & 15u) == 0u) sharedStore(false, m4.y * 4u + m4.x, acc);
        barrier();
    } else {
        sharedLevel(2u, b, layer);
        sharedLevel(3u, b, layer);
        sharedLevel(4u, b, layer);
    }
    sharedLevel(5u, b, layer);
    sharedLevel(6u, b, layer);
}

// --- tickets -------------------------------------------------------------------------------------

// Adds `count` arrivals (published level-6k texels, k = stage + 1) to the counter of block
// `parent`; true (in every invocation) for the group that completes it, which resets the counter.
bool takeTicket(uint stage, uvec2 parent, uint layer, uint count)
{
    uint top = (stage + 1u) * kBlockLevels;
    if (gl_LocalInvocationIndex == 0u) {
        uvec2 first, end;
        blockRange(parent, top, 0u, first, end);
        uvec2 size = end - first;
        uvec2 parents = levelExtent(top + kBlockLevels);
        uint counter = (stage == 0u ? pc.counterOffset1 : pc.counterOffset2) +
                       (layer * parents.y + parent.y) * parents.x + parent.x;
        uint arrived = atomicAdd(scratch.words[counter], count, gl_ScopeDevice,
                                 gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
        bool last = arrived + count == size.x * size.y;
        if (last) {
            atomicStore(scratch.words[counter], 0u, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                        gl_SemanticsRelaxed);
        }
#if VKFX_HALF_STAGE0
        sLo[0] = uvec2(last ? 1u : 0u);
#else
        sLo[0] = VEC(last ? 1.0 : 0.0);
#endif
    }
    // Workgroup scope is enough here: invocation 0's device-scope acquire (the ticket) plus
    // this barrier order the others' Coherent scratch reads after every producer's release.
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,
                   gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease);
#if VKFX_HALF_STAGE0
    bool goOn = sLo[0].x == 1u;
#else
    bool goOn = sLo[0] == VEC(1.0);
#endif
    barrier(); // everyone has read the flag before the next block overwrites sLo
    return goOn;
}

// Publishes the value in shared slot 0 as texel `block` of level `level` (invocation 0).
void publishShared(uint level, uvec2 block, uint layer)
{
    if (gl_LocalInvocationIndex == 0u) publish(level, block, layer, sharedLoad(false, 0u));
}

// Which blocks a workgroup holds. Edge blocks (the bottom row and the right column, which fold
// odd leftovers and take the generic path) get a workgroup each, and those come first in dispatch
// order, the bottom-right corner first of all, so that they start in the first wave instead of
// finishing last. The regular blocks inside them are held one each, two side by side or a 2x2 to
// a workgroup (pc.shape: fewer workgroups, fewer tickets, and the next block's reads in flight
// during a block). Returns the first block; the group holds blocks first + (k & 1, k >> 1),
// k < blocksHere, that are below `bound` (none for the dispatch's spare groups).
uvec2 groupBlocks(out uvec2 bound, out uint blocksHere)
{
    uvec2 blocks = levelExtent(kBlockLevels);
    uvec2 edge = uvec2(notEqual(pc.extent, blocks << kBlockLevels));
    uvec2 shift = uvec2(pc.shape != 0u ? 1u : 0u, pc.shape == 1u ? 1u : 0u);
    blocksHere = 1u << (shift.x + shift.y);
    bound = blocks;
    if (!any(bvec2(edge))) return gl_WorkGroupID.xy << shift;
    uvec2 inner = blocks - edge; // regular blocks per axis
    uint i = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint inRow = edge.y * blocks.x;
    uint inColumn = edge.x * inner.y;
    if (i < inRow + inColumn) {
        blocksHere = 1u;
        return i < inRow ? uvec2(blocks.x - 1u - i, blocks.y - 1u)
                         : uvec2(blocks.x - 1u, inner.y - 1u - (i - inRow));
    }
    i -= inRow + inColumn;
    bound = inner;
    uint width = (inner.x + shift.x) >> shift.x;
    return uvec2(i % width, i / width) << shift; // past `inner` for the spare groups
}

// Workgroup (i, j, layer) reduces the blocks groupBlocks() names and takes one ticket for all of
// them (kWhole), or only publishes their level-6 texels (kStage0); in a kAbove dispatch it is
// stage-1 block (i, j) of layer `layer` instead, all of whose inputs are published. Each stage is
// called with a constant base, so that every store goes to a view the compiler knows.
void main()
{
    uint layer = gl_WorkGroupID.z;
    uvec2 parent; // the stage-1 block this group goes on with
    // (The host binds the kAboveOnly pipeline for every kAbove dispatch; the whole kernel keeps the
    // test of pc.split because without it the NVIDIA compiler built stage 0 differently: H200, R32F
    // min 4096^2 37.4 -> 39.4 us.)
    if (kAboveOnly || pc.split == kAbove) {
        parent = gl_WorkGroupID.xy;
    } else {
        uvec2 bound;
        uint blocksHere;
        uvec2 first = groupBlocks(bound, blocksHere);
        bool chainGoesOn = pc.levelCount > kBlockLevels;
        bool fast = pc.levelCount >= kBlockLevels;

        // Regular blocks first, then the others: the generic code of edge blocks runs with
        // nothing of the regular path live, which keeps the register count low.
        uint count = 0u;
        uint edges = 0u;   // bit k: block k takes the generic path
        uint regular = 0u; // bit k: block k is regular
        for (uint k = 0u; k < blocksHere; ++k) {
            uvec2 b = first + uvec2(k & 1u, k >> 1u);
            if (any(greaterThanEqual(b, bound))) continue;
            ++count;
            if (!fast || !isRegular(b, 0u)) edges |= 1u << k;
            else regular |= 1u << k;
        }
        if (count == 0u) return; // a spare group of the dispatch
        bool used = false; // shared memory holds a block's data
        vec4 r[4];
        if (kOneReadPerFootprint && regular != 0u) {
            uint k = uint(findLSB(regular));
            sampleBlock(first + uvec2(k & 1u, k >> 1u), layer, r);
        }
        [[dont_unroll]] while (regular != 0u) {
            uint k = uint(findLSB(regular));
            regular &= regular - 1u;
            uint n = uint(findLSB(regular)); // (when regular is now 0: unused)
            bool hasNext = kOneReadPerFootprint && regular != 0u;
            uvec2 b = first + uvec2(k & 1u, k >> 1u);
            if (used) barrier(); // the previous block's last reads of shared memory are done
            used = true;
            reduceRegularBlock(b, layer, r, hasNext, first + uvec2(n & 1u, n >> 1u));
            if (chainGoesOn) publishShared(kBlockLevels, b, layer);
        }
        [[dont_unroll]] for (uint k = 0u; k < 4u; ++k) {
            if ((edges & (1u << k)) == 0u) continue;
            uvec2 b = first + uvec2(k & 1u, k >> 1u);
            if (used) barrier();
            used = true;
            reduceBlock(0u, b, layer);
            if (chainGoesOn) publishShared(kBlockLevels, b, layer);
        }
        // (A kStage0 group returns with the same code as kWhole: a runtime test costs nothing
        // measurable, where a specialization would take a pipeline of its own.)
        if (!chainGoesOn || pc.split == kStage0) return;

        parent = min(first >> kBlockLevels, levelExtent(2u * kBlockLevels) - 1u);
        if (!takeTicket(0u, parent, layer, count)) return;
    }
    uvec2 firstP, endP;
    blockRange(parent, kBlockLevels, 0u, firstP, endP);
    uvec2 sizeP = endP - firstP;
    if (sizeP.x * sizeP.y <= kL1 * kL1) reduceSmallBlock(kBlockLevels, parent, layer);
    else reduceBlock(kBlockLevels, parent, layer);
    if (pc.levelCount <= 2u * kBlockLevels) return;

    uvec2 block = parent;
    parent = min(block >> kBlockLevels, levelExtent(3u * kBlockLevels) - 1u);
    publishShared(2u * kBlockLevels, block, layer);
    if (!takeTicket(1u, parent, layer, 1u)) return;
    // At most 15 levels (kMaxOutputs): this stage is the last, and level 12 is at most 15x15
    // texels, which fit in shared memory.
    reduceSmallBlock(2u * kBlockLevels, parent, layer);
}
