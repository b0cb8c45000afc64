// vkfx downsample: a whole mip chain (or depth pyramid) in one dispatch (two on large images).
//
//   vkfx::Downsampler spd;     // one per (format, reduction) and device
//   vkfx::Downsampler::create(dev, {.format = VK_FORMAT_R8G8B8A8_SRGB}, &spd);
//   vkfx::DownsampleTarget target;  // one per image: the views vkfx needs
//   vkfx::DownsampleTarget::create(dev, {.image = img, .format = VK_FORMAT_R8G8B8A8_SRGB,
//       .extent = {w, h}, .mipLevels = levels, .usage = usage, .flags = flags,
//       .layerCount = 6}, &target);
//   spd.record(cmd, {.target = &target});   // mips 1..levels-1 of all six faces
//
// The chain (what every level holds). Level k+1 has Vulkan's mip extent max(1, floor(e_k / 2)).
// Its texel x reduces texels 2x and 2x+1 of level k, plus 2x+2 when x is the last texel and e_k
// is odd, so an odd edge folds its third row or column into the last texel and no source texel
// is ever dropped; where e_k is 1 the texel reduces texel 0 alone (the other axis keeps halving).
// The same rule holds for y, so a footprint is 1..3 x 1..3 texels.
//   Average  the mean of the footprint, in linear light for sRGB formats. Intermediate levels
//            are carried in fp32 (8-bit RGBA / BGRA and B10G11R11 round level 1 of each 64x64
//            block to fp16 once on the way, at most 0.07 of the unit) and each stored value is
//            rounded once (fp16 and 11/10-bit floats to nearest, ties to even, by vkfx itself,
//            whatever the hardware's store rounding), so every level is within 1 unit in the last
//            place of the exact mean of the exact chain (unorm and sRGB: 1 code; fp16, 11/10-bit
//            floats: 1 ulp; fp32: 1e-5 relative).
//   Min/Max  the minimum / maximum of the footprint, per channel, bit-exact: a depth pyramid
//            built with them is conservative. (NaN inputs give unspecified results.)
//   MinMax   both from one read, into two images (DownsampleTargetCreateInfo::maxImage).
//
// Depth pyramids. A Downsampler created with depthFormat (D32_SFLOAT or D16_UNORM) reads level 0
// of a depth image (DownsampleTargetCreateInfo::depth) and writes an R32_SFLOAT pyramid: its
// level 0 is a copy of the depth (DepthLevelZero::Copy) or the first reduction
// (DepthLevelZero::Reduce, pyramid extent = max(1, depth extent / 2)). The pyramid holds the
// depth as the device samples it: D16 codes become code / 65535 as the sampler converts them
// (lavapipe's conversion is 1 fp32 ulp below the correctly rounded quotient for some codes).
//
// How it works. Each workgroup reduces one, two side by side or a 2x2 of 64x64 blocks of the level
// read (one each up to 384 of them over all layers, two below 800, a 2x2 from there; on GPUs that
// report their SM count, Average kernels that read a footprint with more than one sampler read take
// two where a 2x2 would leave a part-filled second wave, and RGBA16F's per-channel gathers one
// below 2048 blocks and two above where a 2x2 would be taken; edge blocks, which fold odd
// leftovers, one each), each to one texel six levels up, writing the levels between; a tree of
// atomic counters in the scratch buffer elects, for every 64x64 block of those texels, the last
// group to finish, which goes on with the next six levels - so any extent and any number of layers
// is one dispatch. (On large images, 8192x8192 and up, and from 2944x2944 in formats of more than
// one channel, a second dispatch makes the levels above 6 instead, with a pipeline of its own, and
// the first takes no tickets: faster there; DownsampleDispatches. On GPUs, a chain whose side is
// not a multiple of 4, of at most 1024 blocks (2048 where a footprint is one sampler read), binds
// a build of the kernel whose edge blocks make their odd texels of level 2 last: the same
// results.) Counters are handed over under the Vulkan memory model and left at zero. Interior
// blocks read each 2x2 footprint with one sampler fetch where that is exact enough (see
// DownsamplerFlagTexelFetch; with DownsamplerFlagSamplerFilter, wherever the format filters, not
// exactly) and use subgroup shuffles where the device has them (DownsamplerFlagSharedMemoryOnly
// turns that off; both paths give identical results).
//
// Formats (format / what is written through):
//   R8G8B8A8_UNORM, B8G8R8A8_UNORM, R16G16B16A16_SFLOAT, R16G16_SFLOAT, R32_SFLOAT,
//   R32G32B32A32_SFLOAT, B10G11R11_UFLOAT_PACK32, R16_UNORM, R8_UNORM, R8G8_UNORM, R16_SFLOAT,
//   A2B10G10R10_UNORM_PACK32: the format itself;
//   R8G8B8A8_SRGB, B8G8R8A8_SRGB: sRGB formats cannot be storage images, so vkfx reads through an
//   sRGB view (hardware decode) and writes through a UNORM view (it encodes): create the image
//   with VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT.
//   B8G8R8A8 formats need the shaderStorageImageWriteWithoutFormat feature; R16_UNORM,
//   R16G16_SFLOAT, B10G11R11_UFLOAT_PACK32, R8_UNORM, R8G8_UNORM, R16_SFLOAT and
//   A2B10G10R10_UNORM_PACK32 need shaderStorageImageExtendedFormats.
#pragma once

