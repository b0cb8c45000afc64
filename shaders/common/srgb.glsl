// sRGB transfer function (IEC 61966-2-1), used where the kernel encodes linear values itself.
// Decoding is left to the sampler (an sRGB view), which is exact and free.
#ifndef VKFX_COMMON_SRGB_GLSL
#define VKFX_COMMON_SRGB_GLSL

const float kSrgbLinearCutoff = 0.0031308;

float srgbEncode(float l)
{
    l = clamp(l, 0.0, 1.0);
    return l <= kSrgbLinearCutoff ? l * 12.92 : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

// Colour channels are encoded; alpha stays linear.
vec4 srgbEncodeColor(vec4 c)
{
    return vec4(srgbEncode(c.r), srgbEncode(c.g), srgbEncode(c.b), c.a);
}

#endif
