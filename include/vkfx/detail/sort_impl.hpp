// Implementation of vkfx/sort.hpp. Include that header, not this one.
#pragma once

#include <vkfx/sort.hpp>

namespace vkfx {
namespace detail {

// Bindings of shaders/sort/radix.comp.
inline constexpr std::uint32_t kSortBindingKeysIn = 0;
inline constexpr std::uint32_t kSortBindingKeysOut = 1;
inline constexpr std::uint32_t kSortBindingValuesIn = 2;
inline constexpr std::uint32_t kSortBindingValuesOut = 3;
inline constexpr std::uint32_t kSortBindingCounts = 4;
inline constexpr std::uint32_t kSortBindingIndirectCount = 5;
inline constexpr std::uint32_t kSortFlagFirst = 1;
inline constexpr std::uint32_t kSortFlagLast = 2;
inline constexpr std::uint32_t kSortFlagIndirect = 4;

struct SortPush {
    std::uint32_t count;
    std::uint32_t shift;
    std::uint32_t flags;
    std::uint32_t unused;
};

// Scratch of a record of `count` keys: [keys | values | counts], each part aligned to `align`.
struct SortScratchLayout {
    VkDeviceSize keys = 0;
    VkDeviceSize values = 0;
    VkDeviceSize counts = 0;
    VkDeviceSize size = 0;
};

inline VkDeviceSize alignUp(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

inline SortScratchLayout sortScratchLayout(std::uint32_t count, bool values, VkDeviceSize align)
{
    const VkDeviceSize n = std::max<std::uint32_t>(count, 1);
    const VkDeviceSize tiles = (n + Sorter::kTileKeys - 1) / Sorter::kTileKeys;
    SortScratchLayout l;
    l.keys = 0;
    l.values = alignUp(n * 4, align);
    l.counts = values ? alignUp(l.values + n * 4, align) : l.values;
    l.size = l.counts + 256 * tiles * 4;
    return l;
}

} // namespace detail

inline void Sorter::swap(Sorter& other) noexcept
{
    std::swap(m_device, other.m_device);
    std::swap(m_info, other.m_info);
    std::swap(m_setLayout, other.m_setLayout);
    std::swap(m_pipelineLayout, other.m_pipelineLayout);
    std::swap(m_count, other.m_count);
    std::swap(m_scan, other.m_scan);
    std::swap(m_scatter, other.m_scatter);
    std::swap(m_scratch, other.m_scratch);
    std::swap(m_scratchMemory, other.m_scratchMemory);
    std::swap(m_scratchSize, other.m_scratchSize);
}

inline void Sorter::destroy()
{
    if (!m_device) return;
    const DeviceFunctions& f = m_device->fn();
    VkDevice d = m_device->handle();
    const VkAllocationCallbacks* a = m_device->allocator();
    for (VkPipeline p : {m_count, m_scan, m_scatter}) {
        if (p) f.vkDestroyPipeline(d, p, a);
    }
    if (m_pipelineLayout) f.vkDestroyPipelineLayout(d, m_pipelineLayout, a);
    if (m_setLayout) f.vkDestroyDescriptorSetLayout(d, m_setLayout, a);
    if (m_scratch) f.vkDestroyBuffer(d, m_scratch, a);
    if (m_scratchMemory) f.vkFreeMemory(d, m_scratchMemory, a);
    m_count = m_scan = m_scatter = VK_NULL_HANDLE;
    m_pipelineLayout = VK_NULL_HANDLE;
    m_setLayout = VK_NULL_HANDLE;
    m_scratch = VK_NULL_HANDLE;
    m_scratchMemory = VK_NULL_HANDLE;
    m_scratchSize = 0;
    m_device = nullptr;
}

inline ScratchRequirements Sorter::scratchRequirements(const Device& device, const SorterCreateInfo& info,
                                                       std::uint32_t count)
{
    ScratchRequirements req;
    if (!device.valid()) return req;
    req.alignment = detail::storageBufferAlignment(device);
    req.size = detail::sortScratchLayout(count, info.values, req.alignment).size;
    return req;
}

inline VkResult Sorter::create(const Device& device, const SorterCreateInfo& info, Sorter* sorter)
{
    const char* fn = "vkfx::Sorter::create";
    if (!sorter) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: sorter is null", fn);
    sorter->destroy();
    if (!device.valid()) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: device is not created", fn);
    if (static_cast<std::uint32_t>(info.key) > static_cast<std::uint32_t>(SortKey::Float32)) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: unknown key type %u", fn,
                           static_cast<unsigned>(info.key));
    }
    if (static_cast<std::uint32_t>(info.order) > static_cast<std::uint32_t>(SortOrder::Descending)) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: unknown order %u", fn,
                           static_cast<unsigned>(info.order));
    }
    if (info.maxCount == 0 || info.maxCount > kMaxCount) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: maxCount %u is outside 1..%u", fn,
                           info.maxCount, kMaxCount);
    }
    Sorter s;
    s.m_device = &device;
    s.m_info = info;
    const DeviceFunctions& f = device.fn();
    VkDevice d = device.handle();
    const VkAllocationCallbacks* a = device.allocator();

    VkDescriptorSetLayoutBinding bindings[6];
    for (std::uint32_t i = 0; i < 6; ++i) {
        bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    }
    VkDescriptorSetLayoutCreateInfo setInfo{};
    setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    setInfo.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    setInfo.bindingCount = 6;
    setInfo.pBindings = bindings;
    VkResult r = f.vkCreateDescriptorSetLayout(d, &setInfo, a, &s.m_setLayout);
    if (r != VK_SUCCESS) return device.fail(r, "%s: vkCreateDescriptorSetLayout failed (%d)", fn, static_cast<int>(r));

    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(detail::SortPush)};
    VkPipelineLayoutCreateInfo layoutInfo{};
    layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &s.m_setLayout;
    layoutInfo.pushConstantRangeCount = 1;
    layoutInfo.pPushConstantRanges = &range;
    r = f.vkCreatePipelineLayout(d, &layoutInfo, a, &s.m_pipelineLayout);
    if (r != VK_SUCCESS) return device.fail(r, "%s: vkCreatePipelineLayout failed (%d)", fn, static_cast<int>(r));

    struct Spec {
        std::uint32_t key;
        VkBool32 descending;
        VkBool32 values;
    } spec{static_cast<std::uint32_t>(info.key), info.order == SortOrder::Descending, info.values};
    VkSpecializationMapEntry entries[3] = {{0, offsetof(Spec, key), sizeof(std::uint32_t)},
                                           {1, offsetof(Spec, descending), sizeof(VkBool32)},
                                           {2, offsetof(Spec, values), sizeof(VkBool32)}};
    VkSpecializationInfo specInfo{3, entries, sizeof(Spec), &spec};
    struct Stage {
        const std::uint32_t* code;
        std::size_t bytes;
        VkPipeline* out;
        const char* what;
    } stages[3] = {{spirv::sort_count, sizeof(spirv::sort_count), &s.m_count, "vkfx::Sorter::create (count)"},
                   {spirv::sort_scan, sizeof(spirv::sort_scan), &s.m_scan, "vkfx::Sorter::create (scan)"},
                   {spirv::sort_scatter, sizeof(spirv::sort_scatter), &s.m_scatter, "vkfx::Sorter::create (scatter)"}};
    for (const Stage& st : stages) {
        r = detail::createComputePipeline(device, st.what, st.code, st.bytes, &specInfo, s.m_pipelineLayout, st.out);
        if (r != VK_SUCCESS) return r;
    }

    if (info.ownScratch) {
        s.m_scratchSize = scratchRequirements(device, info, info.maxCount).size;
        VkDeviceSize allocated = 0;
        r = detail::createBoundBuffer(device, "vkfx::Sorter::create: scratch", s.m_scratchSize,
                                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                      &s.m_scratch, &s.m_scratchMemory, &allocated);
        if (r != VK_SUCCESS) return r;
    }
    *sorter = std::move(s);
    return VK_SUCCESS;
}