#include <vkfx/core.hpp>
#include <vkfx/spirv/downsample.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace vkfx {

// The extent of level `level` of an image whose level 0 is `extent`: each side
// max(1, side >> level), as Vulkan defines it.
inline VkExtent2D mipExtent(VkExtent2D extent, std::uint32_t level)
{
    auto side = [level](std::uint32_t e) { return level >= 32 ? 1u : std::max(1u, e >> level); };
    return {side(extent.width), side(extent.height)};
}

// What a texel of the next level holds (see "The chain" above).
enum class Reduction : std::uint32_t {
    Average = 0, // the mean of the footprint (linear light for sRGB formats)
    Min = 1,     // the per-channel minimum of the footprint, bit-exact
    Max = 2,     // the per-channel maximum of the footprint, bit-exact
    // Both chains from one read: min into DownsampleTargetCreateInfo::image, max into ::maxImage.
    // Both are reduced from `image`'s level 0 (no level of maxImage is read); a record with
    // DownsampleInfo::baseLevel > 0 fails (above level 0 `image` holds the min chain: continue a
    // chain with a Min record on `image` and a Max record on a target of maxImage).
    MinMax = 3,
};

// Depth pyramids only (DownsamplerCreateInfo::depthFormat set): what pyramid level 0 holds.
enum class DepthLevelZero : std::uint32_t {
    Copy,   // pyramid level 0 = the depth image (same extent)
    Reduce, // pyramid level 0 = the first reduction of the depth image (half extent)
};

enum DownsamplerFlagBits : std::uint32_t {
    // Reduce through shared memory only, never with subgroup operations (same results; for
    // testing, or for drivers whose subgroup support you distrust).
    DownsamplerFlagSharedMemoryOnly = 1u << 0,
    // Read level 0 with four texelFetch per 2x2 footprint, never through the sampler. Without it,
    // one-channel formats (R32F, R16, R16F, R8, depth) and RGBA16F gather each footprint with one
    // textureGather per channel (exact everywhere; RGBA16F images created with MUTABLE_FORMAT
    // with two, of an R32G32_UINT view: DownsampleTargetCreateInfo::viewFormats), and Average
    // chains of RGBA / BGRA 8-bit UNORM (not sRGB), RG8 UNORM, A2B10G10R10, B10G11R11 and RGBA32F
    // take one bilinear sample per footprint on NVIDIA GPUs (vendor ID 0x10DE) where the format
    // supports linear filtering, their filter being finer than those formats (measured on an
    // H200 and an H100); everything else reads with texelFetch.
    DownsamplerFlagTexelFetch = 1u << 1,
    // Average chains of more than one channel: read each 2x2 footprint of level 0 with one bilinear
    // sample on every device, wherever the format supports linear filtering: sRGB (decoded by the
    // sampler), RGBA16F and RG16F too, whose exact reads take four texelFetch or a gather per
    // channel, and off NVIDIA RGBA / BGRA 8-bit UNORM, RG8 UNORM, A2B10G10R10, B10G11R11 and
    // RGBA32F (the 3-wide footprints of odd
    // edges stay exact; on CPU drivers, every footprint under the last level-2 texels of an odd
    // edge). A blit chain filters the same way. Faster for those formats, but not
    // exact: the filtered value replaces the exact mean of each such footprint in level 1, as
    // precise as the device's filter at the kernel's sample point (2^-10 texel off the footprint's
    // centre, so that coordinate rounding cannot cross it), and its error carries into the levels
    // above. See README, "Sampler-filtered reads", for the bounds measured on the devices vkfx is
    // tested on and what it gains. Ignored by Min, Max and MinMax chains, depth pyramids and
    // one-channel formats (their gather is exact and as fast). Not together with
    // DownsamplerFlagTexelFetch (create fails).
    DownsamplerFlagSamplerFilter = 1u << 2,
};
// A combination of DownsamplerFlagBits (0: none).
using DownsamplerFlags = std::uint32_t;

