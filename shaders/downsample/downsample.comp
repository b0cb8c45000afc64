#version 460
// Single-pass downsampler: every level of a mip chain, for every array layer, in one dispatch.
//
// The chain. Level 0 is the source (a sampled view); level k+1 has the extent max(1, e_k / 2)
// (Vulkan's mip sizes). Texel x of level k+1 reduces texels 2x and 2x+1 of level k, and also 2x+2
// when it is the last texel and e_k is odd (the odd edge folds into the last texel); when e_k is
// 1 it reduces texel 0 alone. The same holds for y. Levels 1..N are written, level k to destination
// slot k - 1 + pc.copyLevel0 (a depth pyramid may also copy level 0 into slot 0).
//
// The work. Level 6 of the chain partitions level 0 into blocks: block (I, J) is everything under
// level-6 texel (I, J) - 64x64 texels, or up to 127x127 on the right and bottom edges, where the
// last texel folds in the rest. A workgroup reduces one block to one level-6 texel, writing
// levels 1..6 on the way. When the chain goes on, the group publishes its level-6 value (fp32) in
// the scratch buffer and takes a ticket from the counter of the level-12 block that contains it;
// the last group to arrive there reduces that block (levels 7..12) from the published values,
// and so on up a tree of counters - so any extent takes one dispatch.
//
// Memory model: the published values and the counters live in a Coherent buffer (device-scope
// availability and visibility); the counter increment is a device-scope AcquireRelease atomic, so
// it releases the writer's value and, for the last group, acquires everyone's; a workgroup-scope
// acquire-release control barrier then orders the whole group's reads after it. That group resets the
// counter and zeroes what it read, so the scratch is all zero again for the next dispatch.
// (The module keeps the GLSL450 memory model, whose Coherent and explicit-semantics atomics the
// Vulkan memory model defines: Mesa 22's lavapipe drops image stores in modules that declare
// VulkanMemoryModel.)

// Inside a block, levels +1 and +2 are computed per invocation straight from level +0 (each
// invocation owns one or more texels of level +2), then levels +3..+6 from shared memory. On
// interior blocks, when the subgroups are full, the first of those levels are reduced with
// subgroup shuffles instead; both paths reduce every footprint in the same order, so the results
// are identical.


#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_samplerless_texture_functions : require
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
const uint kMaxL2 = 31u;          // widest block at input level + 2 (edge blocks fold up to 31)
const uint kAccWords = VKFX_CHANNELS * (1 + VKFX_MINMAX); // scratch words per published texel

layout(local_size_x = 256) in;

layout(constant_id = 1) const bool kUseSubgroups = true;
layout(constant_id = 2) const bool kSrgb = false;

layout(set = 0, binding = 0) uniform texture2DArray src;
VKFX_DST_LAYOUT(1) uniform writeonly image2DArray dstA[kMaxOutputs];
#if VKFX_MINMAX
VKFX_DST_LAYOUT(2) uniform writeonly image2DArray dstB[kMaxOutputs];
#endif
layout(set = 0, binding = 3) coherent buffer Scratch { uint words[]; } scratch;

layout(push_constant) uniform Push {
    uvec2 extent;          // chain level 0
    uint levelCount;       // N: last chain level written
    uint copyLevel0;       // 1: level 0 is also copied into slot 0
    uint counterOffset1;   // scratch words: counters of the level-12 blocks, all layers
    uint counterOffset2;   // counters of the level-18 blocks
    uint dataOffset6;      // published level-6 texels, all layers
    uint dataOffset12;     // published level-12 texels
} pc;

shared VEC sLo[kMaxL2 * kMaxL2];
#if VKFX_MINMAX
shared VEC sHi[kMaxL2 * kMaxL2];
#endif
shared bool sContinue;

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
#else
    [[unroll]] for (int c = 0; c < VKFX_CHANNELS; ++c) scratch.words[i + c] = floatBitsToUint(v[c]);
#endif
}

// Each published texel is read exactly once, by the group that continues; it zeroes the words
// so that the whole scratch is zero again when the dispatch ends, whatever the next one's layout.
Acc loadPublished(uint level, uvec2 p, uint layer)
{
    uint i = dataIndex(level, p, layer);
#if VKFX_MINMAX
    Acc a = Acc(loadVec(i), loadVec(i + VKFX_CHANNELS));
#else
    Acc a = Acc(loadVec(i));
#endif
    for (uint w = 0u; w < kAccWords; ++w) scratch.words[i + w] = 0u;
    return a;
}

