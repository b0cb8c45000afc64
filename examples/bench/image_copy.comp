#version 460
// vkfx-bench reference for `vkfx-bench blur`: a copy of the source image into the destination
// through the instructions a blur kernel reads and writes an image with (texelFetch of a sampled
// view, imageStore to a storage view), each texel read once and written once. Its time is what a
// one-dispatch kernel that reads every source texel and writes every destination texel through
// these instructions costs at least on the GPU, whatever it computes in between: the bandwidth
// floor at the copy ceiling (a buffer copy) can be lower.
//
// A workgroup of 256 copies 64 columns x 32 rows; each 32 invocations (numbered in
// gl_LocalInvocationIndex order) 32 columns x 8 rows, two rows at a time, each instruction 16
// columns x 2 rows as 2 x 2 quads: whole 16-byte x 2-row sectors of a block-linear image (a row at
// a time writes half of each). On an H200 (RGBA8 3840x2160, probe builds) this took 22.9 us and
// stores a row at a time 24.4.
//
// Variants: VKFX_BENCH_FMT_RGBA8 / _RGBA16F / _RGBA32F / _R32F / _R8 / _B10G11R11, the storage
// view's format.
#extension GL_EXT_samplerless_texture_functions : require

#if defined(VKFX_BENCH_FMT_RGBA8)
#define DST_FORMAT rgba8
#elif defined(VKFX_BENCH_FMT_RGBA16F)
#define DST_FORMAT rgba16f
#elif defined(VKFX_BENCH_FMT_RGBA32F)
#define DST_FORMAT rgba32f
#elif defined(VKFX_BENCH_FMT_R32F)
#define DST_FORMAT r32f
#elif defined(VKFX_BENCH_FMT_R8)
#define DST_FORMAT r8
#elif defined(VKFX_BENCH_FMT_B10G11R11)
#define DST_FORMAT r11f_g11f_b10f
#else
#error "define one VKFX_BENCH_FMT_*"
#endif

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) uniform texture2DArray src;
layout(set = 0, binding = 1, DST_FORMAT) uniform writeonly image2DArray dst;

// The images' size (both the same), pushed: a textureSize query before the first load made the
// copy 14% slower on an H200 (RGBA8 3840x2160 26.6 us against 23.3).
layout(push_constant) uniform Push {
    ivec2 size;
} pc;

void main()
{
    const uint i = gl_LocalInvocationIndex;
    const uint lane = i & 31u;
    const uint warp = i >> 5u;
    const ivec2 size = pc.size;
    const int layer = int(gl_WorkGroupID.z);
    // The warp's 32 x 8 texels, then this invocation's column and row in each 16 x 2 of them.
    const ivec2 first = ivec2(gl_WorkGroupID.xy) * ivec2(64, 32) + ivec2(32 * int(warp & 1u), 8 * int(warp >> 1u)) +
                        ivec2(2 * int(lane >> 2u) + int(lane & 1u), int((lane >> 1u) & 1u));
    for (int y = 0; y < 8; y += 2) {
        const ivec2 p = first + ivec2(0, y), q = p + ivec2(16, 0);
        const vec4 a = texelFetch(src, ivec3(min(p, size - 1), layer), 0);
        const vec4 b = texelFetch(src, ivec3(min(q, size - 1), layer), 0);
        if (p.x < size.x && p.y < size.y) imageStore(dst, ivec3(p, layer), a);
        if (q.x < size.x && q.y < size.y) imageStore(dst, ivec3(q, layer), b);
    }
}
