#version 460
// Stable LSD radix sort of 32- or 64-bit keys with optional 32- or 64-bit values, digits of up to
// 8 bits. Stages, chosen at build time by VKFX_SORT_STAGE:
//
//   0 setup:     one workgroup zeroes the digit histograms and partition tickets and writes the
//                indirect dispatch sizes (from the GPU-side count when there is one).
//   1 histogram: every workgroup counts the digits of all passes of pc.histRows rows of
//                kGroupSize keys into the global histograms, zeroes its share of the look-back
//                state, and (odd pass counts) copies the keys and values to the scratch side, so
//                that the last pass ends in the caller's buffers.
//   2 count:     (reduce-then-scan) tile t counts its keys per digit: counts[digit * tiles + t].
//   3 scan:      (reduce-then-scan) workgroup d turns digit d's counts into output offsets: the
//                digit's start (from the histogram) plus the keys of digit d in earlier tiles.
//   4 scatter:   a tile ranks its keys by digit, stably, and writes each to its digit's offset.
//                Onesweep (kLookBack): the tile takes its index from an atomic ticket, publishes
//                its digit counts and adds up those of earlier tiles (decoupled look-back; with
//                kBlockTiles, over blocks of tiles where a pass has more than 4 blocks).
//                Reduce-then-scan: the offsets come from stage 3.
//   A pass in which every key has the same digit (known from the histograms, on the GPU) moves
//   nothing: stages 2 and 3 return at once and stage 4 copies each tile as it is.
//
// Ranking. Subgroup s owns a run of kKeysPerThread * gl_SubgroupSize consecutive keys of the tile
// and ranks them one subgroup-wide row at a time: eight ballots find the lanes with the same digit,
// the lowest of them adds their number to the subgroup's per-digit counter (in shared memory), and
// each lane's rank is the counter before the add plus the same-digit lanes below it.
// At most kMaxSlots counters sets exist (the largest count that divides the subgroups); with more
// subgroups than that (subgroup sizes 4 to 16) consecutive subgroups share a set and take turns,
// so a set always counts its keys in input order. Nothing assumes a subgroup size (4 to 128) or
// how invocations map to subgroups; the pipelines need full subgroups, which the workgroup size
// gives (a multiple of the subgroup size).
//
// Keys are compared as unsigned words after an order-preserving transform (signed: flip the sign
// bit; float: flip the sign bit of positives, every bit of negatives; descending: invert), applied
// when the first pass reads the keys and undone when the last pass writes them.

#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require

// Workgroup size (specialization constant 6) and keys per invocation (7): vkfx::detail::sortShape.
// At least 256 invocations: invocation t < 256 looks after digit t (ownsDigit).
layout(local_size_x = 256, local_size_x_id = 6) in;
layout(constant_id = 7) const uint kKeysPerThread = 16u;

const uint kGroupSize = gl_WorkGroupSize.x;
const uint kTileKeys = kGroupSize * kKeysPerThread; // a multiple of 16 (tileDigitCount)
const uint kMaxPasses = 8u;  // 64-bit keys: 8 digits (cutting digits at bit 32 never adds one)
const uint kMaxSlots = 16u;  // counter sets of the ranking

// Key type (vkfx::SortKey), order and values, fixed at pipeline creation.
const uint kKeyUint32 = 0u;
const uint kKeyInt32 = 1u;
const uint kKeyFloat32 = 2u;
const uint kKeyUint64 = 3u;
const uint kKeyInt64 = 4u;
const uint kKeyFloat64 = 5u;
layout(constant_id = 0) const uint kKeyType = kKeyUint32;
layout(constant_id = 1) const bool kDescending = false;
layout(constant_id = 2) const uint kValueWords = 0u;  // 0, 1 or 2 words per value
layout(constant_id = 3) const bool kLookBack = true;  // stage 4: Onesweep or reduce-then-scan
layout(constant_id = 4) const uint kBallotWords = 1u; // 32-bit words of a ballot: ceil(max subgroup size / 32)
// Look-back: polls of unpublished words an invocation makes in all before it stops waiting and
// counts an earlier tile's keys itself (see the scatter stage); 0xFFFFFFFF: wait without bound.
layout(constant_id = 5) const uint kLookBackPolls = 1024u;
// Look-back in blocks of this many tiles (0: none; see the scatter stage).
layout(constant_id = 8) const uint kBlockTiles = 0u;
const bool kBlocks = kBlockTiles != 0u ? true : false;
const uint kBlockDiv = kBlockTiles != 0u ? kBlockTiles : 1u;
const uint kBlockBefore = kBlockTiles > 1u ? kBlockTiles - 1u : 1u; // words read at once in a block
const uint kKeyWords = kKeyType >= kKeyUint64 ? 2u : 1u;

