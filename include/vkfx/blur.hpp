// vkfx blur: a separable Gaussian or box blur of one image region into another image, in one
// dispatch (two to four through a scratch buffer for large radii: BlurMethod).
//
//   vkfx::Blurrer blur;        // one per format and device
//   vkfx::Blurrer::create(dev, {.format = VK_FORMAT_R8G8B8A8_SRGB}, &blur);
//   vkfx::BlurTarget a, b;     // one per image (level, layers): the views vkfx needs
//   vkfx::BlurTarget::create(dev, {.image = srcImg, .format = VK_FORMAT_R8G8B8A8_SRGB,
//       .extent = {w, h}, .usage = srcUsage, .flags = srcFlags}, &a);
//   vkfx::BlurTarget::create(dev, {.image = dstImg, ...}, &b);
//   blur.record(cmd, {.source = &a, .destination = &b, .sigmaX = 2.5f, .sigmaY = 2.5f});
//
// What is computed. For every texel p of the region (extent, every layer of the targets):
//   dst[destinationOffset + p] = sum over i, j in -rx..rx, -ry..ry of wx[i] wy[j] S(p + (i, j))
// where S(q) is the source texel sourceOffset + q when q lies in the region, else the texel the
// border mode maps q to inside the region (per axis), or borderColor:
//   ClampToEdge  the nearest edge texel                          aaa|abcd|ddd
//   Mirror       reflection about the edge texel (reflect-101)   dcb|abcd|cba
//   MirrorEdge   reflection with the edge texel repeated         cba|abcd|dcb
//   Wrap         the region repeated                             bcd|abcd|abc
//   Constant     borderColor (linear RGBA; sRGB images too)
// The border applies at the region's edges: texels outside the region are never read.
// Weights: Gaussian wx[i] = exp(-i^2 / (2 sigmaX^2)) normalized to sum 1 over -rx..rx, with
// rx = ceil(3 sigmaX) unless radiusX is given (y alike; the exponent's factor 1 / (2 sigma^2) at
// most 80); Box wx[i] = 1 / (2 rx + 1).
// Every channel of the format is filtered (alpha too); sRGB images are blurred in linear light
// (decoded by the sampler, encoded by vkfx). Taps, weights and sums are fp32 and each result is
// rounded once to the destination format, to nearest (8-bit formats keep staged texels, and the
// TwoPass method its rows, in fp16 first: within the same bound): unorm and sRGB within 1 code of
// the exact result, fp16 and the 11- and 10-bit floats within 1 ulp, fp32 within 1e-5 relative
// (for non-negative data; measured against a double-precision reference).
//
// How it works. Each workgroup walks a strip of columns down a segment of rows: it stages the
// strip's next source rows (with the horizontal halo) in shared memory, blurs them horizontally
// into a ring of rows in shared memory and writes output rows blurred vertically out of the ring,
// so each source texel is read about once and the horizontal result never goes to memory. The
// strip width and the rows per step follow from the radii and the device's shared memory.
// Where both radii are the same, up to 13 for 8-bit RGBA and BGRA formats (22 on devices whose
// maxPushConstantsSize is 256 or more), 24 for one-channel ones
// and 11 for R16G16B16A16_SFLOAT and R32G32B32A32_SFLOAT (15 with 256) (where the tile fits the
// device's shared memory), a workgroup instead blurs tiles of 32 columns by 24 (8-bit RGBA / BGRA) or 16 (RGBA16F,
// RGBA32F) rows, or of 64x16 outputs (one channel), at radii 1 and 2, or 32 columns by 32, 24 or
// 16 rows above (the most that keep the tile under 23.5 KiB of shared memory, else 32; on NVIDIA
// GPUs 8-bit RGBA / BGRA tiles take 24 rows at radii 4, 7, 12 and 13 and 16 at 14-16,
// one-channel ones 24 at 3 and 4, RGBA16F / RGBA32F ones 24 at 12 and 13 and 16 at 14 and 15;
// 8-bit tiles above radius 16 are 32 x 32 where they fit), up to
// 8 (8-bit: 4) one below the other (each tile's source texels and halo staged at once, the next
// tile's loaded while this one is filtered, each row's horizontal results written over
// its source texels; the halo texels are read again by the neighbouring tiles, mostly from the L2
// cache; the weights are computed on the host and pushed with the push constants up to radius 11,
// and at every radius on devices whose maxPushConstantsSize is 256 or more, whose Blurrers take a
// 256-byte push-constant range).
// Cost: one read of the region (plus halos) and one write; 2 (2r + 1) multiply-adds per channel
// per texel at radius r. Gaussians of a radius above kMaxRadius take the Decimated method
// (BlurMethod), and so do those of sigma 6 and more when the caller gives scratch (Auto; fp16
// formats; 8-bit RGBA and BGRA from radius 25, sigma above 8; R8_UNORM from sigma 9): the blur
// computed exactly on a grid of points floor(sigma / 3) apart, outputs interpolated from the 4x4
// grid points around them: at any sigma about 19 multiply-adds per channel per texel for the
// vertical blur at the grid rows, far fewer for the horizontal one at the grid points, 20 for the
// interpolation; three dispatches through a caller's scratch buffer (four on GPUs where the grid
// rows are 18 or more apart: the vertical blur then reads each source texel once into the moments
// of blocks of rows, and makes the grid rows from those).
//
// Formats (source and destination alike): R8G8B8A8_UNORM, R8G8B8A8_SRGB, B8G8R8A8_UNORM,
// B8G8R8A8_SRGB, R16G16B16A16_SFLOAT, R32_SFLOAT, R32G32B32A32_SFLOAT, R8_UNORM,
// B10G11R11_UFLOAT_PACK32. B10G11R11 is blurred as four fp32 channels (the sampler's alpha of 1
// goes along, and the store drops it) in the 16-byte slots of RGBA16F, whose tile radii, tile
// shapes and method rules it takes; what this comment says of RGBA16F (above and below) holds for
// it, but for the Direct method's two tunings at radii up to 4. sRGB formats cannot be storage
// images: a destination of an sRGB format is written through a UNORM view (create it with
// VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT). B8G8R8A8 formats
// need shaderStorageImageWriteWithoutFormat; R8_UNORM and B10G11R11_UFLOAT_PACK32 need
// shaderStorageImageExtendedFormats.
#pragma once

