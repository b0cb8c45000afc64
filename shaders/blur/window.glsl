// vkfx blur: the sliding window of taps that the Direct method's walk (blur.comp) and the TwoPass
// method's passes (blur_grid.comp) filter with. The includer defines VEC and the constant
// kOutputs (outputs per invocation) before including this file, and VKFX_BLUR_PACKED for packed
// shared-memory slots.
#ifndef VKFX_BLUR_WINDOW_GLSL
#define VKFX_BLUR_WINDOW_GLSL

// kOutputs consecutive results of a 1D filter of 2r+1 taps (weights w(0..2r)), where output j
// reads texels at(j + i), i = 0..2r. A window of kOutputs texels rotates through registers (one
// load per tap): the main loop takes kOutputs taps per round, so that every window index is a
// constant. The last taps (fewer than kOutputs; `taps` is uniform) go on the same way where the
// slots are fp32 (H200, RGBA16F: 4-5% faster, 72 registers instead of 78); packed slots take
// the texels they need directly (the rotation took RGBA8 from 72 to 92 registers: 8% slower at
// r = 32, though 9% faster at r = 1).
#if VKFX_BLUR_PACKED
const bool kWindowTail = false;
#else
const bool kWindowTail = true;
#endif
// Tap i0 + u (u a constant): the window's newest texel loaded, its weight applied to every output.
#define WINDOW_TAP(acc, weight, at, i0, u)                                                         \
    {                                                                                              \
        win[((u) + kOutputs - 1u) % kOutputs] = at((i0) + (u) + kOutputs - 1u);                    \
        float w = weight((i0) + (u));                                                              \
        [[unroll]] for (uint j = 0u; j < kOutputs; ++j) acc[j] += w * win[((u) + j) % kOutputs];   \
    }
#define FILTER_OUTPUTS(acc, taps, weight, at)                                                      \
    {                                                                                              \
        [[unroll]] for (uint j = 0u; j < kOutputs; ++j) acc[j] = VEC(0.0);                         \
        VEC win[kOutputs];                                                                         \
        [[unroll]] for (uint j = 0u; j + 1u < kOutputs; ++j) win[j] = at(j);                      \
        uint i0 = 0u;                                                                              \
        for (; i0 + kOutputs <= taps; i0 += kOutputs) {                                            \
            [[unroll]] for (uint u = 0u; u < kOutputs; ++u) WINDOW_TAP(acc, weight, at, i0, u)     \
        }                                                                                          \
        if (kWindowTail) {                                                                         \
            [[unroll]] for (uint u = 0u; u + 1u < kOutputs; ++u) {                                 \
                if (i0 + u < taps) WINDOW_TAP(acc, weight, at, i0, u)                              \
            }                                                                                      \
        } else {                                                                                   \
            for (uint i = i0; i < taps; ++i) {                                                     \
                float w = weight(i);                                                               \
                [[unroll]] for (uint j = 0u; j < kOutputs; ++j) acc[j] += w * at(i + j);           \
            }                                                                                      \
        }                                                                                          \
    }

// The same kOutputs results with the roles of texels and weights swapped (the TwoPass column
// pass): texel i (0 .. taps + kOutputs - 2) is loaded once and added to output j with weight
// w(i - j), so the window that rotates through registers holds kOutputs scalar weights instead of
// kOutputs texels. wpad(n) is w(n) for n < taps and 0 for taps <= n < taps + kOutputs - 1 (the
// includer pads its table with zeros). The first round (texels 0 .. kOutputs - 1) leaves out the
// outputs a texel does not reach.
#define SCATTER_TAP(acc, wpad, at, i0, u)                                                          \
    {                                                                                              \
        wwin[u] = wpad((i0) + (u));                                                                \
        VEC x = at((i0) + (u));                                                                    \
        [[unroll]] for (uint j = 0u; j < kOutputs; ++j) acc[j] += wwin[((u) + kOutputs - j) % kOutputs] * x; \
    }
#define FILTER_OUTPUTS_SCATTER(acc, taps, wpad, at)                                                \
    {                                                                                              \
        [[unroll]] for (uint j = 0u; j < kOutputs; ++j) acc[j] = VEC(0.0);                         \
        float wwin[kOutputs];                                                                      \
        [[unroll]] for (uint u = 0u; u < kOutputs; ++u) {                                          \
            wwin[u] = wpad(u);                                                                     \
            VEC x = at(u);                                                                         \
            [[unroll]] for (uint j = 0u; j <= u; ++j) acc[j] += wwin[u - j] * x;                   \
        }                                                                                          \
        uint n = (taps) + kOutputs - 1u;                                                           \
        uint i0 = kOutputs;                                                                        \
        for (; i0 + kOutputs <= n; i0 += kOutputs) {                                               \
            [[unroll]] for (uint u = 0u; u < kOutputs; ++u) SCATTER_TAP(acc, wpad, at, i0, u)      \
        }                                                                                          \
        [[unroll]] for (uint u = 0u; u + 1u < kOutputs; ++u) {                                     \
            if (i0 + u < n) SCATTER_TAP(acc, wpad, at, i0, u)                                      \
        }                                                                                          \
    }

#endif
