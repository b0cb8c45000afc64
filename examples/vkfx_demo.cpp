// vkfx-demo: generates a test card, builds its whole sRGB mip chain in one dispatch on the first
// Vulkan device (lavapipe, Mesa's CPU driver, where there is no GPU) and writes every level as a
// PNG.
//
//   vkfx-demo [output-folder]        (default: vkfx-demo-out)
//
// Exits non-zero with a one-line reason on any failure.
#include <vkfx/vkfx.hpp>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& why)
{
    std::fprintf(stderr, "vkfx-demo: %s\n", why.c_str());
    std::exit(1);
}

void check(VkResult r, const char* what)
{
    if (r != VK_SUCCESS) {
        std::string reason = vkfx::lastError();
        die(std::string(what) + " failed (VkResult " + std::to_string(r) + ")" +
            (reason.empty() ? "" : ": " + reason));
    }
}

// A test card: a zone plate (aliases visibly when filtered badly), colour ramps, a checkerboard
// with 1-pixel lines, and a white border - an odd-sized 1917x1079 image, so that every level of
// the chain has odd edges to fold.
std::vector<std::uint8_t> testCard(std::uint32_t w, std::uint32_t h)
{
    std::vector<std::uint8_t> px(std::size_t{w} * h * 4);
    const double cx = w * 0.5, cy = h * 0.5;
    for (std::uint32_t y = 0; y < h; ++y) {
        for (std::uint32_t x = 0; x < w; ++x) {
            double r, g, b;
            double u = double(x) / (w - 1), v = double(y) / (h - 1);
            if (x < 4 || y < 4 || x + 4 >= w || y + 4 >= h) {
                r = g = b = 1.0;
            } else if (u < 0.5) {
                double dx = x - cx * 0.5, dy = y - cy;
                double zone = 0.5 + 0.5 * std::cos(3.14159265 * (dx * dx + dy * dy) / (h * 0.9));
                r = g = b = zone;
            } else if (v < 0.5) {
                r = u * 2 - 1;
                g = v * 2;
                b = 1 - (u * 2 - 1);
            } else {
                bool check = ((x / 16) + (y / 16)) % 2 == 0;
                bool line = x % 32 == 0 || y % 32 == 0;
                r = line ? 1.0 : (check ? 0.9 : 0.1);
                g = line ? 0.2 : (check ? 0.6 : 0.1);
                b = line ? 0.2 : (check ? 0.2 : 0.4);
            }
            std::uint8_t* p = &px[(std::size_t{y} * w + x) * 4];
            p[0] = static_cast<std::uint8_t>(std::lround(r * 255));
            p[1] = static_cast<std::uint8_t>(std::lround(g * 255));
            p[2] = static_cast<std::uint8_t>(std::lround(b * 255));
            p[3] = 255;
        }
    }
    return px;
}

struct Gpu {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    std::uint32_t family = 0;
    VkPhysicalDeviceProperties props{};
    VkPhysicalDeviceMemoryProperties memory{};
};

Gpu openGpu()
{
    Gpu g;
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "vkfx-demo";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pApplicationInfo = &app;
    if (vkCreateInstance(&ici, nullptr, &g.instance) != VK_SUCCESS) {
        die("no Vulkan driver: install a GPU driver, or mesa-vulkan-drivers for lavapipe "
            "(scripts/setup does)");
    }
    std::uint32_t n = 0;
    vkEnumeratePhysicalDevices(g.instance, &n, nullptr);
    std::vector<VkPhysicalDevice> all(n);
    vkEnumeratePhysicalDevices(g.instance, &n, all.data());
    if (all.empty()) die("no Vulkan device found");
    // The first GPU; lavapipe (a CPU device) only when there is none.
    g.physical = all[0];
    for (VkPhysicalDevice pd : all) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(pd, &p);
        if (p.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU) {
            g.physical = pd;
            break;
        }
    }
    vkGetPhysicalDeviceProperties(g.physical, &g.props);
    vkGetPhysicalDeviceMemoryProperties(g.physical, &g.memory);

    std::uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(g.physical, &qn, nullptr);
    std::vector<VkQueueFamilyProperties> families(qn);
    vkGetPhysicalDeviceQueueFamilyProperties(g.physical, &qn, families.data());
    g.family = UINT32_MAX;
    for (std::uint32_t i = 0; i < qn && g.family == UINT32_MAX; ++i) {
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) g.family = i;
    }
    if (g.family == UINT32_MAX) die("the device has no compute queue");

    float priority = 1.0f;
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
    check(vkCreateDevice(g.physical, &dci, nullptr, &g.device), "vkCreateDevice");
    vkGetDeviceQueue(g.device, g.family, 0, &g.queue);
    return g;
}