#include <vkfx/core.hpp>
#include <vkfx/spirv/blur.hpp>
#include <vkfx/spirv/blur_grid.hpp>
#include <vkfx/spirv/blur_tile.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace vkfx {

// The kernel (weights: "What is computed" above).
enum class BlurFilter : std::uint32_t {
    Gaussian = 0, // normalized Gaussian weights of sigmaX, sigmaY
    Box = 1,      // equal weights over 2 r + 1 taps per axis
};

// How a record computes the blur (BlurInfo::method).
enum class BlurMethod : std::uint32_t {
    // Direct up to Blurrer::kMaxRadius, Decimated above (a Gaussian; it needs a scratch buffer).
    // Below kMaxRadius, a Gaussian takes Decimated too when it is faster and about as exact as the
    // format: both axes decimated with a grid spacing floor(sigma / 3) of 2 or more (sigma >= 6 and
    // a radius of at least floor(3 sigma), the default ceil(3 sigma) included), a format with
    // channels of 8 or 16 bits (not R32_SFLOAT or R32G32B32A32_SFLOAT), for 8-bit RGBA and BGRA a
    // larger radius of 25 or more (sigma above 8 by default) and for R8_UNORM a spacing of 3 or
    // more (sigma >= 9), and a scratchBuffer in the BlurInfo (without one, or where the scratch
    // would exceed maxStorageBufferRange, Direct).
    // scratchRequirements() gives the size that choice needs. On an H200 Decimated was faster
    // than Direct at every sigma from 6 up, 2.1-6.2x at sigma 10.7 (docs/blur-performance.md); on an
    // H100 2.3-5.8x at sigma 10.7 (README, "Performance"), but for 8-bit RGBA at radii 18-24
    // slower than TwoPass (1.03-1.11x at 3840x2160, 1.00-1.08x at 1920x1080; v60), and for R8 at
    // radii 18-26 (1.23-1.30x at 3840x2160, 1.29-1.37x at 1920x1080; v61), which takes those radii.
    // Otherwise, with a scratchBuffer, TwoPass where the Direct method would walk (no tile for the
    // radii) and the larger radius is at least 16 (four-channel formats), 18 (R8_UNORM) or 20
    // (R32_SFLOAT), and in place of the tiles from radius 17 (8-bit RGBA and BGRA), 18 (R8_UNORM)
    // or 22 (R32_SFLOAT), where its scratch fits maxStorageBufferRange: Gaussians not decimated,
    // boxes. On an H100 at 3840x2160 TwoPass was faster than the walk at every radius measured
    // from there (RGBA16F 1.38x at 16; RGBA8 1.33x at 16; RGBA32F 11x at 64; R32F 2.7x at 32), than
    // the tiles it replaces (RGBA8 1.02-1.11x at 17-22, 1.20-1.34x at 1920x1080; R32F 1.01-1.06x at
    // 22-24, 1.10-1.11x at 1920x1080; R8 1.02-1.09x at 22-24, 1.08-1.16x at 1920x1080, and 1-2%
    // slower at 18-20) and 2.0-8.7x faster than a two-pass blur through an image.
    Auto = 0,
    // Every output from its (2 rx + 1)(2 ry + 1) taps, in one dispatch (radius up to kMaxRadius):
    // workgroups walk strips of columns, or, where both radii are the same and small (up to 13
    // for 8-bit RGBA and BGRA, 22 where maxPushConstantsSize is 256 or more, 24 for one-channel
    // formats, 11 for R16G16B16A16_SFLOAT and
    // R32G32B32A32_SFLOAT, 15 with 256), blur tiles of 32 x 32, 24 or 16 outputs, or 64x16, from radius 5
    // (RGBA16F, RGBA32F) or 7 handing the rows two tiles share from one to the next (faster
    // there on an H200 and an H100; 8-bit radii 14 to 22, fp32 RGBA slots' 12 to 15 and the
    // hand-over measured on the H100).
    Direct = 1,
    // Gaussian only: the blur computed exactly on a grid of points about sigma / 3 apart and each
    // output interpolated from the 4x4 grid points around it (cubic Lagrange), in three
    // dispatches through a scratch buffer (four where the vertical blur takes its moments form:
    // GPUs, grid rows 18 or more apart). Cost per texel flat in sigma (radius up to
    // kMaxDecimatedRadius). An axis whose radius is below floor(3 sigma) is not decimated there.
    // Error against the exact blur: at most kDecimatedError times the difference between the
    // largest and smallest source value of a channel, besides the format's rounding.
    Decimated = 2,
    // Gaussian or box, exact as Direct (radius up to kMaxRadius): every row blurred horizontally
    // into a scratch buffer (per texel of the region and layer: 8 bytes for 8-bit RGBA / BGRA, in
    // fp16; 16 for the other four-channel formats and 4 for one-channel ones, in fp32), then its
    // columns vertically into the destination: two dispatches with a COMPUTE -> COMPUTE barrier
    // on the scratch range between them. The same multiply-adds as Direct, without the walk's
    // shared-memory ring: faster than the walk at large radii.
    TwoPass = 3,
};

