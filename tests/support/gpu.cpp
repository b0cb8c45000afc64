#include "support/gpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

namespace vkfx_test {
namespace {

std::uint32_t memoryType(std::uint32_t typeBits, VkMemoryPropertyFlags required,
                         VkMemoryPropertyFlags preferred) {
    const VkPhysicalDeviceMemoryProperties &mem = ctx().memoryProperties;
    std::uint32_t fallback = UINT32_MAX;
    for (std::uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
        if (!(typeBits & (1u << i)))
            continue;
        VkMemoryPropertyFlags flags = mem.memoryTypes[i].propertyFlags;
        if ((flags & required) != required)
            continue;
        if ((flags & preferred) == preferred)
            return i;
        if (fallback == UINT32_MAX)
            fallback = i;
    }
    return fallback;
}

bool isDepth(VkFormat f) { return f == VK_FORMAT_D32_SFLOAT || f == VK_FORMAT_D16_UNORM; }

// Bytes per texel: the test format table's, and those of the views outside it that tests create
// images of. Any other format aborts (formatInfo) rather than read back a wrong size.
std::size_t texelBytes(VkFormat format) {
    switch (format) {
    case VK_FORMAT_R32G32B32A32_UINT:
        return 16;
    case VK_FORMAT_R32G32_UINT:
        return 8;
    case VK_FORMAT_R8G8B8_UNORM:
        return 3;
    default:
        return formatInfo(format).bytesPerTexel;
    }
}

} // namespace

bool imageSupported(const ImageSpec &spec, std::string *why) {
    VkImageFormatProperties p{};
    VkResult r = vkGetPhysicalDeviceImageFormatProperties(ctx().physicalDevice, spec.format,
                                                          VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
                                                          spec.usage, spec.flags, &p);
    std::string name = formatName(spec.format);
    if (r != VK_SUCCESS) {
        if (why)
            *why = "the device cannot create " + name + " images with this usage and flags";
        return false;
    }
    if (spec.extent.width > p.maxExtent.width || spec.extent.height > p.maxExtent.height) {
        if (why) {
            *why = name + " images are limited to " + std::to_string(p.maxExtent.width) + "x" +
                   std::to_string(p.maxExtent.height) + " on this device";
        }
        return false;
    }
    if (spec.mipLevels > p.maxMipLevels || spec.layers > p.maxArrayLayers) {
        if (why)
            *why = name + ": too many levels or layers for this device";
        return false;
    }
    return true;
}

// --- Image ------------------------------------------------------------------------------------

Image::Image(Image &&other) noexcept { *this = std::move(other); }

Image &Image::operator=(Image &&other) noexcept {
    if (this != &other) {
        destroy();
        std::swap(m_image, other.m_image);
        std::swap(m_memory, other.m_memory);
        std::swap(m_spec, other.m_spec);
    }
    return *this;
}

VkResult Image::create(const ImageSpec &spec) {
    destroy();
    m_spec = spec;
    VkImageCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    info.flags = spec.flags;
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = spec.format;
    info.extent = {spec.extent.width, spec.extent.height, 1};
    info.mipLevels = spec.mipLevels;
    info.arrayLayers = spec.layers;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = spec.usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImageFormatListCreateInfo list{};
    list.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO;
    list.viewFormatCount = static_cast<std::uint32_t>(spec.viewFormats.size());
    list.pViewFormats = spec.viewFormats.data();
    if (!spec.viewFormats.empty())
        info.pNext = &list;
    VkDevice d = ctx().device;
    VkResult r = vkCreateImage(d, &info, nullptr, &m_image);
    if (r != VK_SUCCESS)
        return r;
    VkMemoryRequirements req{};
    vkGetImageMemoryRequirements(d, m_image, &req);
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = memoryType(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (alloc.memoryTypeIndex == UINT32_MAX)
        return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    r = vkAllocateMemory(d, &alloc, nullptr, &m_memory);
    if (r != VK_SUCCESS)
        return r;
    return vkBindImageMemory(d, m_image, m_memory, 0);
}

void Image::destroy() {
    if (m_image)
        vkDestroyImage(ctx().device, m_image, nullptr);
    if (m_memory)
        vkFreeMemory(ctx().device, m_memory, nullptr);
    m_image = VK_NULL_HANDLE;
    m_memory = VK_NULL_HANDLE;
}

VkImageAspectFlags Image::aspect() const {
    return isDepth(m_spec.format) ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
}

VkExtent2D Image::levelExtent(std::uint32_t level) const {
    return {std::max(1u, m_spec.extent.width >> level),
            std::max(1u, m_spec.extent.height >> level)};
}

std::size_t Image::levelBytes(std::uint32_t level) const {
    VkExtent2D e = levelExtent(level);
    return std::size_t{e.width} * e.height * texelBytes(m_spec.format);
}

// --- Buffer -----------------------------------------------------------------------------------

Buffer::Buffer(Buffer &&other) noexcept { *this = std::move(other); }

Buffer &Buffer::operator=(Buffer &&other) noexcept {
    if (this != &other) {
        destroy();
        std::swap(m_buffer, other.m_buffer);
        std::swap(m_memory, other.m_memory);
        std::swap(m_size, other.m_size);
        std::swap(m_mapped, other.m_mapped);
        std::swap(m_coherent, other.m_coherent);
    }
    return *this;
}

VkResult Buffer::create(VkDeviceSize size, VkBufferUsageFlags usage) {
    destroy();
    VkDevice d = ctx().device;
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult r = vkCreateBuffer(d, &info, nullptr, &m_buffer);
    if (r != VK_SUCCESS)
        return r;
    m_size = size;
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(d, m_buffer, &req);
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex =
        memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (alloc.memoryTypeIndex == UINT32_MAX)
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    m_coherent = ctx().memoryProperties.memoryTypes[alloc.memoryTypeIndex].propertyFlags &
                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    r = vkAllocateMemory(d, &alloc, nullptr, &m_memory);
    if (r != VK_SUCCESS)
        return r;
    r = vkBindBufferMemory(d, m_buffer, m_memory, 0);
    if (r != VK_SUCCESS)
        return r;
    return vkMapMemory(d, m_memory, 0, VK_WHOLE_SIZE, 0, &m_mapped);
}

void Buffer::destroy() {
    VkDevice d = ctx().device;
    if (m_mapped)
        vkUnmapMemory(d, m_memory);
    if (m_buffer)
        vkDestroyBuffer(d, m_buffer, nullptr);
    if (m_memory)
        vkFreeMemory(d, m_memory, nullptr);
    m_buffer = VK_NULL_HANDLE;
    m_memory = VK_NULL_HANDLE;
    m_mapped = nullptr;
    m_size = 0;
}

void Buffer::invalidate() const {
    if (m_coherent || !m_memory)
        return;
    VkMappedMemoryRange range{};
    range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
    range.memory = m_memory;
    range.size = VK_WHOLE_SIZE;
    vkInvalidateMappedMemoryRanges(ctx().device, 1, &range);
}

void Buffer::flush() const {
    if (m_coherent || !m_memory)
        return;
    VkMappedMemoryRange range{};
    range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
    range.memory = m_memory;
    range.size = VK_WHOLE_SIZE;
    vkFlushMappedMemoryRanges(ctx().device, 1, &range);
}

// --- submission -------------------------------------------------------------------------------

VkResult submitAndWait(const std::function<void(VkCommandBuffer)> &record) {
    Context &c = ctx();
    VkCommandBufferAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    alloc.commandPool = c.commandPool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkResult r = vkAllocateCommandBuffers(c.device, &alloc, &cmd);
    if (r != VK_SUCCESS)
        return r;
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    r = vkBeginCommandBuffer(cmd, &begin);
    if (r == VK_SUCCESS) {
        record(cmd);
        r = vkEndCommandBuffer(cmd);
    }
    VkFence fence = VK_NULL_HANDLE;
    if (r == VK_SUCCESS) {
        VkFenceCreateInfo fenceInfo{};
        fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
        r = vkCreateFence(c.device, &fenceInfo, nullptr, &fence);
    }
    if (r == VK_SUCCESS) {
        VkSubmitInfo submit{};
        submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &cmd;
        r = vkQueueSubmit(c.queue, 1, &submit, fence);
    }
    if (r == VK_SUCCESS) {
        // 10 minutes: a hung kernel (e.g. a broken hand-over between workgroups) fails the test.
        r = vkWaitForFences(c.device, 1, &fence, VK_TRUE, std::uint64_t{600} * 1000000000u);
    }
    if (r == VK_TIMEOUT) {
        std::fprintf(stderr, "vkfx_test: a submission did not finish in 10 minutes\n");
        std::abort();
    }
    if (fence)
        vkDestroyFence(c.device, fence, nullptr);
    vkFreeCommandBuffers(c.device, c.commandPool, 1, &cmd);
    return r;
}

// --- barriers ---------------------------------------------------------------------------------

void transition(VkCommandBuffer cmd, const Image &image, std::uint32_t baseLevel,
                std::uint32_t levelCount, Use from, Use to, std::uint32_t baseLayer,
                std::uint32_t layerCount) {
    VkImageMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    b.srcAccessMask = from.access;
    b.dstAccessMask = to.access;
    b.oldLayout = from.layout;
    b.newLayout = to.layout;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image.handle();
    b.subresourceRange = {image.aspect(), baseLevel, levelCount, baseLayer, layerCount};
    vkCmdPipelineBarrier(cmd, from.stage, to.stage, 0, 0, nullptr, 0, nullptr, 1, &b);
}

void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
                   VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
    VkMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    b.srcAccessMask = srcAccess;
    b.dstAccessMask = dstAccess;
    vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

// --- staging ----------------------------------------------------------------------------------

void Staging::upload(VkCommandBuffer cmd, const Image &image, std::uint32_t level,
                     std::uint32_t layer, const std::vector<std::uint8_t> &bytes) {
    if (bytes.size() != image.levelBytes(level)) {
        m_error = "upload of " + std::to_string(bytes.size()) + " bytes to a level of " +
                  std::to_string(image.levelBytes(level));
        return;
    }
    Buffer buffer;
    VkResult r = buffer.create(bytes.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    if (r != VK_SUCCESS) {
        m_error = "creating an upload buffer failed (" + std::to_string(r) + ")";
        return;
    }
    std::memcpy(buffer.data(), bytes.data(), bytes.size());
    buffer.flush();
    VkBufferImageCopy region{};
    region.imageSubresource = {image.aspect(), level, layer, 1};
    VkExtent2D e = image.levelExtent(level);
    region.imageExtent = {e.width, e.height, 1};
    vkCmdCopyBufferToImage(cmd, buffer.handle(), image.handle(),
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    m_uploads.push_back(std::move(buffer));
}

std::size_t Staging::download(VkCommandBuffer cmd, const Image &image, std::uint32_t level,
                              std::uint32_t layer) {
    Buffer buffer;
    VkResult r = buffer.create(image.levelBytes(level), VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    if (r != VK_SUCCESS) {
        m_error = "creating a download buffer failed (" + std::to_string(r) + ")";
    } else {
        VkBufferImageCopy region{};
        region.imageSubresource = {image.aspect(), level, layer, 1};
        VkExtent2D e = image.levelExtent(level);
        region.imageExtent = {e.width, e.height, 1};
        vkCmdCopyImageToBuffer(cmd, image.handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               buffer.handle(), 1, &region);
    }
    m_downloads.push_back(std::move(buffer));
    return m_downloads.size() - 1;
}

void Staging::downloadsToHost(VkCommandBuffer cmd) {
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

std::vector<std::uint8_t> Staging::bytes(std::size_t download) const {
    const Buffer &b = m_downloads.at(download);
    if (!b.data())
        return {};
    b.invalidate();
    return {b.data(), b.data() + b.size()};
}

// --- poison -----------------------------------------------------------------------------------

Poison makePoison(const FormatInfo &format, std::mt19937_64 &rng) {
    Poison p;
    p.codes.assign(format.channels, 0);
    for (std::uint32_t c = 0; c < format.channels; ++c) {
        const ChannelLayout &ch = format.channel[c];
        if (format.isFloat(c)) {
            p.clear.float32[c] = std::numeric_limits<float>::quiet_NaN();
            continue;
        }
        std::uint32_t max = (1u << ch.bits) - 1u;
        std::uint32_t code = 1u + static_cast<std::uint32_t>(rng() % (max - 1u)); // 1 .. max-1
        p.codes[c] = code;
        // The clear colour is linear: sRGB channels encode it back to `code`.
        p.clear.float32[c] = static_cast<float>(decodeCode(format, c, code));
    }
    return p;
}

void poison(VkCommandBuffer cmd, const Image &image, std::uint32_t baseLevel,
            std::uint32_t levelCount, const Poison &value) {
    VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, baseLevel, levelCount, 0,
                                  VK_REMAINING_ARRAY_LAYERS};
    vkCmdClearColorImage(cmd, image.handle(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &value.clear, 1,
                         &range);
}

bool isPoison(const FormatInfo &format, const std::uint8_t *texel, const Poison &value) {
    for (std::uint32_t c = 0; c < format.channels; ++c) {
        if (format.isFloat(c)) {
            if (!std::isnan(decode(format, texel, c)))
                return false;
        } else if (readCode(format, texel, c) != value.codes[c]) {
            return false;
        }
    }
    return true;
}

} // namespace vkfx_test
