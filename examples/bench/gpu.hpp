// vkfx-bench: the Vulkan device the benchmark runs on, and the few helpers it needs (device-local
// buffers, compute kernels with push descriptors, one-shot submissions, barriers).
#pragma once

#include <vkfx/vkfx.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace bench {

// Prints "vkfx-bench: <why>" to stderr and exits with status 1.
[[noreturn]] void die(const std::string &why);
// die() with `what`, the VkResult and vkfx::lastError() when r is not VK_SUCCESS.
void check(VkResult r, const char *what);

// Exit status when validation is asked for but the layer is missing (ctest's SKIP_RETURN_CODE).
constexpr int kExitNoValidationLayer = 77;

struct GpuOptions {
    std::string deviceName;  // case-insensitive substring of the device name; empty: first GPU
    bool validation = false; // Khronos validation layer + synchronization validation
    // Print the driver's statistics of each pipeline vkfx creates (where the device has
    // VK_KHR_pipeline_executable_properties; a note on stdout where it has not).
    bool pipelineStats = false;
};

struct Gpu {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    std::uint32_t family = 0;
    bool graphicsQueue = false; // vkCmdBlitImage needs a graphics queue
    std::uint32_t timestampValidBits = 0;
    std::uint32_t instanceVersion = 0;
    VkPhysicalDeviceProperties props{};
    VkPhysicalDeviceMemoryProperties memory{};
    VkDeviceSize maxAllocation = 0; // maxMemoryAllocationSize
    std::string driverName, driverInfo;
    bool validation = false;
    vkfx::Device vkfx; // vkfx's view of the device (its function table serves the bench too)
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE; // the one command buffer, reused for every submission
    VkFence fence = VK_NULL_HANDLE;
};

// Creates the instance and device (VK_KHR_push_descriptor, and the storage-image features vkfx
// uses where the device has them) on the device named by `options`, else the first GPU, else the
// first CPU device (lavapipe). Dies with a reason on failure.
void openGpu(const GpuOptions &options, Gpu *gpu);
void closeGpu(Gpu &gpu);
// Validation messages seen so far (0 when validation is off).
std::size_t validationMessages();

std::string versionText(std::uint32_t apiVersion);
std::string lowerCase(std::string s);
std::string driverVersionText(const Gpu &gpu);
const char *deviceTypeText(VkPhysicalDeviceType type);

// Index of a memory type in `typeBits` with `flags`, or UINT32_MAX.
std::uint32_t findMemoryType(const Gpu &gpu, std::uint32_t typeBits, VkMemoryPropertyFlags flags);

// A device-local buffer with its own memory.
struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
};
VkResult createBuffer(const Gpu &gpu, VkDeviceSize size, VkBufferUsageFlags usage, Buffer *out);
void destroyBuffer(const Gpu &gpu, Buffer &buffer);

// A compute pipeline whose set 0 is a push descriptor set of `bindings` (binding i has type
// bindings[i]) and whose push constants are `pushBytes` long.
struct Kernel {
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
};
Kernel createKernel(const Gpu &gpu, const std::uint32_t *code, std::size_t codeBytes,
                    std::initializer_list<VkDescriptorType> bindings, std::uint32_t pushBytes,
                    const char *name);
void destroyKernel(const Gpu &gpu, Kernel &kernel);

// Binds `k`, pushes `writes` into set 0 (dstBinding = index, one descriptor each, types as the
// kernel declares) and the push constants.
void bindKernel(const Gpu &gpu, VkCommandBuffer cmd, const Kernel &k,
                std::initializer_list<VkWriteDescriptorSet> writes, const void *push,
                std::uint32_t pushBytes);
VkWriteDescriptorSet bufferWrite(std::uint32_t binding, const VkDescriptorBufferInfo *info);
VkWriteDescriptorSet imageWrite(std::uint32_t binding, VkDescriptorType type,
                                const VkDescriptorImageInfo *info);

// Starts recording into gpu.cmd (reset first), and submits it and waits for it.
VkCommandBuffer beginCommands(Gpu &gpu);
void submitAndWait(Gpu &gpu);

// A global memory barrier from compute / transfer writes to compute / transfer reads and writes:
// what separates two workloads of the benchmark.
void fullBarrier(VkCommandBuffer cmd);

// One image barrier over levels [baseLevel, baseLevel + levelCount) of all `layers` layers.
VkImageMemoryBarrier imageBarrier(VkImage image, std::uint32_t baseLevel, std::uint32_t levelCount,
                                  std::uint32_t layers, VkImageLayout from, VkImageLayout to,
                                  VkAccessFlags srcAccess, VkAccessFlags dstAccess);

} // namespace bench