// What S(q) is for a tap q outside the region (per axis; table above).
enum class BlurBorder : std::uint32_t {
    ClampToEdge = 0, // the nearest edge texel of the region
    Mirror = 1,      // reflect-101 (OpenCV's BORDER_REFLECT_101)
    MirrorEdge = 2,  // the edge texel repeated (OpenCV's BORDER_REFLECT)
    Wrap = 3,        // the region repeated
    Constant = 4,    // BlurInfo::borderColor
};

struct BlurrerCreateInfo {
    // Format of the source and destination images (the same): one of the list at the top of
    // this file. Required.
    VkFormat format = VK_FORMAT_UNDEFINED;
};

struct BlurTargetCreateInfo {
    // The image read or written. Required.
    VkImage image = VK_NULL_HANDLE;
    // Its creation parameters, as passed to vkCreateImage (vkfx cannot query them). A source needs
    // SAMPLED usage, a destination STORAGE (an sRGB destination also MUTABLE_FORMAT); a target
    // with both can be either; usage must hold at least one of them. format: one of the list at
    // the top of this file. extent: each side 1 .. maxImageDimension2D. mipLevels: 1 ..
    // fullMipLevels(extent).
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkExtent2D extent = {0, 0}; // of level 0
    std::uint32_t mipLevels = 1;
    VkImageUsageFlags usage = 0;
    VkImageCreateFlags flags = 0;
    // The level and layers used (a record processes every layer: source layer i into destination
    // layer i). mipLevel below mipLevels; layerCount 1 .. min(maxImageArrayLayers,
    // maxComputeWorkGroupCount[2]); baseArrayLayer + layerCount at most maxImageArrayLayers. The
    // layers must lie inside the image (vkfx does not know its arrayLayers: beyond that limit,
    // not checked).
    std::uint32_t mipLevel = 0;
    std::uint32_t baseArrayLayer = 0;
    std::uint32_t layerCount = 1;
};

