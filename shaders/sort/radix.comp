#version 460
// Stable LSD radix sort of 32-bit keys (and optional 32-bit values), 8-bit digits, one digit per
// pass, "reduce then scan": three kernels per pass, chosen at build time by VKFX_SORT_STAGE.
//
//   0 count:   workgroup t (a tile of kTileKeys consecutive keys) counts its keys per digit and
//              writes counts[digit * tiles + t].
//   1 scan:    one workgroup turns counts into an exclusive prefix sum, in place: the offset in
//              the output of the first key of each (digit, tile), in digit-major, tile-minor
//              order, which is what makes the pass stable.
//   2 scatter: workgroup t re-reads its tile in rounds of 256 keys, sorts each round by digit in
//              shared memory (eight stable 1-bit splits), and writes each key (and value) to
//              its digit's offset + the keys of that digit already written by this tile.
//
// Nothing depends on the subgroup size or on how invocations map to subgroups: the scans are in
// shared memory (a later, faster path may use subgroups). Keys are compared as unsigned words after
// an order-preserving transform (signed: flip the sign bit; float: flip the sign bit of positives,
// every bit of negatives; descending: invert), applied when the first pass reads the caller's keys
// and undone when the last pass writes them back.

#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256) in;

const uint kGroupSize = 256u;
const uint kRoundsPerTile = 8u;
const uint kTileKeys = kGroupSize * kRoundsPerTile; // 2048

// Key type (vkfx::SortKey) and order, fixed at pipeline creation.
const uint kKeyUint32 = 0u;
const uint kKeyInt32 = 1u;
const uint kKeyFloat32 = 2u;
layout(constant_id = 0) const uint kKeyType = kKeyUint32;
layout(constant_id = 1) const bool kDescending = false;
layout(constant_id = 2) const bool kWithValues = false;

layout(set = 0, binding = 0) readonly buffer KeysIn { uint keysIn[]; };
layout(set = 0, binding = 1) writeonly buffer KeysOut { uint keysOut[]; };
layout(set = 0, binding = 2) readonly buffer ValuesIn { uint valuesIn[]; };
layout(set = 0, binding = 3) writeonly buffer ValuesOut { uint valuesOut[]; };
layout(set = 0, binding = 4) buffer Counts { uint counts[]; };
// kFlagIndirect: the number of keys, written by earlier commands (at most pc.count are sorted).
layout(set = 0, binding = 5) readonly buffer IndirectCount { uint indirectCount; };

layout(push_constant) uniform Push {
    uint count;   // keys to sort (kFlagIndirect: the most keys, the Sorter's maxCount)
    uint shift;   // the digit: bits shift .. shift + 7
    uint flags;   // kFlagFirst: keysIn are the caller's (transform them); kFlagLast: keysOut are
    uint unused;  // the caller's (transform back); kFlagIndirect: see indirectCount
} pc;

const uint kFlagFirst = 1u;
const uint kFlagLast = 2u;
const uint kFlagIndirect = 4u;

uint keyCount() { return (pc.flags & kFlagIndirect) != 0u ? min(indirectCount, pc.count) : pc.count; }

// Tiles of kTileKeys keys; counts[] holds 256 per tile, digit-major. (With indirect counts more
// workgroups are dispatched than there are tiles; the others return at once.)
uint tileCount() { return (keyCount() + kTileKeys - 1u) / kTileKeys; }

// The order-preserving map from a key's bits to the unsigned word that is sorted.
uint toOrdered(uint k)
{
    if (kKeyType == kKeyInt32) k ^= 0x80000000u;
    if (kKeyType == kKeyFloat32) k ^= (k & 0x80000000u) != 0u ? 0xFFFFFFFFu : 0x80000000u;
    return kDescending ? ~k : k;
}

uint fromOrdered(uint u)
{
    if (kDescending) u = ~u;
    if (kKeyType == kKeyInt32) u ^= 0x80000000u;
    if (kKeyType == kKeyFloat32) u ^= (u & 0x80000000u) != 0u ? 0x80000000u : 0xFFFFFFFFu;
    return u;
}

uint loadKey(uint i)
{
    uint k = keysIn[i];
    return (pc.flags & kFlagFirst) != 0u ? toOrdered(k) : k;
}

uint digitOf(uint u) { return (u >> pc.shift) & 0xFFu; }

#if VKFX_SORT_STAGE == 0 // ------------------------------------------------------------- count

shared uint sHist[256];

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint tile = gl_WorkGroupID.x;
    uint n = keyCount();
    uint tiles = tileCount();
    if (tile >= tiles) return; // uniform in the workgroup
    sHist[t] = 0u;
    barrier();
    for (uint r = 0u; r < kRoundsPerTile; ++r) {
        uint i = tile * kTileKeys + r * kGroupSize + t;
        if (i < n) atomicAdd(sHist[digitOf(loadKey(i))], 1u);
    }
    barrier();
    counts[t * tiles + tile] = sHist[t];
}

