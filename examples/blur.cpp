// vkfx example: a Gaussian blur (sigma 3, mirrored borders) of a 640x480 RGBA8 image into another
// image (vkfx::Blurrer): the BlurTargets, the barriers around record(), and every texel checked
// against the blur computed on the CPU.
//   Run: vkfx-example-blur   (first GPU, else lavapipe; non-zero exit on any failure)
#include "example_gpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main()
{
    example::Gpu g = example::openGpu("vkfx-example-blur");
    vkfx::Device dev;
    example::check(vkfx::Device::create({.instance = g.instance, .physicalDevice = g.physical,
                                         .device = g.device, .getInstanceProcAddr = vkGetInstanceProcAddr},
                                        &dev),
                   "vkfx::Device::create");

    // The images: the source is sampled by vkfx, the destination written as a storage image.
    const VkExtent2D extent{640, 480};
    const VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
    example::Image source =
        example::createImage(g, format, extent, 1, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    example::Image destination =
        example::createImage(g, format, extent, 1, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);

    // One staging buffer: the source in, the result out. The source: squares with hard edges.
    const std::uint32_t w = extent.width, h = extent.height;
    example::Buffer staging =
        example::createBuffer(g, VkDeviceSize{w} * h * 4,
                              VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    auto* texels = static_cast<std::uint8_t*>(staging.mapped);
    std::vector<std::uint8_t> input(std::size_t{w} * h * 4);
    for (std::uint32_t i = 0; i < w * h * 4; ++i) {
        const std::uint32_t x = i / 4 % w, y = i / 4 / w, c = i % 4;
        input[i] = texels[i] = static_cast<std::uint8_t>(((x / 24 + y / 24) % 2 ? 200 : 30) + c * 8 + x % 7);
    }

    // vkfx: a Blurrer per format, a BlurTarget per image read or written (its views).
    vkfx::Blurrer blurrer;
    example::check(vkfx::Blurrer::create(dev, {.format = format}, &blurrer), "vkfx::Blurrer::create");
    vkfx::BlurTarget from, to;
    example::check(vkfx::BlurTarget::create(dev, {.image = source.image, .format = format, .extent = extent,
                                                  .usage = source.info.usage},
                                            &from),
                   "vkfx::BlurTarget::create (source)");
    example::check(vkfx::BlurTarget::create(dev, {.image = destination.image, .format = format,
                                                  .extent = extent, .usage = destination.info.usage},
                                            &to),
                   "vkfx::BlurTarget::create (destination)");
    // The whole image; radius ceil(3 sigma) = 9. (Given scratch, a Gaussian of a radius from 17
    // would take the faster TwoPass method, and from 25 the Decimated one:
    // Blurrer::scratchRequirements(info) sizes it.)
    const vkfx::BlurInfo info{.source = &from, .destination = &to, .sigmaX = 3.0f, .sigmaY = 3.0f,
                              .border = vkfx::BlurBorder::Mirror,
                              .sourceLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};

    VkCommandBuffer cmd = example::beginCommands(g);
    example::imageBarrier(cmd, source.image, 0, 1, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                          VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {w, h, 1};
    vkCmdCopyBufferToImage(cmd, staging.buffer, source.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                           &region);
    // Before record(): the source visible to compute shader reads (in info.sourceLayout), the
    // destination in GENERAL.
    example::imageBarrier(cmd, source.image, 0, 1, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT,
                          VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    example::imageBarrier(cmd, destination.image, 0, 1, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                          VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL);
    example::check(blurrer.record(cmd, info), "vkfx::Blurrer::record");
    // After it: the destination was written by compute shader storage writes.
    example::imageBarrier(cmd, destination.image, 0, 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    vkCmdCopyImageToBuffer(cmd, destination.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging.buffer, 1,
                           &region);
    example::memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                           VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    example::submitAndWait(g, cmd);

    // The CPU blur (rows, then columns; reflect-101 at the edges): every texel within 1 code.
    const int r = 9, iw = static_cast<int>(w), ih = static_cast<int>(h);
    double weight[2 * r + 1], total = 0;
    for (int k = -r; k <= r; ++k) total += weight[k + r] = std::exp(-k * k / (2 * 3.0 * 3.0));
    for (double& v : weight) v /= total;
    auto mirror = [](int q, int n) { return q < 0 ? -q : (q >= n ? 2 * (n - 1) - q : q); };
    auto at = [iw](int x, int y, int c) { return static_cast<std::size_t>((y * iw + x) * 4 + c); };
    std::vector<double> rows(input.size());
    int worst = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int y = 0; y < ih; ++y) {
            for (int x = 0; x < iw; ++x) {
                for (int c = 0; c < 4; ++c) {
                    double v = 0;
                    for (int k = -r; k <= r; ++k) {
                        v += weight[k + r] * (pass == 0 ? input[at(mirror(x + k, iw), y, c)]
                                                        : rows[at(x, mirror(y + k, ih), c)]);
                    }
                    if (pass == 0) {
                        rows[at(x, y, c)] = v;
                        continue;
                    }
                    const int got = texels[at(x, y, c)];
                    const int diff = std::abs(got - static_cast<int>(std::lround(v)));
                    if (diff > 1) {
                        example::fail("texel (%d, %d) channel %d: %d, expected %.2f", x, y, c, got, v);
                    }
                    worst = std::max(worst, diff);
                }
            }
        }
    }
    std::printf("blur: %ux%u R8G8B8A8_UNORM, Gaussian sigma 3 (radius 9), mirrored borders, on %s\n", w, h,
                g.props.deviceName);
    std::printf("every texel within 1 code of the CPU blur (largest difference: %d)\n", worst);

    to.destroy();
    from.destroy();
    blurrer.destroy();
    example::destroy(g, staging);
    example::destroy(g, destination);
    example::destroy(g, source);
    example::closeGpu(g);
    return 0;
}
