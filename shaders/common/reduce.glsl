// Reductions over a footprint of texels. Needs VEC (format.glsl) and VKFX_MINMAX (0 or 1).
//
// An Acc is a partial reduction. Every path of every kernel reduces a footprint the same way:
//   acc = accInit(first); acc = accCombine(acc, next) in row-major order; accFinish(acc, count)
// so that results do not depend on which path (subgroup or shared memory) produced them.
#ifndef VKFX_COMMON_REDUCE_GLSL
#define VKFX_COMMON_REDUCE_GLSL

const uint kReduceAverage = 0u;
const uint kReduceMin = 1u;
const uint kReduceMax = 2u;

// Single-output variants choose the operator here; the MinMax variant always does both.
layout(constant_id = 0) const uint kReduction = kReduceAverage;

#if VKFX_MINMAX
struct Acc {
    VEC lo;
    VEC hi;
};

Acc accInit(VEC v) { return Acc(v, v); }
Acc accCombine(Acc a, Acc b) { return Acc(min(a.lo, b.lo), max(a.hi, b.hi)); }
Acc accFinish(Acc a, float count) { return a; }
#else
struct Acc {
    VEC v;
};

Acc accInit(VEC v) { return Acc(v); }

Acc accCombine(Acc a, Acc b)
{
    if (kReduction == kReduceMin) return Acc(min(a.v, b.v));
    if (kReduction == kReduceMax) return Acc(max(a.v, b.v));
    return Acc(a.v + b.v);
}

Acc accFinish(Acc a, float count)
{
    if (kReduction == kReduceAverage) return Acc(a.v / count);
    return a;
}
#endif

#endif
