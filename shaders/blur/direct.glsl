// vkfx blur: what the Direct method's two kernels share (blur.comp walks strips, blur_tile.comp
// blurs tiles): their bindings, blur.comp's push constants (one pipeline layout, whose range also
// holds blur_tile.comp's) and the shared-memory slot of a texel.
// The includer includes common/format.glsl and blur/border.glsl first.
#ifndef VKFX_BLUR_DIRECT_GLSL
#define VKFX_BLUR_DIRECT_GLSL

const uint kFilterGaussian = 0u;
const uint kFilterBox = 1u;

layout(set = 0, binding = 0) uniform sampler2DArray src;
VKFX_DST_LAYOUT(1) uniform writeonly image2DArray dst;

#ifndef VKFX_BLUR_TILE_PUSH // (blur_tile.comp declares its own)
layout(push_constant) uniform Push {
    ivec2 srcOffset;  // region origin in the source level
    ivec2 dstOffset;  // region origin in the destination level
    uvec2 extent;     // region size
    uvec2 radius;     // x, y taps each side
    vec2 weightScale; // Gaussian: -1 / (2 sigma^2) per axis
    uint kernel;      // kFilter*
    uint border;      // kBorder*
    vec4 borderColor; // kBorderConstant: linear RGBA
    // blur.comp's walk:
    uint strip;       // output columns per workgroup (a multiple of kOutputs)
    uint rows;        // rows per step (a multiple of kOutputs; strip * rows / kOutputs <= kGroupSize)
    uint segment;     // output rows per workgroup (a multiple of rows)
    uint ringRows;    // rows of the ring: rows + 2 radius.y
} pc;
#endif

// Texels in shared memory: 8-bit formats as packed halves (their 1-code bound leaves room for
// two fp16 roundings; half the bytes of fp32), the others as fp32.
#if VKFX_BLUR_PACKED
#define SLOT uvec2
SLOT toSlot(VEC v) { return uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw)); }
VEC fromSlot(SLOT s) { return VEC(unpackHalf2x16(s.x), unpackHalf2x16(s.y)); }
#else
#define SLOT VEC
SLOT toSlot(VEC v) { return v; }
VEC fromSlot(SLOT s) { return s; }
#endif

#endif
