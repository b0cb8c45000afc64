// Storage formats of the images vkfx writes. Exactly one VKFX_FMT_<name> is defined per variant
// (by the build); it fixes the GLSL image format qualifier and how many channels the kernel carries.
//   VKFX_CHANNELS      1..4: components filtered (the rest are written as 0, alpha as 1)
//   VKFX_DST_LAYOUT(b) layout() of a destination storage image at binding b
//   VKFX_ROUND(v)      v (a vec4) rounded to the nearest value the format stores, ties to even,
//                      for formats whose hardware conversion may truncate (fp16 and the 11/10-bit
//                      floats are stored by rounding toward zero on common GPUs); the identity
//                      for the others, which the hardware converts exactly or to nearest.
// bgra8 has no GLSL format qualifier: it is written without one, which needs the device feature
// shaderStorageImageWriteWithoutFormat. r16, r8, rg8, r16f, rg16f, rgb10a2 and r11g11b10f need
// shaderStorageImageExtendedFormats.
#ifndef VKFX_COMMON_FORMAT_GLSL
#define VKFX_COMMON_FORMAT_GLSL

#if defined(VKFX_FMT_rgba8)
#define VKFX_CHANNELS 4
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b, rgba8)
#define VKFX_ROUND(v) (v)
#elif defined(VKFX_FMT_bgra8)
#define VKFX_CHANNELS 4
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b)
#define VKFX_ROUND(v) (v)
#elif defined(VKFX_FMT_rgba16f)
#define VKFX_CHANNELS 4
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b, rgba16f)
#define VKFX_ROUND(v) roundToMantissa((v), ivec4(10))
#elif defined(VKFX_FMT_rg16f)
#define VKFX_CHANNELS 2
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b, rg16f)
#define VKFX_ROUND(v) roundToMantissa((v), ivec4(10))
#elif defined(VKFX_FMT_r32f)
#define VKFX_CHANNELS 1
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b, r32f)
#define VKFX_ROUND(v) (v)
#elif defined(VKFX_FMT_rgba32f)
#define VKFX_CHANNELS 4
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b, rgba32f)
#define VKFX_ROUND(v) (v)
#elif defined(VKFX_FMT_r11g11b10f)
// VKFX_FOUR_CHANNELS (the blur's variants): carried as four channels (the sampler's alpha of 1,
// which the store drops), so that the kernels keep RGBA16F's 16-byte slots and layouts.
#if defined(VKFX_FOUR_CHANNELS) && VKFX_FOUR_CHANNELS
#define VKFX_CHANNELS 4
#else
#define VKFX_CHANNELS 3
#endif
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b, r11f_g11f_b10f)
#define VKFX_ROUND(v) roundToMantissa((v), ivec4(6, 6, 5, 0))
#elif defined(VKFX_FMT_r16)
#define VKFX_CHANNELS 1
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b, r16)
#define VKFX_ROUND(v) (v)
#elif defined(VKFX_FMT_r8)
#define VKFX_CHANNELS 1
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b, r8)
#define VKFX_ROUND(v) (v)
#elif defined(VKFX_FMT_rg8)
#define VKFX_CHANNELS 2
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b, rg8)
#define VKFX_ROUND(v) (v)
#elif defined(VKFX_FMT_r16f)
#define VKFX_CHANNELS 1
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b, r16f)
#define VKFX_ROUND(v) roundToMantissa((v), ivec4(10))
#elif defined(VKFX_FMT_rgb10a2)
// VK_FORMAT_A2B10G10R10_UNORM_PACK32: R in bits 0..9, G 10..19, B 20..29, A 30..31.
#define VKFX_CHANNELS 4
#define VKFX_DST_LAYOUT(b) layout(set = 0, binding = b, rgb10_a2)
#define VKFX_ROUND(v) (v)
#else
#error "define one VKFX_FMT_<name>"
#endif

// VEC: the per-texel value type; VEC_FROM4 takes the filtered channels of a fetched texel;
// VEC_TO4 widens a value for imageStore.
#if VKFX_CHANNELS == 1
#define VEC float
#define VEC_FROM4(v) (v).r
#define VEC_TO4(v) vec4((v), 0.0, 0.0, 1.0)
#elif VKFX_CHANNELS == 2
#define VEC vec2
#define VEC_FROM4(v) (v).rg
#define VEC_TO4(v) vec4((v), 0.0, 1.0)
#elif VKFX_CHANNELS == 3
#define VEC vec3
#define VEC_FROM4(v) (v).rgb
#define VEC_TO4(v) vec4((v), 1.0)
#else
#define VEC vec4
#define VEC_FROM4(v) (v)
#define VEC_TO4(v) (v)
#endif

// Rounds each channel of v to the nearest float with `bits` mantissa bits and the 5-bit exponent
// of fp16 / 11-bit / 10-bit floats (denormals below 2^-14), ties to even; a channel with
// bits == 0 is unchanged. One fp32 addition and one subtraction of m = 1.5 x 2^(e + 23 - bits),
// e the channel's exponent (at least -14): m's unit is 2^(e - bits), the spacing wanted, and the
// sum v + m stays in m's binade, so the addition rounds v to that spacing, to nearest, ties to
// even (m has a 0 there); the subtraction is exact. Infinities and NaNs pass through (their m
// overflows to a tiny negative value); values far above the format's range are left to the
// store's conversion. `precise`: no compiler may fold (v + m) - m into v (the downsample test
// FloatLevelsRoundToNearestTiesToEven fails where the stores truncate and the rounding is gone).
// About half the instructions of a scale, roundEven and rescale: on an H200 RGBA16F blurs at radii
// 1-4 3-7% faster, RGBA16F and B10G11R11 mip chains 3-5%.
vec4 roundToMantissa(vec4 v, ivec4 bits)
{
    uvec4 e = max(floatBitsToUint(v) & 0x7F800000u, uvec4(113u << 23)); // 113: 127 - 14
    vec4 m = uintBitsToFloat(e + (uvec4(23 - bits) << 23) + 0x00400000u);
    precise vec4 r = (v + m) - m;
    return mix(r, v, equal(bits, ivec4(0)));
}

#endif
