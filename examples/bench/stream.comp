#version 460
// vkfx-bench: the bytes of a mip chain moved by a plain buffer kernel, the fastest way this device
// moves them: no image, no filter, no levels after one another.
//
// The source (the base level's bytes) is read once and the destination (the bytes of every other
// level) written once, as uint4 elements. The source is read as four quarters, one after the
// other: invocation u reads element u of each quarter (so that a subgroup's loads stay
// contiguous), adds the four and stores the sum as destination elements u, quarter + u,
// 2 quarter + u and 3 quarter + u, those below the destination's length (at most the source's: a
// chain writes less than its base). kUnits such units per invocation and iteration (their loads
// issued together), grid-stride.
#if !defined(VKFX_BENCH_STREAM) || VKFX_BENCH_STREAM != 1
#error "compile with -DVKFX_BENCH_STREAM=1"
#endif

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { uvec4 dst[]; };

layout(push_constant) uniform Push {
    uint quarter; // uint4 elements in each quarter of the source (the source holds four)
    uint writes;  // uint4 elements of the destination, 1 .. 4 quarter
} pc;

const uint kUnits = 2u; // units of four loads in flight per invocation (H200: 1-4% faster than 1)

void main()
{
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    const uint q = pc.quarter;
    for (uint u0 = gl_GlobalInvocationID.x; u0 < q; u0 += kUnits * stride) {
        uvec4 s[kUnits];
        [[unroll]] for (uint k = 0u; k < kUnits; ++k) {
            const uint u = min(u0 + k * stride, q - 1u);
            s[k] = src[u] + src[u + q] + src[u + 2u * q] + src[u + 3u * q];
        }
        [[unroll]] for (uint k = 0u; k < kUnits; ++k) {
            const uint u = u0 + k * stride;
            if (u >= q) break;
            [[unroll]] for (uint j = 0u; j < 4u; ++j) {
                if (u + j * q < pc.writes) dst[u + j * q] = s[k];
            }
        }
    }
}