std::uint32_t memoryType(const Gpu& g, std::uint32_t bits, VkMemoryPropertyFlags flags)
{
    for (std::uint32_t i = 0; i < g.memory.memoryTypeCount; ++i) {
        if ((bits & (1u << i)) && (g.memory.memoryTypes[i].propertyFlags & flags) == flags) return i;
    }
    die("no suitable memory type");
}

} // namespace

int main(int argc, char** argv)
{
    const std::filesystem::path out = argc > 1 ? argv[1] : "vkfx-demo-out";
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) die("cannot create " + out.string() + ": " + ec.message());

    Gpu g = openGpu();
    std::printf("device: %s\n", g.props.deviceName);

    vkfx::Device dev;
    check(vkfx::Device::create({.instance = g.instance, .physicalDevice = g.physical, .device = g.device},
                               &dev),
          "vkfx::Device::create");

    const VkExtent2D extent{1917, 1079};
    const VkFormat format = VK_FORMAT_R8G8B8A8_SRGB;
    const std::uint32_t levels = vkfx::detail::fullChainLevels(extent);
    const std::vector<std::uint8_t> card = testCard(extent.width, extent.height);

    // The image: sRGB, written by vkfx through a UNORM view (hence MUTABLE | EXTENDED_USAGE).
    VkImageCreateInfo ii{};
    ii.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    ii.flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
    ii.imageType = VK_IMAGE_TYPE_2D;
    ii.format = format;
    ii.extent = {extent.width, extent.height, 1};
    ii.mipLevels = levels;
    ii.arrayLayers = 1;
    ii.samples = VK_SAMPLE_COUNT_1_BIT;
    ii.usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
               VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    VkImage image;
    check(vkCreateImage(g.device, &ii, nullptr, &image), "vkCreateImage");
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(g.device, image, &req);
    VkMemoryAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memoryType(g, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VkDeviceMemory imageMemory;
    check(vkAllocateMemory(g.device, &ai, nullptr, &imageMemory), "vkAllocateMemory");
    check(vkBindImageMemory(g.device, image, imageMemory, 0), "vkBindImageMemory");

    // One staging buffer holds level 0 on the way in and every level on the way out.
    std::vector<VkBufferImageCopy> regions(levels);
    VkDeviceSize total = 0;
    for (std::uint32_t l = 0; l < levels; ++l) {
        VkExtent2D e{vkfx::detail::mipExtent(extent.width, l), vkfx::detail::mipExtent(extent.height, l)};
        regions[l] = {};
        regions[l].bufferOffset = total;
        regions[l].imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1};
        regions[l].imageExtent = {e.width, e.height, 1};
        total += VkDeviceSize{e.width} * e.height * 4;
    }
    VkBufferCreateInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = total;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer staging;
    check(vkCreateBuffer(g.device, &bi, nullptr, &staging), "vkCreateBuffer");
    vkGetBufferMemoryRequirements(g.device, staging, &req);
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memoryType(g, req.memoryTypeBits,
                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VkDeviceMemory stagingMemory;
    check(vkAllocateMemory(g.device, &ai, nullptr, &stagingMemory), "vkAllocateMemory");
    check(vkBindBufferMemory(g.device, staging, stagingMemory, 0), "vkBindBufferMemory");
    std::uint8_t* mapped = nullptr;
    check(vkMapMemory(g.device, stagingMemory, 0, VK_WHOLE_SIZE, 0, reinterpret_cast<void**>(&mapped)),
          "vkMapMemory");
    std::memcpy(mapped, card.data(), card.size());

    // The vkfx part: one Downsampler per format and reduction, one target per image.
    vkfx::Downsampler downsampler;
    check(vkfx::Downsampler::create(dev, {.format = format, .reduction = vkfx::Reduction::Average},
                                    &downsampler),
          "vkfx::Downsampler::create");
    vkfx::DownsampleTarget target;
    check(vkfx::DownsampleTarget::create(dev, {.image = image, .format = format, .extent = extent,
                                               .mipLevels = levels, .usage = ii.usage, .flags = ii.flags},
                                         &target),
          "vkfx::DownsampleTarget::create");

    VkCommandPoolCreateInfo pci{};

    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.queueFamilyIndex = g.family;
    VkCommandPool pool;
    check(vkCreateCommandPool(g.device, &pci, nullptr, &pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo cai{};
    cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cai.commandPool = pool;
    cai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    check(vkAllocateCommandBuffers(g.device, &cai, &cmd), "vkAllocateCommandBuffers");
    VkQueryPoolCreateInfo qpi{};
    qpi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpi.queryCount = 2;
    VkQueryPool queries;
    check(vkCreateQueryPool(g.device, &qpi, nullptr, &queries), "vkCreateQueryPool");

    VkCommandBufferBeginInfo begin{};

    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkBeginCommandBuffer(cmd, &begin);
    vkCmdResetQueryPool(cmd, queries, 0, 2);
    auto barrier = [&](std::uint32_t baseLevel, std::uint32_t count, VkImageLayout from, VkImageLayout to,
                       VkPipelineStageFlags srcStage, VkAccessFlags srcAccess, VkPipelineStageFlags dstStage,
                       VkAccessFlags dstAccess) {
        VkImageMemoryBarrier b{};
        b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
        b.srcAccessMask = srcAccess;
        b.dstAccessMask = dstAccess;
        b.oldLayout = from;
        b.newLayout = to;
        b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        b.image = image;
        b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, baseLevel, count, 0, 1};
        vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, 0, nullptr, 0, nullptr, 1, &b);
    };
    barrier(0, 1, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
            0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    vkCmdCopyBufferToImage(cmd, staging, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &regions[0]);
    // Level 0 is read (sampled), levels 1.. are written (storage, GENERAL).
    barrier(0, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT);
    barrier(1, levels - 1, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    // Twice: the first run warms up (lavapipe compiles the shader on first use); the second is timed.
    const vkfx::DownsampleInfo chain{.target = &target, .sourceLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    check(downsampler.record(cmd, chain), "vkfx::Downsampler::record");
    barrier(1, levels - 1, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 0);
    check(downsampler.record(cmd, chain), "vkfx::Downsampler::record");
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
    barrier(0, 1, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    barrier(1, levels - 1, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT);
    vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging, levels, regions.data());
    VkMemoryBarrier toHost{};
    toHost.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, nullptr,
                         0, nullptr);
    check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");

    VkSubmitInfo submit{};

    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    auto start = std::chrono::steady_clock::now();
    check(vkQueueSubmit(g.queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
    check(vkQueueWaitIdle(g.queue), "vkQueueWaitIdle");
    double wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::uint64_t stamps[2] = {};
    check(vkGetQueryPoolResults(g.device, queries, 0, 2, sizeof(stamps), stamps, sizeof(std::uint64_t),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    double gpuUs = double(stamps[1] - stamps[0]) * g.props.limits.timestampPeriod / 1000.0;
    std::printf("downsample: %ux%u %s, levels 1..%u in one dispatch: %.1f us on the GPU (%.1f ms submit to "
                "idle, copies included)\n",
                extent.width, extent.height, "R8G8B8A8_SRGB", levels - 1, gpuUs, wallMs);

    for (std::uint32_t l = 0; l < levels; ++l) {
        const VkExtent3D& e = regions[l].imageExtent;
        char name[64];
        std::snprintf(name, sizeof(name), "level_%02u_%ux%u.png", l, e.width, e.height);
        std::filesystem::path file = out / name;
        const std::uint8_t* data = mapped + regions[l].bufferOffset;
        if (!stbi_write_png(file.string().c_str(), int(e.width), int(e.height), 4, data, int(e.width * 4))) {
            die("cannot write " + file.string());
        }
    }
    std::printf("wrote %u PNGs to %s/\n", levels, out.string().c_str());

    vkUnmapMemory(g.device, stagingMemory);
    target.destroy();
    downsampler.destroy();
    vkDestroyQueryPool(g.device, queries, nullptr);
    vkDestroyCommandPool(g.device, pool, nullptr);
    vkDestroyBuffer(g.device, staging, nullptr);
    vkFreeMemory(g.device, stagingMemory, nullptr);
    vkDestroyImage(g.device, image, nullptr);
    vkFreeMemory(g.device, imageMemory, nullptr);
    vkDestroyDevice(g.device, nullptr);
    vkDestroyInstance(g.instance, nullptr);
    return 0;
}
