// vkfx blur: border modes and the final encode, shared by blur.comp and blur_grid.comp.
// The includer declares the specialization constant kSrgb before including this file.
#ifndef VKFX_BLUR_BORDER_GLSL
#define VKFX_BLUR_BORDER_GLSL

const uint kBorderClampToEdge = 0u;
const uint kBorderMirror = 1u;     // reflect-101: dcb|abcd|cba
const uint kBorderMirrorEdge = 2u; // edge repeated: cba|abcd|dcb
const uint kBorderWrap = 3u;
const uint kBorderConstant = 4u;

// i mod n in 0..n-1 for any sign of i (GLSL's % is undefined for negative operands).
int floorMod(int i, int n)
{
    return i >= 0 ? i % n : n - 1 - (-1 - i) % n;
}

// Where a tap at coordinate i of an axis of n texels reads under border mode `border` (-1: the
// constant colour).
int borderIndex(int i, int n, uint border)
{
    if (i >= 0 && i < n) return i;
    switch (border) {
    case kBorderClampToEdge:
        return clamp(i, 0, n - 1);
    case kBorderMirror: {
        if (n == 1) return 0;
        int m = floorMod(i, 2 * n - 2);
        return m < n ? m : 2 * n - 2 - m;
    }
    case kBorderMirrorEdge: {
        int m = floorMod(i, 2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    case kBorderWrap:
        return floorMod(i, n);
    default:
        return -1;
    }
}

// A filtered value as imageStore takes it: sRGB-encoded for sRGB images (written through a UNORM
// view), else rounded as the format stores it.
vec4 encode(VEC v)
{
    vec4 c = VEC_TO4(v);
    return kSrgb ? srgbEncodeColor(c) : VKFX_ROUND(c);
}

#endif