void publish(uint level, uvec2 p, uint layer, Acc a)
{
    uint i = dataIndex(level, p, layer);
#if VKFX_MINMAX
    storeVec(i, a.lo);
    storeVec(i + VKFX_CHANNELS, a.hi);
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
    if (level <= pc.levelCount) storeSlot(level - 1u + pc.copyLevel0, ivec3(p, layer), a);
}

// --- shared memory -----------------------------------------------------------------------------

void sharedStore(uint i, Acc a)
{
#if VKFX_MINMAX
    sLo[i] = a.lo;
    sHi[i] = a.hi;
#else
    sLo[i] = a.v;
#endif
}

Acc sharedLoad(uint i)
{
#if VKFX_MINMAX
    return Acc(sLo[i], sHi[i]);
#else
    return Acc(sLo[i]);
#endif
}

Acc shuffle(Acc a, uint lane)
{
#if VKFX_MINMAX
    return Acc(subgroupShuffle(a.lo, lane), subgroupShuffle(a.hi, lane));
#else
    return Acc(subgroupShuffle(a.v, lane));
#endif
}

// --- the reduction -----------------------------------------------------------------------------

// Texel p of the block's input level `base`: the source image on the first step, published
// values above it.
Acc loadInput(uint base, uvec2 p, uint layer)
{
    Acc a;
    if (base == 0u) {
        VEC v = VEC_FROM4(texelFetch(src, ivec3(p, layer), 0));
        if (pc.copyLevel0 != 0u) storeSlot(0u, ivec3(p, layer), accInit(v));
        a = accInit(v);
    } else {
        a = loadPublished(base, p, layer);
    }
    return a;
}

// Texel q of level base+1, reduced from level base (and written out).
Acc reduceLevel1(uint base, uvec2 q, uint layer)
{
    uvec2 n = footprintCount(q, base);
    uvec2 f = q * 2u;
    Acc acc = loadInput(base, f, layer);
    for (uint y = 0u; y < n.y; ++y)
        for (uint x = (y == 0u ? 1u : 0u); x < n.x; ++x)
            acc = accCombine(acc, loadInput(base, f + uvec2(x, y), layer));
    acc = accFinish(acc, float(n.x * n.y));
    storeLevel(base + 1u, q, layer, acc);
    return acc;
}

// Texel p of level base+2, reduced through level base+1 (both written out).
Acc reduceLevel2(uint base, uvec2 p, uint layer)
{
    uvec2 n = footprintCount(p, base + 1u);
    uvec2 f = p * 2u;
    Acc acc = reduceLevel1(base, f, layer);
    for (uint y = 0u; y < n.y; ++y)
        for (uint x = (y == 0u ? 1u : 0u); x < n.x; ++x)
            acc = accCombine(acc, reduceLevel1(base, f + uvec2(x, y), layer));
    acc = accFinish(acc, float(n.x * n.y));
    storeLevel(base + 2u, p, layer, acc);
    return acc;
}

// Morton order within a 16x16 tile: bit 2i of t is bit i of x, bit 2i+1 is bit i of y.
uvec2 mortonDecode(uint t)
{
    uvec2 p = uvec2(t, t >> 1) & 0x55u;
    p = (p | (p >> 1)) & 0x33u;
    p = (p | (p >> 2)) & 0x0Fu;
    return p;
}

