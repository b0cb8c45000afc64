#version 460
// vkfx-bench: fills a buffer of 32-bit words for the sort benchmark (grid-stride).
//   mode 0: hashed bits (uniform uint32 keys)
//   mode 1: floats uniform in [-1, 1) (float32 keys, both signs)
//   mode 2: the index (values)
//   mode 3: hashed bits below 2^24 (uint32 keys whose top byte is 0)
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) writeonly buffer Words { uint words[]; };

layout(push_constant) uniform Push {
    uint count;
    uint seed;
    uint mode;
} pc;

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
    const uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        uint h = hash(i * 0x9E3779B9u + hash(pc.seed));
        if (pc.mode == 1u) h = floatBitsToUint(uintBitsToFloat((h >> 9) | 0x3F800000u) * 2.0 - 3.0);
        if (pc.mode == 3u) h &= 0xFFFFFFu;
        words[i] = pc.mode == 2u ? i : h;
    }
}
