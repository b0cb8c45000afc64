// The Vulkan boilerplate the vkfx examples share (no part of vkfx): an instance and a device with
// what vkfx needs, memory types, buffers and images bound to memory of their own, and one-shot
// command buffers. Every failure exits with a one-line reason; the examples' own files hold
// everything that concerns vkfx.
#pragma once

#include <vkfx/vkfx.hpp>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace example {

inline const char* programName = "vkfx-example";

// Prints "<program>: <reason>" and exits with 1.
[[noreturn]] inline void fail(const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

inline void fail(const char* format, ...)
{
    std::fprintf(stderr, "%s: ", programName);
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
    std::fputc('\n', stderr);
    std::exit(1);
}

// Exits when `r` is not VK_SUCCESS, with vkfx's reason when a vkfx call gave one.
inline void check(VkResult r, const char* what)
{
    if (r != VK_SUCCESS) {
        fail("%s failed (VkResult %d)%s%s", what, static_cast<int>(r), *vkfx::lastError() ? ": " : "",
             vkfx::lastError());
    }
}

struct Gpu {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    std::uint32_t family = 0;
    std::uint32_t timestampValidBits = 0; // of the queue's family (0: no timestamps)
    VkCommandPool pool = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties props{};
    VkPhysicalDeviceMemoryProperties memory{};
};

// A Vulkan 1.2 instance and a device of the first GPU with Vulkan 1.2 (lavapipe, a CPU device,
// when there is none) with one queue that has all of `queueFlags` and VK_KHR_push_descriptor:
// what vkfx needs for these examples (B8G8R8A8 formats would also need
// shaderStorageImageWriteWithoutFormat enabled). `name` prefixes every failure message.
inline Gpu openGpu(const char* name, VkQueueFlags queueFlags = VK_QUEUE_COMPUTE_BIT)
{
    programName = name;
    Gpu g;
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = name;
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pApplicationInfo = &app;
    if (vkCreateInstance(&ici, nullptr, &g.instance) != VK_SUCCESS) {
        fail("no Vulkan driver: install a GPU driver, or mesa-vulkan-drivers for lavapipe (scripts/setup does)");
    }
    std::uint32_t n = 0;
    vkEnumeratePhysicalDevices(g.instance, &n, nullptr);
    std::vector<VkPhysicalDevice> all(n);
    vkEnumeratePhysicalDevices(g.instance, &n, all.data());
    if (all.empty()) fail("no Vulkan device found: install a GPU driver, or mesa-vulkan-drivers for lavapipe");
    for (int pass = 0; pass < 2 && !g.physical; ++pass) { // GPUs first, then CPU devices
        for (VkPhysicalDevice pd : all) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(pd, &p);
            const bool gpu = p.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
            if (p.apiVersion >= VK_API_VERSION_1_2 && (gpu || pass == 1)) {
                g.physical = pd;
                break;
            }
        }
    }
    if (!g.physical) fail("no Vulkan 1.2 device found");
    vkGetPhysicalDeviceProperties(g.physical, &g.props);
    vkGetPhysicalDeviceMemoryProperties(g.physical, &g.memory);

    std::uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(g.physical, &qn, nullptr);
    std::vector<VkQueueFamilyProperties> families(qn);
    vkGetPhysicalDeviceQueueFamilyProperties(g.physical, &qn, families.data());
    g.family = 0;
    while (g.family < qn && (families[g.family].queueFlags & queueFlags) != queueFlags) ++g.family;
    if (g.family == qn) fail("the device has no queue with flags 0x%x", static_cast<unsigned>(queueFlags));
    g.timestampValidBits = families[g.family].timestampValidBits;

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{};
    qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci.queueFamilyIndex = g.family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    const char* extensions[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    VkDeviceCreateInfo dci{};
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = 1;
    dci.ppEnabledExtensionNames = extensions;
    check(vkCreateDevice(g.physical, &dci, nullptr, &g.device),
          "vkCreateDevice (with VK_KHR_push_descriptor)");
    vkGetDeviceQueue(g.device, g.family, 0, &g.queue);
    VkCommandPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.queueFamilyIndex = g.family;
    check(vkCreateCommandPool(g.device, &pci, nullptr, &g.pool), "vkCreateCommandPool");
    return g;
}

inline void closeGpu(Gpu& g)
{
    vkDestroyCommandPool(g.device, g.pool, nullptr);
    vkDestroyDevice(g.device, nullptr);
    vkDestroyInstance(g.instance, nullptr);
    g = Gpu{};
}

// The first memory type allowed by `bits` with all of `flags`.
inline std::uint32_t memoryType(const Gpu& g, std::uint32_t bits, VkMemoryPropertyFlags flags)
{
    for (std::uint32_t i = 0; i < g.memory.memoryTypeCount; ++i) {
        if ((bits & (1u << i)) && (g.memory.memoryTypes[i].propertyFlags & flags) == flags) return i;
    }
    fail("no suitable memory type");
}

inline VkDeviceMemory allocate(const Gpu& g, const VkMemoryRequirements& req, VkMemoryPropertyFlags flags)
{
    VkMemoryAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memoryType(g, req.memoryTypeBits, flags);
    VkDeviceMemory memory = VK_NULL_HANDLE;
    check(vkAllocateMemory(g.device, &ai, nullptr, &memory), "vkAllocateMemory");
    return memory;
}

// A buffer with memory of its own; `mapped` points at it when `flags` has HOST_VISIBLE.
struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr;
};