layout(set = 0, binding = 0) readonly buffer KeysIn { uint keysIn[]; };
layout(set = 0, binding = 1) writeonly buffer KeysOut { uint keysOut[]; };
layout(set = 0, binding = 2) readonly buffer ValuesIn { uint valuesIn[]; };
layout(set = 0, binding = 3) writeonly buffer ValuesOut { uint valuesOut[]; };
// State: histograms[kMaxPasses * 256], tickets[kMaxPasses], dispatch sizes; then per-tile words:
// Onesweep look-back (passes * tiles * 256, then passes * blocks * 256 block words) or
// reduce-then-scan counts (256 * tiles).
layout(set = 0, binding = 4) buffer State { uint state[]; };
layout(set = 0, binding = 5) buffer Tiles { uint tileWords[]; };
// kFlagIndirect: the number of keys, written by earlier commands (at most pc.count are sorted).
layout(set = 0, binding = 6) readonly buffer IndirectCount { uint indirectCount; };

layout(push_constant) uniform Push {
    uint count;    // keys to sort (kFlagIndirect: the most keys, the Sorter's maxCount)
    uint flags;    // kFlag*
    uint pass;     // this dispatch's pass
    uint passes;   // passes of this sort
    uint beginBit; // the sorted bits of the ordered key: beginBit .. endBit - 1
    uint endBit;
    uint histRows; // rows of kGroupSize keys per histogram workgroup
} pc;

const uint kFlagFirst = 1u;    // keysIn hold the caller's keys (transform them when read)
const uint kFlagLast = 2u;     // keysOut are the caller's (transform back when written)
const uint kFlagIndirect = 4u; // the count is indirectCount
const uint kFlagCopy = 8u;     // histogram: also copy keys and values to keysOut / valuesOut

const uint kHistWords = kMaxPasses * 256u;
const uint kTicketWord = kHistWords;                // kMaxPasses tickets
const uint kDispatchWord = kHistWords + kMaxPasses; // histogram xyz, tiles xyz

const uint kFlagShift = 30u;
const uint kValueMask = (1u << kFlagShift) - 1u;
const uint kAggregate = 1u << kFlagShift; // look-back: this tile's count
const uint kInclusive = 2u << kFlagShift; // look-back: this and every earlier tile's count

// Whether invocation t looks after digit t (every one, with workgroups of 256).
bool ownsDigit(uint t) { return kGroupSize == 256u || t < 256u; }

uint keyCount() { return (pc.flags & kFlagIndirect) != 0u ? min(indirectCount, pc.count) : pc.count; }
uint tileCount(uint n) { return (n + kTileKeys - 1u) / kTileKeys; }
uint blockCount(uint tiles) { return kBlocks ? (tiles + kBlockDiv - 1u) / kBlockDiv : 0u; }
uint histKeys() { return pc.histRows * kGroupSize; } // keys per histogram workgroup
uint histGroups(uint n) { return (n + histKeys() - 1u) / histKeys(); }
uint groupIndex() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }

// Digit k of the sort: bits passShift(k) .. passShift(k) + passBits(k) - 1 of the ordered key.
// Digits of 64-bit keys never straddle bit 32. (The same rule as Sorter::passCount.)
uint passShift(uint k)
{
    uint b = pc.beginBit;
    if (kKeyWords == 2u && b < 32u && pc.endBit > 32u) {
        uint low = (32u - b + 7u) / 8u;
        return k < low ? b + 8u * k : 32u + 8u * (k - low);
    }
    return b + 8u * k;
}

uint passBits(uint k)
{
    uint s = passShift(k);
    uint end = pc.endBit;
    if (kKeyWords == 2u && s < 32u) end = min(end, 32u);
    return min(8u, end - s);
}

uvec2 toOrdered(uvec2 k)
{
    const uint sign = 0x80000000u;
    if (kKeyType == kKeyInt32) k.x ^= sign;
    if (kKeyType == kKeyFloat32) k.x ^= (k.x & sign) != 0u ? 0xFFFFFFFFu : sign;
    if (kKeyType == kKeyInt64) k.y ^= sign;
    if (kKeyType == kKeyFloat64) k = (k.y & sign) != 0u ? ~k : uvec2(k.x, k.y ^ sign);
    return kDescending ? ~k : k;
}

