#version 460
// vkfx-bench: a plain compute copy of a buffer, uint4 loads and stores, grid-stride.
//
// Two uses: the device's copy ceiling (bytes read + bytes written over the time of a copy of a
// buffer much larger than any cache), and the L2 eviction pass run before each timed repetition
// (a copy between two buffers larger than the L2, which leaves the downsampled image out of it).
//
// Every invocation loads kUnroll uint4 elements (one grid stride apart, so that a subgroup's loads
// stay contiguous) before it stores any, to keep several loads in flight; the tail is copied one
// element per iteration.
#if !defined(VKFX_BENCH_COPY) || VKFX_BENCH_COPY != 1
#error "compile with -DVKFX_BENCH_COPY=1"
#endif

#extension GL_EXT_control_flow_attributes : require

const uint kGroupSize = 256u;
const uint kUnroll = 4u;

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { uvec4 dst[]; };

layout(push_constant) uniform Push {
    uint count; // uint4 elements to copy
} pc;

void main()
{
    const uint stride = gl_NumWorkGroups.x * kGroupSize;
    uint i = gl_GlobalInvocationID.x;
    for (; i + (kUnroll - 1u) * stride < pc.count; i += kUnroll * stride) {
        uvec4 v[kUnroll];
        [[unroll]] for (uint k = 0u; k < kUnroll; ++k) v[k] = src[i + k * stride];
        [[unroll]] for (uint k = 0u; k < kUnroll; ++k) dst[i + k * stride] = v[k];
    }
    for (; i < pc.count; i += stride) dst[i] = src[i];
}