// The image views a blur reads or writes one image level through: create once per image (level,
// layers), keep while the image lives, destroy before the image. Move-only; moving leaves the
// source empty.
class BlurTarget {
public:
    // Validates the description and creates the views: a sampled view of `format` where usage
    // has SAMPLED, a storage view (UNORM for sRGB formats) where it has STORAGE, both 2D arrays of
    // the level and layers. `*target` is destroyed first. `device` must outlive the target (it
    // keeps a pointer). Errors (reason in lastError()): VK_ERROR_VALIDATION_FAILED_EXT (null
    // target, device not created, null image, extent, mipLevels, mipLevel, layerCount or the
    // layers' range out of range, usage
    // with neither SAMPLED nor STORAGE, an sRGB STORAGE image without MUTABLE_FORMAT),
    // VK_ERROR_FORMAT_NOT_SUPPORTED (format not in the list above), or vkCreateImageView's error.
    // It does not check the device's format support (Blurrer::create() does).
    static VkResult create(const Device& device, const BlurTargetCreateInfo& info, BlurTarget* target);

    BlurTarget() = default;
    BlurTarget(const BlurTarget&) = delete;
    BlurTarget& operator=(const BlurTarget&) = delete;
    BlurTarget(BlurTarget&& other) noexcept { swap(other); }
    BlurTarget& operator=(BlurTarget&& other) noexcept
    {
        if (this != &other) {
            destroy();
            swap(other);
        }
        return *this;
    }
    ~BlurTarget() { destroy(); }

    // Destroys the views (null-safe; also run by the destructor). No command buffer that uses
    // the target may be pending.
    void destroy();
    // True between a successful create() and destroy().
    bool valid() const { return m_device != nullptr; }
    // The description it was created with.
    const BlurTargetCreateInfo& info() const { return m_info; }
    // Extent of the target's level: max(1, extent >> mipLevel) per side.
    VkExtent2D extent() const;

private:
    friend class Blurrer;
    void swap(BlurTarget& other) noexcept;

    const Device* m_device = nullptr;
    BlurTargetCreateInfo m_info{};
    VkImageView m_sampled = VK_NULL_HANDLE; // format view (sRGB decodes); SAMPLED usage only
    VkImageView m_storage = VK_NULL_HANDLE; // storage view (UNORM for sRGB); STORAGE usage only
};

