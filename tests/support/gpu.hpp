// Small RAII helpers over the shared test device (support/vulkan_context.hpp): images, host-visible
// buffers, one-shot submissions, layout transitions, uploads / downloads of one level and layer,
// and poisoning of levels that a kernel is expected to overwrite.
//
// Every helper that records commands takes the command buffer and records exactly what its name
// says; the caller orders things with transition() (the tests want their barriers visible).
#pragma once

#include "support/formats.hpp"
#include "support/vulkan_context.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace vkfx_test {

struct ImageSpec {
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkExtent2D extent = {1, 1};
    std::uint32_t mipLevels = 1;
    std::uint32_t layers = 1;
    VkImageUsageFlags usage = 0;
    VkImageCreateFlags flags = 0;
    // When not empty: the image's VkImageFormatListCreateInfo (the formats its views may have).
    std::vector<VkFormat> viewFormats;
};

// Whether the device can create an image like `spec` (optimal tiling); `why` says why not.
bool imageSupported(const ImageSpec &spec, std::string *why);

// A device-local 2D image (optimal tiling, initial layout UNDEFINED) with its own memory.
class Image {
  public:
    Image() = default;
    Image(const Image &) = delete;
    Image &operator=(const Image &) = delete;
    Image(Image &&other) noexcept;
    Image &operator=(Image &&other) noexcept;
    ~Image() { destroy(); }

    VkResult create(const ImageSpec &spec);
    void destroy();

    VkImage handle() const { return m_image; }
    const ImageSpec &spec() const { return m_spec; }
    VkImageAspectFlags aspect() const;
    VkExtent2D levelExtent(std::uint32_t level) const;
    // Bytes of one layer of `level`, tightly packed.
    std::size_t levelBytes(std::uint32_t level) const;

  private:
    VkImage m_image = VK_NULL_HANDLE;
    VkDeviceMemory m_memory = VK_NULL_HANDLE;
    ImageSpec m_spec{};
};

// A host-visible buffer, persistently mapped.
class Buffer {
  public:
    Buffer() = default;
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    Buffer(Buffer &&other) noexcept;
    Buffer &operator=(Buffer &&other) noexcept;
    ~Buffer() { destroy(); }

    VkResult create(VkDeviceSize size, VkBufferUsageFlags usage);
    void destroy();

    VkBuffer handle() const { return m_buffer; }
    VkDeviceSize size() const { return m_size; }
    std::uint8_t *data() const { return static_cast<std::uint8_t *>(m_mapped); }
    // Makes device writes visible to data() (no-op on coherent memory; call after the wait).
    void invalidate() const;
    // Makes host writes through data() available to the device (no-op on coherent memory).
    void flush() const;

  private:
    VkBuffer m_buffer = VK_NULL_HANDLE;
    VkDeviceMemory m_memory = VK_NULL_HANDLE;
    VkDeviceSize m_size = 0;
    void *m_mapped = nullptr;
    bool m_coherent = false;
};

// Allocates a primary command buffer, begins it, calls `record`, ends it, submits it with a fence
// and waits. Returns the first failing VkResult (VK_SUCCESS otherwise).
VkResult submitAndWait(const std::function<void(VkCommandBuffer)> &record);

// Where a subresource is and who touched it last / touches it next.
struct Use {
    VkPipelineStageFlags stage;
    VkAccessFlags access;
    VkImageLayout layout;
};
namespace use {
inline constexpr Use kNone{VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED};
inline constexpr Use kTransferDst{VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL};
inline constexpr Use kTransferSrc{VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
// The level a downsample reads, in SHADER_READ_ONLY_OPTIMAL or GENERAL.
inline constexpr Use kComputeRead{VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT,
                                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
inline constexpr Use kComputeReadGeneral{VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                         VK_ACCESS_SHADER_READ_BIT, VK_IMAGE_LAYOUT_GENERAL};
// Levels a downsample writes (storage images, GENERAL).
inline constexpr Use kComputeWrite{VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                                   VK_IMAGE_LAYOUT_GENERAL};
// A depth image sampled by a compute shader.
inline constexpr Use kDepthRead{VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT,
                                VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL};
} // namespace use

// One image memory barrier over levels [baseLevel, baseLevel + levelCount) and layers
// [baseLayer, baseLayer + layerCount) (VK_REMAINING_* allowed).
void transition(VkCommandBuffer cmd, const Image &image, std::uint32_t baseLevel,
                std::uint32_t levelCount, Use from, Use to, std::uint32_t baseLayer = 0,
                std::uint32_t layerCount = VK_REMAINING_ARRAY_LAYERS);
// A global memory barrier (buffers).
void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
                   VkPipelineStageFlags dstStage, VkAccessFlags dstAccess);

// Staging for one submission: owns the host-visible buffers of its uploads and downloads, which
// must outlive the submission.
class Staging {
  public:
    // Records a copy of `bytes` (tightly packed texels of one layer of `level`) into the image,
    // which must be in TRANSFER_DST_OPTIMAL.
    void upload(VkCommandBuffer cmd, const Image &image, std::uint32_t level, std::uint32_t layer,
                const std::vector<std::uint8_t> &bytes);
    // Records a copy of one layer of `level` (image in TRANSFER_SRC_OPTIMAL) into a new buffer;
    // returns the handle for bytes().
    std::size_t download(VkCommandBuffer cmd, const Image &image, std::uint32_t level,
                         std::uint32_t layer);
    // Records the barrier that makes the downloads visible to the host (after the last copy).
    void downloadsToHost(VkCommandBuffer cmd);
    // After the submission completed: the downloaded bytes.
    std::vector<std::uint8_t> bytes(std::size_t download) const;
    // False when a buffer could not be created (the test fails with `error()`).
    bool ok() const { return m_error.empty(); }
    const std::string &error() const { return m_error; }

  private:
    std::vector<Buffer> m_uploads;
    std::vector<Buffer> m_downloads;
    std::string m_error;
};

// A value that marks texels as never written: NaN in float channels, a random code (never 0 nor
// the maximum) in unorm / sRGB channels.
struct Poison {
    VkClearColorValue clear{};
    std::vector<std::uint32_t> codes; // expected stored code per unorm / sRGB channel
};
Poison makePoison(const FormatInfo &format, std::mt19937_64 &rng);
// Records vkCmdClearColorImage of levels [baseLevel, baseLevel + levelCount), all layers (image in
// TRANSFER_DST_OPTIMAL).
void poison(VkCommandBuffer cmd, const Image &image, std::uint32_t baseLevel,
            std::uint32_t levelCount, const Poison &value);
// Whether a texel still holds the poison.
bool isPoison(const FormatInfo &format, const std::uint8_t *texel, const Poison &value);

} // namespace vkfx_test