uvec2 fromOrdered(uvec2 u)
{
    const uint sign = 0x80000000u;
    if (kDescending) u = ~u;
    if (kKeyType == kKeyInt32) u.x ^= sign;
    if (kKeyType == kKeyFloat32) u.x ^= (u.x & sign) != 0u ? sign : 0xFFFFFFFFu;
    if (kKeyType == kKeyInt64) u.y ^= sign;
    if (kKeyType == kKeyFloat64) u = (u.y & sign) != 0u ? uvec2(u.x, u.y ^ sign) : ~u;
    return u;
}

// Key i as stored, and as the pass compares it (the first pass transforms it when it reads it).
uvec2 rawKey(uint i) { return uvec2(keysIn[i * kKeyWords], kKeyWords == 2u ? keysIn[i * kKeyWords + 1u] : 0u); }
uvec2 loadKey(uint i)
{
    uvec2 k = rawKey(i);
    return (pc.flags & kFlagFirst) != 0u ? toOrdered(k) : k;
}

// key[j] = key first + j * stride as stored, for j < kKeysPerThread (0 at and past n): all the
// loads issued together. (A macro: a function would pass the array out through a copy.)
#define VKFX_LOAD_RAW_KEYS(key, first, stride, n)                                                  \
    [[unroll]] for (uint j_ = 0u; j_ < kKeysPerThread; ++j_) {                                     \
        uint i_ = (first) + j_ * (stride);                                                         \
        key[j_] = i_ < (n) ? rawKey(i_) : uvec2(0u);                                               \
    }

// The kKeysPerThread keys first + j * stride (those below n; the others 0), as the pass compares
// them. All loads are issued first, then the first pass's transform: a transform inside the loop
// that loads made the NVIDIA compiler wait for each load before issuing the next (7x the load
// time of float keys).
void loadKeys(uint first, uint stride, uint n, out uvec2 key[kKeysPerThread])
{
    VKFX_LOAD_RAW_KEYS(key, first, stride, n)
    if ((pc.flags & kFlagFirst) != 0u) {
        [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) key[j] = toOrdered(key[j]);
    }
}

// Copies the values of keys first + j * stride (those below n) from valuesIn to valuesOut, each
// word's loads all issued before its stores (the stores may alias them).
void copyValues(uint first, uint stride, uint n)
{
    for (uint w = 0u; w < kValueWords; ++w) {
        uint value[kKeysPerThread];
        [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
            uint i = first + j * stride;
            value[j] = i < n ? valuesIn[i * kValueWords + w] : 0u;
        }
        [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
            uint i = first + j * stride;
            if (i < n) valuesOut[i * kValueWords + w] = value[j];
        }
    }
}

// The word of an ordered key that holds bit `shift`, and the digit there.
uint digitWord(uvec2 k, uint shift) { return shift >= 32u ? k.y : k.x; }
uint digitOf(uint word, uint shift, uint bits) { return (word >> (shift & 31u)) & ((1u << bits) - 1u); }
uint digitOfKey(uvec2 k, uint shift, uint bits) { return digitOf(digitWord(k, shift), shift, bits); }

// Whether all n keys have the same digit in this pass (from the histograms: key 0's digit has
// them all). Such a pass moves nothing: its tiles are copied, and it needs no offsets.
bool passIsUniform(uint n, uint shift, uint bits)
{
    return state[pc.pass * 256u + digitOfKey(loadKey(0u), shift, bits)] == n;
}

// Exclusive prefix sums of two values over the workgroup, in invocation order of subgroups (any
// subgroup size); sTotals holds gl_NumSubgroups pairs. Returns the sums before this invocation;
// `total` gets all. The subgroup totals are added by one subgroup scan where they fit in one
// subgroup (sizes 16 and up), else by a loop.
shared uvec2 sTotals[kGroupSize / 4u]; // subgroups of 4 invocations or more
uvec2 groupExclusiveAdd2(uvec2 v, out uvec2 total)
{
    uvec2 inclusive = subgroupInclusiveAdd(v);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) sTotals[gl_SubgroupID] = inclusive;
    barrier();
    uvec2 before = uvec2(0u);
    if (gl_NumSubgroups <= gl_SubgroupSize) {
        uint s = gl_SubgroupInvocationID;
        uvec2 x = s < gl_NumSubgroups ? sTotals[s] : uvec2(0u);
        before = subgroupShuffle(subgroupExclusiveAdd(x), gl_SubgroupID);
        total = subgroupAdd(x);
    } else {
        total = uvec2(0u);
        for (uint s = 0u; s < gl_NumSubgroups; ++s) {
            uvec2 x = sTotals[s];
            if (s < gl_SubgroupID) before += x;
            total += x;
        }
    }
    barrier(); // sTotals is free again
    return before + inclusive - v;
}