inline Buffer createBuffer(const Gpu& g, VkDeviceSize size, VkBufferUsageFlags usage,
                           VkMemoryPropertyFlags flags)
{
    Buffer b;
    VkBufferCreateInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = size;
    bi.usage = usage;
    check(vkCreateBuffer(g.device, &bi, nullptr, &b.buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g.device, b.buffer, &req);
    b.memory = allocate(g, req, flags);
    check(vkBindBufferMemory(g.device, b.buffer, b.memory, 0), "vkBindBufferMemory");
    if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        check(vkMapMemory(g.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), "vkMapMemory");
    }
    return b;
}

inline void destroy(const Gpu& g, Buffer& b)
{
    vkDestroyBuffer(g.device, b.buffer, nullptr);
    vkFreeMemory(g.device, b.memory, nullptr); // unmaps
    b = Buffer{};
}

// An image with device-local memory of its own, and how it was created.
struct Image {
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkImageCreateInfo info{}; // (its pNext is not kept)
};

inline Image createImage(const Gpu& g, const VkImageCreateInfo& info)
{
    Image im;
    im.info = info;
    im.info.pNext = nullptr;
    check(vkCreateImage(g.device, &info, nullptr, &im.image), "vkCreateImage");
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(g.device, im.image, &req);
    im.memory = allocate(g, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    check(vkBindImageMemory(g.device, im.image, im.memory, 0), "vkBindImageMemory");
    return im;
}

// A 2D image of one layer, optimal tiling, one sample.
inline Image createImage(const Gpu& g, VkFormat format, VkExtent2D extent, std::uint32_t levels,
                         VkImageUsageFlags usage, VkImageCreateFlags flags = 0)
{
    VkImageCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    info.flags = flags;
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = format;
    info.extent = {extent.width, extent.height, 1};
    info.mipLevels = levels;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.usage = usage;
    return createImage(g, info);
}

inline void destroy(const Gpu& g, Image& im)
{
    vkDestroyImage(g.device, im.image, nullptr);
    vkFreeMemory(g.device, im.memory, nullptr);
    im = Image{};
}

// A primary command buffer in the recording state, for one submission.
inline VkCommandBuffer beginCommands(const Gpu& g)
{
    VkCommandBufferAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = g.pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    check(vkAllocateCommandBuffers(g.device, &ai, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
    return cmd;
}

// Ends `cmd`, submits it, waits until the queue is idle and frees it.
inline void submitAndWait(const Gpu& g, VkCommandBuffer cmd)
{
    check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    check(vkQueueSubmit(g.queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
    check(vkQueueWaitIdle(g.queue), "vkQueueWaitIdle");
    vkFreeCommandBuffers(g.device, g.pool, 1, &cmd);
}

// One pipeline barrier on an image's levels baseLevel .. baseLevel + levelCount - 1 (layer 0;
// colour unless `aspect` says otherwise): src stage and access, and the old layout, before; dst
// ones and the new layout after.
inline void imageBarrier(VkCommandBuffer cmd, VkImage image, std::uint32_t baseLevel,
                         std::uint32_t levelCount, VkPipelineStageFlags srcStage,
                         VkAccessFlags srcAccess, VkImageLayout oldLayout,
                         VkPipelineStageFlags dstStage, VkAccessFlags dstAccess,
                         VkImageLayout newLayout,
                         VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT)
{
    VkImageMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    b.srcAccessMask = srcAccess;
    b.dstAccessMask = dstAccess;
    b.oldLayout = oldLayout;
    b.newLayout = newLayout;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {aspect, baseLevel, levelCount, 0, 1};
    vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, 0, nullptr, 0, nullptr, 1, &b);
}

// One pipeline barrier on all memory (buffers, and the host's view of them).
inline void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
                          VkPipelineStageFlags dstStage, VkAccessFlags dstAccess)
{
    VkMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    b.srcAccessMask = srcAccess;
    b.dstAccessMask = dstAccess;
    vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

} // namespace example
