#version 460
// vkfx-bench: fills level 0 of a benchmark image with hash noise (not timed).
//
// Noise rather than a clear: a constant image may be stored compressed and read faster than the
// images a frame produces. Values are in [0, 1] in every channel.
//
// Variants (exactly one VKFX_BENCH_FMT_*): RGBA8 (also sRGB images, through a UNORM view),
// RGBA16F, R32F, RGBA32F, B10G11R11, R8, RG8, R16F, RGB10A2 (A2B10G10R10_UNORM_PACK32): the
// storage view's format.

#if defined(VKFX_BENCH_FMT_RGBA8)
#define DST_FORMAT rgba8
#elif defined(VKFX_BENCH_FMT_RGBA16F)
#define DST_FORMAT rgba16f
#elif defined(VKFX_BENCH_FMT_R32F)
#define DST_FORMAT r32f
#elif defined(VKFX_BENCH_FMT_RGBA32F)
#define DST_FORMAT rgba32f
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

layout(set = 0, binding = 0, DST_FORMAT) uniform writeonly image2DArray dst;

layout(push_constant) uniform Push {
    uvec2 extent;
    uint seed;
} pc;

// A 32-bit integer hash (Chris Wellons' lowbias32).
uint hash(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

void main()
{
    const uvec3 p = gl_GlobalInvocationID;
    if (p.x >= pc.extent.x || p.y >= pc.extent.y) return;
    const uint h = hash(p.x ^ hash(p.y ^ hash(p.z ^ pc.seed)));
    const vec4 v = vec4(uvec4(h, h >> 8, h >> 16, h >> 24) & 255u) / 255.0;
    imageStore(dst, ivec3(p), v);
}