struct DownsamplerCreateInfo {
    // Format of the images whose levels are written: one of the list at the top of this file
    // (for depth pyramids: VK_FORMAT_R32_SFLOAT). Required.
    VkFormat format = VK_FORMAT_UNDEFINED;
    // What each texel of the next level holds. Default Average.
    Reduction reduction = Reduction::Average;
    // Optional: VK_FORMAT_D32_SFLOAT or VK_FORMAT_D16_UNORM to build depth pyramids from a depth
    // image (DownsampleTargetCreateInfo::depth). VK_FORMAT_UNDEFINED (default): colour chains.
    VkFormat depthFormat = VK_FORMAT_UNDEFINED;
    // Depth pyramids only (ignored otherwise): pyramid level 0 a copy of the depth (default) or
    // its first reduction.
    DepthLevelZero depthLevelZero = DepthLevelZero::Copy;
    // DownsamplerFlagBits; default 0 (subgroup operations where the device has them, level-0
    // reads as DownsamplerFlagTexelFetch describes). Bits not in DownsamplerFlagBits fail create.
    DownsamplerFlags flags = 0;
    // Bytes of scratch the Downsampler owns (host-visible, device-local where possible) for
    // records that pass no DownsampleInfo::scratchBuffer. 4 MiB covers a single 4-channel
    // 16384^2 image (1 MiB a layer) or a 6-layer cube up to 8192^2; scratchRequirements() gives
    // exact figures. 0 still allocates the minimum needed for chains of up to 6 levels (256
    // bytes). It is zeroed at creation (host-mapped), so create() needs no queue. Default 4 MiB.
    VkDeviceSize scratchSize = VkDeviceSize{4} << 20;
};

struct DownsampleTargetCreateInfo {
    // The image whose levels are read and written (2D, optimal tiling). Required.
    VkImage image = VK_NULL_HANDLE;
    // Its creation parameters, as passed to vkCreateImage (vkfx cannot query them): format,
    // extent of level 0, mipLevels, usage and flags. Required: usage must contain STORAGE (and
    // SAMPLED unless the target is a depth pyramid); sRGB formats need MUTABLE_FORMAT.
    // format: one of the list at the top of this file. extent: each side 1 ..
    // maxImageDimension2D. mipLevels: 1 .. min(the full chain of `extent`, kMaxLevels).
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkExtent2D extent = {0, 0};
    std::uint32_t mipLevels = 1;
    VkImageUsageFlags usage = 0;
    VkImageCreateFlags flags = 0;
    // The VkImageFormatListCreateInfo the image was created with, if any (a copy of its formats is
    // not kept). vkfx views an image only as formats in that list: its format, the one it writes
    // as (sRGB: the UNORM format), and for R16G16B16A16_SFLOAT images created with MUTABLE_FORMAT
    // R32G32_UINT, which reads level 0 with half the texture instructions (left out when the list
    // lacks it). The list must hold the first two. viewFormatCount 0 (default): no list, any
    // format compatible with the image's.
    const VkFormat* viewFormats = nullptr;
    std::uint32_t viewFormatCount = 0;
    // The layers processed (a cube is 6 layers; a cube array 6n); every record processes all of
    // them. layerCount: 1 .. min(maxImageArrayLayers, maxComputeWorkGroupCount[2]);
    // baseArrayLayer + layerCount at most maxImageArrayLayers. The range must lie inside the image
    // (vkfx does not know its arrayLayers: beyond that limit, not checked).
    std::uint32_t baseArrayLayer = 0;
    std::uint32_t layerCount = 1;
    // Reduction::MinMax only: the image that receives the max chain, created exactly like `image`
    // (no level of it is read: see Reduction::MinMax). VK_NULL_HANDLE (default): none; other
    // reductions ignore it.
    VkImage maxImage = VK_NULL_HANDLE;
    // Depth pyramids only: the depth image read (its level 0, same layers as `image`). Leave
    // depth.image VK_NULL_HANDLE (default) for a colour target. With a depth image, `format`
    // must be R32_SFLOAT and `extent` the depth's extent (DepthLevelZero::Copy) or max(1, half)
    // of it (Reduce); record() checks the latter.
    struct Depth {
        VkImage image = VK_NULL_HANDLE;        // the depth image
        VkFormat format = VK_FORMAT_UNDEFINED; // D32_SFLOAT or D16_UNORM
        VkExtent2D extent = {0, 0};            // extent of its level 0; not empty
        VkImageUsageFlags usage = 0;           // its usage; must contain SAMPLED
    } depth = {};
};

