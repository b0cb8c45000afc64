#version 460
// vkfx-bench: the device's fp32 multiply-add rate (the arithmetic roof of `vkfx-bench blur`).
//
// Every invocation runs `iterations` times kUnroll steps of kChains independent vec4 FMA chains
// on registers (a = a * m + c, m and c from push constants so nothing folds), enough independent
// work per invocation to hide the FMA latency. The sum of the chains is stored only when it equals
// `never` (it cannot: the chains converge to c / (1 - m) > 0), which keeps the FMAs alive without
// any memory traffic. FMAs per invocation: iterations * kUnroll * kChains * 4.
#if !defined(VKFX_BENCH_FMA) || VKFX_BENCH_FMA != 1
#error "compile with -DVKFX_BENCH_FMA=1"
#endif

#extension GL_EXT_control_flow_attributes : require

const uint kChains = 4u;
const uint kUnroll = 8u;

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) writeonly buffer Sink { vec4 sink[]; };

layout(push_constant) uniform Push {
    uint iterations;
    float m;     // in (0, 1)
    float c;     // > 0
    float never; // < 0
} pc;

void main()
{
    const float seed = float(gl_GlobalInvocationID.x & 1023u) * (1.0 / 1024.0);
    vec4 a[kChains];
    [[unroll]] for (uint k = 0u; k < kChains; ++k) a[k] = vec4(seed) + vec4(k, k + 1u, k + 2u, k + 3u);
    for (uint i = 0u; i < pc.iterations; ++i) {
        [[unroll]] for (uint u = 0u; u < kUnroll; ++u) {
            [[unroll]] for (uint k = 0u; k < kChains; ++k) a[k] = fma(a[k], vec4(pc.m), vec4(pc.c));
        }
    }
    vec4 s = a[0];
    [[unroll]] for (uint k = 1u; k < kChains; ++k) s += a[k];
    if (s.x == pc.never) sink[0] = s;
}