struct BlurInfo {
    // Required: the target read (SAMPLED) and the target written (STORAGE), valid targets of the
    // Blurrer's VkDevice, of its format and the same layer count. They may be the same image only
    // if their levels or layers do not overlap.
    const BlurTarget* source = nullptr;
    const BlurTarget* destination = nullptr;
    // The region: `extent` texels from sourceOffset in the source are blurred into the texels
    // from destinationOffset in the destination; offsets non-negative, the region inside both
    // levels. {0, 0} (default): the whole source level (sourceOffset must then be {0, 0}); an
    // extent with one side 0 is an error.
    VkOffset2D sourceOffset = {0, 0};
    VkOffset2D destinationOffset = {0, 0};
    VkExtent2D extent = {0, 0};
    // Default Gaussian.
    BlurFilter filter = BlurFilter::Gaussian;
    // Gaussian: standard deviations in texels, finite and > 0 (fractional values blur smoothly);
    // default 1. Ignored by Box. Below about 0.08 an axis keeps its centre tap alone (every other
    // weight under 2e-35 of it): a blur along the other axis only.
    float sigmaX = 1.0f;
    float sigmaY = 1.0f;
    // Taps each side. Gaussian: 0 (default) = ceil(3 sigma), a given radius truncates or extends
    // the kernel (weights normalized over it); Box: the box is 2 r + 1 wide (0: that axis is not
    // blurred). At most kMaxRadius for the Direct and TwoPass methods (Box always),
    // kMaxDecimatedRadius for the Decimated one.
    std::uint32_t radiusX = 0;
    std::uint32_t radiusY = 0;
    // Default ClampToEdge.
    BlurBorder border = BlurBorder::ClampToEdge;
    // BlurBorder::Constant: linear RGBA (one-channel formats use red); default transparent black.
    float borderColor[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    // Layout of the source: SHADER_READ_ONLY_OPTIMAL (default), READ_ONLY_OPTIMAL or GENERAL. The
    // destination is written in GENERAL.
    VkImageLayout sourceLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    // Default Auto (see BlurMethod).
    BlurMethod method = BlurMethod::Auto;
    // Scratch of the Decimated and TwoPass methods: a buffer with STORAGE_BUFFER usage, at least
    // scratchRequirements(info).size bytes from scratchOffset (a multiple of its alignment).
    // Ignored by the Direct method. With BlurMethod::Auto, giving it lets large Gaussians take the
    // faster Decimated method, and large radii the TwoPass one (see Auto); VK_NULL_HANDLE keeps
    // them Direct (up to kMaxRadius).
    // Its contents on entry do not matter. Records sharing a scratch range must not run
    // concurrently (on another queue). scratchSize: the bytes usable from scratchOffset;
    // VK_WHOLE_SIZE (default): not checked.
    VkBuffer scratchBuffer = VK_NULL_HANDLE;
    VkDeviceSize scratchOffset = 0;
    VkDeviceSize scratchSize = VK_WHOLE_SIZE;
};

// Blurs images of one format. Move-only; moving leaves the source empty. record() is const and
// changes nothing in the object, so several threads may record with one Blurrer at once.
class Blurrer {
public:
    // The largest radius of the Direct method (one dispatch).
    static constexpr std::uint32_t kMaxRadius = 128;
    // The largest radius of the Decimated method (a Gaussian's sigma up to about 341).
    static constexpr std::uint32_t kMaxDecimatedRadius = 1024;
    // Bound of the Decimated method's error, relative to the range of a channel's source values
    // in the region (0.003 of 255 is 0.77 of an 8-bit code), for radii of at least floor(3 sigma)
    // (the default ceil(3 sigma) included); an axis with a shorter radius is not decimated (exact,
    // but its cost grows with the radius).
    static constexpr double kDecimatedError = 0.003;

    // Creates the pipelines for one format (the Direct method's per shared-memory budget, for
    // RGBA16F one more for radii 1 and 2, and its tiles' per radius up to 13 or 22, 24, 11 or 15;
    // the TwoPass method's two passes and, for one-channel formats, its vertical pass's wide form
    // for radii from 48; the Decimated method's three passes, a second horizontal pass for kernels
    // of radius up to 128 where the device's shared memory holds its 18-21 KiB, and on devices
    // that are not CPUs the two passes of its vertical blur's moments form). Errors:
    // VK_ERROR_FORMAT_NOT_SUPPORTED (format not in the list above, or the device cannot sample /
    // store it), VK_ERROR_FEATURE_NOT_PRESENT (B8G8R8A8 without
    // shaderStorageImageWriteWithoutFormat, R8_UNORM or B10G11R11_UFLOAT_PACK32 without
    // shaderStorageImageExtendedFormats, less than 16 KiB of compute shared memory),
    // VK_ERROR_VALIDATION_FAILED_EXT (null output, device not created), or Vulkan's own; the
    // reason is in lastError(). `*blurrer` is destroyed first. It allocates no memory besides the
    // pipelines, layouts and sampler. `device` must outlive the Blurrer (it keeps a pointer).
    static VkResult create(const Device& device, const BlurrerCreateInfo& info, Blurrer* blurrer);

