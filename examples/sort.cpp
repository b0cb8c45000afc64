// vkfx example: sorts 1,000,000 float keys with uint32 payloads (each its input index) in device-
// local buffers (vkfx::Sorter), with scratch the application queries, allocates and passes, and
// checks that the keys ascend, equal keys keep their input order and payloads moved with keys.
//   Run: vkfx-example-sort   (first GPU, else lavapipe; non-zero exit on any failure)
#include "example_gpu.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

int main()
{
    example::Gpu g = example::openGpu("vkfx-example-sort");
    vkfx::Device dev;
    example::check(vkfx::Device::create({.instance = g.instance, .physicalDevice = g.physical,
                                         .device = g.device, .getInstanceProcAddr = vkGetInstanceProcAddr},
                                        &dev),
                   "vkfx::Device::create");

    // The input: keys of 50,000 values (about 20 keys each, so that stability shows), and payloads
    // that say where each key was.
    const std::uint32_t n = 1000000;
    std::vector<float> keys(n);
    std::vector<std::uint32_t> payloads(n);
    std::uint32_t random = 1;
    for (std::uint32_t i = 0; i < n; ++i) {
        random = random * 1664525u + 1013904223u;
        keys[i] = static_cast<float>((random >> 8) % 50000u) * 0.25f - 5000.0f;
        payloads[i] = i;
    }

    // The Sorter, created without scratch of its own (ownScratch = false): the application asks
    // how much a sort of n keys needs and allocates it (its usage includes INDIRECT_BUFFER; a
    // buffer of its own, at offset 0, meets the alignment).
    const vkfx::SorterCreateInfo sorterInfo{.key = vkfx::SortKey::Float32,
                                            .values = vkfx::SortValues::Bits32,
                                            .maxCount = n,
                                            .ownScratch = false};
    vkfx::Sorter sorter;
    example::check(vkfx::Sorter::create(dev, sorterInfo, &sorter), "vkfx::Sorter::create");
    const vkfx::ScratchRequirements need = vkfx::Sorter::scratchRequirements(dev, sorterInfo, n);
    example::Buffer scratch =
        example::createBuffer(g, need.size, need.usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);

    // The keys and payloads (STORAGE usage for vkfx), and a staging buffer for both.
    const VkDeviceSize bytes = VkDeviceSize{n} * 4;
    const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    example::Buffer keyBuffer = example::createBuffer(g, bytes, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    example::Buffer valueBuffer = example::createBuffer(g, bytes, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    example::Buffer staging =
        example::createBuffer(g, 2 * bytes,
                              VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    auto* stagedKeys = static_cast<float*>(staging.mapped);
    auto* stagedPayloads = reinterpret_cast<std::uint32_t*>(stagedKeys + n);
    std::memcpy(stagedKeys, keys.data(), bytes);
    std::memcpy(stagedPayloads, payloads.data(), bytes);

    VkCommandBuffer cmd = example::beginCommands(g);
    const VkBufferCopy keyRegion{0, 0, bytes}, valueRegion{bytes, 0, bytes};
    vkCmdCopyBuffer(cmd, staging.buffer, keyBuffer.buffer, 1, &keyRegion);
    vkCmdCopyBuffer(cmd, staging.buffer, valueBuffer.buffer, 1, &valueRegion);
    // Before record(): the keys and values visible to compute shader reads and writes.
    example::memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    example::check(sorter.record(cmd, {.keys = {keyBuffer.buffer, 0},
                                       .values = {valueBuffer.buffer, 0},
                                       .count = n,
                                       .scratchBuffer = scratch.buffer}),
                   "vkfx::Sorter::record");
    // After it: both were written by compute shader writes.
    example::memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    const VkBufferCopy keyBack{0, 0, bytes}, valueBack{0, bytes, bytes};
    vkCmdCopyBuffer(cmd, keyBuffer.buffer, staging.buffer, 1, &keyBack);
    vkCmdCopyBuffer(cmd, valueBuffer.buffer, staging.buffer, 1, &valueBack);
    example::memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                           VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    example::submitAndWait(g, cmd);

    // Each payload once, with its own key; keys ascending; equal keys in input order.
    std::vector<bool> seen(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const float key = stagedKeys[i];
        const std::uint32_t from = stagedPayloads[i];
        if (from >= n || seen[from] || keys[from] != key) {
            example::fail("position %u: payload %u with key %g is not an input pair", i, from, key);
        }
        seen[from] = true;
        if (i > 0 && stagedKeys[i - 1] > key) example::fail("position %u: keys out of order", i);
        if (i > 0 && stagedKeys[i - 1] == key && stagedPayloads[i - 1] > from) {
            example::fail("position %u: equal keys out of input order (not stable)", i);
        }
    }
    const bool onesweep = sorter.path() == vkfx::SortPath::Onesweep;
    std::printf("sort: %u float32 keys with uint32 payloads, ascending, on %s (%s path)\n", n,
                g.props.deviceName, onesweep ? "Onesweep" : "ReduceThenScan");
    std::printf("keys from %g to %g in order, equal keys in input order, every payload with its key\n",
                stagedKeys[0], stagedKeys[n - 1]);

    sorter.destroy();
    example::destroy(g, staging);
    example::destroy(g, valueBuffer);
    example::destroy(g, keyBuffer);
    example::destroy(g, scratch);
    example::closeGpu(g);
    return 0;
}