// The image views one image needs for downsampling: create once per image, keep while the
// image lives, destroy before the image. Targets are independent of Downsamplers: one target can
// be used with any Downsampler of its format (a depth target with depth Downsamplers of its depth
// format, a colour target with colour ones). Move-only; moving leaves the source empty.
class DownsampleTarget {
public:
    // The most mip levels a target can have (a 32768 x 32768 chain).
    static constexpr std::uint32_t kMaxLevels = 16;

    // Validates the description and creates the views: per level a storage view (UNORM for sRGB)
    // and, for colour targets, a sampled view (plus a UNORM view for sRGB formats, or an
    // R32G32_UINT one for mutable RGBA16F images), of maxImage a storage view per level, of a
    // depth image one sampled view of level 0. `*target` is destroyed first. `device` must
    // outlive the target (it keeps a pointer). Errors (reason in lastError()):
    //   VK_ERROR_VALIDATION_FAILED_EXT  null target, device not created, null image, extent,
    //                                   mipLevels, layerCount or the layers' range out of
    //                                   range, usage without
    //                                   STORAGE (or SAMPLED, colour targets), sRGB without
    //                                   MUTABLE_FORMAT, viewFormats null with a count or lacking
    //                                   a needed format, depth usage without SAMPLED, an empty
    //                                   depth extent;
    //   VK_ERROR_FORMAT_NOT_SUPPORTED   format not in the list above, depth format not D32_SFLOAT
    //                                   or D16_UNORM, a depth target not R32_SFLOAT;
    //   or vkCreateImageView's error.
    // It does not check the device's format support (Downsampler::create() does).
    static VkResult create(const Device& device, const DownsampleTargetCreateInfo& info,
                           DownsampleTarget* target);

    DownsampleTarget() = default;
    DownsampleTarget(const DownsampleTarget&) = delete;
    DownsampleTarget& operator=(const DownsampleTarget&) = delete;
    DownsampleTarget(DownsampleTarget&& other) noexcept { swap(other); }
    DownsampleTarget& operator=(DownsampleTarget&& other) noexcept
    {
        if (this != &other) {
            destroy();
            swap(other);
        }
        return *this;
    }
    ~DownsampleTarget() { destroy(); }

    // Destroys the views (null-safe; also run by the destructor). No command buffer that uses
    // the target may be pending.
    void destroy();
    // True between a successful create() and destroy().
    bool valid() const { return m_device != nullptr; }
    // The description it was created with, less the format list (viewFormats null, count 0).
    const DownsampleTargetCreateInfo& info() const { return m_info; }

private:
    friend class Downsampler;
    void swap(DownsampleTarget& other) noexcept;

    const Device* m_device = nullptr;
    DownsampleTargetCreateInfo m_info{};
    VkImageView m_sampled[kMaxLevels] = {};      // format view per level (sRGB decodes)
    VkImageView m_sampledRaw[kMaxLevels] = {};   // UNORM view per level of sRGB images, or the
                                                 // packed view (R32G32_UINT) of RGBA16F ones
    bool m_rawPacked = false;                    // m_sampledRaw holds the packed views
    VkImageView m_storage[kMaxLevels] = {};      // storage view per level
    VkImageView m_storageMax[kMaxLevels] = {};   // storage views of maxImage
    VkImageView m_depth = VK_NULL_HANDLE;        // depth aspect, level 0
};