#elif VKFX_SORT_STAGE == 1 // ------------------------------------------------------------- scan

shared uint sScan[256];
shared uint sCarry;

// Inclusive prefix sum of v over the workgroup, in local invocation order (Hillis-Steele).
uint groupInclusiveScan(uint v)
{
    uint t = gl_LocalInvocationIndex;
    sScan[t] = v;
    barrier();
    for (uint d = 1u; d < kGroupSize; d <<= 1) {
        uint add = t >= d ? sScan[t - d] : 0u;
        barrier();
        sScan[t] += add;
        barrier();
    }
    return sScan[t];
}

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint n = 256u * tileCount();
    if (t == 0u) sCarry = 0u;
    barrier();
    // Chunks of 4 * 256 counts: each invocation sums 4 consecutive ones, the group scans the sums.
    for (uint base = 0u; base < n; base += 4u * kGroupSize) {
        uint c[4];
        uint sum = 0u;
        for (uint j = 0u; j < 4u; ++j) {
            uint i = base + 4u * t + j;
            c[j] = i < n ? counts[i] : 0u;
            sum += c[j];
        }
        uint inclusive = groupInclusiveScan(sum);
        uint running = sCarry + inclusive - sum;
        for (uint j = 0u; j < 4u; ++j) {
            uint i = base + 4u * t + j;
            if (i < n) counts[i] = running;
            running += c[j];
        }
        barrier(); // every invocation has read sCarry
        if (t == kGroupSize - 1u) sCarry += inclusive;
        barrier();
    }
}

#else // --------------------------------------------------------------------------------- scatter

shared uint sScan[256];
shared uint sKey[256];
shared uint sValue[256];
shared uint sStart[256];   // first position of each digit in the sorted round
shared uint sWritten[256]; // keys of each digit this tile has written so far

// Exclusive prefix sum of v over the workgroup, in local invocation order; total receives the sum.
uint groupExclusiveScan(uint v, out uint total)
{
    uint t = gl_LocalInvocationIndex;
    sScan[t] = v;
    barrier();
    for (uint d = 1u; d < kGroupSize; d <<= 1) {
        uint add = t >= d ? sScan[t - d] : 0u;
        barrier();
        sScan[t] += add;
        barrier();
    }
    uint inclusive = sScan[t];
    total = sScan[kGroupSize - 1u];
    barrier(); // sScan is free again
    return inclusive - v;
}

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint tile = gl_WorkGroupID.x;
    uint n = keyCount();
    uint tiles = tileCount();
    if (tile >= tiles) return; // uniform in the workgroup
    sWritten[t] = 0u;
    for (uint r = 0u; r < kRoundsPerTile; ++r) {
        uint first = tile * kTileKeys + r * kGroupSize;
        if (first >= n) break; // uniform: the same for every invocation
        uint valid = min(n - first, kGroupSize);
        uint i = first + t;
        // Keys past the end sort last (digit 0xFF, after every real key of that digit, since each
        // split is stable) and are never written.
        uint key = t < valid ? loadKey(i) : 0xFFFFFFFFu;
        uint value = kWithValues && t < valid ? valuesIn[i] : 0u;

        // Sort the round by digit: eight stable splits on one bit each.
        for (uint b = 0u; b < 8u; ++b) {
            uint bit = (digitOf(key) >> b) & 1u;
            uint zeros;
            uint zerosBefore = groupExclusiveScan(1u - bit, zeros);
            uint to = bit == 0u ? zerosBefore : zeros + (t - zerosBefore);
            sKey[to] = key;
            if (kWithValues) sValue[to] = value;
            barrier();
            key = sKey[t];
            if (kWithValues) value = sValue[t];
            barrier();
        }

        // Invocation t now holds the t-th key of the round in digit order.
        uint d = digitOf(key);
        sKey[t] = key;
        barrier();
        bool runStart = t == 0u || digitOf(sKey[t - 1u]) != d;
        bool runEnd = t + 1u == valid || (t + 1u < valid && digitOf(sKey[t + 1u]) != d);
        if (t < valid && runStart) sStart[d] = t;
        barrier();
        if (t < valid) {
            uint at = counts[d * tiles + tile] + sWritten[d] + (t - sStart[d]);
            keysOut[at] = (pc.flags & kFlagLast) != 0u ? fromOrdered(key) : key;
            if (kWithValues) valuesOut[at] = value;
        }
        barrier(); // every invocation has read sWritten and sStart
        if (t < valid && runEnd) sWritten[d] += t - sStart[d] + 1u;
        barrier();
    }
}

#endif
