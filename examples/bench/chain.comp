#version 460
// vkfx-bench baseline: one level of a mip chain per dispatch, the straightforward compute approach.
//
// Reads level k through a sampled view (texelFetch, no sampler) and writes level k+1 through a
// storage view; the host records one dispatch per level with a barrier between levels. Texel x of
// level k+1 reduces the 2x2 box at 2x of level k (clamped to the level, so where level k is 1 texel
// wide it reads that texel twice); odd edges drop their last row / column, as most such kernels do.
//
// Variants (exactly one VKFX_BENCH_FMT_*):
//   VKFX_BENCH_FMT_RGBA8 / _RGBA16F / _R32F / _B10G11R11 / _R8 / _RG8 / _R16F / _RGB10A2
//                       the storage view's format
//   VKFX_BENCH_SRGB=1   the sampled view decodes sRGB; average in linear light, encode before the
//                       store through the UNORM storage view
//   VKFX_BENCH_MIN=1    per-channel minimum instead of the mean (a depth pyramid)
//   VKFX_BENCH_COPY=1   texel x of the output is texel x of the input, same extent (a depth
//                       image's level 0 into level 0 of an R32F pyramid, before the MIN chain)
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_GOOGLE_include_directive : require

#include "common/srgb.glsl"

#if defined(VKFX_BENCH_FMT_RGBA8)
#define DST_FORMAT rgba8
#elif defined(VKFX_BENCH_FMT_RGBA16F)
#define DST_FORMAT rgba16f
#elif defined(VKFX_BENCH_FMT_R32F)
#define DST_FORMAT r32f
#elif defined(VKFX_BENCH_FMT_B10G11R11)
#define DST_FORMAT r11f_g11f_b10f
#elif defined(VKFX_BENCH_FMT_R8)
#define DST_FORMAT r8
#elif defined(VKFX_BENCH_FMT_RG8)
#define DST_FORMAT rg8
#elif defined(VKFX_BENCH_FMT_R16F)
#define DST_FORMAT r16f
#elif defined(VKFX_BENCH_FMT_RGB10A2)
#define DST_FORMAT rgb10_a2
#else
#error "define one VKFX_BENCH_FMT_*"
#endif

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform texture2DArray src;
layout(set = 0, binding = 1, DST_FORMAT) uniform writeonly image2DArray dst;

layout(push_constant) uniform Push {
    uvec2 dstExtent; // extent of level k+1
    uvec2 srcExtent; // extent of level k (pushed: a textureSize query costs a texture round trip)
} pc;

void main()
{
    const uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= pc.dstExtent.x || p.y >= pc.dstExtent.y) return;
    const int layer = int(gl_GlobalInvocationID.z);
#if defined(VKFX_BENCH_COPY) && VKFX_BENCH_COPY
    vec4 r = texelFetch(src, ivec3(ivec2(p), layer), 0);
#else
    const ivec2 last = ivec2(pc.srcExtent) - 1;
    const ivec2 s0 = ivec2(p) * 2;
    const ivec2 s1 = min(s0 + 1, last);
    vec4 a = texelFetch(src, ivec3(s0.x, s0.y, layer), 0);
    vec4 b = texelFetch(src, ivec3(s1.x, s0.y, layer), 0);
    vec4 c = texelFetch(src, ivec3(s0.x, s1.y, layer), 0);
    vec4 d = texelFetch(src, ivec3(s1.x, s1.y, layer), 0);
#if defined(VKFX_BENCH_MIN) && VKFX_BENCH_MIN
    vec4 r = min(min(a, b), min(c, d));
#else
    vec4 r = (a + b + c + d) * 0.25;
#endif
#endif
#if defined(VKFX_BENCH_SRGB) && VKFX_BENCH_SRGB
    r = srgbEncodeColor(r);
#endif
    imageStore(dst, ivec3(p, layer), r);
}