// How a record spreads a chain over dispatches (DownsampleInfo::dispatches). Both give the same
// bits.
enum class DownsampleDispatches : std::uint32_t {
    // Two where more than 6 levels are made above the level read and it holds at least
    // kDownsampleTwoDispatchBlocks (16384) 64x64 blocks over all layers (8192x8192 and larger; a
    // 4096x4096 cube), or, for formats of more than one channel where subgroup shuffles are in use,
    // where its level 6 holds more than kDownsampleTwoDispatchTexels6 (2048) texels a layer
    // (squares from 2944x2944, 4095x4095, 4096x4096, 4096x2112; not 3840x2160, 4096x2048 nor
    // 8192x1024); else one. On an H200, two against one: RGBA8 8192^2 113 / 123 us, 16384^2 387 /
    // 425; B10G11R11 16384^2 405 / 434; R32F 8192^2 104 / 108; RGBA16F 8192^2 256 / 259 (every
    // format faster from 8192^2 up), RGBA8 4096^2 x6 cube 156 / 170; at 4096^2 RGBA8 40.8 / 43.3,
    // RGBA16F 75.2 / 79.7, but R32F 38.0 / 37.5. On an H100 at 4095^2: RGBA8 52.9 / 54.0, sRGB8
    // 68.6 / 70.3, RGBA16F 94.6 / 96.5; at 3000^2 sRGB8 and RGBA16F 1-4% faster too (RGBA8 even);
    // from 2048^2 down up to 8% slower (a second launch costs more there than the tickets).
    Auto = 0,
    // One dispatch: the last workgroup to finish each 64x64 block of level-6 texels (an atomic
    // ticket per workgroup) goes on with the six levels above it, and so on.
    One = 1,
    // Levels up to 6 in a first dispatch, which takes no tickets, and the levels above them in a
    // second, one workgroup per 64x64 block of level-6 texels. One dispatch where at most 6 levels
    // are made above the level read.
    Two = 2,
};

// Auto's thresholds: 64x64 blocks of the level read, over all layers; and, for formats of more
// than one channel, texels of level 6 in one layer (more than this many).
inline constexpr std::uint64_t kDownsampleTwoDispatchBlocks = 16384;
inline constexpr std::uint64_t kDownsampleTwoDispatchTexels6 = 2048;

struct DownsampleInfo {
    // Required: a valid target of the Downsampler's VkDevice. Its format must be the
    // Downsampler's (and its depth format, for depth pyramids); Reduction::MinMax needs a target
    // with maxImage.
    const DownsampleTarget* target = nullptr;
    // The level read; levels baseLevel+1 .. baseLevel+levelCount are written. Below the
    // target's mipLevels.
    // Depth pyramids: must be 0; the depth image's level 0 is read and pyramid levels
    // 0 .. levelCount-1 are written.
    std::uint32_t baseLevel = 0;
    // Levels written: 1 .. min(kMaxOutputLevels, mipLevels - 1 - baseLevel) (depth pyramids:
    // 1 .. min(kMaxOutputLevels, mipLevels)). VK_REMAINING_MIP_LEVELS (default): the rest of the
    // image's chain (nothing, and VK_SUCCESS, when baseLevel is the image's last level).
    std::uint32_t levelCount = VK_REMAINING_MIP_LEVELS;
    // Layout of the level read: GENERAL (default), SHADER_READ_ONLY_OPTIMAL or READ_ONLY_OPTIMAL
    // (depth: also DEPTH_STENCIL_READ_ONLY_OPTIMAL / DEPTH_READ_ONLY_OPTIMAL). Written levels:
    // GENERAL.
    VkImageLayout sourceLayout = VK_IMAGE_LAYOUT_GENERAL;
    // Optional scratch (buffer with STORAGE usage, offset aligned to
    // minStorageBufferOffsetAlignment, at least scratchRequirements().size bytes, zero-filled
    // before its first use: vkfx leaves it zero). Null (default): the Downsampler's own scratch,
    // which must then be large enough (DownsamplerCreateInfo::scratchSize). Records that share
    // a scratch range must not run concurrently (on another queue): one scratch, one queue.
    // scratchSize: the bytes usable from scratchOffset; VK_WHOLE_SIZE (default): not checked.
    VkBuffer scratchBuffer = VK_NULL_HANDLE;
    VkDeviceSize scratchOffset = 0;
    VkDeviceSize scratchSize = VK_WHOLE_SIZE;
    // One or two dispatches (see DownsampleDispatches). Default Auto.
    DownsampleDispatches dispatches = DownsampleDispatches::Auto;
};

