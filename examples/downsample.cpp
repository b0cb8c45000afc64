// vkfx example: the whole mip chain of a 1000x700 sRGB image in one dispatch (vkfx::Downsampler):
// the image flags sRGB needs, the DownsampleTarget, the barriers around record(), and every
// level checked against the chain computed on the CPU.
//   Run: vkfx-example-downsample   (first GPU, else lavapipe; non-zero exit on any failure)
#include "example_gpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double toLinear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double toSrgb(double l) { return l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1 / 2.4) - 0.055; }

// The next level on the CPU (RGBA, linear light): texel x averages texels 2x and 2x + 1 of this
// level, and 2x + 2 when it is the last texel and the extent is odd (y alike).
std::vector<double> reduce(const std::vector<double>& src, std::uint32_t w, std::uint32_t h)
{
    const std::uint32_t nw = std::max(1u, w / 2), nh = std::max(1u, h / 2);
    auto taps = [](std::uint32_t i, std::uint32_t e, std::uint32_t ne) {
        return e == 1 ? 1u : (i == ne - 1 && e % 2 ? 3u : 2u);
    };
    std::vector<double> dst(std::size_t{nw} * nh * 4);
    for (std::uint32_t y = 0; y < nh; ++y) {
        for (std::uint32_t x = 0; x < nw; ++x) {
            const std::uint32_t tw = taps(x, w, nw), th = taps(y, h, nh);
            for (std::uint32_t c = 0; c < 4; ++c) {
                double sum = 0;
                for (std::uint32_t j = 0; j < th; ++j) {
                    for (std::uint32_t i = 0; i < tw; ++i) sum += src[((2 * y + j) * w + 2 * x + i) * 4 + c];
                }
                dst[(y * nw + x) * 4 + c] = sum / (tw * th);
            }
        }
    }
    return dst;
}

} // namespace

int main()
{
    example::Gpu g = example::openGpu("vkfx-example-downsample");
    vkfx::Device dev;
    example::check(vkfx::Device::create({.instance = g.instance, .physicalDevice = g.physical,
                                         .device = g.device, .getInstanceProcAddr = vkGetInstanceProcAddr},
                                        &dev),
                   "vkfx::Device::create");

    // The image: a full chain of an sRGB format. vkfx reads level k through an sRGB view and
    // writes level k + 1 through a UNORM one: MUTABLE_FORMAT | EXTENDED_USAGE.
    const VkExtent2D extent{1000, 700};
    const VkFormat format = VK_FORMAT_R8G8B8A8_SRGB;
    const std::uint32_t levels = vkfx::fullMipLevels(extent); // the full chain, down to 1x1
    example::Image image =
        example::createImage(g, format, extent, levels,
                             VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
                                 VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                             VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT);

    // One staging buffer: level 0 in, levels 1.. out, each at its own offset.
    std::vector<VkBufferImageCopy> regions(levels);
    VkDeviceSize bytes = 0;
    for (std::uint32_t l = 0; l < levels; ++l) {
        regions[l] = {};
        regions[l].bufferOffset = bytes;
        regions[l].imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1};
        regions[l].imageExtent = {std::max(1u, extent.width >> l), std::max(1u, extent.height >> l), 1};
        bytes += VkDeviceSize{regions[l].imageExtent.width} * regions[l].imageExtent.height * 4;
    }
    example::Buffer staging =
        example::createBuffer(g, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    auto* texels = static_cast<std::uint8_t*>(staging.mapped);
    for (std::uint32_t i = 0; i < extent.width * extent.height * 4; ++i) {
        texels[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 24); // noise: every level differs
    }

    // vkfx: a Downsampler per format and reduction (it owns the scratch that chains longer than
    // 6 levels need), a DownsampleTarget per image (the views of its levels).
    vkfx::Downsampler downsampler;
    example::check(vkfx::Downsampler::create(dev, {.format = format, .reduction = vkfx::Reduction::Average},
                                             &downsampler),
                   "vkfx::Downsampler::create");
    vkfx::DownsampleTarget target;
    example::check(vkfx::DownsampleTarget::create(dev, {.image = image.image, .format = format,
                                                        .extent = extent, .mipLevels = levels,
                                                        .usage = image.info.usage, .flags = image.info.flags},
                                                  &target),
                   "vkfx::DownsampleTarget::create");

    VkCommandBuffer cmd = example::beginCommands(g);
    example::imageBarrier(cmd, image.image, 0, 1, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                          VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vkCmdCopyBufferToImage(cmd, staging.buffer, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                           &regions[0]);
    // Before record(): the level read visible to compute shader reads (here in
    // SHADER_READ_ONLY_OPTIMAL), the levels written in GENERAL.
    example::imageBarrier(cmd, image.image, 0, 1, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT,
                          VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    example::imageBarrier(cmd, image.image, 1, levels - 1, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                          VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL);
    example::check(downsampler.record(cmd, {.target = &target,
                                            .sourceLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL}),
                   "vkfx::Downsampler::record");
    // After it: levels 1.. were written by compute shader storage writes.
    example::imageBarrier(cmd, image.image, 1, levels - 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    vkCmdCopyImageToBuffer(cmd, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging.buffer, levels - 1,
                           &regions[1]);
    example::memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                           VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    example::submitAndWait(g, cmd);

    // Every texel of every level against the CPU chain: within 1 code of the exact average.
    std::vector<double> level(std::size_t{extent.width} * extent.height * 4);
    for (std::size_t i = 0; i < level.size(); ++i) {
        level[i] = i % 4 == 3 ? texels[i] / 255.0 : toLinear(texels[i] / 255.0); // alpha is linear
    }
    int worst = 0;
    for (std::uint32_t l = 1; l < levels; ++l) {
        level = reduce(level, regions[l - 1].imageExtent.width, regions[l - 1].imageExtent.height);
        const std::uint8_t* got = texels + regions[l].bufferOffset;
        for (std::size_t i = 0; i < level.size(); ++i) {
            const double v = i % 4 == 3 ? level[i] : toSrgb(level[i]); // alpha is linear
            const int diff = std::abs(got[i] - static_cast<int>(std::lround(v * 255)));
            if (diff > 1) {
                example::fail("level %u, texel %zu, channel %zu: %d, expected %.2f", l, i / 4, i % 4, got[i],
                              v * 255);
            }
            worst = std::max(worst, diff);
        }
    }
    std::printf("downsample: %ux%u R8G8B8A8_SRGB, levels 1..%u (down to 1x1) in one dispatch on %s\n",
                extent.width, extent.height, levels - 1, g.props.deviceName);
    std::printf("every texel of every level within 1 code of the CPU chain (largest difference: %d)\n",
                worst);

    target.destroy();
    downsampler.destroy();
    example::destroy(g, staging);
    example::destroy(g, image);
    example::closeGpu(g);
    return 0;
}