inline VkResult Sorter::record(VkCommandBuffer cmd, const SortInfo& info) const
{
    return recordPasses(cmd, info, nullptr);
}

inline VkResult Sorter::recordIndirect(VkCommandBuffer cmd, const SortIndirectInfo& info) const
{
    if (m_device) {
        const VkDeviceSize align = detail::storageBufferAlignment(*m_device);
        if (!info.countBuffer.buffer) {
            return m_device->fail(VK_ERROR_VALIDATION_FAILED_EXT,
                                  "vkfx::Sorter::recordIndirect: countBuffer.buffer is VK_NULL_HANDLE");
        }
        if (info.countBuffer.offset % align != 0) {
            return m_device->fail(VK_ERROR_VALIDATION_FAILED_EXT,
                                  "vkfx::Sorter::recordIndirect: countBuffer.offset must be a multiple of %llu",
                                  static_cast<unsigned long long>(align));
        }
    }
    SortInfo direct{info.keys, info.values, m_info.maxCount, info.scratchBuffer, info.scratchOffset, info.scratchSize};
    return recordPasses(cmd, direct, &info.countBuffer);
}

inline VkResult Sorter::recordPasses(VkCommandBuffer cmd, const SortInfo& info, const SortBuffer* countBuffer) const
{
    const char* fn = countBuffer ? "vkfx::Sorter::recordIndirect" : "vkfx::Sorter::record";
    if (!m_device) {
        return detail::fail(nullptr, nullptr, VK_ERROR_VALIDATION_FAILED_EXT, "%s: the Sorter is not created", fn);
    }
    const Device& dev = *m_device;
    if (!cmd) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: cmd is VK_NULL_HANDLE", fn);
    if (info.count > m_info.maxCount) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: count %u is above the Sorter's maxCount %u", fn,
                        info.count, m_info.maxCount);
    }
    if (!info.keys.buffer) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: keys.buffer is VK_NULL_HANDLE", fn);
    if (m_info.values && !info.values.buffer) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                        "%s: the Sorter was created with values and values.buffer is VK_NULL_HANDLE", fn);
    }
    if (!m_info.values && info.values.buffer) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                        "%s: values.buffer is set but the Sorter was created without values", fn);
    }
    const VkDeviceSize align = detail::storageBufferAlignment(dev);
    if (info.keys.offset % align != 0 || (m_info.values && info.values.offset % align != 0)) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: keys and values offsets must be multiples of %llu", fn,
                        static_cast<unsigned long long>(align));
    }
    const detail::SortScratchLayout layout = detail::sortScratchLayout(info.count, m_info.values, align);
    VkBuffer scratch = m_scratch;
    VkDeviceSize scratchOffset = 0;
    if (info.scratchBuffer) {
        if (info.scratchOffset % align != 0) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: scratchOffset %llu is not a multiple of %llu", fn,
                            static_cast<unsigned long long>(info.scratchOffset), static_cast<unsigned long long>(align));
        }
        if (info.scratchSize != VK_WHOLE_SIZE && info.scratchSize < layout.size) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: scratch of %llu bytes is too small; %u keys need %llu", fn,
                            static_cast<unsigned long long>(info.scratchSize), info.count,
                            static_cast<unsigned long long>(layout.size));
        }
        auto overlaps = [&](const SortBuffer& b) {
            return b.buffer == info.scratchBuffer && b.offset < info.scratchOffset + layout.size &&
                   info.scratchOffset < b.offset + VkDeviceSize{info.count} * 4;
        };
        if (overlaps(info.keys) || (m_info.values && overlaps(info.values))) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the scratch range overlaps the keys or values", fn);
        }
        scratch = info.scratchBuffer;
        scratchOffset = info.scratchOffset;
    } else if (!scratch) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                        "%s: the Sorter has no scratch of its own (ownScratch = false): pass scratchBuffer", fn);
    }
    if (m_info.values && info.values.buffer == info.keys.buffer && info.values.offset < info.keys.offset + VkDeviceSize{info.count} * 4 &&
        info.keys.offset < info.values.offset + VkDeviceSize{info.count} * 4) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the keys and values ranges overlap", fn);
    }
    if (info.count < 2) return VK_SUCCESS;

    const DeviceFunctions& f = dev.fn();
    const VkDeviceSize bytes = VkDeviceSize{info.count} * 4;
    const std::uint32_t tiles = (info.count + kTileKeys - 1) / kTileKeys;
    // Indirect: the caller's ranges run to the end of their buffers (the count is not known here).
    const VkDeviceSize userBytes = countBuffer ? VK_WHOLE_SIZE : bytes;
    VkDescriptorBufferInfo userKeys{info.keys.buffer, info.keys.offset, userBytes};
    VkDescriptorBufferInfo userValues{info.values.buffer, info.values.offset, userBytes};
    VkDescriptorBufferInfo tmpKeys{scratch, scratchOffset + layout.keys, bytes};
    VkDescriptorBufferInfo tmpValues{scratch, scratchOffset + layout.values, bytes};
    VkDescriptorBufferInfo counts{scratch, scratchOffset + layout.counts, VkDeviceSize{256} * tiles * 4};
    // Not read without kSortFlagIndirect; bound to something valid all the same.
    VkDescriptorBufferInfo indirect = counts;
    if (countBuffer) indirect = {countBuffer->buffer, countBuffer->offset, 4};
    if (!m_info.values) {
        // Bound but never accessed (the values code is specialized away).
        userValues = userKeys;
        tmpValues = tmpKeys;
    }

    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    auto compute = [&] {
        f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                               1, &barrier, 0, nullptr, 0, nullptr);
    };
    compute(); // an earlier record's use of the same scratch is done

    for (std::uint32_t pass = 0; pass < 4; ++pass) {
        const bool fromUser = pass % 2 == 0; // passes 0, 2: user -> scratch; 1, 3: scratch -> user
        VkWriteDescriptorSet writes[6] = {};
        const VkDescriptorBufferInfo* infos[6] = {fromUser ? &userKeys : &tmpKeys, fromUser ? &tmpKeys : &userKeys,
                                                  fromUser ? &userValues : &tmpValues,
                                                  fromUser ? &tmpValues : &userValues, &counts, &indirect};
        for (std::uint32_t i = 0; i < 6; ++i) {
            writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
            writes[i].dstBinding = i;
            writes[i].descriptorCount = 1;
            writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[i].pBufferInfo = infos[i];
        }
        detail::SortPush push{info.count, 8 * pass,
                              (pass == 0 ? detail::kSortFlagFirst : 0u) | (pass == 3 ? detail::kSortFlagLast : 0u) |
                                  (countBuffer ? detail::kSortFlagIndirect : 0u),
                              0};
        const VkPipeline pipelines[3] = {m_count, m_scan, m_scatter};
        const std::uint32_t groups[3] = {tiles, 1, tiles};
        for (std::uint32_t k = 0; k < 3; ++k) {
            f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[k]);
            f.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m_pipelineLayout, 0, 6, writes);
            f.vkCmdPushConstants(cmd, m_pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
            f.vkCmdDispatch(cmd, groups[k], 1, 1);
            if (pass < 3 || k < 2) compute();
        }
    }
    return VK_SUCCESS;
}

} // namespace vkfx