// Generates mip chains or depth pyramids of one format and reduction. Move-only; moving leaves
// the source empty. record() is const and changes nothing in the object, so several threads may
// record with one Downsampler at once (records without scratchBuffer share the owned scratch:
// see DownsampleInfo::scratchBuffer).
class Downsampler {
public:
    // The most levels one record writes (a 32768 chain from level 0).
    static constexpr std::uint32_t kMaxOutputLevels = 15;

    // Creates the pipelines for one format and reduction (one for a whole chain, one for the
    // second of two dispatches, DownsampleDispatches, and on devices other than CPU
    // implementations one for chains with odd edges, see "How it works"; RGBA16F without
    // DownsamplerFlagTexelFetch or DownsamplerFlagSamplerFilter: as many more, for targets read
    // through their R32G32_UINT view), its immutable sampler and its own scratch (scratchSize
    // bytes, zeroed through a host mapping).
    // `*downsampler` is destroyed first. Errors (reason in lastError()):
    // VK_ERROR_FORMAT_NOT_SUPPORTED (format not in the list above, or the device cannot sample /
    // store it; a depthFormat other than D32_SFLOAT / D16_UNORM, or a depth pyramid whose format is
    // not R32_SFLOAT), VK_ERROR_FEATURE_NOT_PRESENT (B8G8R8A8 without
    // shaderStorageImageWriteWithoutFormat; the formats above that need
    // shaderStorageImageExtendedFormats without it), VK_ERROR_VALIDATION_FAILED_EXT (null output,
    // device not created, unknown reduction or depthLevelZero, unknown flags,
    // DownsamplerFlagTexelFetch with
    // DownsamplerFlagSamplerFilter), VK_ERROR_OUT_OF_DEVICE_MEMORY (no host-visible memory type for
    // the scratch), or Vulkan's own. `device` must outlive the Downsampler (it keeps a pointer).
    static VkResult create(const Device& device, const DownsamplerCreateInfo& info,
                           Downsampler* downsampler);

    Downsampler() = default;
    Downsampler(const Downsampler&) = delete;
    Downsampler& operator=(const Downsampler&) = delete;
    Downsampler(Downsampler&& other) noexcept { swap(other); }
    Downsampler& operator=(Downsampler&& other) noexcept
    {
        if (this != &other) {
            destroy();
            swap(other);
        }
        return *this;
    }
    ~Downsampler() { destroy(); }

    // Destroys the pipelines, sampler, layouts and the owned scratch (null-safe; also run by the
    // destructor). No command buffer that uses the Downsampler may be pending.
    void destroy();
    // True between a successful create() and destroy().
    bool valid() const { return m_device != nullptr; }

    // Scratch that a record reading a level of `extent` (the level read: for depth pyramids the
    // depth image) over `layerCount` layers and writing `levelCount` levels needs: 16 bytes up
    // to 6 levels; beyond, about 4 bytes per channel (8 for MinMax) per texel of the level 6
    // levels below the one read (1/4096 of its texels), per layer. alignment: the storage-buffer
    // offset alignment; usage: STORAGE_BUFFER. All zero when the Downsampler is not created.
    // Pure arithmetic: it calls no Vulkan function and reports nothing.
    ScratchRequirements scratchRequirements(VkExtent2D extent, std::uint32_t layerCount,
                                            std::uint32_t levelCount) const;