uint groupExclusiveAdd(uint v, out uint total)
{
    uvec2 sums;
    uint before = groupExclusiveAdd2(uvec2(v, 0u), sums).x;
    total = sums.x;
    return before;
}

#if VKFX_SORT_STAGE == 0 // ------------------------------------------------------------- setup

// Dispatch sizes of `groups` workgroups: at most 65535 along x.
uvec3 split(uint groups)
{
    if (groups <= 65535u) return uvec3(groups, 1u, 1u);
    return uvec3(65535u, (groups + 65534u) / 65535u, 1u);
}

void main()
{
    uint t = gl_LocalInvocationIndex;
    for (uint i = t; i < kHistWords + kMaxPasses; i += kGroupSize) state[i] = 0u;
    if (t == 0u) {
        uint n = keyCount();
        uvec3 h = split(histGroups(n));
        uvec3 s = split(tileCount(n));
        state[kDispatchWord + 0u] = h.x;
        state[kDispatchWord + 1u] = h.y;
        state[kDispatchWord + 2u] = h.z;
        state[kDispatchWord + 3u] = s.x;
        state[kDispatchWord + 4u] = s.y;
        state[kDispatchWord + 5u] = s.z;
    }
}

#elif VKFX_SORT_STAGE == 1 // -------------------------------------------------------- histogram

shared uint sHist[kHistWords];

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint n = keyCount();
    uint tiles = tileCount(n);
    uint group = groupIndex();
    uint groups = histGroups(n);
    if (group >= groups) return; // uniform in the workgroup
    uint passes = pc.passes;
    for (uint i = t; i < passes * 256u; i += kGroupSize) sHist[i] = 0u;

    // Zero this workgroup's share of the look-back words (Onesweep only).
    if (kLookBack) {
        uint words = passes * (tiles + blockCount(tiles)) * 256u;
        uint per = (words + groups - 1u) / groups;
        uint end = min(words, (group + 1u) * per);
        for (uint i = group * per + t; i < end; i += kGroupSize) tileWords[i] = 0u;
    }
    barrier();

    // kKeysPerThread loads in flight per invocation; the next round's loads are issued before
    // this round's copies and shared atomics, so that they overlap them.
    bool copy = (pc.flags & kFlagCopy) != 0u;
    uint first = group * histKeys();
    uint end = min(n, first + histKeys());
    uvec2 raw[kKeysPerThread];
    VKFX_LOAD_RAW_KEYS(raw, first + t, kGroupSize, end)
    for (uint base = first; base < end; base += kTileKeys) { // uniform in the workgroup
        uvec2 next[kKeysPerThread];
        VKFX_LOAD_RAW_KEYS(next, base + kTileKeys + t, kGroupSize, end)
        if (copy) {
            copyValues(base + t, kGroupSize, end);
            [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
                uint i = base + j * kGroupSize + t;
                if (i >= end) continue;
                keysOut[i * kKeyWords] = raw[j].x;
                if (kKeyWords == 2u) keysOut[i * kKeyWords + 1u] = raw[j].y;
            }
        }
        [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) raw[j] = toOrdered(raw[j]);
        for (uint p = 0u; p < passes; ++p) {
            uint shift = passShift(p);
            uint bits = passBits(p);
            [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
                if (base + j * kGroupSize + t < end) atomicAdd(sHist[p * 256u + digitOfKey(raw[j], shift, bits)], 1u);
            }
        }
        [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) raw[j] = next[j];
    }
    barrier();
    for (uint i = t; i < passes * 256u; i += kGroupSize) {
        uint c = sHist[i];
        if (c != 0u) atomicAdd(state[i], c);
    }
}

#elif VKFX_SORT_STAGE == 2 // ------------------------------------------------------------ count

shared uint sHist[256];

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint n = keyCount();
    uint tiles = tileCount(n);
    uint tile = groupIndex();
    if (tile >= tiles) return; // uniform in the workgroup
    uint shift = passShift(pc.pass);
    uint bits = passBits(pc.pass);
    if (passIsUniform(n, shift, bits)) return;
    if (ownsDigit(t)) sHist[t] = 0u;
    barrier();
    // All kKeysPerThread loads in flight first (a load beside its atomic in one loop waits).
    uint first = tile * kTileKeys;
    uvec2 key[kKeysPerThread];
    loadKeys(first + t, kGroupSize, n, key);
    [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
        if (first + j * kGroupSize + t < n) atomicAdd(sHist[digitOfKey(key[j], shift, bits)], 1u);
    }
    barrier();
    if (ownsDigit(t)) tileWords[t * tiles + tile] = sHist[t];
}

