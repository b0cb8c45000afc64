#version 460
// vkfx-bench baseline for `vkfx-bench blur`: one pass of the two-pass separable Gaussian blur an
// engine writes today, one axis per dispatch.
//
// The host records the horizontal pass (source -> an intermediate image of the same format), an
// image barrier, then the vertical pass (intermediate -> destination). Every invocation writes one
// texel: it reads its 2r + 1 taps along the pass's axis with texelFetch (no sampler), clamped to
// the edge, weighted by exp(-k^2 / (2 sigma^2)) normalized to sum 1 over -r..r (vkfx's weights).
// The weights 0..r are computed once per workgroup into shared memory; 16x16 workgroups, so a
// subgroup reads neighbouring texels of a few rows (coalesced, the texture cache serves the taps
// that neighbouring invocations share).
//
// Variants (exactly one VKFX_BENCH_FMT_*, and VKFX_BENCH_AXIS 0 or 1):
//   VKFX_BENCH_FMT_RGBA8 / _RGBA16F / _RGBA32F / _R32F / _R8 / _B10G11R11  the storage view's
//                       format (and so the intermediate's); _R32F and _R8 filter the red channel
//                       alone (scalar sums)
//   VKFX_BENCH_AXIS=0   horizontal taps; VKFX_BENCH_AXIS=1: vertical taps
#extension GL_EXT_samplerless_texture_functions : require

#if defined(VKFX_BENCH_FMT_RGBA8)
#define DST_FORMAT rgba8
#elif defined(VKFX_BENCH_FMT_RGBA16F)
#define DST_FORMAT rgba16f
#elif defined(VKFX_BENCH_FMT_RGBA32F)
#define DST_FORMAT rgba32f
#elif defined(VKFX_BENCH_FMT_R32F)
#define DST_FORMAT r32f
#define ONE_CHANNEL 1 // taps and sums of the red channel alone, as a one-channel blur is written
#elif defined(VKFX_BENCH_FMT_R8)
#define DST_FORMAT r8
#define ONE_CHANNEL 1
#elif defined(VKFX_BENCH_FMT_B10G11R11)
#define DST_FORMAT r11f_g11f_b10f
#else
#error "define one VKFX_BENCH_FMT_*"
#endif

#if !defined(VKFX_BENCH_AXIS) || (VKFX_BENCH_AXIS != 0 && VKFX_BENCH_AXIS != 1)
#error "define VKFX_BENCH_AXIS as 0 (horizontal) or 1 (vertical)"
#endif

const uint kMaxRadius = 1024u; // vkfx::Blurrer::kMaxDecimatedRadius; the host checks the radius

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0) uniform texture2DArray src;
layout(set = 0, binding = 1, DST_FORMAT) uniform writeonly image2DArray dst;

layout(push_constant) uniform Push {
    uint radius;       // taps each side
    float weightScale; // -1 / (2 sigma^2)
    ivec2 size;        // of both images (pushed: a textureSize query costs a texture round trip)
} pc;

shared float sWeight[kMaxRadius + 1u];
shared float sInvSum;

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    for (uint k = tid; k <= pc.radius; k += 256u) sWeight[k] = exp(pc.weightScale * float(k * k));
    barrier();
    if (tid == 0u) {
        float sum = 0.0;
        for (uint k = pc.radius; k >= 1u; --k) sum += 2.0 * sWeight[k];
        sInvSum = 1.0 / (sum + sWeight[0]);
    }
    barrier();

    const ivec2 size = pc.size;
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= size.x || p.y >= size.y) return;
    const int layer = int(gl_GlobalInvocationID.z);
    const int last = size[VKFX_BENCH_AXIS] - 1;
    const int centre = p[VKFX_BENCH_AXIS];
#if defined(ONE_CHANNEL)
#define TAP(q) texelFetch(src, ivec3(q, layer), 0).r
    float acc = sWeight[0] * TAP(p);
#else
#define TAP(q) texelFetch(src, ivec3(q, layer), 0)
    vec4 acc = sWeight[0] * TAP(p);
#endif
    for (int k = 1; k <= int(pc.radius); ++k) {
        ivec2 lo = p, hi = p;
        lo[VKFX_BENCH_AXIS] = max(centre - k, 0);
        hi[VKFX_BENCH_AXIS] = min(centre + k, last);
        acc += sWeight[k] * (TAP(lo) + TAP(hi));
    }
    imageStore(dst, ivec3(p, layer), vec4(acc * sInvSum));
}