    Blurrer() = default;
    Blurrer(const Blurrer&) = delete;
    Blurrer& operator=(const Blurrer&) = delete;
    Blurrer(Blurrer&& other) noexcept { swap(other); }
    Blurrer& operator=(Blurrer&& other) noexcept
    {
        if (this != &other) {
            destroy();
            swap(other);
        }
        return *this;
    }
    ~Blurrer() { destroy(); }

    // Destroys the pipelines, layouts and sampler (null-safe; also run by the destructor). No
    // command buffer that uses the Blurrer may be pending.
    void destroy();
    // True between a successful create() and destroy().
    bool valid() const { return m_device != nullptr; }

    // The scratch buffer record(info) needs: size 0 when it takes the Direct method, or when info
    // is invalid (the reason in lastError(), as record() would give it). For BlurMethod::Auto it
    // answers for a record that is given scratch: a non-zero size means Auto takes the Decimated
    // or TwoPass method once info.scratchBuffer is set. TwoPass: per texel of the region and
    // layer 8 bytes for 8-bit RGBA / BGRA, 16 for the other four-channel formats, 4 for one-channel
    // formats. Decimated: the size grows with the region and layers and shrinks as sigmaY grows:
    // about 16 bytes (4 channels; 4 for 1) per texel of the region and layer divided by the
    // vertical grid spacing, max(1, floor(sigmaY / 3)) (1 where radiusY is below floor(3 sigmaY));
    // where the vertical blur takes its moments form (GPUs, spacing 18 or more, where that scratch
    // fits maxStorageBufferRange) 7 times that plus 6 n values (16 or 4 bytes) per column of the
    // region and layer, n = (2 radiusY + 1) / spacing, about 18 (3840x2160 RGBA8 at sigma 64:
    // 52.2 MB instead of 6.8).
    // alignment: the storage-buffer offset alignment (0 with size 0).
    // All zero, with no reason, when the Blurrer is not created.
    ScratchRequirements scratchRequirements(const BlurInfo& info) const;

    // The method record(info) takes: BlurMethod::Auto resolved as record() resolves it, for a
    // record with or without scratch as info.scratchBuffer says (Direct, Decimated or TwoPass).
    // VK_SUCCESS where record(cmd, info) would record, else record()'s error for info (reason in
    // lastError()) and *method untouched; VK_ERROR_VALIDATION_FAILED_EXT for a null method. It
    // records and allocates nothing and calls no Vulkan function.
    VkResult methodFor(const BlurInfo& info, BlurMethod* method) const;

    // Records the blur described by `info` for every layer of the targets.
    //
    // Appends to `cmd` (a compute-capable command buffer in the recording state):
    // vkCmdBindPipeline, vkCmdPushDescriptorSetKHR (set 0), vkCmdPushConstants and one
    // vkCmdDispatch (Direct), or two (TwoPass) or three or four (Decimated) dispatches with a
    // COMPUTE -> COMPUTE barrier on the scratch range before each (the first so that records
    // sharing scratch follow each other); no barrier on the images. It disturbs the compute
    // pipeline binding, push descriptor set 0 and push constants. Synchronization before and
    // after is the caller's: the source must be in info.sourceLayout and visible to
    // COMPUTE_SHADER / SHADER_SAMPLED_READ; the destination
    // must be in VK_IMAGE_LAYOUT_GENERAL, earlier accesses to it finished before COMPUTE_SHADER;
    // afterwards its region is written by COMPUTE_SHADER / SHADER_STORAGE_WRITE (texels outside
    // the region are not touched). The TwoPass and Decimated methods' barriers cover only the
    // scratch range.
    // Errors (nothing recorded, reason in lastError()): VK_ERROR_VALIDATION_FAILED_EXT for a
    // Blurrer not created, a null cmd or target, targets of another format, device or layer
    // count, a source without SAMPLED or a destination without STORAGE usage, a region outside
    // either level or empty (or an empty extent with a non-zero sourceOffset), sigma not finite
    // and > 0, a radius above kMaxRadius (Direct, TwoPass) or kMaxDecimatedRadius (Decimated),
    // source and destination that overlap (the same image, level and a common layer), an
    // unsupported source layout, an unknown filter, border or method, Decimated for a box,
    // Decimated or TwoPass without scratch or with scratch too small or misaligned, or above
    // maxStorageBufferRange, radii whose strip does not fit the device's shared memory, or a
    // region that needs more workgroups than maxComputeWorkGroupCount.
    // Cost: see the top of this file; measured speeds: README, "Performance".
    VkResult record(VkCommandBuffer cmd, const BlurInfo& info) const;

private:
    struct Plan;
    void swap(Blurrer& other) noexcept;
    // withScratch: the caller gives scratch (Auto may then take the Decimated or TwoPass method).
    VkResult plan(const BlurInfo& info, const char* fn, bool withScratch, Plan* out) const;
    // plan() with the scratch info gives, then info's scratch range checked against what the
    // plan needs: what record() and methodFor() accept.
    VkResult planRecord(const BlurInfo& info, const char* fn, Plan* out) const;