#elif VKFX_SORT_STAGE == 3 // ------------------------------------------------------------- scan

shared uint sCarry;

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint d = gl_WorkGroupID.x;
    uint n = keyCount();
    if (passIsUniform(n, passShift(pc.pass), passBits(pc.pass))) return; // uniform in the dispatch
    uint tiles = tileCount(n);
    // The digit's first output position: the keys of smaller digits.
    uint total;
    groupExclusiveAdd(t < d ? state[pc.pass * 256u + t] : 0u, total);
    if (t == 0u) sCarry = total;
    barrier();
    // The digit's counts, four per invocation per round, in place.
    for (uint base = 0u; base < tiles; base += 4u * kGroupSize) {
        uint c[4];
        uint sum = 0u;
        [[unroll]] for (uint j = 0u; j < 4u; ++j) {
            uint i = base + 4u * t + j;
            c[j] = i < tiles ? tileWords[d * tiles + i] : 0u;
            sum += c[j];
        }
        uint roundTotal;
        uint running = sCarry + groupExclusiveAdd(sum, roundTotal);
        [[unroll]] for (uint j = 0u; j < 4u; ++j) {
            uint i = base + 4u * t + j;
            if (i < tiles) tileWords[d * tiles + i] = running;
            running += c[j];
        }
        barrier(); // every invocation has read sCarry
        if (t == 0u) sCarry += roundTotal;
        barrier();
    }
}

#else // --------------------------------------------------------------------------------- scatter

// Counter sets of the ranking (kMaxSlots * 256 words, and kGroupSize words that lanes without a
// count to add touch instead), then the staging of the sorted tile.
const uint kCounterWords = kMaxSlots * 256u;
shared uint sMem[kCounterWords + kGroupSize > kTileKeys ? kCounterWords + kGroupSize : kTileKeys];
shared uint sDigitStart[256]; // first position of each digit in the sorted tile
shared uint sBase[256];       // output position of sorted-tile position 0 of each digit
shared uint sTile;

// The lanes of this subgroup whose key has `digit` (and is valid): below = those before this
// lane, count = all of them, leader = the lowest of them.
void matchDigit(uint digit, bool valid, out uint below, out uint count, out uint leader)
{
    if (kBallotWords == 1u) {
        uint m = subgroupBallot(valid).x;
        [[unroll]] for (uint b = 0u; b < 8u; ++b) { // bits b >= `bits` of every digit are 0
            bool set = ((digit >> b) & 1u) != 0u;
            uint v = subgroupBallot(set).x;
            m &= set ? v : ~v;
        }
        below = bitCount(m & gl_SubgroupLtMask.x);
        count = bitCount(m);
        leader = valid ? uint(findLSB(m)) : gl_SubgroupInvocationID;
    } else {
        uvec4 m = subgroupBallot(valid);
        [[unroll]] for (uint b = 0u; b < 8u; ++b) {
            bool set = ((digit >> b) & 1u) != 0u;
            uvec4 v = subgroupBallot(set);
            m &= set ? v : ~v;
        }
        below = subgroupBallotBitCount(m & gl_SubgroupLtMask);
        count = subgroupBallotBitCount(m);
        leader = valid ? subgroupBallotFindLSB(m) : gl_SubgroupInvocationID;
    }
}