    // Records the generation of the levels described by `info` for every layer of the target.
    //
    // Appends to `cmd` (a compute-capable command buffer in the recording state):
    //   1. one vkCmdPipelineBarrier: COMPUTE_SHADER (SHADER_READ|WRITE) -> COMPUTE_SHADER
    //      (SHADER_READ|WRITE) on the scratch range, ordering this record after earlier users of
    //      the same scratch on the queue;
    //   2. vkCmdBindPipeline, vkCmdPushDescriptorSetKHR (set 0), vkCmdPushConstants, and one
    //      vkCmdDispatch;
    //   3. with two dispatches (DownsampleInfo::dispatches): a vkCmdPipelineBarrier with a global
    //      memory barrier, COMPUTE_SHADER (SHADER_WRITE) -> COMPUTE_SHADER (SHADER_READ|WRITE),
    //      vkCmdBindPipeline (the second dispatch's pipeline, of the same layout),
    //      vkCmdPushConstants and the second vkCmdDispatch.
    // It disturbs the compute pipeline binding, push descriptor set 0 and push constants.
    // Synchronization before and after is the caller's: the level read must be in
    // info.sourceLayout and visible to COMPUTE_SHADER / SHADER_SAMPLED_READ; the written levels
    // must be in VK_IMAGE_LAYOUT_GENERAL, earlier accesses to them finished before
    // COMPUTE_SHADER; afterwards they are written by COMPUTE_SHADER / SHADER_STORAGE_WRITE (still
    // in GENERAL). No barrier on the images is recorded, nor any layout transition.
    // When levelCount is VK_REMAINING_MIP_LEVELS and nothing lies below baseLevel, it checks the
    // rest of `info` (sourceLayout, dispatches, scratchOffset), records nothing and returns
    // VK_SUCCESS.
    // Errors (nothing recorded, reason in lastError()): VK_ERROR_VALIDATION_FAILED_EXT for a
    // Downsampler not created, a null cmd or target, a target of another format, depth format or
    // device, a depth target with a colour Downsampler or the reverse, a depth pyramid whose
    // extent does not match DepthLevelZero or a baseLevel other than 0, levels outside the image,
    // more than 15 levels, a missing maxImage or a MinMax baseLevel other than 0, a sourceLayout
    // not listed at DownsampleInfo, an unknown DownsampleDispatches, scratch that is too small
    // (the owned one included) or misaligned, or more than one dispatch can address or than the
    // device's maxStorageBufferRange.
    // Cost: reads the level read once and writes every written level once (measured speeds:
    // README, "Performance").
    VkResult record(VkCommandBuffer cmd, const DownsampleInfo& info) const;

private:
    struct Chain;
    VkResult resolve(const DownsampleInfo& info, Chain* chain) const;
    void swap(Downsampler& other) noexcept;

    const Device* m_device = nullptr;
    DownsamplerCreateInfo m_info{};
    std::uint32_t m_channels = 0;
    bool m_srgbEncode = false;
    std::uint32_t m_groupSlots = 0; // workgroups that run at once, where the shape rule uses them
    bool m_gatherChannels = false;  // the kernel gathers each channel of a footprint (RGBA16F)
    bool m_registersAbove = false;  // a large level 6 takes two dispatches (Auto)
    VkDescriptorSetLayout m_setLayout = VK_NULL_HANDLE;
    VkPipelineLayout m_pipelineLayout = VK_NULL_HANDLE;
    VkPipeline m_pipeline = VK_NULL_HANDLE;
    VkPipeline m_pipelinePacked = VK_NULL_HANDLE; // reads a target's packed view (RGBA16F)
    // The same with edge blocks' odd level-2 texels last (extents not a multiple of 4; GPUs).
    VkPipeline m_pipelineOddEdges = VK_NULL_HANDLE;
    VkPipeline m_pipelineOddEdgesPacked = VK_NULL_HANDLE;
    std::uint64_t m_oddEdgeBlocks = 0; // the most blocks a chain that binds them has
    // The second dispatch's pipelines (two dispatches, by Auto or Two): the levels above 6 only.
    VkPipeline m_pipelineAbove = VK_NULL_HANDLE;
    VkPipeline m_pipelineAbovePacked = VK_NULL_HANDLE;
    VkSampler m_sampler = VK_NULL_HANDLE; // immutable sampler of the level-0 reads
    VkBuffer m_scratch = VK_NULL_HANDLE;
    VkDeviceMemory m_scratchMemory = VK_NULL_HANDLE;
    VkDeviceSize m_scratchSize = 0;
};

} // namespace vkfx

#include <vkfx/detail/downsample_impl.hpp>