// Reduces block b (a texel of level base+6) and writes levels base+1 .. min(base+6, N).
// Leaves the level base+6 value in shared slot 0 (when base+6 <= N or the chain goes on).
void reduceBlock(uint base, uvec2 b, uint layer)
{
    uint tid = gl_LocalInvocationIndex;
    uint lastLevel = min(base + kBlockLevels, pc.levelCount);
    uvec2 first2, end2;
    blockRange(b, base, 2u, first2, end2);
    uvec2 size2 = end2 - first2;

    // Interior blocks are 16x16 at level +2 with 2x2 footprints above it; with full subgroups,
    // invocation t owns the texel at Morton position t (t numbered by subgroup and lane, so no
    // assumption about how local invocation indices map to lanes is needed).
    bool regular = all(equal(size2, uvec2(16u)));
    bool fullSubgroups = gl_NumSubgroups * gl_SubgroupSize == kGroupSize;
    bool subgroupPath = kUseSubgroups && regular && fullSubgroups && gl_SubgroupSize >= 4u;

    uint level = base + 2u; // the level now held in shared memory, row-major over the block
    if (subgroupPath) {
        uint t = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
        Acc acc = reduceLevel2(base, first2 + mortonDecode(t), layer);
        // Level +2+s+1 from +2+s: the four children of a texel sit on lanes that differ in two
        // Morton bits, 4^s apart, inside one subgroup while 4^(s+1) <= subgroup size.
        uint steps = 0u;
        for (uint span = 4u; span <= gl_SubgroupSize && level < lastLevel; span *= 4u) {
            uint stride = span / 4u;
            uint lane0 = gl_SubgroupInvocationID & ~(span - 1u);
            Acc r = shuffle(acc, lane0);
            r = accCombine(r, shuffle(acc, lane0 + stride));
            r = accCombine(r, shuffle(acc, lane0 + 2u * stride));
            r = accCombine(r, shuffle(acc, lane0 + 3u * stride));
            acc = accFinish(r, 4.0);
            ++level;
            ++steps;
            if ((t & (span - 1u)) == 0u) {
                uvec2 local = mortonDecode(t >> (2u * steps));
                storeLevel(level, (first2 >> steps) + local, layer, acc);
            }
        }
        uint own = (1u << (2u * steps)) - 1u;
        if ((t & own) == 0u) {
            uvec2 local = mortonDecode(t >> (2u * steps));
            sharedStore(local.y * (16u >> steps) + local.x, acc);
        }
    } else {
        uint count = size2.x * size2.y;
        for (uint i = tid; i < count; i += kGroupSize) {
            uvec2 local = uvec2(i % size2.x, i / size2.x);
            sharedStore(i, reduceLevel2(base, first2 + local, layer));
        }
    }
    barrier();

    // Remaining levels through shared memory, one texel per invocation (at most 15x15).
    for (; level < lastLevel; ++level) {
        uvec2 firstIn, endIn, firstOut, endOut;
        blockRange(b, base, level - base, firstIn, endIn);
        blockRange(b, base, level + 1u - base, firstOut, endOut);
        uvec2 sizeIn = endIn - firstIn;
        uvec2 sizeOut = endOut - firstOut;
        bool owner = tid < sizeOut.x * sizeOut.y;
        Acc acc;
        uvec2 q;
        if (owner) {
            q = firstOut + uvec2(tid % sizeOut.x, tid / sizeOut.x);
            uvec2 n = footprintCount(q, level);
            uvec2 f = q * 2u - firstIn;
            acc = sharedLoad(f.y * sizeIn.x + f.x);
            for (uint y = 0u; y < n.y; ++y)
                for (uint x = (y == 0u ? 1u : 0u); x < n.x; ++x)
                    acc = accCombine(acc, sharedLoad((f.y + y) * sizeIn.x + f.x + x));
            acc = accFinish(acc, float(n.x * n.y));
        }
        barrier();
        if (owner) {
            sharedStore(tid, acc);
            storeLevel(level + 1u, q, layer, acc);
        }
        barrier();
    }
}

void main()
{
    uint layer = gl_WorkGroupID.z;
    uvec2 block = gl_WorkGroupID.xy;
    uint base = 0u;
    for (uint stage = 0u;; ++stage) {
        reduceBlock(base, block, layer);
        uint top = base + kBlockLevels;
        if (pc.levelCount <= top) return;

        // Publish, then take a ticket from the parent block's counter.
        uvec2 parent = min(block >> kBlockLevels, levelExtent(top + kBlockLevels) - 1u);
        if (gl_LocalInvocationIndex == 0u) {
            publish(top, block, layer, sharedLoad(0u));
            uvec2 first, end;
            blockRange(parent, top, 0u, first, end);
            uvec2 size = end - first;
            uvec2 parents = levelExtent(top + kBlockLevels);
            uint counter = (stage == 0u ? pc.counterOffset1 : pc.counterOffset2) +
                           (layer * parents.y + parent.y) * parents.x + parent.x;
            uint arrived = atomicAdd(scratch.words[counter], 1u, gl_ScopeDevice,
                                     gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
            bool last = arrived == size.x * size.y - 1u;
            if (last) {
                atomicStore(scratch.words[counter], 0u, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                            gl_SemanticsRelaxed);
            }
            sContinue = last;
        }
        // Workgroup scope is enough here: invocation 0's device-scope acquire (the ticket) plus
        // this barrier order the others' Coherent scratch reads after every producer's release.
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,
                       gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                       gl_SemanticsAcquireRelease);
        if (!sContinue) return;
        block = parent;
        base = top;
    }
}