// The look-back word of (pass, tile, digit), and its relaxed read (words are written by atomics).
uint lookBackIndex(uint tiles, uint tile, uint digit) { return (pc.pass * tiles + tile) * 256u + digit; }
uint loadLookBack(uint i)
{
    return atomicLoad(tileWords[i], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
const uint kLookAhead = 4u; // look-back words read at once
const uint kStop = 3u << kFlagShift; // (no published word) where a block's tile words end

// Blocks: the look-back word of (pass, block, digit), after every pass's tile words.
uint blockIndex(uint tiles, uint block, uint digit)
{
    return (pc.passes * tiles + pc.pass * blockCount(tiles) + block) * 256u + digit;
}

// Adds the words of positions low .. q - 1 to prefix, nearest first, WINDOW read at once, up to
// the first inclusive one (then done) or unpublished one (a poll, then again); WORD(i) is the
// index of position i's word. Ends with q == low where every word was added and none inclusive.
#define VKFX_WALK(WINDOW, WORD)                                                                   \
    while (!done && q > low && polls <= kLookBackPolls) {                                         \
        uint v[WINDOW];                                                                           \
        [[unroll]] for (uint k = 0u; k < WINDOW; ++k)                                             \
            v[k] = q > low + k ? loadLookBack(WORD(q - 1u - k)) : kStop;                          \
        bool stop = false;                                                                        \
        [[unroll]] for (uint k = 0u; k < WINDOW; ++k) {                                           \
            uint flag = v[k] & ~kValueMask;                                                       \
            if (!stop) {                                                                          \
                if (flag == 0u || flag == kStop) {                                                \
                    stop = true;                                                                  \
                    if (flag == 0u) ++polls;                                                      \
                } else {                                                                          \
                    prefix += v[k] & kValueMask;                                                  \
                    --q;                                                                          \
                    done = flag == kInclusive;                                                    \
                    stop = done;                                                                  \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
    }

// The keys of whole tile `q` that have `digit`, counted from the pass's input: what the tile
// publishes, for a look-back that has stopped waiting for it.
uint tileDigitCount(uint q, uint digit, uint shift, uint bits)
{
    uint c = 0u;
    for (uint i = q * kTileKeys; i < (q + 1u) * kTileKeys; i += 16u) {
        [[unroll]] for (uint j = 0u; j < 16u; ++j) c += digitOfKey(loadKey(i + j), shift, bits) == digit ? 1u : 0u;
    }
    return c;
}

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint n = keyCount();
    uint tiles = tileCount(n);
    if (kLookBack) {
        if (t == 0u) sTile = atomicAdd(state[kTicketWord + pc.pass], 1u);
        barrier();
    }
    uint tile = kLookBack ? sTile : groupIndex();
    if (tile >= tiles) return; // uniform in the workgroup
    uint shift = passShift(pc.pass);
    uint bits = passBits(pc.pass);
    bool last = (pc.flags & kFlagLast) != 0u;

    // This subgroup's run of keys: counter set `slot`, turn `turn`.
    uint lane = gl_SubgroupInvocationID;
    uint slots = min(gl_NumSubgroups, kMaxSlots);
    while (gl_NumSubgroups % slots != 0u) --slots;
    uint turns = gl_NumSubgroups / slots;
    uint slot = gl_SubgroupID % slots;
    uint turn = gl_SubgroupID / slots;
    uint runStart = tile * kTileKeys + (slot * turns + turn) * kKeysPerThread * gl_SubgroupSize;

    for (uint i = t; i < slots * 256u; i += kGroupSize) sMem[i] = 0u;

    // Values are read after the ranking (the first word just before the look-back), so that they
    // hold no registers here.
    uvec2 key[kKeysPerThread];
    loadKeys(runStart + lane, gl_SubgroupSize, n, key);
    // Reduce-then-scan: digit t's first output position for this tile (from stage 3), read now so
    // that the load overlaps the ranking (H200, 2^26 keys: +3.4%, with values +5.2%; Onesweep's
    // histogram word read here instead of after the ranking: -0.9% keys, +0.3% pairs).
    uint tileBase = kLookBack || !ownsDigit(t) ? 0u : tileWords[t * tiles + tile];
    if (passIsUniform(n, shift, bits)) { // uniform in the workgroup: the sorted tile is the tile
        copyValues(runStart + lane, gl_SubgroupSize, n);
        if (last) {
            [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) key[j] = fromOrdered(key[j]);
        }
        [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
            uint i = runStart + j * gl_SubgroupSize + lane;
            if (i >= n) continue;
            keysOut[i * kKeyWords] = key[j].x;
            if (kKeyWords == 2u) keysOut[i * kKeyWords + 1u] = key[j].y;
        }
        return;
    }
    barrier();

    // Rank: rank[j] = keys of the same digit before key j in this slot's run.
    uint rank[kKeysPerThread];
    for (uint r = 0u; r < turns; ++r) {
        if (r == turn) { // uniform in the subgroup
            [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
                uint i = runStart + j * gl_SubgroupSize + lane;
                uint d = digitOfKey(key[j], shift, bits);
                uint below, count, leader;
                matchDigit(d, i < n, below, count, leader);
                // Without a branch, so that the rows' ballots overlap the atomics before them:
                // the other lanes add 0 to a word of their own above the counter sets.
                bool add = i < n && lane == leader;
                uint before = atomicAdd(sMem[add ? slot * 256u + d : kCounterWords + t], add ? count : 0u);
                rank[j] = subgroupShuffle(before, leader) + below;
            }
        }
        barrier();
    }

    // Per digit t: the keys in earlier slots (in place) and in the whole tile.
    uint count = 0u;
    for (uint s = 0u; s < slots && ownsDigit(t); ++s) {
        uint c = sMem[s * 256u + t];
        sMem[s * 256u + t] = count;
        count += c;
    }
    if (kLookBack && ownsDigit(t)) {
        uint i = lookBackIndex(tiles, tile, t);
        atomicExchange(tileWords[i], (tile == 0u ? kInclusive : kAggregate) | count);
    }
    // This digit's first position in the sorted tile, and (Onesweep) in the output: the keys of
    // smaller digits in the tile, and in all tiles.
    uvec2 totals;
    uint histogram = kLookBack && ownsDigit(t) ? state[pc.pass * 256u + t] : 0u;
    uvec2 starts = groupExclusiveAdd2(uvec2(count, histogram), totals);
    uint digitStart = starts.x;
    uint globalStart = starts.y;
    if (ownsDigit(t)) sDigitStart[t] = digitStart;
    if (!kLookBack && ownsDigit(t)) sBase[t] = tileBase - digitStart;
    barrier();

    // Position of each key in the sorted tile.
    uint at[kKeysPerThread];
    [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
        uint d = digitOfKey(key[j], shift, bits);
        at[j] = sDigitStart[d] + sMem[slot * 256u + d] + rank[j];
    }
    barrier(); // the counter sets are read; sMem stages the tile now

    uint valid = min(n - tile * kTileKeys, kTileKeys);
    [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
        if (runStart + j * gl_SubgroupSize + lane < n) sMem[at[j]] = digitWord(key[j], shift);
    }
    // The first word of the values, read now so that the reads overlap the look-back.
    uint value[kKeysPerThread];
    [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
        uint i = runStart + j * gl_SubgroupSize + lane;
        value[j] = kValueWords > 0u && i < n ? valuesIn[i * kValueWords] : 0u;
    }
    if (kLookBack && ownsDigit(t)) {
        // Add up the counts of digit t in earlier tiles, nearest first, until an inclusive one
        // (relaxed loads).
        // Waiting can be bounded: after kLookBackPolls polls of unpublished words in all, the
        // count of a tile still unpublished comes from its keys of digit t (tile q holds keys
        // q * kTileKeys ..). Then no tile depends on another being scheduled, which Vulkan does
        // not promise, and the loops' iterations stay bounded: llvmpipe ends every loop of an
        // invocation once its loops have run 65535 iterations in all, silently.
        uint prefix = 0u;
        uint q = tile;
        uint polls = 0u;
        bool blocks = kBlocks && tiles > 4u * kBlockDiv; // uniform
        if (blocks) {
            // Blocks of kBlockTiles tiles, where a pass has more than 4 blocks. A tile adds up
            // the tiles before it in its block (read at once); then the last tile of the block
            // publishes the block's count, adds up earlier blocks from their block words, nearest
            // first, until an inclusive one, and publishes the block's inclusive count, which the
            // other tiles of the next block wait for (one word each). When every tile of a pass
            // publishes at about the same time (one wave of tiles), the last tiles then need a
            // few reads where a walk over every tile before them took many, and fewer tiles read
            // the same words (docs/sort-performance.md, v19).
            uint block = tile / kBlockDiv;
            uint low = block * kBlockDiv;
            bool closes = tile - low == kBlockDiv - 1u;
            bool done = tile == 0u;
#define VKFX_TILE_WORD(i) lookBackIndex(tiles, i, t)
            VKFX_WALK(kBlockBefore, VKFX_TILE_WORD)
            if (!done && q == low && low > 0u) { // the block's earlier tiles added up: earlier blocks
                if (closes) {
                    atomicExchange(tileWords[blockIndex(tiles, block, t)], kAggregate | (prefix + count));
                    q = block;
                    low = 0u;
#define VKFX_BLOCK_WORD(i) blockIndex(tiles, i, t)
                    VKFX_WALK(kLookAhead, VKFX_BLOCK_WORD)
                    q *= kBlockDiv; // (not done: the tiles of blocks not added up)
                } else {
                    while (!done && polls <= kLookBackPolls) {
                        uint v = loadLookBack(blockIndex(tiles, block - 1u, t));
                        done = (v & ~kValueMask) == kInclusive;
                        if (done) prefix += v & kValueMask;
                        ++polls;
                    }
                }
            }
            if (done) q = 0u;
        } else {
            // The words of the 4 tiles before q are read at once, then used nearest first up to
            // the first inclusive or unpublished one. (VKFX_WALK(kLookAhead, VKFX_TILE_WORD) does
            // the same, but the compiler then gives this branch, all that large Sorters run,
            // another schedule: on an H200 2^26 keys 3.7% and pairs 14.7% slower, 2^22 3%.)
            while (q > 0u && polls <= kLookBackPolls) {
                uint v[kLookAhead];
                [[unroll]] for (uint k = 0u; k < kLookAhead; ++k)
                    v[k] = q > k ? loadLookBack(lookBackIndex(tiles, q - 1u - k, t)) : kInclusive; // past tile 0: adds 0
                bool stop = false;
                [[unroll]] for (uint k = 0u; k < kLookAhead; ++k) {
                    uint flag = v[k] & ~kValueMask;
                    if (!stop) {
                        if (flag == 0u) {
                            stop = true;
                            ++polls;
                        } else {
                            prefix += v[k] & kValueMask;
                            q = flag == kInclusive ? 0u : q - 1u;
                            stop = flag == kInclusive;
                        }
                    }
                }
            }
        }
        // Rarely: waited long enough. Take what is published, count the keys of the rest.
        while (q > 0u) {
            uint v = loadLookBack(lookBackIndex(tiles, q - 1u, t));
            uint flag = v & ~kValueMask;
            prefix += flag != 0u ? v & kValueMask : tileDigitCount(q - 1u, t, shift, bits);
            q = flag == kInclusive ? 0u : q - 1u;
        }
        if (tile != 0u) {
            atomicExchange(tileWords[lookBackIndex(tiles, tile, t)], kInclusive | (prefix + count));
        }
        if (blocks && tile % kBlockDiv == kBlockDiv - 1u)
            atomicExchange(tileWords[blockIndex(tiles, tile / kBlockDiv, t)], kInclusive | (prefix + count));
        sBase[t] = globalStart + prefix - digitStart;
    }
    barrier();

    // Write the sorted tile: position p of it goes to sBase[digit] + p. First the word that holds
    // the digit, then the key's other word and the value's words, each staged the same way.
    uint to[kKeysPerThread];
    uint word[kKeysPerThread];
    [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
        uint p = j * kGroupSize + t;
        to[j] = p < valid ? sBase[digitOf(sMem[p], shift, bits)] + p : 0u;
        word[j] = p < valid ? sMem[p] : 0u;
    }
    // The digit's word of a 64-bit key is written with its other word (the last pass transforms
    // both together), so keep it and stage the other one.
    uint other = shift >= 32u ? 0u : 1u; // index of the other word
    if (kKeyWords == 2u) {
        barrier();
        [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
            if (runStart + j * gl_SubgroupSize + lane < n) sMem[at[j]] = other == 1u ? key[j].y : key[j].x;
        }
        barrier();
    }
    // (The last pass's transform in a loop of its own, as for the loads.)
    uvec2 outKey[kKeysPerThread];
    [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
        uint p = j * kGroupSize + t;
        outKey[j] = uvec2(word[j], 0u);
        if (kKeyWords == 2u) outKey[j] = other == 1u ? uvec2(word[j], sMem[p]) : uvec2(sMem[p], word[j]);
    }
    if (last) {
        [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) outKey[j] = fromOrdered(outKey[j]);
    }
    [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
        uint p = j * kGroupSize + t;
        if (p < valid) {
            keysOut[to[j] * kKeyWords] = outKey[j].x;
            if (kKeyWords == 2u) keysOut[to[j] * kKeyWords + 1u] = outKey[j].y;
        }
    }
    for (uint w = 0u; w < kValueWords; ++w) {
        if (w > 0u) {
            [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
                uint i = runStart + j * gl_SubgroupSize + lane;
                value[j] = i < n ? valuesIn[i * kValueWords + w] : 0u;
            }
        }
        barrier();
        [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
            if (runStart + j * gl_SubgroupSize + lane < n) sMem[at[j]] = value[j];
        }
        barrier();
        [[unroll]] for (uint j = 0u; j < kKeysPerThread; ++j) {
            uint p = j * kGroupSize + t;
            if (p < valid) valuesOut[to[j] * kValueWords + w] = sMem[p];
        }
    }
}

#endif
