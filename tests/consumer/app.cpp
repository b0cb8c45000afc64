// Consumer check: a program using vkfx as an installed package or through add_subdirectory().
#include <vkfx/vkfx.hpp>

#include <vkfx/spirv/downsample.hpp>
#include <vkfx/version.hpp>

#include <cstdio>
#include <iterator>

int main() {
    static_assert(VKFX_VERSION == VKFX_VERSION_MAJOR * 10000 + VKFX_VERSION_MINOR * 100 +
                                      VKFX_VERSION_PATCH);
    // The embedded SPIR-V starts with the SPIR-V magic number.
    if (vkfx::spirv::downsample_rgba8_single[0] != 0x07230203u ||
        std::size(vkfx::spirv::downsample_rgba8_single) < 5) {
        std::puts("embedded SPIR-V is malformed");
        return 1;
    }
    std::printf("vkfx %s\n", VKFX_VERSION_STRING);
    return 0;
}