    // One pipeline per shared-memory budget (16, 24, 48 KiB where the device has them): small
    // radii run fastest with little shared memory per workgroup, large ones need more.
    static constexpr std::uint32_t kBudgets = 3;
    // Tile pipelines: one per radius 1 .. kTileMaxRadius (the most any format takes: one-channel
    // formats; 13 or 22 for 8-bit RGBA / BGRA, 11 or 15 for RGBA16F and RGBA32F).
    static constexpr std::uint32_t kTileMaxRadius = 24;

    const Device* m_device = nullptr;
    BlurrerCreateInfo m_info{};
    std::uint32_t m_sharedTexels[kBudgets] = {}; // shared-memory slots of the ring and staged rows
    VkDescriptorSetLayout m_setLayout = VK_NULL_HANDLE;
    VkPipelineLayout m_pipelineLayout = VK_NULL_HANDLE;
    VkPipeline m_pipelines[kBudgets] = {};
    VkPipeline m_pipelineNarrow = VK_NULL_HANDLE; // smallest budget, one output each (RGBA16F)
    VkPipeline m_tilePipelines[kTileMaxRadius] = {}; // blur_tile.comp per radius (both axes; detail::blurTileShape)
    // The tile each of those pipelines was built for (columns, rows): what plan() records with.
    std::uint8_t m_tileWidths[kTileMaxRadius] = {};
    std::uint8_t m_tileHeights[kTileMaxRadius] = {};
    // The push-constant bytes of the Tile method's pipelines above radius 11 (128, or 256 where
    // the device takes them: their weights then come from the host; detail::BlurTilePush).
    std::uint32_t m_tilePushBytes = 0;
    VkSampler m_sampler = VK_NULL_HANDLE;
    // The Decimated method: its own layouts (a scratch binding) and its three passes (vertical
    // at the grid rows, horizontal at the grid columns, interpolation), then where made the two
    // of the vertical pass's moments form (the moments of blocks of rows, the grid rows from them).
    VkDescriptorSetLayout m_gridSetLayout = VK_NULL_HANDLE;
    VkPipelineLayout m_gridPipelineLayout = VK_NULL_HANDLE;
    // Passes 1-3, 4-5 (V in the moments form) where made, 6-7 (TwoPass), then pass 7's wide form
    // where made (one-channel formats).
    VkPipeline m_gridPasses[8] = {};
    std::uint32_t m_gridStageVecs = 0; // values pass 2 can stage in shared memory
    // Pass 2 for small kernels (a small weight table, a 16 KiB stage); null where it does not fit.
    VkPipeline m_gridSmallPass2 = VK_NULL_HANDLE;
    std::uint32_t m_gridSmallStageVecs = 0;
    std::uint32_t m_rowOutputs = 0; // the TwoPass method's pass 6: outputs per workgroup
};

} // namespace vkfx

#include <vkfx/detail/blur_impl.hpp>
