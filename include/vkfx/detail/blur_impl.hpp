// Implementation of vkfx/blur.hpp. Include that header, not this one.
#pragma once

#include <vkfx/blur.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace vkfx {
namespace detail {

struct BlurFormat {
    VkFormat format;
    VkFormat storage; // format of the storage view (UNORM for sRGB)
    std::uint32_t channels;
    std::uint32_t slotBytes; // bytes of a texel in shared memory (8-bit formats: packed halves)
    bool srgb;
    bool writeWithoutFormat; // no GLSL format qualifier
    bool extendedFormat;     // the qualifier needs StorageImageExtendedFormats
    const std::uint32_t* code;
    std::size_t bytes;
    // blur_grid.comp: the Decimated method's passes 1-5, the TwoPass method's passes 6 and 7
    const std::uint32_t* gridCode[7];
    std::size_t gridBytes[7];
    const std::uint32_t* tileCode; // small radii (blur_tile.comp)
    std::size_t tileBytes;
    // blur_tile.comp with 56 weights in 256 bytes of push constants (radii above 11, where the
    // device takes 256 bytes: every format tiles some).
    const std::uint32_t* tileWideCode;
    std::size_t tileWideBytes;
};

#define VKFX_BLUR_BLOB(v)                                                                          \
    spirv::blur_##v, sizeof(spirv::blur_##v),                                                      \
        {spirv::blur_grid_##v##_vertical, spirv::blur_grid_##v##_horizontal, spirv::blur_grid_##v##_interpolate, \
         spirv::blur_grid_##v##_moments, spirv::blur_grid_##v##_vertical_moments,                   \
         spirv::blur_grid_##v##_rows, spirv::blur_grid_##v##_columns},                             \
    {                                                                                              \
        sizeof(spirv::blur_grid_##v##_vertical), sizeof(spirv::blur_grid_##v##_horizontal),       \
            sizeof(spirv::blur_grid_##v##_interpolate), sizeof(spirv::blur_grid_##v##_moments),   \
            sizeof(spirv::blur_grid_##v##_vertical_moments), sizeof(spirv::blur_grid_##v##_rows),  \
            sizeof(spirv::blur_grid_##v##_columns)                                                 \
    }                                                                                              \
    , spirv::blur_tile_##v, sizeof(spirv::blur_tile_##v), spirv::blur_tile_##v##_wide,           \
        sizeof(spirv::blur_tile_##v##_wide)

inline const BlurFormat* findBlurFormat(VkFormat format)
{
    static const BlurFormat table[] = {
        {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM, 4, 8, false, false, false, VKFX_BLUR_BLOB(rgba8)},
        {VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R8G8B8A8_UNORM, 4, 8, true, false, false, VKFX_BLUR_BLOB(rgba8)},
        {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM, 4, 8, false, true, false, VKFX_BLUR_BLOB(bgra8)},
        {VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM, 4, 8, true, true, false, VKFX_BLUR_BLOB(bgra8)},
        {VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT, 4, 16, false, false, false,
         VKFX_BLUR_BLOB(rgba16f)},
        {VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32_SFLOAT, 1, 4, false, false, false, VKFX_BLUR_BLOB(r32f)},
        {VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT, 4, 16, false, false, false,
         VKFX_BLUR_BLOB(rgba32f)},
        {VK_FORMAT_R8_UNORM, VK_FORMAT_R8_UNORM, 1, 4, false, false, true, VKFX_BLUR_BLOB(r8)},
        // Blurred as four fp32 channels (the sampler's alpha of 1 goes along and the store drops
        // it): RGBA16F's slots, layouts and rules.
        {VK_FORMAT_B10G11R11_UFLOAT_PACK32, VK_FORMAT_B10G11R11_UFLOAT_PACK32, 4, 16, false, false,
         true, VKFX_BLUR_BLOB(r11g11b10f)},
    };
    for (const BlurFormat& f : table) {
        if (f.format == format) return &f;
    }
    return nullptr;
}
#undef VKFX_BLUR_BLOB

// Push constants of shaders/blur/blur.comp.
struct BlurPush {
    std::int32_t srcOffset[2];
    std::int32_t dstOffset[2];
    std::uint32_t extent[2];
    std::uint32_t radius[2];
    float weightScale[2];
    std::uint32_t kernel;
    std::uint32_t border;
    float borderColor[4];
    std::uint32_t strip;
    std::uint32_t rows;
    std::uint32_t segment;
    std::uint32_t ringRows;
};

// Push constants of shaders/blur/blur_tile.comp (the Tile method; the same pipeline layout as
// BlurPush). Offsets, extent, border and tiles per workgroup are 16-bit halves (x | y << 16; the
// Tile method takes regions whose offsets and extent are below 65536, blurTileFitsPush), so that
// 24 weights fit in 128 bytes, what every device takes, and 56 in 256 bytes. Up to radius
// kBlurTileHostWeightsMaxRadius (and kBlurTileWideWeightsMaxRadius on a device that takes 256
// bytes: blur_tile.comp's "_wide" variants, the whole struct) `weights` holds the normalized
// weights of taps 0..r of x, then of y (blurTileWeights), which the kernel's multiply-adds then
// read from the push constants instead of registers; above, weights[0] and [1] hold
// BlurPush::weightScale (0: a box). The 128-byte kernels read the first kBlurTilePushBytes.
struct BlurTilePush {
    std::uint32_t srcOffset;
    std::uint32_t dstOffset;
    std::uint32_t extent;
    std::uint32_t borderSegment; // border | segment << 16
    float borderColor[4];
    float weights[56];
};
static_assert(sizeof(BlurTilePush) == 256, "blur_tile.comp's wide push constants");
constexpr std::uint32_t kBlurTilePushBytes = 128; // blur_tile.comp's 24 weights
constexpr std::uint32_t kBlurTileWidePushBytes = sizeof(BlurTilePush);
constexpr std::uint32_t kBlurTileHostWeightsMaxRadius = 11; // (blur_tile.comp's kHostWeightsMaxRadius)
constexpr std::uint32_t kBlurTileWideWeightsMaxRadius = 27; // (the same, of its "_wide" variants)
static_assert(offsetof(BlurTilePush, weights) + 2 * (kBlurTileHostWeightsMaxRadius + 1) * sizeof(float) <=
                  kBlurTilePushBytes,
              "both axes' weights fit 128 bytes");
static_assert(2 * (kBlurTileWideWeightsMaxRadius + 1) == sizeof(BlurTilePush::weights) / sizeof(float),
              "both axes' weights fit BlurTilePush::weights");
// The Direct method's push-constant range on every device (BlurPush, and BlurTilePush's first
// kBlurTilePushBytes).
constexpr std::uint32_t kBlurDirectPushBytes =
    sizeof(BlurPush) > kBlurTilePushBytes ? std::uint32_t{sizeof(BlurPush)} : kBlurTilePushBytes;
static_assert(kBlurDirectPushBytes <= 128, "every device takes the Direct method's push constants");
// Tests only (not thread-safe): the most push-constant bytes a Blurrer created now takes
// (kBlurDirectPushBytes keeps the Tile method's weights in 128 bytes); 0: the device's limit.
inline std::uint32_t blurMaxPushBytesOverride = 0;
// x | y << 16, for BlurTilePush (both below 65536).
inline std::uint32_t blurPackHalves(std::uint32_t x, std::uint32_t y) { return x | y << 16; }
// Whether a region's offsets and extent fit BlurTilePush's 16-bit halves (every image of a device
// whose maxImageDimension2D is at most 65535 does).
inline bool blurTileFitsPush(VkOffset2D src, VkOffset2D dst, VkExtent2D extent)
{
    const auto fits = [](std::int64_t v) { return v >= 0 && v < 65536; };
    return fits(src.x) && fits(src.y) && fits(dst.x) && fits(dst.y) && fits(extent.width) && fits(extent.height);
}
// BlurTilePush::weights of a Gaussian of scales `scale` (-1 / (2 sigma^2); 0: a box) and radius
// `radius` <= kBlurTileWideWeightsMaxRadius on both axes: exp(scale k^2) over their sum, in double
// precision, each rounded to float.
inline void blurTileWeights(const float scale[2], std::uint32_t radius, float* weights)
{
    radius = std::min(radius, kBlurTileWideWeightsMaxRadius);
    for (std::uint32_t a = 0; a < 2; ++a) {
        double w[kBlurTileWideWeightsMaxRadius + 1] = {};
        double sum = 0.0;
        for (std::uint32_t k = radius + 1; k-- > 0;) {
            w[k] = std::exp(static_cast<double>(scale[a]) * static_cast<double>(k * k));
            sum += k == 0 ? w[k] : 2.0 * w[k];
        }
        for (std::uint32_t k = 0; k <= radius; ++k) weights[a * (radius + 1) + k] = static_cast<float>(w[k] / sum);
    }
}

// The push-constant bytes a Blurrer takes on a device whose maxPushConstantsSize is `limit`
// (capped by blurMaxPushBytesOverride): kBlurTileWidePushBytes where the device takes them, else
// kBlurTilePushBytes.
inline std::uint32_t blurPushBytes(std::uint32_t limit)
{
    if (blurMaxPushBytesOverride != 0) limit = std::min(limit, blurMaxPushBytesOverride);
    return limit >= kBlurTileWidePushBytes ? kBlurTileWidePushBytes : kBlurTilePushBytes;
}
// Whether a Blurrer of `pushBytes` (blurPushBytes) builds its tile pipeline of `radius` from
// blur_tile.comp's "_wide" variant of `fmt`, whose records push all kBlurTileWidePushBytes with the
// host's weights up to kBlurTileWideWeightsMaxRadius.
inline bool blurTileWide(const BlurFormat& fmt, std::uint32_t radius, std::uint32_t pushBytes)
{
    return radius > kBlurTileHostWeightsMaxRadius && pushBytes >= kBlurTileWidePushBytes && fmt.tileWideCode;
}

enum : std::uint32_t {
    kBlurBindingSource = 0,
    kBlurBindingDst = 1,
    kBlurBindingScratch = 2, // the Decimated and TwoPass methods only
};

// Push constants of shaders/blur/blur_grid.comp (every pass).
struct BlurGridPush {
    float borderColor[4];
    std::int32_t srcOffset[2];
    std::int32_t dstOffset[2];
    std::uint32_t extent[2];
    std::uint32_t radius[2];
    float weightScale[2];
    float weightNorm[2];
    std::uint32_t grid[2];
    std::uint32_t border;
    std::uint32_t gridCols;
    std::uint32_t gridRows;
    std::uint32_t gridOffset;
    std::uint32_t splits[2];
    std::uint32_t outRows;
    std::uint32_t staged;
    std::uint32_t columnTaps; // the TwoPass method's pass 7: blurColumnTaps
};
// blur_grid.comp's Push block, member for member (std430 offsets), within Vulkan's minimum
// maxPushConstantsSize of 128 bytes.
static_assert(offsetof(BlurGridPush, splits) == 88 && offsetof(BlurGridPush, columnTaps) == 104);
static_assert(sizeof(BlurGridPush) <= 128);

// Shared memory of the Decimated method's interpolation pass (the grid points of a 64-column
// tile; 16 KiB, what every device has, holds them for every spacing with 8 rows or more).
constexpr std::uint32_t kBlurGridSharedBytes = 16u * 1024u;
// Pass 2's staged run of V: up to 32 KiB besides its weight table and partial sums, as far as
// the device has shared memory.
constexpr std::uint32_t kBlurGridStageBytes = 32u * 1024u;
constexpr std::uint32_t kBlurGridStageValues = 2048u; // blur_grid.comp's kStageLoads x 256
// blur_grid.comp's workgroup shapes: pass 1 32 columns x 8 (4 grid rows, split) pairs, pass 2
// 256 / splits runs of 4 grid columns of one grid row, pass 3 64 output columns.
constexpr std::uint32_t kBlurGridGroupSize = 256;
constexpr std::uint32_t kBlurGridColumns = 32;
constexpr std::uint32_t kBlurGridRows = 8;
constexpr std::uint32_t kBlurGridPoints = 4; // grid points per invocation of passes 1 and 2
constexpr std::uint32_t kBlurGridOutCols = 64;
// The largest grid spacing (blur_grid.comp's kTableStep, its padded weight table): floor(sigma / 3)
// for radius kMaxDecimatedRadius >= floor(3 sigma).
constexpr std::uint32_t kBlurGridMaxStep = 113;
// Bytes of blur_grid.comp's weight table (sWeight: 2 r + 1 weights padded with 3 k zeros each
// side, for the largest radius r and spacing k its pipeline takes), which passes 1 and 2 declare.
constexpr std::uint32_t blurGridWeightBytes(std::uint32_t radius, std::uint32_t step)
{
    return (2 * radius + 1 + 6 * step) * 4;
}
constexpr std::uint32_t kBlurGridWeightBytes = blurGridWeightBytes(Blurrer::kMaxDecimatedRadius, kBlurGridMaxStep);
// Pass 2 for small kernels: a second pipeline whose weight table holds radii up to 128 (spacing
// up to 14 = floor(43 / 3): a radius of 128 or less is decimated up to sigma 43) and whose stage
// is 16 KiB, 21.3 KiB of shared memory in all for four-channel formats instead of 47 (more
// workgroups per SM, and under the 23.5 KiB line of kBlurTileCliffBytes). It is taken where the
// horizontal spacing is 2 or 3. H100, the whole method, median us, before / after: RGBA8
// 3840x2160 sigma 10.7 (Auto r = 32) 193.6 / 189.1, sigma 8 274.1 / 268.9; 1920x1080 72.7 / 66.2
// and 82.8 / 80.6; RGBA16F 3840x2160 215.6 / 212.2 and 287.2 / 283.0, 1920x1080 sigma 10.7 83.6
// / 77.6. A probe that took it at spacing 7 too was 4% slower there (144.7 -> 150.5).
constexpr std::uint32_t kBlurGridSmallRadius = 128;
constexpr std::uint32_t kBlurGridSmallStep = 14;
constexpr std::uint32_t kBlurGridSmallStageBytes = 16u * 1024u;
constexpr std::uint32_t kBlurGridSmallMaxSpacing = 3;
// V in the moments form (blur_grid.comp passes 4 and 5, where the row spacing is large): the
// rows cut into blocks of ky, kBlurMomentSlots values per block and column (stored after V, where
// F goes later), and the kernel's projections on the polynomials for at most kBlurMomentMaxBlocks
// blocks. Pass 4's workgroups are 32 columns by kBlurMomentBlocksPerGroup blocks, pass 5's 32
// columns by kBlurMomentRowsPerGroup grid rows.
constexpr std::uint32_t kBlurMoments = 4;     // blur_grid.comp's kMoments: polynomials of degree 0-3 on a block
constexpr std::uint32_t kBlurHeadMoments = 2; // and kHeadMoments: degree 0-1 on the head
constexpr std::uint32_t kBlurMomentSlots = kBlurMoments + kBlurHeadMoments;
constexpr std::uint32_t kBlurMomentMaxBlocks = 64;
constexpr std::uint32_t kBlurProjectionPad = 3; // kProjectionPad: blocks of zero projections each side
constexpr std::uint32_t kBlurMomentBlocksPerGroup = 8;
constexpr std::uint32_t kBlurMomentRowsPerGroup = 32;
// Where records take the moments form: row spacings from kBlurMomentMinStep on (sigma 54 with the
// default radius). H100, RGBA8 3840x2160, the whole method, median us, pass 1 / the moments form:
// spacing 7 (Auto r = 64) 143.6 / 211.7, 10 (r = 96) 137.3 / 176.5, 14 (r = 128) 132.6 / 150.2,
// 21 (sigma 64) 124.5 / 109.6, 66 (sigma 200) 142.5 / 103.9. The moments cost about 6 values per
// block of ky rows and pass 5 reads (n + 3) x 4 of them per 4 grid rows: too many at small
// spacings, where pass 1's shared reads are few.
constexpr std::uint32_t kBlurMomentMinStep = 18;
// The moments form's two pipelines exist on devices that are not CPUs (on lavapipe they would
// only add compile time). blurMomentsOverride (tests only, not thread-safe): 0 the rule above;
// 1 on every device, taken from row spacing 4 on; -1 never.
inline int blurMomentsOverride = 0;
inline bool blurMoments(VkPhysicalDeviceType type)
{
    if (blurMomentsOverride != 0) return blurMomentsOverride == 1;
    return type != VK_PHYSICAL_DEVICE_TYPE_CPU;
}
inline std::uint32_t blurMomentMinStep() { return blurMomentsOverride == 1 ? 4u : kBlurMomentMinStep; }
// Pass 5's splits (tests only, not thread-safe): 0 the rule in blurGridLayout, else this many.
inline std::uint32_t blurMomentSplitsOverride = 0;
// Bytes of one value of V and F in scratch and shared memory (fp32; blur_grid.comp's VEC).
inline std::uint32_t blurGridVecBytes(const BlurFormat& format) { return format.channels == 1 ? 4u : 16u; }

// sum over i = -r..r of exp(-i^2 / (2 sigma^2)), in double.
inline double gaussianSum(float sigma, std::uint32_t radius)
{
    const double s = static_cast<double>(sigma);
    double sum = 0.0;
    for (std::uint32_t i = radius; i >= 1; --i) sum += 2.0 * std::exp(-double(i) * double(i) / (2.0 * s * s));
    return sum + 1.0;
}

// The TwoPass method's bytes per value of H (blur_grid.comp), and per slot of pass 6's stage: fp16
// for 8-bit four-channel formats (those whose tiles keep packed halves; blur_grid.comp picks them
// by VKFX_FMT_rgba8 / bgra8, which BlurHelpers.TwoPassLayoutByFormatAndRadius ties to this), fp32
// for the others. On an H100 (3840x2160 RGBA8, radius 16 / 32 / 64 / 128, docs v57) H in fp16
// took 234 / 345 / 580 / 1048 us against 250 / 353 / 580 / 1033 in fp32 (at 1920x1080 71 / 103 /
// 174 / 313 against 80 / 110 / 183 / 323), with half the scratch; the stage in fp16 too, 202 / - /
// 541 / 1005 (v58).
inline std::uint32_t blurTwoPassValueBytes(const BlurFormat& format)
{
    return format.slotBytes == 8 ? 8u : blurGridVecBytes(format); // 8-bit RGBA / BGRA
}

// The TwoPass method (blur_grid.comp passes 6 and 7): pass 6's workgroups make up to 256 x
// kBlurRowInvocationOutputs outputs of one row from a run of that many source texels and
// kMaxRadius each side, staged in shared memory (value j at slot j + j / kBlurRowInvocationOutputs)
// beside the weight table, and store them back through the same slots; pass 7's are 32 columns by
// 8 runs of kBlurColumnOutputs (or kBlurColumnWideOutputs) rows.
//
// Pass 6's outputs per invocation (blur_grid.comp's kOutputs there): 8. Measured on an H100 (pass
// 6 alone, stores through shared memory, 3840x2160, radius 16 / 64 / 128): RGBA8 151 / 299 / 498 us
// with 8 against 183 / 370 / 635 with 4, RGBA16F and RGBA32F alike; R32F 46 / 97 / 170 against 48
// / 109 / 195 (docs v56).
constexpr std::uint32_t kBlurRowInvocationOutputs = 8;
// Pass 7's rows per invocation (blur_grid.comp's pass-7 kOutputs, its window of weights): 8, or 16
// (the wide form) from blurColumnWideRadius on. The window makes kOutputs - 1 multiply-adds per
// output more than the taps and reads kOutputs + 2 r values for kOutputs outputs: the wide form
// halves the reads, doubles the extra multiply-adds and leaves half the workgroups. Measured on an
// H100 (docs v56, v57), us: pass 7 alone, 3840x2160 RGBA8 radius 16 / 64 / 128, 98 / 278 / 529 with
// 8 against 104 / 320 / 621 with 4 and 133 / 290 / 507 with 16. The whole method, R32F radius 16 /
// 32 / 64 / 128: 88 / 121 / 208 / 379 with 8 against 96 / 124 / 192 / 355 with 16, at 1920x1080 32
// / 44 / 76 / 136 against 40 / 49 / 77 / 131. Four channels at radius 128 with 16: 1-4% faster at
// 3840x2160, 7-7.5% slower at 1920x1080 (RGBA16F 353 against 328), so they keep 8.
constexpr std::uint32_t kBlurColumnOutputs = 8;
constexpr std::uint32_t kBlurColumnWideOutputs = 16;
// The vertical radius from which pass 7 takes the wide form, where the format has it (one channel:
// between 32 and 64, the radii measured on either side of the crossing); 0 where it has not.
inline std::uint32_t blurColumnWideRadius(const BlurFormat& format) { return format.channels == 1 ? 48u : 0u; }
// The taps pass 7 filters for a vertical radius: 2 r + 1, and zeros after them that make the
// texels its window reads (taps + outputs - 1, the first `outputs` in a first round) whole rounds
// of `outputs`. A short last round (2 r mod outputs texels) is taken a texel at a time under
// uniform branches, each load waiting on the one before; a whole round issues its loads together.
// Measured on an H100 (docs/blur-performance.md v59), 3840x2160, radius 18 / 19 / 20 (2 r mod 8 =
// 4 / 6 / 0), us: RGBA8 226 / 229 / 233 with the zeros against 275 / 310 / 232 without; R32F 95 /
// 96 / 97 against 133 / 158 / 96, and 198 against about 500 at radius 63 (the wide form: 14 of 16).
// Pass 6 gains nothing from the same zeros (up to 4% slower: its tail reads shared memory).
constexpr std::uint32_t blurColumnTaps(std::uint32_t radius, std::uint32_t outputs)
{
    return 2 * radius + 1 + (outputs - (2 * radius) % outputs) % outputs;
}
// Pass 7's weight table: blur_grid.comp's kTableStep k pads it with 6 k slots, which must hold the
// zeros after the last weight: up to outputs - 1 from blurColumnTaps, and the outputs - 1 that the
// window of weights reads past the last tap.
constexpr std::uint32_t blurColumnTableStep(std::uint32_t outputs) { return (2 * (outputs - 1) + 5) / 6; }
// Pass 6's shared-memory slots for a run of `outputs` and kMaxRadius each side.
constexpr std::uint32_t blurRowSlots(std::uint32_t outputs)
{
    const std::uint32_t run = outputs + 2 * Blurrer::kMaxRadius;
    return run + run / kBlurRowInvocationOutputs;
}
inline std::uint32_t blurRowSharedBytes(std::uint32_t outputs, const BlurFormat& format)
{
    return blurRowSlots(outputs) * blurTwoPassValueBytes(format) + blurGridWeightBytes(Blurrer::kMaxRadius, 0);
}
// The most shared memory pass 6's workgroup takes: its registers (8-bit RGBA on an H100: 107 with
// fp32 slots, 93 with fp16) hold an SM to two workgroups of 256, and the shared memory they leave
// is L1 for the source's texture reads. Measured on an H100 (3840x2160, radius 16 / 64 / 128,
// docs v58): RGBA16F with 1,024 outputs a workgroup (24,068 bytes) 261 / 571 / 1014 us against
// 273 / 594 / 1046 with 2,048 (42,500), RGBA32F 283 / 582 / 1032 against 296 / 597 / 1052, 512
// 1.3-1.8x slower; 8-bit RGBA staged in fp16 202 / 541 / 1005 with 2,048 (21,764) against 235 /
// 581 / 1049 in fp32 (and 222 / 563 / 1025 with 1,024 in fp32); R32F 88 / 192 / 356 with 2,048
// (11,396) against 94 / 206 / 370 with 1,024.
constexpr std::uint32_t kBlurRowStageBytes = 24u * 1024u;
// Pass 6's outputs per workgroup on a device of `sharedBytes`: 256 x kBlurRowInvocationOutputs
// (2048) or the largest half of it whose stage fits both and kBlurRowStageBytes (256 fits 16 KiB):
// where the device has 24 KiB, 2048 for one channel and 8-bit RGBA / BGRA, 1024 for the other
// four-channel formats.
inline std::uint32_t blurRowOutputs(std::uint32_t sharedBytes, const BlurFormat& format)
{
    const std::uint32_t limit = std::min(sharedBytes, kBlurRowStageBytes);
    std::uint32_t outputs = kBlurGridGroupSize * kBlurRowInvocationOutputs;
    while (outputs > 256 && blurRowSharedBytes(outputs, format) > limit) outputs /= 2;
    return outputs;
}

// Where BlurMethod::Auto, given scratch, takes the TwoPass method instead of the walk (radii
// the Tile method does not take): from this radius (the larger of the two) on. Measured on an
// H100 (3840x2160, docs/blur-performance.md v54, v56), walk / TwoPass us: RGBA16F radius 16 360 /
// 272, RGBA32F 378 / 296; 8-bit RGBA 16 269 (v48) / 251, 24 538 / 378 (v54, before v56's faster
// passes); R32F 32 330 / 125 (tiles below). One-channel formats keep the walk below 20 where they
// have no tile (an interpolation: their walk at 16-19 was not measured); R8 from 18, where it takes
// TwoPass over its tiles.
inline std::uint32_t blurTwoPassMinRadius(const BlurFormat& format)
{
    if (format.format == VK_FORMAT_R8_UNORM) return 18u;
    return format.channels == 1 ? 20u : 16u;
}
// Where BlurMethod::Auto, given scratch, takes the TwoPass method over the Tile method: from this
// radius (the same on both axes, as tiles take) on; 0 for never. Measured on an H100 (docs v59),
// tiles / TwoPass, us: 8-bit RGBA 3840x2160 radius 16 199 / 203, 17 228 / 223, 18 243 / 226, 20
// 254 / 233, 22 284 / 255, at 1920x1080 59 / 62, 82 / 68, 88 / 69, 92 / 71, 105 / 78; R32F
// 3840x2160 radius 18 89 / 95, 20 92 / 97, 22 104 / 103, 24 109 / 103, at 1920x1080 36 / 35, 37 /
// 36, 42 / 38, 42 / 38. R8 (docs v61): 3840x2160 radius 18 86 / 87, 20 89 / 91, 22 101 / 98, 24
// 107 / 99, at 1920x1080 34 / 32, 36 / 33, 41 / 36, 41 / 35 (the tiles 1-2% faster at 3840x2160 up
// to 20, TwoPass 7-14% faster at 1920x1080 from 18); RGBA16F and RGBA32F tile radii below
// blurTwoPassMinRadius only.
inline std::uint32_t blurTwoPassOverTileRadius(const BlurFormat& format)
{
    if (format.slotBytes == 8) return 17u; // RGBA8, BGRA8 (and sRGB)
    if (format.format == VK_FORMAT_R8_UNORM) return 18u;
    return format.format == VK_FORMAT_R32_SFLOAT ? 22u : 0u;
}
// Where BlurMethod::Auto, given scratch, takes the Decimated method for a Gaussian below
// Blurrer::kMaxRadius (decimated on both axes): from this larger radius on; below it, the exact
// TwoPass method, which was faster there. Measured on an H100 (docs v60), 3840x2160 Decimated /
// TwoPass, us, radius 18 / 20 / 22 / 24 / 26 (sigma r / 3, grid spacing 2): 8-bit RGBA 248 / 224,
// 255 / 231, 259 / 252, 267 / 256, 272 / 279; at 1920x1080 73 / 69, 76 / 71, 78 / 77, 80 / 78,
// 81 / 85. RGBA16F's Decimated method was the faster one at every one of those radii (259 / 276 at
// 18, 283 / 323 at 26): 0, decimated wherever the spacing allows (blurDecimatedMinStep).
inline std::uint32_t blurDecimatedMinRadius(const BlurFormat& format)
{
    return format.slotBytes == 8 ? 25u : 0u; // RGBA8, BGRA8 (and sRGB)
}
// The grid spacing (floor(sigma / 3) on both axes) from which BlurMethod::Auto, given scratch,
// takes the Decimated method below Blurrer::kMaxRadius: 2, or 3 for R8, whose TwoPass method was
// faster at every radius of spacing 2. Measured on an H100 (docs v61), Decimated / TwoPass, us,
// radius 18 / 22 / 24 / 26 (spacing 2) and 28 / 32 (spacing 3): 3840x2160 113 / 87, 123 / 98, 127
// / 99, 131 / 106, then 99 / 109, 105 / 118; 1920x1080 43 / 32, 47 / 36, 48 / 35, 49 / 38, then 43 /
// 39, 46 / 41. At spacing 3 the Decimated method is 10-11% faster at 3840x2160 and 11-12% slower
// at 1920x1080, the faster of the two summed over both sizes, and its time stays flat while
// TwoPass's grows.
inline std::uint32_t blurDecimatedMinStep(const BlurFormat& format)
{
    return format.format == VK_FORMAT_R8_UNORM ? 3u : 2u;
}
// Whether BlurMethod::Auto, given scratch, takes the Decimated method for a Gaussian below
// Blurrer::kMaxRadius whose axes have grid spacings stepX and stepY (blurGridStep) and whose larger
// radius is `radius`: a format with channels of at most 16 bits (the method's error is then within
// about a unit of the format; fp32 formats stay exact), both spacings at least
// blurDecimatedMinStep, the radius at least blurDecimatedMinRadius.
inline bool blurAutoDecimates(const BlurFormat& format, std::uint32_t stepX, std::uint32_t stepY,
                              std::uint32_t radius)
{
    const bool fp32 = format.format == VK_FORMAT_R32_SFLOAT || format.format == VK_FORMAT_R32G32B32A32_SFLOAT;
    const std::uint32_t minStep = blurDecimatedMinStep(format);
    return !fp32 && stepX >= minStep && stepY >= minStep && radius >= blurDecimatedMinRadius(format);
}

struct BlurTwoPassLayout {
    std::uint32_t rowOutputs = 0;    // pass 6: outputs per workgroup
    std::uint32_t groups[2][2] = {}; // x and y workgroups of passes 6 and 7 (z: layers)
    bool wideColumns = false;        // pass 7 in its wide form (kBlurColumnWideOutputs rows per invocation)
    std::uint32_t columnTaps = 0;    // the taps pass 7 filters (blurColumnTaps)
    VkDeviceSize scratchBytes = 0;   // H: layers x height x width values (blurTwoPassValueBytes)
};

inline BlurTwoPassLayout blurTwoPassLayout(VkExtent2D extent, std::uint32_t layers, const BlurFormat& format,
                                           std::uint32_t rowOutputs, std::uint32_t radiusY)
{
    BlurTwoPassLayout t;
    t.rowOutputs = rowOutputs;
    t.wideColumns = blurColumnWideRadius(format) != 0 && radiusY >= blurColumnWideRadius(format);
    const std::uint32_t columnOutputs = t.wideColumns ? kBlurColumnWideOutputs : kBlurColumnOutputs;
    t.columnTaps = blurColumnTaps(radiusY, columnOutputs);
    t.groups[0][0] = (extent.width + rowOutputs - 1) / rowOutputs;
    t.groups[0][1] = extent.height;
    t.groups[1][0] = (extent.width + kBlurGridColumns - 1) / kBlurGridColumns;
    // A workgroup's runs (its invocations over its columns), each of pass 7's rows per invocation.
    const std::uint32_t columnRows = kBlurGridGroupSize / kBlurGridColumns * columnOutputs;
    t.groups[1][1] = (extent.height + columnRows - 1) / columnRows;
    t.scratchBytes = VkDeviceSize{layers} * extent.width * extent.height * blurTwoPassValueBytes(format);
    return t;
}

// How the Decimated method covers a region (see blur_grid.comp).
struct BlurGridLayout {
    std::uint32_t step[2] = {1, 1}; // grid spacing kx, ky: max(1, floor(sigma / 3)), or 1
    std::uint32_t gridCols = 0;     // grid columns -1 .. floor((width - 1) / kx) + 2
    std::uint32_t gridRows = 0;     // grid rows -1 .. floor((height - 1) / ky) + 2
    std::uint32_t gridOffset = 0;   // F's first element in the scratch, after V
    std::uint32_t splits[2] = {1, 1}; // passes 1 and 2: invocations that share a point's taps
    std::uint32_t outRows = 0;      // output rows per interpolation workgroup
    bool staged = false;            // pass 2 stages each workgroup's run of V in shared memory
    std::uint32_t groups[3][2] = {}; // x and y workgroups of each pass (z: layers)
    bool moments = false;           // V from passes 4 and 5 instead of pass 1
    std::uint32_t momentGroups[2][2] = {}; // x and y workgroups of passes 4 and 5
    std::uint32_t momentSplits = 1; // pass 5: invocations that share a grid row's blocks
    // V (layers x gridRows x width), then F (layers x gridRows x gridCols) or, before it, the
    // moments (layers x (gridRows + n) x kBlurMomentSlots x width) and the kernel's projections
    // ((n + 2 kBlurProjectionPad) x kBlurMoments + kBlurHeadMoments), fp32
    VkDeviceSize scratchBytes = 0;
};

// The Decimated method's grid spacing on an axis: floor(sigma / 3), or 1 (not decimated) where
// the radius is below floor(3 sigma).
inline std::uint32_t blurGridStep(float sigma, std::uint32_t radius)
{
    if (double(radius) < std::floor(3.0 * double(sigma))) return 1;
    return std::clamp(static_cast<std::uint32_t>(std::floor(sigma / 3.0f)), 1u, kBlurGridMaxStep);
}

// stageVecs: the values pass 2 can stage (0: none); moments: the moments form exists; maxBytes:
// the largest scratch the moments form may take (the device's maxStorageBufferRange; above it
// pass 1 makes V, with less scratch).
inline BlurGridLayout blurGridLayout(VkExtent2D extent, std::uint32_t layers, std::uint32_t rx, std::uint32_t ry,
                                     float sigmaX, float sigmaY, const BlurFormat& format, std::uint32_t stageVecs,
                                     bool moments, VkDeviceSize maxBytes)
{
    BlurGridLayout g;
    // Spacing sigma / 3 keeps the interpolation within kDecimatedError of the exact blur when
    // the radius is at least floor(3 sigma) (a radius of 64 at sigma 64 / 3 included: 3 sigma
    // rounds to just above 64 in float); a shorter radius truncates the Gaussian where it is
    // still large, the blurred image is not smooth enough to interpolate, and that axis is not
    // decimated.
    g.step[0] = blurGridStep(sigmaX, rx);
    g.step[1] = blurGridStep(sigmaY, ry);
    const std::uint32_t kx = g.step[0], ky = g.step[1];
    g.gridCols = (extent.width - 1) / kx + 4;
    g.gridRows = (extent.height - 1) / ky + 4;
    const VkDeviceSize vecBytes = blurGridVecBytes(format);
    const VkDeviceSize vElements = VkDeviceSize{layers} * g.gridRows * extent.width;
    const VkDeviceSize fElements = VkDeviceSize{layers} * g.gridRows * g.gridCols;
    g.gridOffset = static_cast<std::uint32_t>(std::min<VkDeviceSize>(vElements, UINT32_MAX));
    // The moments form where the rows are far apart, the kernel spans few blocks and the scratch
    // fits: the moments, then the kernel's projections on the polynomials.
    const std::uint32_t blocks = (2 * ry + 1) / ky;
    const VkDeviceSize mElements = VkDeviceSize{layers} * (g.gridRows + blocks) * kBlurMomentSlots * extent.width +
                                   (blocks + 2 * kBlurProjectionPad) * kBlurMoments + kBlurHeadMoments;
    g.moments = moments && ky >= blurMomentMinStep() && blocks <= kBlurMomentMaxBlocks &&
                (vElements + std::max(fElements, mElements)) * vecBytes <= maxBytes;
    g.scratchBytes = (vElements + std::max(fElements, g.moments ? mElements : 0)) * vecBytes;
    // The grid points a pass-3 tile interpolates from: at most (63 / kx + 5) x ((outRows - 1) / ky + 5).
    const std::uint32_t sharedWords = kBlurGridSharedBytes / 4, vecWords = blurGridVecBytes(format) / 4;
    for (g.outRows = 64; g.outRows > 4; g.outRows /= 2) {
        if (((kBlurGridOutCols - 1) / kx + 5) * ((g.outRows - 1) / ky + 5) * vecWords <= sharedWords) break;
    }
    // An invocation of passes 1 and 2 computes kBlurGridPoints grid points; their taps are split
    // among more invocations where the points are few (large spacings) or the kernel long:
    // enough invocations to fill a large GPU (2^17), at most 128 taps and at least 16 each.
    // (H200, 1920x1080 sigma 8, the whole method: 85.1 us with 2^18 as the aim, 81.8 with 2^17;
    // every other case tried within 0.5%, and 2^19 or 64 taps 3% slower at sigma 64.)
    auto up = [](std::uint32_t n, std::uint32_t d) { return (n + d - 1) / d; };
    const std::uint32_t maxSplits[2] = {kBlurGridRows, 32};
    const VkDeviceSize invocations[2] = {VkDeviceSize{layers} * up(g.gridRows, kBlurGridPoints) * extent.width,
                                         VkDeviceSize{layers} * g.gridRows * up(g.gridCols, kBlurGridPoints)};
    for (int pass = 0; pass < 2; ++pass) {
        const std::uint32_t taps = 2 * (pass == 0 ? ry : rx) + 1 + 3 * g.step[1 - pass];
        std::uint32_t& s = g.splits[pass];
        while (s < maxSplits[pass] && taps / (2 * s) >= 16 && (invocations[pass] * s < (1u << 17) || taps / s > 128))
            s *= 2;
    }
    // Pass 2 stages its workgroup's run of V where it fits (padded by one value in 4 kx), with
    // the most lanes (fewest splits) that fit. H200, RGBA8 3840x2160, pass 2 alone, unstaged /
    // staged: spacing 2 183 / 132 us, 3 83 / 79, 7 38 / 41, 21 19 / 18; the whole method at
    // spacing 7 and 21 the same either way (the unstaged path alone is slower in the kernel
    // that has both).
    for (std::uint32_t lanes = kBlurGridGroupSize; lanes >= 8 && stageVecs > 0; lanes /= 2) {
        const std::uint64_t quad = std::uint64_t{kBlurGridPoints} * kx;
        const std::uint64_t run = (std::uint64_t{lanes} * kBlurGridPoints - 1) * kx + 2 * std::uint64_t{rx} + 1;
        if (run + (run - 1) / quad <= stageVecs) {
            g.staged = true;
            g.splits[1] = kBlurGridGroupSize / lanes;
            break;
        }
    }
    g.groups[0][0] = up(extent.width, kBlurGridColumns);
    g.groups[0][1] = up(g.gridRows, kBlurGridPoints * kBlurGridRows / g.splits[0]);
    g.groups[1][0] = up(g.gridCols, kBlurGridPoints * kBlurGridGroupSize / g.splits[1]);
    g.groups[1][1] = g.gridRows;
    g.groups[2][0] = up(extent.width, kBlurGridOutCols);
    g.groups[2][1] = up(extent.height, g.outRows);
    g.momentGroups[0][0] = g.momentGroups[1][0] = up(extent.width, kBlurGridColumns);
    g.momentGroups[0][1] = up(g.gridRows + blocks, kBlurMomentBlocksPerGroup);
    // Pass 5 splits the n + 3 blocks of an invocation's 4 grid rows among up to 8 invocations
    // (at least 3 blocks each) while they are fewer than 2^16. H100, RGBA8, the whole method,
    // median us, never split / this rule: 3840x2160 sigma 64 (104k invocations, not split) 110.4,
    // sigma 200 (35k, 2 splits) 102.6 / 98.8, 1920x1080 sigma 64 (27k, 4) 46.7 / 42.6, sigma 200
    // (9.6k, 4) 69.2 / 62.9. Split 2 or 4 ways (a limit of 2^18), 3840x2160 sigma 64 took 115.
    const VkDeviceSize rowInvocations = VkDeviceSize{layers} * extent.width * up(g.gridRows, kBlurGridPoints);
    while (g.momentSplits < 8 && (blocks + 3) / (2 * g.momentSplits) >= 3 &&
           rowInvocations * g.momentSplits < (1u << 16))
        g.momentSplits *= 2;
    if (blurMomentSplitsOverride != 0) g.momentSplits = blurMomentSplitsOverride;
    g.momentGroups[1][1] = up(g.gridRows, kBlurMomentRowsPerGroup / g.momentSplits);
    return g;
}

// The Tile method (blur_tile.comp): tiles of 32 columns by 32, 24 or 16 rows, or 64 x 16 outputs
// (blurTileShape), for radius r (both axes) with pipeline r - 1.
struct BlurTileShape {
    std::uint32_t width = 0, height = 0; // 0: no tile
};
constexpr BlurTileShape kBlurTileShapes[2] = {{64, 16}, {32, 32}};
// Tiles per workgroup (one below the other; each tile's loads are issued while the one before is
// filtered): the most, up to blurTileMaxTiles (8; 4 for 8-bit RGBA / BGRA, whose tiles are staged as
// packed halves), that leave at least kBlurTileTargetGroups workgroups (twice that for 32-column
// tiles, whose larger radii take more registers and so fewer workgroups per SM; measured with
// 32 x 32).
// H200, median us, 1 / 4 / 8 / 16 tiles: RGBA8 r = 1 3840x2160 65.3 / 55.8 / 55.6 / 59.0,
// 1920x1080 20.1 / 19.2 / 20.3 / 31.1; RGBA16F r = 1 3840x2160 153.1 / 116.0 / 111.7 / 111.7,
// 1920x1080 43.4 / 34.8 / 35.4 / 35.1. H100, 1920x1080, 1 / 2 / 3 / 4 / 6 / 8 tiles: RGBA8 r = 1
// 22.7 / 19.6 / 19.5 / 18.6 / 22.2 / 19.8, r = 4 (32 x 32) 27.7 / 25.6 / 25.9 / 26.6 / 30.0 / 27.4,
// r = 8 52.4 / 46.8 / 46.7 / 48.1 / 49.1 / 47.8; RGBA16F r = 8 64.3 / 56.6 / 55.1 / 57.7 / 59.3 /
// 56.0. H100 (2026-11-27, two rounds within 0.5%), 3840x2160, 1 / 2 / 3 / 4 / 6 / 8 tiles: RGBA8
// r = 1 48.2 / 43.8 / 43.4 / 42.8 / 44.4 / 44.5, r = 2 53.9 / 50.7 / 50.4 / 50.3 / 52.6 / 52.5,
// r = 4 73.1 / 69.3 / 68.3 / 69.3 / 72.1 / 74.5, r = 8 122.8 / 115.8 / 115.5 / 115.9 / 116.9 /
// 122.4; RGBA16F r = 1 86.5 / 74.3 / 72.0 / 70.1 / 69.9 / 69.3, r = 8 190.8 / 161.6 / 154.5 / 150.4
// / 145.6 / 146.7: 8-bit RGBA lost 4-7% with 8 tiles, RGBA16F 1-3% with 4.
constexpr std::uint32_t kBlurTileTargetGroups = 480;
inline std::uint32_t blurTileMaxTiles(const BlurFormat& fmt) { return fmt.slotBytes == 8 ? 4u : 8u; }
// Tests only (not thread-safe): tiles per workgroup blurTilesPerGroup gives instead of its rule's
// (0: the rule), so that small images run several tiles a workgroup.
inline std::uint32_t blurTileSegmentsOverride = 0;
inline std::uint32_t blurTilesPerGroup(const BlurFormat& fmt, VkExtent2D extent, std::uint32_t layers,
                                       BlurTileShape shape)
{
    if (blurTileSegmentsOverride != 0) return blurTileSegmentsOverride;
    const std::uint64_t columns = std::uint64_t{(extent.width + shape.width - 1) / shape.width} * layers;
    const std::uint32_t tileRows = (extent.height + shape.height - 1) / shape.height;
    const std::uint32_t target = shape.width == 32 ? 2 * kBlurTileTargetGroups : kBlurTileTargetGroups;
    std::uint32_t tiles = blurTileMaxTiles(fmt);
    while (tiles > 1 && columns * ((tileRows + tiles - 1) / tiles) < target) tiles /= 2;
    return tiles;
}
// Shared memory of a tile pipeline: the staged source texels (8-bit RGBA / BGRA as packed halves,
// other formats fp32), over which each row's horizontal results are written.
// `padded`: each row one slot longer (the kernel's kPadRows).
inline std::uint32_t blurTileBytes(const BlurFormat& fmt, std::uint32_t radius, BlurTileShape shape, bool padded)
{
    const std::uint32_t rows = shape.height + 2 * radius;
    const std::uint32_t stagedBytes = fmt.slotBytes == 8 ? 8u : 4 * fmt.channels;
    return (shape.width + 2 * radius + (padded ? 1u : 0u)) * rows * stagedBytes;
}
// Whether a tile pipeline carries the horizontal results of a tile's last 2r rows over to the next
// tile of its workgroup (blur_tile.comp's kCarry), so that each tile after the first stages and
// filters only its own rows: from radius 5 for the fp32 RGBA slots of RGBA16F and RGBA32F, from 7
// for the others, where the halo rows are many enough to pay for the registers that carry them.
// H100 80GB HBM3, driver 580.159.04, 2026-12-06T14:04Z and 14:23Z, two rounds each within 1.5%,
// median us, 3840x2160 / 1920x1080, without / with: RGBA8 r = 3 57.6 / 60.0 and 19.7 / 21.6, r =
// 4 61.2 / 66.4 and 21.1 / 22.8, r = 5 75.5 / 74.4 and 25.0 / 25.7, r = 6 83.8 / 80.4 and 26.8 /
// 27.5, r = 7 103.0 / 97.8 and 32.8 / 32.7, r = 8 111.0 / 97.1 and 34.6 / 33.2, r = 10 134.7 /
// 115.3 and 41.3 / 38.5, r = 13 198.6 / 165.8 and 59.5 / 54.6, r = 15 261.1 / 198.8 and 78.4 /
// 57.9; RGBA16F r = 2 65.5 / 67.9 and 22.1 / 23.0, r = 4 81.8 / 81.6 and 28.3 / 30.1, r = 5 104.0
// / 90.7 and 33.7 / 33.7, r = 6 117.8 / 102.4 and 37.0 / 34.5, r = 8 142.8 / 126.0 and 45.7 /
// 46.7, r = 11 194.2 / 155.7 and 60.6 / 57.6; R32F r = 4 38.1 / 42.1 and 13.6 / 16.0, r = 5 42.8
// / 43.3 and 15.5 / 16.5, r = 6 45.0 / 43.2 and 16.2 / 16.8, r = 7 49.3 / 43.8 and 16.9 / 17.1,
// r = 8 49.2 / 44.2 and 16.9 / 17.2, r = 16 92.6 / 69.3 and 29.9 / 27.0, r = 24 168.7 / 111.0
// and 61.0 / 46.3 (docs/blur-performance.md v48).
inline bool blurTileCarries(const BlurFormat& fmt, std::uint32_t radius)
{
    return radius >= (fmt.slotBytes == 16 ? 5u : 7u);
}
// Whether the Direct method's kernels pad their rows of shared memory by a slot and map their
// lanes to distinct banks (kPadRows of blur_tile.comp and blur.comp): formats whose horizontal
// rows are 16-byte slots (fp32 RGBA).
inline bool blurPadsRows(const BlurFormat& fmt) { return fmt.slotBytes == 16; }
// Whether a tile pipeline pads its rows: blurPadsRows, where the padded tile fits `sharedBytes`.
// H200, median us, 3840x2160 / 1920x1080, unpadded against padded: RGBA16F r = 1 104.1 / 33.8
// against 87.4 / 28.9, r = 2 116.6 / 37.5 against 96.8 / 33.4, r = 4 139.0 / 44.3 against 117.2 /
// 37.8, r = 8 185.4 / 56.5 against 155.9 / 48.3; RGBA8 (8-byte slots, padded in a probe) r = 1
// 49.9 / 17.7 against 51.0 / 18.0, r = 4 80.9 / 25.6 against 78.6 / 25.0, r = 8 147.7 / 46.2
// against 148.8 / 46.3. (Both before the horizontal results were written over the staged texels.)
inline bool blurTilePadded(const BlurFormat& fmt, std::uint32_t radius, BlurTileShape shape, std::uint32_t sharedBytes)
{
    return blurPadsRows(fmt) && blurTileBytes(fmt, radius, shape, true) <= sharedBytes;
}
// The radii the Tile method takes for a format, measured against the walk (blur.comp) on an
// H200 (median us, 3840x2160 / 1920x1080, walk against tile): RGBA8 r = 1 98.6 / 34.0 against
// 55.8 / 19.1, r = 2 102.8 / 34.5 against 61.3 / 20.7, r = 8 193.5 / 52.8 against 149.4 / 47.9,
// r = 10 236.0 / 74.7 against 188.1 / 58.8, r = 13 255.0 against 242.3, r = 14 251.6 against
// 254.0 (the walk from there); RGBA16F r = 1 153.7 / 46.2 against 103.6 / 33.2, r = 5 295.8 /
// 99.2 against 150.2, r = 7 376.7 / 111.8 against 175.6 / 55.5, r = 10 430.1 / 124.0 against
// 221.6 / 69.1; r = 11 (since the horizontal results are written over the staged texels; above 11
// a 32 x 32 tile does not fit 48 KiB) 370.2 / 99.7 against 204.7 / 62.9. One-channel formats
// (R32_SFLOAT, R8_UNORM: fp32 slots, 32 x 32 tiles of 5.6-22.6 KiB above radius 2) up to 22, the
// largest radius whose 32 x 32 tile stays under kBlurTileCliffBytes: R32F, H200, two rounds within
// 3%, walk against tile, 2026-11-29T13:55Z: r = 3 83.7 / 32.2 against 37.0 / 13.8, r = 4 87.9 /
// 33.7 against 37.9 / 14.1, r = 6 94.8 / 33.8 against 44.4 / 15.7, r = 8 102.4 / 38.2 against 50.2
// / 17.1, r = 10 114.4 / 38.3 against 62.6 / 20.4, r = 13 131.6 / 42.8 against 84.2 / 26.9;
// 14:10Z: r = 14 141.8 / 48.0 against 88.6 / 27.6, r = 16 144.9 / 50.3 against 94.7 / 29.7, r = 18
// 206.3 / 76.8 against 127.2 / 42.8, r = 20 216.1 / 76.0 against 137.8 / 47.2, r = 22 225.5 / 63.5
// against 157.7 / 53.4 (docs/blur-performance.md v43; R8 was not timed: the same slots and tiles).
// Past 22, H100, one round, 2026-12-06T04:38Z, walk against tile: r = 23 221.8 / 66.2 against
// 187.5 / 65.2, r = 24 230.3 / 68.5 against 177.6 / 64.3 (32 x 24 tiles under the line); r = 26
// 253.0 / 80.5 against 246.8 / 86.1 (32 x 16), r = 28 278.5 / 100.4 against 293.9 / 98.6, r = 32
// 327.0 / 96.4 against 346.0 / 114.5 (32 x 32 over the line: slower), hence 24 (v45).
// RGBA32F stages RGBA16F's fp32 slots and takes its radii (up to 11), H100, same run, walk
// against tile: r = 3 208.8 / 55.8 against 108.7 / 34.8, r = 4 265.3 / 90.6 against 113.7 /
// 36.3, r = 7 350.7 / 103.9 against 149.2 / 46.7, r = 8 289.8 / 83.2 against 172.1 / 56.3, r = 11
// 394.1 / 107.5 against 224.6 / 70.0 (1.5-2.5x; v45). Both go on to 15 where the weights come
// from the host (256 push-constant bytes): the last radius whose 32 x 16 tile of padded fp32 slots
// fits 48 KiB (63 x 46 x 16 = 46,368 bytes), 1.4-1.9x faster than the walk at 3840x2160 on an
// H100 (blurTileHeightNvidia; v49). Elsewhere above 11 a tile of 32 x 32 where it fits (64 KiB).
// 8-bit RGBA / BGRA up to 15 where the weights come from the host (`pushBytes`: the Blurrer's
// push-constant bytes, kBlurTileWidePushBytes), in 32 x 16 tiles: H100 80GB HBM3, driver
// 580.159.04, 2026-12-06T11:20Z, two rounds within 1%, median us, 3840x2160 / 1920x1080, walk
// against tiles of 32 x 16 / 32 x 24 / 32 x 32 rows: r = 14 251.8 / 80.0 against 240.8 / 71.3,
// 283.5 / 85.9 and 238.5 / 75.6; r = 15 269.0 / 79.0 against 260.8 / 78.2, 311.8 / 93.9 and
// 256.8 / 81.7 (v47). Making their weights, the tiles were no faster than the walk at 14 (H200
// above). With the rows carried from tile to tile (blurTileCarries) up to 16: same GPU and driver,
// 2026-12-06T14:04Z, median us, 3840x2160 / 1920x1080, walk against 32 x 16 tiles: r = 14 241.6 /
// 71.5 against 184.0 / 53.7, r = 15 261.4 / 78.1 against 197.2 / 57.5, r = 16 268.8 / 78.3 against
// 205.4 / 60.1 (v48); and up to 22 in 32 x 32 tiles (blurTileHeightNvidia8Bit; 46,208 bytes at 22,
// and 23 is the last radius whose 32 x 32 tile fits 48 KiB): same GPU and driver,
// 2026-12-06T15:59Z, two rounds within 1.2%, median us, 3840x2160 / 1920x1080, walk against 32 x
// 32 tiles: r = 17 373.0 / 112.8 against 226.0 / 80.9, r = 18 374.5 / 112.9 against 240.7 / 88.1,
// r = 20 434.9 / 137.6 against 253.1 / 92.0, r = 22 464.1 / 160.1 against 282.1 / 103.9 (v49;
// from sigma 6, radius 18 for sigma r / 3, Auto takes the Decimated method, 249.0 / 74.0 at 18 and
// 260.5 / 78.2 at 22: the tiles serve Direct).
inline std::uint32_t blurTileMaxRadius(const BlurFormat& fmt, std::uint32_t pushBytes)
{
    if (fmt.slotBytes == 8) return pushBytes >= kBlurTileWidePushBytes ? 22u : 13u; // 8-bit RGBA / BGRA
    if (fmt.channels == 1) return 24u;
    return pushBytes >= kBlurTileWidePushBytes ? 15u : 11u; // RGBA16F, RGBA32F: fp32 RGBA slots
}
// The shared memory per workgroup of 256 above which the Tile method slows down by 35-50% on an
// H200 (docs/blur-performance.md, v21): the SM's L1 cache then keeps 28 KiB instead of 60.
constexpr std::uint32_t kBlurTileCliffBytes = 23u * 1024u + 512u;
// The rows of an 8-bit RGBA / BGRA tile above radius 2 on NVIDIA GPUs. A shorter tile stages fewer
// texels per invocation, so its kernel can take fewer registers and fit more workgroups of 256 on
// an SM (4 up to 64 registers, 3 up to 80, 2 up to 128), against more halo rows filtered per
// output. With the weights of radii up to 9 in the push constants (10 and 11 still made theirs),
// driver 580.159.04, `--pipeline-stats`, registers at 32 / 24 / 16 rows: r = 3 64 / 60 / 61, r = 4
// 80 / 64 / 63, r = 5 80 / 64 / 60, r = 6 80 / 80 / 64, r = 7 92 / 80 / 64, r = 8 92 / 80 / 64,
// r = 9 98 / 92 / 80, r = 10 127 / 118 / 80, r = 11 128 / 125 / 120. H100 80GB HBM3,
// vkfx-bench --radii, 2026-12-06T08:16Z, two rounds within 0.7%, median us (mean of the rounds),
// 3840x2160 / 1920x1080, 32 / 24 / 16 rows: r = 3 57.4 / 57.3 / 64.5 and 19.7 / 20.0 / 22.0, r = 4
// 64.2 / 59.2 / 69.0 and 22.0 / 20.6 / 23.4, r = 5 74.0 / 77.7 / 85.1 and 24.5 / 25.9 / 28.5, r = 6
// 83.2 / 88.0 / 88.5 and 26.8 / 28.8 / 29.2, r = 7 102.1 / 101.0 / 103.3 and 32.3 / 32.2 / 33.4, r =
// 8 109.2 / 112.9 / 109.4 and 34.2 / 35.3 / 35.0, r = 9 124.0 / 139.2 / 141.5 and 38.5 / 42.6 /
// 44.2, r = 10 142.8 / 163.2 / 165.2, r = 11 164.8 / 178.5 / 218.6 (docs/blur-performance.md v46;
// v42 measured the kernel of weights in registers, whose best heights were 24 at r = 5 and 16 at 7
// and 8). At r = 12 and 13 24 rows (v42, H200, 3840x2160: 189.7 and 221.8 us against 223.8 and
// 237.1 with 32 rows, over kBlurTileCliffBytes, and 227.4 and 247.1 with 16), from 14 on 16 (with
// the rows carried from tile to tile, v48: H100, 3840x2160 / 1920x1080, 16 / 24 / 32 rows, r = 8
// 98.6 / 103.9 / 97.1 and 30.8 / 34.9 / 33.0, r = 13 176.9 / 165.3 / 184.4 and 51.5 / 54.2 /
// 62.2, r = 14 184.0 / 249.4 / 191.7 and 53.7 / 85.4 / 65.0, r = 16 205.4 / 265.3 / 212.8 and
// 60.1 / 90.5 / 72.8), and from 17 32 again (v49: H100, 3840x2160 / 1920x1080, 16 / 24 / 32 rows,
// r = 17 301.9 / 269.2 / 226.0 and 89.6 / 90.8 / 80.9, r = 20 362.0 / 291.7 / 253.1 and 107.0 /
// 97.5 / 92.0, r = 22 394.8 / 340.3 / 282.1 and 115.6 / 116.1 / 103.9). Other GPUs keep the rule
// below, which picks 32 rows up to radius 11 and, with 48 KiB, from 17.
inline std::uint32_t blurTileHeightNvidia8Bit(std::uint32_t radius)
{
    if (radius >= 17) return 32u;
    if (radius >= 14) return 16u;
    return radius == 4 || radius == 7 || radius >= 12 ? 24u : 32u;
}
// The rows of a tile above radius 2 on NVIDIA GPUs: blurTileHeightNvidia8Bit's for 8-bit RGBA /
// BGRA; 24 for one-channel formats at radii 3 and 4, where the rule below picks 32 (H100 80GB
// HBM3, driver 580.159.04, 2026-12-06T11:00Z, two rounds within 1.5%, R32F median us, 3840x2160
// / 1920x1080, 32 / 24 rows: r = 3 39.9 / 38.7 and 14.1 / 13.6, r = 4 41.2 / 38.4 and 14.5 / 13.6,
// but r = 5 42.1 / 44.5 and 15.4 / 15.5; v44 found 32 rows best from there on but at r = 18;
// R8 stages the same fp32 slots); 0 elsewhere: the rule's. RGBA16F and RGBA32F keep the rule,
// which a run at 10:52Z found best at every radius (one round, RGBA16F 3840x2160, 32 / 24 / 16
// rows, the rule's marked *: r = 3 77.8* / 80.4 / 81.0, r = 4 107.5 / 81.5* / 83.1, r = 5 121.2 /
// 104.4* / 111.6, r = 6 125.6 / 145.0 / 116.4*, r = 7 138.0 / 153.2 / 131.6*, r = 8 141.4* /
// 166.1 / 174.0, r = 11 193.3* / 210.8 / 263.4; docs/blur-performance.md v47). Above 11 (256
// push-constant bytes), where no tile is under the line and 32 x 32 does not fit 48 KiB, they take
// 24 rows at 12 and 13 and 16 at 14 and 15 (24 do not fit there): H100, 2026-12-06T16:41Z, two
// rounds within 0.5%, median us, 3840x2160 / 1920x1080, walk / 16 / 24 rows: RGBA16F r = 12 326.2 /
// 203.7 / 176.7 and 95.7 / 68.2 / 63.3, r = 13 356.5 / 213.5 / 190.9 and 111.5 / 72.3 / 69.9, r =
// 15 353.9 / 230.4 and 106.1 / 77.3; RGBA32F r = 12 345.3 / 226.5 / 196.7 and 101.6 / 76.5 / 71.5,
// r = 13 371.7 / 238.5 / 209.1 and 116.6 / 80.7 / 76.7, r = 15 368.1 / 257.2 and 111.0 / 86.5 (v49).
inline std::uint32_t blurTileHeightNvidia(const BlurFormat& fmt, std::uint32_t radius)
{
    if (fmt.slotBytes == 8) return blurTileHeightNvidia8Bit(radius);
    if (fmt.slotBytes == 16 && radius >= 12) return radius <= 13 ? 24u : 16u;
    if (fmt.channels == 1 && radius <= 4) return 24u;
    return 0;
}
// Tests only (not thread-safe): a vendor ID blurTileShape takes instead of the device's; 0: the
// device's.
inline std::uint32_t blurTileVendorOverride = 0;
// The tile up to radius 2: 32 columns by 24 rows for 8-bit RGBA / BGRA (staged as packed
// halves), by 16 rows for the fp32 RGBA slots of R16G16B16A16_SFLOAT and R32G32B32A32_SFLOAT, 64 x
// 16 for one-channel formats (H100, 2026-12-06T04:38Z, one round, RGBA32F 3840x2160 / 1920x1080,
// 64 x 16 against 32 x 16: r = 1 103.6 / 31.3 against 100.7 / 29.5, r = 2 104.4 / 31.7 against
// 100.7 / 29.8; R32F 64 x 16 not timed against the others). H100
// (2026-11-27, two rounds within 1%; the tile counts of blurTilesPerGroup), median us, 64 x 16 /
// 32 x 16 / 32 x 24 / 32 x 32: RGBA8 3840x2160 r = 1 42.8 / 46.0 / 41.1 / 43.2, r = 2 50.3 / 51.2 /
// 46.7 / 49.7, 1920x1080 r = 1 16.0 / 17.0 / 15.7 / 16.1, r = 2 18.4 / 18.7 / 17.2 / 17.9; RGBA16F
// 3840x2160 r = 1 69.3 / 65.5 / 67.1 / 68.8, r = 2 75.7 / 67.2 / 72.9 / 74.1, 1920x1080 r = 1 23.3
// / 21.7 / 22.4 / 23.7, r = 2 25.8 / 22.5 / 25.7 / 25.7.
inline BlurTileShape blurSmallRadiusTile(const BlurFormat& fmt)
{
    if (fmt.slotBytes == 8) return {32, 24};
    if (fmt.slotBytes == 16) return {32, 16};
    return kBlurTileShapes[0];
}
// The tile of a radius: blurSmallRadiusTile up to radius 2; above, 32 columns by the most rows of
// 32, 24 and 16 that keep the tile under kBlurTileCliffBytes, else 32 (fewer halo texels staged
// and filtered per output than 64 x 16); or the other shape where the first does not fit
// `sharedBytes`; none where neither fits, and none above blurTileMaxRadius(fmt, pushBytes). H200, median us, 64 x 16 / 32 x 32: RGBA8 3840x2160
// r = 1 50.8 / 52.2, r = 2 58.9 / 59.5, r = 3 71.6 / 70.2, r = 4 108.0 / 79.8, r = 8 166.0 / 149.4
// (1920x1080 53.1 / 47.9); RGBA16F r = 2 116.2 / 118.0, r = 3 131.5 / 123.7, r = 6 178.5 / 163.2
// (before v21). Above radius 2 the same H100 run as above, rule / 32 x 16 / 32 x 24 / 32 x 32 (the
// rule's shape in brackets): RGBA8 3840x2160 r = 3 (32 x 32) 57.7 / 65.3 / 58.2 / 57.8, r = 4
// (32 x 32) 69.4 / 69.5 / 65.2 / 69.3; RGBA16F r = 3 (32 x 24) 79.6 / 84.6 / 81.2 / 79.6, r = 4
// (32 x 24) 83.8 / 87.9 / 83.9 / 109.9.
// On NVIDIA GPUs (`vendorID` 0x10DE) tiles take blurTileHeightNvidia's rows first, where they
// fit `sharedBytes` (measured there, so not held to kBlurTileCliffBytes: 8-bit RGBA at radius 16
// stages 24 KiB in 32 x 16 tiles, 512 bytes over it, and is 3.5% faster than in 32 x 32; at 17-22
// its 32 x 32 tiles stage 34,848-46,208 bytes).
inline BlurTileShape blurTileShape(const BlurFormat& fmt, std::uint32_t radius, std::uint32_t sharedBytes,
                                   std::uint32_t vendorID, std::uint32_t pushBytes)
{
    if (radius < 1 || radius > blurTileMaxRadius(fmt, pushBytes)) return {};
    if (radius > 2) {
        const bool padded = blurPadsRows(fmt);
        if (blurTileVendorOverride != 0) vendorID = blurTileVendorOverride;
        if (const std::uint32_t height = vendorID == 0x10DEu ? blurTileHeightNvidia(fmt, radius) : 0u) {
            const BlurTileShape shape{32, height};
            const std::uint32_t bytes = blurTileBytes(fmt, radius, shape, padded);
            if (bytes <= sharedBytes) return shape;
        }
        for (std::uint32_t height : {32u, 24u, 16u}) {
            const BlurTileShape shape{32, height};
            const std::uint32_t bytes = blurTileBytes(fmt, radius, shape, padded);
            if (bytes <= kBlurTileCliffBytes && bytes <= sharedBytes) return shape;
        }
    }
    const BlurTileShape first = radius <= 2 ? blurSmallRadiusTile(fmt) : kBlurTileShapes[1];
    const BlurTileShape second = radius <= 2 ? kBlurTileShapes[1] : kBlurTileShapes[0];
    if (blurTileBytes(fmt, radius, first, false) <= sharedBytes) return first;
    if (blurTileBytes(fmt, radius, second, false) <= sharedBytes) return second;
    return {};
}

constexpr std::uint32_t kBlurGroupSize = 256;
// Outputs per invocation and pass (kOutputs in blur.comp; 1 in the narrow kernel): strips and
// steps are multiples of it.
constexpr std::uint32_t kBlurOutputs = 4;
// Shared memory the kernel declares besides the texel slots: two weight arrays and two floats.
constexpr std::uint32_t kBlurSharedFixedBytes = 2 * (2 * Blurrer::kMaxRadius + 1) * 4 + 2 * 4;

// How a dispatch walks the region: strips of `strip` columns, steps of `rows` rows, segments of
// `segment` rows per workgroup, a ring of `ringRows` rows.
struct BlurLayout {
    std::uint32_t strip = 0, rows = 0, segment = 0, ringRows = 0;
    std::uint32_t groupsX = 0, groupsY = 0;
};

// The shape that keeps the most invocations busy (then the widest strip, which reads the fewest
// halo texels per output) among those whose ring (rows + 2 ry rows: blur.comp makes each step's
// outputs 2 ry rows behind its newest source row) and staged rows fit in `sharedTexels` slots,
// and segments short enough that about kTargetGroups workgroups run (but at least four times the
// ring's fill, which every segment pays again). `padRows` (blurPadsRows): blur.comp
// makes the rows of the ring and the staged rows one slot longer where strips are 8 columns or
// more and an invocation makes 4 outputs (its kPadRows).
inline BlurLayout blurLayout(VkExtent2D extent, std::uint32_t layers, std::uint32_t rx, std::uint32_t ry,
                             std::uint32_t sharedTexels, std::uint32_t outputs, bool padRows)
{
    BlurLayout best;
    for (std::uint32_t strip = 64; strip >= outputs; strip /= 2) {
        const std::uint32_t pad = padRows && outputs == 4 && strip >= 8 ? 1u : 0u;
        for (std::uint32_t rows = kBlurGroupSize * outputs / strip; rows >= outputs; rows /= 2) {
            std::uint32_t ringRows = rows + 2 * ry;
            std::uint64_t need =
                std::uint64_t{ringRows} * (strip + pad) + std::uint64_t{rows} * (strip + 2 * rx + pad);
            if (need > sharedTexels) continue;
            if (strip * rows > best.strip * best.rows) {
                best.strip = strip;
                best.rows = rows;
                best.ringRows = ringRows;
            }
            break; // fewer rows only lowers strip * rows
        }
    }
    if (best.strip == 0) return best;
    constexpr std::uint64_t kTargetGroups = 1024;
    auto roundUp = [](std::uint32_t v, std::uint32_t m) { return (v + m - 1) / m * m; };
    best.groupsX = (extent.width + best.strip - 1) / best.strip;
    std::uint64_t columns = std::uint64_t{best.groupsX} * layers;
    std::uint32_t segments = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(extent.height, (kTargetGroups + columns - 1) / columns));
    std::uint32_t segment = roundUp((extent.height + segments - 1) / segments, best.rows);
    segment = std::max(segment, std::min(roundUp(extent.height, best.rows), roundUp(8 * ry, best.rows)));
    best.segment = segment;
    best.groupsY = (extent.height + segment - 1) / segment;
    return best;
}

} // namespace detail

// ---------------------------------------------------------------------------------------------
// BlurTarget

inline void BlurTarget::swap(BlurTarget& other) noexcept
{
    std::swap(m_device, other.m_device);
    std::swap(m_info, other.m_info);
    std::swap(m_sampled, other.m_sampled);
    std::swap(m_storage, other.m_storage);
}

inline void BlurTarget::destroy()
{
    if (!m_device) return;
    const DeviceFunctions& f = m_device->fn();
    if (m_sampled) f.vkDestroyImageView(m_device->handle(), m_sampled, m_device->allocator());
    if (m_storage) f.vkDestroyImageView(m_device->handle(), m_storage, m_device->allocator());
    m_sampled = VK_NULL_HANDLE;
    m_storage = VK_NULL_HANDLE;
    m_device = nullptr;
}

inline VkExtent2D BlurTarget::extent() const
{
    auto e = [&](std::uint32_t v) { return m_info.mipLevel >= 32 ? 1u : std::max(1u, v >> m_info.mipLevel); };
    return {e(m_info.extent.width), e(m_info.extent.height)};
}

inline VkResult BlurTarget::create(const Device& device, const BlurTargetCreateInfo& info, BlurTarget* target)
{
    const char* fn = "vkfx::BlurTarget::create";
    if (!target) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: target is null", fn);
    target->destroy();
    if (!device.valid()) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: device is not created", fn);
    if (!info.image) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: image is VK_NULL_HANDLE", fn);
    const detail::BlurFormat* fmt = detail::findBlurFormat(info.format);
    if (!fmt) {
        return device.fail(VK_ERROR_FORMAT_NOT_SUPPORTED, "%s: format %d is not one vkfx blurs (see vkfx/blur.hpp)",
                           fn, static_cast<int>(info.format));
    }
    const VkPhysicalDeviceLimits& limits = device.properties().limits;
    if (info.extent.width == 0 || info.extent.height == 0 || info.extent.width > limits.maxImageDimension2D ||
        info.extent.height > limits.maxImageDimension2D) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: extent %ux%u is outside 1..%u", fn,
                           info.extent.width, info.extent.height, limits.maxImageDimension2D);
    }
    const std::uint32_t full = fullMipLevels(info.extent);
    if (info.mipLevels == 0 || info.mipLevels > full) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: mipLevels %u is outside 1..%u for a %ux%u image", fn,
                           info.mipLevels, full, info.extent.width, info.extent.height);
    }
    if (info.mipLevel >= info.mipLevels) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: mipLevel %u is not one of the image's %u levels", fn,
                           info.mipLevel, info.mipLevels);
    }
    if (VkResult r = detail::checkLayers(device, fn, info.baseArrayLayer, info.layerCount); r != VK_SUCCESS) return r;
    const bool sampled = (info.usage & VK_IMAGE_USAGE_SAMPLED_BIT) != 0;
    const bool storage = (info.usage & VK_IMAGE_USAGE_STORAGE_BIT) != 0;
    if (!sampled && !storage) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                           "%s: image usage has neither SAMPLED (a source) nor STORAGE (a destination)", fn);
    }
    if (storage && fmt->srgb && !(info.flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT)) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                           "%s: sRGB image with STORAGE usage but without VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT "
                           "(vkfx writes sRGB through a UNORM view)", fn);
    }

    BlurTarget t;
    t.m_device = &device;
    t.m_info = info;
    auto makeView = [&](VkFormat format, VkImageUsageFlags usage, VkImageView* out) {
        return detail::createLevelView(device, info.image, format, VK_IMAGE_ASPECT_COLOR_BIT, usage, info.mipLevel,
                                       info.baseArrayLayer, info.layerCount, out);
    };
    VkResult r = VK_SUCCESS;
    if (sampled) r = makeView(info.format, VK_IMAGE_USAGE_SAMPLED_BIT, &t.m_sampled);
    if (r == VK_SUCCESS && storage) r = makeView(fmt->storage, VK_IMAGE_USAGE_STORAGE_BIT, &t.m_storage);
    if (r != VK_SUCCESS) return device.fail(r, "%s: vkCreateImageView failed (%d)", fn, static_cast<int>(r));
    *target = std::move(t);
    return VK_SUCCESS;
}

// ---------------------------------------------------------------------------------------------
// Blurrer

inline void Blurrer::swap(Blurrer& other) noexcept
{
    std::swap(m_device, other.m_device);
    std::swap(m_info, other.m_info);
    std::swap(m_sharedTexels, other.m_sharedTexels);
    std::swap(m_pipelineNarrow, other.m_pipelineNarrow);
    std::swap(m_tilePipelines, other.m_tilePipelines);
    std::swap(m_tileWidths, other.m_tileWidths);
    std::swap(m_tileHeights, other.m_tileHeights);
    std::swap(m_tilePushBytes, other.m_tilePushBytes);
    std::swap(m_setLayout, other.m_setLayout);
    std::swap(m_pipelineLayout, other.m_pipelineLayout);
    std::swap(m_pipelines, other.m_pipelines);
    std::swap(m_sampler, other.m_sampler);
    std::swap(m_gridSetLayout, other.m_gridSetLayout);
    std::swap(m_gridPipelineLayout, other.m_gridPipelineLayout);
    std::swap(m_gridPasses, other.m_gridPasses);
    std::swap(m_gridStageVecs, other.m_gridStageVecs);
    std::swap(m_gridSmallPass2, other.m_gridSmallPass2);
    std::swap(m_gridSmallStageVecs, other.m_gridSmallStageVecs);
    std::swap(m_rowOutputs, other.m_rowOutputs);
}

inline void Blurrer::destroy()
{
    if (!m_device) return;
    const DeviceFunctions& f = m_device->fn();
    VkDevice d = m_device->handle();
    const VkAllocationCallbacks* a = m_device->allocator();
    for (VkPipeline& p : m_pipelines) {
        if (p) f.vkDestroyPipeline(d, p, a);
        p = VK_NULL_HANDLE;
    }
    if (m_pipelineNarrow) f.vkDestroyPipeline(d, m_pipelineNarrow, a);
    m_pipelineNarrow = VK_NULL_HANDLE;
    for (VkPipeline& p : m_tilePipelines) {
        if (p) f.vkDestroyPipeline(d, p, a);
        p = VK_NULL_HANDLE;
    }
    for (VkPipeline& p : m_gridPasses) {
        if (p) f.vkDestroyPipeline(d, p, a);
        p = VK_NULL_HANDLE;
    }
    if (m_gridSmallPass2) f.vkDestroyPipeline(d, m_gridSmallPass2, a);
    m_gridSmallPass2 = VK_NULL_HANDLE;
    m_gridSmallStageVecs = 0;
    if (m_gridPipelineLayout) f.vkDestroyPipelineLayout(d, m_gridPipelineLayout, a);
    if (m_gridSetLayout) f.vkDestroyDescriptorSetLayout(d, m_gridSetLayout, a);
    if (m_pipelineLayout) f.vkDestroyPipelineLayout(d, m_pipelineLayout, a);
    if (m_setLayout) f.vkDestroyDescriptorSetLayout(d, m_setLayout, a);
    if (m_sampler) f.vkDestroySampler(d, m_sampler, a);
    m_gridPipelineLayout = VK_NULL_HANDLE;
    m_gridSetLayout = VK_NULL_HANDLE;
    m_pipelineLayout = VK_NULL_HANDLE;
    m_setLayout = VK_NULL_HANDLE;
    m_sampler = VK_NULL_HANDLE;
    m_device = nullptr;
}

inline VkResult Blurrer::create(const Device& device, const BlurrerCreateInfo& info, Blurrer* blurrer)
{
    const char* fn = "vkfx::Blurrer::create";
    if (!blurrer) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: blurrer is null", fn);
    blurrer->destroy();
    if (!device.valid()) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: device is not created", fn);
    const detail::BlurFormat* fmt = detail::findBlurFormat(info.format);
    if (!fmt) {
        return device.fail(VK_ERROR_FORMAT_NOT_SUPPORTED, "%s: format %d is not one vkfx blurs (see vkfx/blur.hpp)",
                           fn, static_cast<int>(info.format));
    }
    VkResult r = detail::checkSampleAndStore(device, fn, info.format, fmt->storage, fmt->writeWithoutFormat,
                                             fmt->extendedFormat);
    if (r != VK_SUCCESS) return r;
    // Shared memory: budgets of 16, 24 and 48 KiB (more needs an opt-in on some devices).
    const std::uint32_t sharedBytes = device.properties().limits.maxComputeSharedMemorySize;
    if (sharedBytes < 16u * 1024u) {
        return device.fail(VK_ERROR_FEATURE_NOT_PRESENT, "%s: the device offers %u bytes of compute shared memory; "
                           "the blur needs 16 KiB", fn, sharedBytes);
    }

    Blurrer b;
    b.m_device = &device;
    b.m_info = info;

    r = detail::createClampSampler(device, fn, VK_FILTER_NEAREST, &b.m_sampler);
    if (r != VK_SUCCESS) return r;

    VkDescriptorSetLayoutBinding bindings[2] = {
        {detail::kBlurBindingSource, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, &b.m_sampler},
        {detail::kBlurBindingDst, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
    };
    // 256 bytes of push constants where the device takes them: the Tile method's weights of radii
    // 12 .. kBlurTileWideWeightsMaxRadius then come from the host too (blur_tile.comp's "_wide"
    // variants).
    b.m_tilePushBytes = detail::blurPushBytes(device.properties().limits.maxPushConstantsSize);
    r = detail::createPushLayouts(device, fn, bindings, 2,
                                  std::max(detail::kBlurDirectPushBytes, b.m_tilePushBytes), &b.m_setLayout,
                                  &b.m_pipelineLayout);
    if (r != VK_SUCCESS) return r;

    // blur.comp's specialization constants: 0 = sRGB, 1 = shared-memory texel slots, 2 = outputs
    // per invocation (blur_grid.comp's: GridSpec below).
    struct Spec {
        VkBool32 srgb;
        std::uint32_t shared;
        std::uint32_t outputs;
    } spec{fmt->srgb ? VK_TRUE : VK_FALSE, 0, 0};
    const VkSpecializationMapEntry entries[3] = {{0, offsetof(Spec, srgb), sizeof(VkBool32)},
                                                 {1, offsetof(Spec, shared), sizeof(std::uint32_t)},
                                                 {2, offsetof(Spec, outputs), sizeof(std::uint32_t)}};
    const VkSpecializationInfo directSpecInfo{3, entries, sizeof(Spec), &spec};

    const std::uint32_t budgets[kBudgets] = {16u * 1024u, 24u * 1024u, 48u * 1024u};
    for (std::uint32_t i = 0; i < kBudgets; ++i) {
        const std::uint32_t bytes = std::min(budgets[i], sharedBytes);
        if (i > 0 && bytes <= budgets[i - 1]) break; // the device has no more
        b.m_sharedTexels[i] = (bytes - detail::kBlurSharedFixedBytes) / fmt->slotBytes;
        spec.shared = b.m_sharedTexels[i];
        spec.outputs = detail::kBlurOutputs;
        r = detail::createComputePipeline(device, fn, fmt->code, fmt->bytes, &directSpecInfo, b.m_pipelineLayout,
                                          &b.m_pipelines[i]);
        if (r != VK_SUCCESS) return r;
    }
    if (info.format == VK_FORMAT_R16G16B16A16_SFLOAT) {
        // RGBA16F at radius 1 and 2: the smallest budget's steps have 256 outputs (16-byte slots),
        // four per invocation left 192 of 256 invocations without one; one each is faster
        // (H200: 1920x1080 radius 1 53.9 -> 46.6 us, radius 2 58.6 -> 52.2; 3840x2160 171.0 ->
        // 153.7, 186.8 -> 178.0), while from radius 4 on four outputs sharing their taps win
        // (3840x2160: 209.1 against 228.9).
        spec.shared = b.m_sharedTexels[0];
        spec.outputs = 1;
        r = detail::createComputePipeline(device, fn, fmt->code, fmt->bytes, &directSpecInfo, b.m_pipelineLayout,
                                          &b.m_pipelineNarrow);
        if (r != VK_SUCCESS) return r;
    }

    // The Tile method: one pipeline per radius it takes (where its shared memory fits).
    {
        struct TileSpec {
            VkBool32 srgb;
            std::uint32_t radius;
            std::uint32_t height;
            std::uint32_t width;
            VkBool32 padded;
            std::uint32_t carry;
        } tileSpec{fmt->srgb ? VK_TRUE : VK_FALSE, 0, 0, 0, VK_FALSE, 0};
        const VkSpecializationMapEntry tileEntries[6] = {{0, offsetof(TileSpec, srgb), sizeof(VkBool32)},
                                                         {1, offsetof(TileSpec, radius), sizeof(std::uint32_t)},
                                                         {2, offsetof(TileSpec, height), sizeof(std::uint32_t)},
                                                         {3, offsetof(TileSpec, width), sizeof(std::uint32_t)},
                                                         {4, offsetof(TileSpec, padded), sizeof(VkBool32)},
                                                         {5, offsetof(TileSpec, carry), sizeof(std::uint32_t)}};
        const VkSpecializationInfo tileSpecInfo{6, tileEntries, sizeof(TileSpec), &tileSpec};
        for (std::uint32_t radius = 1; radius <= kTileMaxRadius; ++radius) {
            const detail::BlurTileShape shape =
                detail::blurTileShape(*fmt, radius, sharedBytes, device.properties().vendorID, b.m_tilePushBytes);
            if (shape.width == 0) continue; // (a device with less shared memory: the walk)
            tileSpec.radius = radius;
            tileSpec.height = shape.height;
            tileSpec.width = shape.width;
            tileSpec.padded = detail::blurTilePadded(*fmt, radius, shape, sharedBytes) ? VK_TRUE : VK_FALSE;
            tileSpec.carry = detail::blurTileCarries(*fmt, radius) ? 1u : 0u;
            const bool wide = detail::blurTileWide(*fmt, radius, b.m_tilePushBytes);
            r = detail::createComputePipeline(device, fn, wide ? fmt->tileWideCode : fmt->tileCode,
                                              wide ? fmt->tileWideBytes : fmt->tileBytes, &tileSpecInfo,
                                              b.m_pipelineLayout, &b.m_tilePipelines[radius - 1]);
            if (r != VK_SUCCESS) return r;
            b.m_tileWidths[radius - 1] = static_cast<std::uint8_t>(shape.width);
            b.m_tileHeights[radius - 1] = static_cast<std::uint8_t>(shape.height);
        }
    }

    // The Decimated method: 16 KiB of shared memory (every device has it), and for pass 2 up to
    // kBlurGridStageBytes more where the device has them.
    VkDescriptorSetLayoutBinding gridBindings[3] = {
        bindings[0], bindings[1],
        {detail::kBlurBindingScratch, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
    };
    r = detail::createPushLayouts(device, fn, gridBindings, 3, sizeof(detail::BlurGridPush), &b.m_gridSetLayout,
                                  &b.m_gridPipelineLayout);
    if (r != VK_SUCCESS) return r;
    // Pass 2's staging: what the device's shared memory leaves beside its other arrays.
    const std::uint32_t vecBytes = detail::blurGridVecBytes(*fmt);
    const std::uint32_t pass2Fixed = detail::kBlurGridWeightBytes + detail::kBlurGridGroupSize * vecBytes;
    b.m_gridStageVecs = sharedBytes > pass2Fixed ? std::min(detail::kBlurGridStageBytes, sharedBytes - pass2Fixed) / vecBytes : 0;
    b.m_gridStageVecs = std::min(b.m_gridStageVecs, detail::kBlurGridStageValues);
    // blur_grid.comp's specialization constants: 0 sRGB, 1 shared words, 2 and 3 the weight
    // table's largest radius and spacing, 4 passes 6 and 7's outputs per invocation.
    struct GridSpec {
        VkBool32 srgb;
        std::uint32_t shared;
        std::uint32_t tableRadius;
        std::uint32_t tableStep;
        std::uint32_t invocationOutputs; // set for passes 6 and 7 (below)
    } gridSpec{spec.srgb, 0, Blurrer::kMaxDecimatedRadius, detail::kBlurGridMaxStep, 4};
    const VkSpecializationMapEntry gridEntries[5] = {{0, offsetof(GridSpec, srgb), sizeof(VkBool32)},
                                                     {1, offsetof(GridSpec, shared), sizeof(std::uint32_t)},
                                                     {2, offsetof(GridSpec, tableRadius), sizeof(std::uint32_t)},
                                                     {3, offsetof(GridSpec, tableStep), sizeof(std::uint32_t)},
                                                     {4, offsetof(GridSpec, invocationOutputs), sizeof(std::uint32_t)}};
    const VkSpecializationInfo gridSpecInfo{5, gridEntries, sizeof(GridSpec), &gridSpec};
    const int gridPipelines = detail::blurMoments(device.properties().deviceType) ? 5 : 3;
    for (int pass = 0; pass < gridPipelines; ++pass) {
        gridSpec.shared = pass == 1 ? std::max(b.m_gridStageVecs, 1u) * (vecBytes / 4) : detail::kBlurGridSharedBytes / 4;
        r = detail::createComputePipeline(device, fn, fmt->gridCode[pass], fmt->gridBytes[pass], &gridSpecInfo,
                                          b.m_gridPipelineLayout, &b.m_gridPasses[pass]);
        if (r != VK_SUCCESS) return r;
    }
    // Pass 2 for small kernels (kBlurGridSmallRadius), where the device's shared memory holds its stage.
    const std::uint32_t smallFixed =
        detail::blurGridWeightBytes(detail::kBlurGridSmallRadius, detail::kBlurGridSmallStep) +
        detail::kBlurGridGroupSize * vecBytes;
    if (sharedBytes >= smallFixed + detail::kBlurGridSmallStageBytes) {
        b.m_gridSmallStageVecs = std::min(detail::kBlurGridSmallStageBytes / vecBytes, detail::kBlurGridStageValues);
        gridSpec.shared = b.m_gridSmallStageVecs * (vecBytes / 4);
        gridSpec.tableRadius = detail::kBlurGridSmallRadius;
        gridSpec.tableStep = detail::kBlurGridSmallStep;
        r = detail::createComputePipeline(device, fn, fmt->gridCode[1], fmt->gridBytes[1], &gridSpecInfo,
                                          b.m_gridPipelineLayout, &b.m_gridSmallPass2);
        if (r != VK_SUCCESS) return r;
    }
    // The TwoPass method: a weight table of kMaxRadius (pass 7's with the zeros after it that
    // blurColumnTableStep makes room for); pass 6's stage as large as the device's shared memory
    // takes (blurRowOutputs); pass 7, and its wide form as m_gridPasses[7] where the format has it.
    b.m_rowOutputs = detail::blurRowOutputs(sharedBytes, *fmt);
    gridSpec.tableRadius = kMaxRadius;
    const int twoPassPipelines = detail::blurColumnWideRadius(*fmt) != 0 ? 8 : 7;
    const std::uint32_t slotWords = detail::blurTwoPassValueBytes(*fmt) / 4; // pass 6's stage, as H
    for (int pass = 5; pass < twoPassPipelines; ++pass) {
        const std::uint32_t outputs = pass == 5   ? detail::kBlurRowInvocationOutputs
                                      : pass == 6 ? detail::kBlurColumnOutputs
                                                  : detail::kBlurColumnWideOutputs;
        gridSpec.tableStep = pass == 5 ? 0 : detail::blurColumnTableStep(outputs);
        gridSpec.shared = pass == 5 ? detail::blurRowSlots(b.m_rowOutputs) * slotWords : 1;
        gridSpec.invocationOutputs = outputs;
        const int code = std::min(pass, 6);
        r = detail::createComputePipeline(device, fn, fmt->gridCode[code], fmt->gridBytes[code], &gridSpecInfo,
                                          b.m_gridPipelineLayout, &b.m_gridPasses[pass]);
        if (r != VK_SUCCESS) return r;
    }
    *blurrer = std::move(b);
    return VK_SUCCESS;
}

// Everything record() derives from a BlurInfo before recording.
struct Blurrer::Plan {
    const BlurTarget* source = nullptr;
    const BlurTarget* destination = nullptr;
    VkExtent2D extent{};
    std::uint32_t layers = 0;
    std::uint32_t radius[2] = {};
    float scale[2] = {};
    bool decimated = false;
    bool twoPass = false;
    // Direct
    detail::BlurLayout layout;
    VkPipeline pipeline = VK_NULL_HANDLE;
    bool tile = false; // pipeline is a tile pipeline (blur_tile.comp)
    bool tileWide = false; // ... of its "_wide" variant (detail::blurTileWide): push all 256 bytes
    // Decimated
    detail::BlurGridLayout grid;
    float norm[2] = {};
    VkPipeline gridPass2 = VK_NULL_HANDLE; // pass 2's pipeline (the small-kernel one or the general one)
    // TwoPass
    detail::BlurTwoPassLayout twoPassLayout;
    // The scratch the method takes (Decimated, TwoPass; else 0).
    VkDeviceSize scratchBytes() const { return decimated ? grid.scratchBytes : twoPass ? twoPassLayout.scratchBytes : 0; }
};

inline VkResult Blurrer::plan(const BlurInfo& info, const char* fn, bool withScratch, Plan* out) const
{
    if (!m_device) return detail::fail(nullptr, nullptr, VK_ERROR_VALIDATION_FAILED_EXT, "%s: the Blurrer is not created", fn);
    const Device& dev = *m_device;
    const BlurTarget* s = info.source;
    const BlurTarget* t = info.destination;
    if (!s || !s->valid()) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: source is null or destroyed", fn);
    if (!t || !t->valid()) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: destination is null or destroyed", fn);
    if (s->m_device->handle() != dev.handle() || t->m_device->handle() != dev.handle()) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: a target belongs to another VkDevice", fn);
    }
    const BlurTargetCreateInfo& si = s->m_info;
    const BlurTargetCreateInfo& ti = t->m_info;
    if (si.format != m_info.format || ti.format != m_info.format) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: source format %d and destination format %d must both be "
                        "the Blurrer's %d", fn, static_cast<int>(si.format), static_cast<int>(ti.format),
                        static_cast<int>(m_info.format));
    }
    if (!s->m_sampled) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the source image lacks SAMPLED usage", fn);
    if (!t->m_storage) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the destination image lacks STORAGE usage", fn);
    if (si.layerCount != ti.layerCount) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: source has %u layers and destination %u", fn,
                        si.layerCount, ti.layerCount);
    }
    if (si.image == ti.image && si.mipLevel == ti.mipLevel &&
        si.baseArrayLayer < std::uint64_t{ti.baseArrayLayer} + ti.layerCount &&
        ti.baseArrayLayer < std::uint64_t{si.baseArrayLayer} + si.layerCount) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: source and destination overlap (the same image, level %u "
                        "and layers)", fn, si.mipLevel);
    }
    const VkExtent2D se = s->extent();
    const VkExtent2D te = t->extent();
    VkExtent2D extent = info.extent;
    if (extent.width == 0 && extent.height == 0) {
        if (info.sourceOffset.x != 0 || info.sourceOffset.y != 0) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: an empty extent means the whole source, but "
                            "sourceOffset is not 0", fn);
        }
        extent = se;
    }
    if (extent.width == 0 || extent.height == 0) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: extent %ux%u is empty", fn, extent.width, extent.height);
    }
    auto inside = [](VkOffset2D o, VkExtent2D e, VkExtent2D level) {
        return o.x >= 0 && o.y >= 0 && std::uint64_t(o.x) + e.width <= level.width &&
               std::uint64_t(o.y) + e.height <= level.height;
    };
    if (!inside(info.sourceOffset, extent, se)) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: region %ux%u at (%d, %d) is outside the %ux%u source", fn,
                        extent.width, extent.height, info.sourceOffset.x, info.sourceOffset.y, se.width, se.height);
    }
    if (!inside(info.destinationOffset, extent, te)) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: region %ux%u at (%d, %d) is outside the %ux%u destination",
                        fn, extent.width, extent.height, info.destinationOffset.x, info.destinationOffset.y,
                        te.width, te.height);
    }
    Plan p;
    p.source = s;
    p.destination = t;
    p.extent = extent;
    p.layers = si.layerCount;
    p.radius[0] = info.radiusX;
    p.radius[1] = info.radiusY;
    const float sigma[2] = {info.sigmaX, info.sigmaY};
    if (info.filter == BlurFilter::Gaussian) {
        for (int a = 0; a < 2; ++a) {
            if (!(sigma[a] > 0.0f) || !std::isfinite(sigma[a])) {
                return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: sigma%c %g must be finite and > 0", fn,
                                a == 0 ? 'X' : 'Y', static_cast<double>(sigma[a]));
            }
            if (p.radius[a] == 0) {
                double r = std::ceil(3.0 * static_cast<double>(sigma[a]));
                p.radius[a] = r > kMaxDecimatedRadius ? kMaxDecimatedRadius + 1 : std::max(1u, static_cast<std::uint32_t>(r));
            }
            // -1 / (2 sigma^2), at least -80 (sigma below 0.079): a tap's weight is then at most
            // exp(-80), 1.8e-35 of the centre's, as good as 0 in fp32. Unclamped, tiny sigmas give a
            // scale of -inf (the centre's exp(-inf * 0) is NaN) or arguments so large that an
            // exp built on exp2 (lavapipe's) returns NaN.
            p.scale[a] = static_cast<float>(std::max(-1.0 / (2.0 * double(sigma[a]) * double(sigma[a])), -80.0));
        }
    } else if (info.filter != BlurFilter::Box) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: unknown filter %u", fn,
                        static_cast<std::uint32_t>(info.filter));
    }
    if (static_cast<std::uint32_t>(info.border) > static_cast<std::uint32_t>(BlurBorder::Constant)) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: unknown border mode %u", fn,
                        static_cast<std::uint32_t>(info.border));
    }
    switch (info.sourceLayout) {
    case VK_IMAGE_LAYOUT_GENERAL:
    case VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL:
    case VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL:
        break;
    default:
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: sourceLayout %d cannot be sampled here", fn,
                        static_cast<int>(info.sourceLayout));
    }
    const std::uint32_t maxRadius = std::max(p.radius[0], p.radius[1]);
    const detail::BlurFormat& fmt = *detail::findBlurFormat(m_info.format);
    bool autoDecimated = false; // Auto chose Decimated for speed; Direct can take over
    switch (info.method) {
    case BlurMethod::Auto:
        if (info.filter == BlurFilter::Gaussian) {
            // Above kMaxRadius only the Decimated method can. Below it, Decimated where both axes
            // get a grid spacing of 2 or more (sigma >= 6 with the default radius), the caller
            // gives scratch and the format has channels of 16 bits or fewer (its error is then
            // within about a unit of the format). Measured on an H200 (RGBA8 and RGBA16F, 3840x2160
            // and 1920x1080, sigma r / 3): Decimated 1.3-2.8x faster than Direct from sigma 6 up,
            // 2.1-3.6x slower below (spacing 1: a grid of every texel). 8-bit RGBA and BGRA from
            // radius 25 only (blurDecimatedMinRadius), R8 from spacing 3 (blurDecimatedMinStep):
            // below, the exact TwoPass method is faster (blurAutoDecimates: the whole rule).
            const bool faster = detail::blurAutoDecimates(fmt, detail::blurGridStep(info.sigmaX, p.radius[0]),
                                                          detail::blurGridStep(info.sigmaY, p.radius[1]), maxRadius);
            p.decimated = maxRadius > kMaxRadius || (withScratch && faster);
            autoDecimated = p.decimated && maxRadius <= kMaxRadius;
        }
        break;
    case BlurMethod::Direct:
        break;
    case BlurMethod::TwoPass:
        p.twoPass = true;
        break;
    case BlurMethod::Decimated:
        if (info.filter != BlurFilter::Gaussian) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the Decimated method blurs Gaussians only", fn);
        }
        p.decimated = true;
        break;
    default:
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: unknown method %u", fn,
                        static_cast<std::uint32_t>(info.method));
    }
    const std::uint32_t limit = p.decimated ? kMaxDecimatedRadius : kMaxRadius;
    for (int a = 0; a < 2; ++a) {
        if (p.radius[a] > limit) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: radius%c above the %s method's maximum of %u (a "
                            "Gaussian's radius is ceil(3 sigma))", fn, a == 0 ? 'X' : 'Y',
                            p.decimated ? "Decimated" : p.twoPass ? "TwoPass" : "Direct", limit);
        }
    }
    const VkPhysicalDeviceLimits& limits = dev.properties().limits;
    auto fits = [&](std::uint32_t x, std::uint32_t y) {
        return x <= limits.maxComputeWorkGroupCount[0] && y <= limits.maxComputeWorkGroupCount[1];
    };
    bool groupsFit = true;
    bool autoTwoPass = false; // Auto chose TwoPass for speed; the walk can take over
    if (!p.decimated && !p.twoPass) {
        // The Tile method where it has a pipeline for the radius (the same on both axes) and the
        // region fits its push constants, else the walk.
        const std::uint32_t tileRadius = p.radius[0];
        // Auto with scratch takes TwoPass over tiles from blurTwoPassOverTileRadius on.
        const std::uint32_t overTile = detail::blurTwoPassOverTileRadius(fmt);
        const bool twoPassFirst = info.method == BlurMethod::Auto && withScratch && overTile != 0 &&
                                  maxRadius >= overTile;
        const VkPipeline tile = p.radius[1] == tileRadius && tileRadius >= 1 && tileRadius <= kTileMaxRadius &&
                                        !twoPassFirst &&
                                        detail::blurTileFitsPush(info.sourceOffset, info.destinationOffset, extent)
                                    ? m_tilePipelines[tileRadius - 1]
                                    : VK_NULL_HANDLE;
        if (tile) {
            // The shape create() built the pipeline with.
            const detail::BlurTileShape shape{m_tileWidths[tileRadius - 1], m_tileHeights[tileRadius - 1]};
            p.pipeline = tile;
            p.tile = true;
            p.tileWide = detail::blurTileWide(fmt, tileRadius, m_tilePushBytes);
            p.layout.strip = shape.width;
            p.layout.rows = shape.height;
            p.layout.groupsX = (extent.width + shape.width - 1) / shape.width;
            p.layout.segment = detail::blurTilesPerGroup(fmt, extent, p.layers, shape);
            const std::uint32_t groupRows = shape.height * p.layout.segment;
            p.layout.groupsY = (extent.height + groupRows - 1) / groupRows;
        } else if (info.method == BlurMethod::Auto && withScratch && maxRadius >= detail::blurTwoPassMinRadius(fmt)) {
            p.twoPass = autoTwoPass = true;
        } else {
            // The smallest shared-memory budget whose shape makes at least kGoodStep outputs per
            // step (else the shape that makes the most). Measured on an H200 (RGBA8, 3840x2160):
            // radius 1 111 us with 16 KiB against 212 with 48 KiB; radius 8 and 16 fastest with
            // 24 KiB, 32 with 48. RGBA16F at radii up to 4 takes the smallest budget whatever its
            // shape (16-byte slots: few outputs per step, but more of the SM left to the texture
            // cache): 3840x2160 radius 1, 2, 4 with 16 KiB 174, 190, 210 us against 213, 233, 265
            // with 48 KiB, which radius 8 needs (335 against 425). (RGBA32F has the same slots;
            // not measured.)
            constexpr std::uint32_t kGoodStep = 512;
            const bool padRows = detail::blurPadsRows(fmt);
            const bool smallest = m_info.format == VK_FORMAT_R16G16B16A16_SFLOAT && maxRadius <= 4;
            for (std::uint32_t i = 0; i < kBudgets && m_pipelines[i]; ++i) {
                detail::BlurLayout c = detail::blurLayout(extent, p.layers, p.radius[0], p.radius[1], m_sharedTexels[i],
                                                          detail::kBlurOutputs, padRows);
                if (c.strip * c.rows > p.layout.strip * p.layout.rows) {
                    p.layout = c;
                    p.pipeline = m_pipelines[i];
                }
                if (p.layout.strip * p.layout.rows >= kGoodStep || (smallest && p.layout.strip != 0)) break;
            }
            if (m_pipelineNarrow && maxRadius <= 2) {
                detail::BlurLayout c =
                    detail::blurLayout(extent, p.layers, p.radius[0], p.radius[1], m_sharedTexels[0], 1, padRows);
                if (c.strip != 0) {
                    p.layout = c;
                    p.pipeline = m_pipelineNarrow;
                }
            }
        }
        if (p.layout.strip == 0 && !p.twoPass) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: radii %u, %u do not fit the device's shared memory", fn,
                            p.radius[0], p.radius[1]);
        }
        groupsFit = fits(p.layout.groupsX, p.layout.groupsY);
    }
    if (p.twoPass) {
        // Weights exp(scale k^2) * norm: a box's scale is 0 and its norm 1 / (2 r + 1).
        for (int a = 0; a < 2; ++a) {
            p.norm[a] = info.filter == BlurFilter::Box ? static_cast<float>(1.0 / (2.0 * p.radius[a] + 1.0))
                                                        : static_cast<float>(1.0 / detail::gaussianSum(sigma[a], p.radius[a]));
        }
        p.twoPassLayout = detail::blurTwoPassLayout(extent, p.layers, fmt, m_rowOutputs, p.radius[1]);
        if (p.twoPassLayout.scratchBytes > limits.maxStorageBufferRange) {
            if (autoTwoPass) {
                BlurInfo direct = info;
                direct.method = BlurMethod::Direct;
                return plan(direct, fn, false, out);
            }
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the TwoPass method needs %llu bytes of scratch for "
                            "this region, above the device's maxStorageBufferRange", fn,
                            static_cast<unsigned long long>(p.twoPassLayout.scratchBytes));
        }
        groupsFit = fits(p.twoPassLayout.groups[0][0], p.twoPassLayout.groups[0][1]) &&
                    fits(p.twoPassLayout.groups[1][0], p.twoPassLayout.groups[1][1]);
    } else if (p.decimated) {
        for (int a = 0; a < 2; ++a) p.norm[a] = static_cast<float>(1.0 / detail::gaussianSum(sigma[a], p.radius[a]));
        // Pass 2's small-kernel pipeline where the horizontal spacing is small (see kBlurGridSmallMaxSpacing).
        const bool small = m_gridSmallPass2 && p.radius[0] <= detail::kBlurGridSmallRadius &&
                           detail::blurGridStep(sigma[0], p.radius[0]) <= detail::kBlurGridSmallMaxSpacing;
        p.gridPass2 = small ? m_gridSmallPass2 : m_gridPasses[1];
        p.grid = detail::blurGridLayout(extent, p.layers, p.radius[0], p.radius[1], sigma[0], sigma[1], fmt,
                                        small ? m_gridSmallStageVecs : m_gridStageVecs, m_gridPasses[3] != VK_NULL_HANDLE,
                                        limits.maxStorageBufferRange);
        if (p.grid.scratchBytes > limits.maxStorageBufferRange && autoDecimated) {
            BlurInfo direct = info;
            direct.method = BlurMethod::Direct;
            return plan(direct, fn, false, out);
        }
        if (p.grid.scratchBytes > limits.maxStorageBufferRange) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the Decimated method needs %llu bytes of scratch for "
                            "this region, above the device's maxStorageBufferRange", fn,
                            static_cast<unsigned long long>(p.grid.scratchBytes));
        }
        groupsFit = true;
        for (const auto& groups : p.grid.groups) groupsFit = groupsFit && fits(groups[0], groups[1]);
        for (const auto& groups : p.grid.momentGroups) groupsFit = groupsFit && (!p.grid.moments || fits(groups[0], groups[1]));
    }
    if (!groupsFit) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the region needs more workgroups than the device allows", fn);
    }
    *out = p;
    return VK_SUCCESS;
}

inline ScratchRequirements Blurrer::scratchRequirements(const BlurInfo& info) const
{
    ScratchRequirements req;
    if (!m_device) return req;
    Plan p;
    if (plan(info, "vkfx::Blurrer::scratchRequirements", true, &p) != VK_SUCCESS || p.scratchBytes() == 0) return req;
    req.size = p.scratchBytes();
    req.alignment = detail::storageBufferAlignment(*m_device);
    return req;
}

inline VkResult Blurrer::planRecord(const BlurInfo& info, const char* fn, Plan* out) const
{
    Plan p;
    VkResult r = plan(info, fn, info.scratchBuffer != VK_NULL_HANDLE, &p);
    if (r != VK_SUCCESS) return r;
    const Device& dev = *m_device;
    const VkDeviceSize scratchBytes = p.scratchBytes();
    if (scratchBytes != 0) {
        if (!info.scratchBuffer) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the %s method needs scratchBuffer (%llu bytes: "
                            "scratchRequirements())", fn, p.decimated ? "Decimated" : "TwoPass",
                            static_cast<unsigned long long>(scratchBytes));
        }
        const VkDeviceSize alignment = detail::storageBufferAlignment(dev);
        if (info.scratchOffset % alignment != 0) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: scratchOffset %llu is not a multiple of %llu", fn,
                            static_cast<unsigned long long>(info.scratchOffset),
                            static_cast<unsigned long long>(alignment));
        }
        if (info.scratchSize != VK_WHOLE_SIZE && info.scratchSize < scratchBytes) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: scratchSize %llu is below the %llu bytes this blur "
                            "needs", fn, static_cast<unsigned long long>(info.scratchSize),
                            static_cast<unsigned long long>(scratchBytes));
        }
    }
    *out = p;
    return VK_SUCCESS;
}

inline VkResult Blurrer::methodFor(const BlurInfo& info, BlurMethod* method) const
{
    const char* fn = "vkfx::Blurrer::methodFor";
    if (!m_device) return detail::fail(nullptr, nullptr, VK_ERROR_VALIDATION_FAILED_EXT, "%s: the Blurrer is not created", fn);
    if (!method) return m_device->fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: method is null", fn);
    Plan p;
    VkResult r = planRecord(info, fn, &p);
    if (r != VK_SUCCESS) return r;
    *method = p.decimated ? BlurMethod::Decimated : p.twoPass ? BlurMethod::TwoPass : BlurMethod::Direct;
    return VK_SUCCESS;
}

inline VkResult Blurrer::record(VkCommandBuffer cmd, const BlurInfo& info) const
{
    const char* fn = "vkfx::Blurrer::record";
    if (!m_device) return detail::fail(nullptr, nullptr, VK_ERROR_VALIDATION_FAILED_EXT, "%s: the Blurrer is not created", fn);
    const Device& dev = *m_device;
    if (!cmd) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: cmd is VK_NULL_HANDLE", fn);
    Plan p;
    VkResult r = planRecord(info, fn, &p);
    if (r != VK_SUCCESS) return r;
    const VkDeviceSize scratchBytes = p.scratchBytes();
    VkDescriptorBufferInfo scratch{info.scratchBuffer, info.scratchOffset, scratchBytes};

    const DeviceFunctions& f = dev.fn();
    VkDescriptorImageInfo source{VK_NULL_HANDLE, p.source->m_sampled, info.sourceLayout};
    VkDescriptorImageInfo dst{VK_NULL_HANDLE, p.destination->m_storage, VK_IMAGE_LAYOUT_GENERAL};
    VkWriteDescriptorSet writes[3] = {};
    for (VkWriteDescriptorSet& w : writes) {
        w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        w.descriptorCount = 1;
    }
    writes[0].dstBinding = detail::kBlurBindingSource;
    writes[0].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER; // immutable sampler
    writes[0].pImageInfo = &source;
    writes[1].dstBinding = detail::kBlurBindingDst;
    writes[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    writes[1].pImageInfo = &dst;
    writes[2].dstBinding = detail::kBlurBindingScratch;
    writes[2].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[2].pBufferInfo = &scratch;

    // What the walk's and the Decimated method's push constants hold: the region and its border
    // (BlurTilePush packs them).
    auto region = [&](auto& push) {
        push.srcOffset[0] = info.sourceOffset.x;
        push.srcOffset[1] = info.sourceOffset.y;
        push.dstOffset[0] = info.destinationOffset.x;
        push.dstOffset[1] = info.destinationOffset.y;
        push.extent[0] = p.extent.width;
        push.extent[1] = p.extent.height;
        push.border = static_cast<std::uint32_t>(info.border);
        for (int c = 0; c < 4; ++c) push.borderColor[c] = info.borderColor[c];
    };
    if (scratchBytes == 0) {
        f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
        f.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m_pipelineLayout, 0, 2, writes);
        if (p.tile) {
            detail::BlurTilePush push{};
            push.srcOffset = detail::blurPackHalves(static_cast<std::uint32_t>(info.sourceOffset.x),
                                                    static_cast<std::uint32_t>(info.sourceOffset.y));
            push.dstOffset = detail::blurPackHalves(static_cast<std::uint32_t>(info.destinationOffset.x),
                                                    static_cast<std::uint32_t>(info.destinationOffset.y));
            push.extent = detail::blurPackHalves(p.extent.width, p.extent.height);
            push.borderSegment = detail::blurPackHalves(static_cast<std::uint32_t>(info.border), p.layout.segment);
            for (int c = 0; c < 4; ++c) push.borderColor[c] = info.borderColor[c];
            // (p.scale is 0 for a box.) The wide kernels (radii above 11 on devices that take 256
            // bytes) read all 256 bytes, the others the first 128.
            if (p.radius[0] <= (p.tileWide ? detail::kBlurTileWideWeightsMaxRadius
                                           : detail::kBlurTileHostWeightsMaxRadius)) {
                detail::blurTileWeights(p.scale, p.radius[0], push.weights);
            } else {
                push.weights[0] = p.scale[0];
                push.weights[1] = p.scale[1];
            }
            f.vkCmdPushConstants(cmd, m_pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                 p.tileWide ? detail::kBlurTileWidePushBytes : detail::kBlurTilePushBytes, &push);
        } else {
            detail::BlurPush push{};
            region(push);
            push.radius[0] = p.radius[0];
            push.radius[1] = p.radius[1];
            push.weightScale[0] = p.scale[0];
            push.weightScale[1] = p.scale[1];
            push.kernel = static_cast<std::uint32_t>(info.filter);
            push.strip = p.layout.strip;
            push.rows = p.layout.rows;
            push.segment = p.layout.segment;
            push.ringRows = p.layout.ringRows;
            f.vkCmdPushConstants(cmd, m_pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
        }
        f.vkCmdDispatch(cmd, p.layout.groupsX, p.layout.groupsY, p.layers);
        return VK_SUCCESS;
    }

    // The scratch: earlier records' reads and writes of it done before this one writes it.
    VkBufferMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.buffer = info.scratchBuffer;
    barrier.offset = info.scratchOffset;
    barrier.size = scratchBytes;
    barrier.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                           nullptr, 1, &barrier, 0, nullptr);
    detail::BlurGridPush push{};
    region(push);
    for (int a = 0; a < 2; ++a) {
        push.radius[a] = p.radius[a];
        push.weightScale[a] = p.scale[a];
        push.weightNorm[a] = p.norm[a];
    }
    if (p.twoPass) {
        // Pass 6 writes H, pass 7 reads it (push.grid 0: weight tables without padding).
        const detail::BlurTwoPassLayout& t = p.twoPassLayout;
        push.outRows = t.rowOutputs;
        push.columnTaps = t.columnTaps;
        f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m_gridPasses[5]);
        f.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m_gridPipelineLayout, 0, 3, writes);
        f.vkCmdPushConstants(cmd, m_gridPipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
        f.vkCmdDispatch(cmd, t.groups[0][0], t.groups[0][1], p.layers);
        barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
        f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                               nullptr, 1, &barrier, 0, nullptr);
        f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m_gridPasses[t.wideColumns ? 7 : 6]);
        f.vkCmdDispatch(cmd, t.groups[1][0], t.groups[1][1], p.layers);
        return VK_SUCCESS;
    }
    const detail::BlurGridLayout& g = p.grid;
    f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g.moments ? m_gridPasses[3] : m_gridPasses[0]);
    f.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m_gridPipelineLayout, 0, 3, writes);
    for (int a = 0; a < 2; ++a) push.grid[a] = g.step[a];
    push.gridCols = g.gridCols;
    push.gridRows = g.gridRows;
    push.gridOffset = g.gridOffset;
    push.splits[0] = g.moments ? g.momentSplits : g.splits[0]; // pass 5's or pass 1's (never both)
    push.splits[1] = g.splits[1];
    push.outRows = g.outRows;
    push.staged = g.staged ? 1u : 0u;
    f.vkCmdPushConstants(cmd, m_gridPipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    // Each pass reads what the pass before wrote (the moments, V, then F); pass 2 writes F over the
    // moments that pass 5 read.
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    if (g.moments) {
        f.vkCmdDispatch(cmd, g.momentGroups[0][0], g.momentGroups[0][1], p.layers);
        f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                               nullptr, 1, &barrier, 0, nullptr);
        f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m_gridPasses[4]);
        f.vkCmdDispatch(cmd, g.momentGroups[1][0], g.momentGroups[1][1], p.layers);
        barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    } else {
        f.vkCmdDispatch(cmd, g.groups[0][0], g.groups[0][1], p.layers);
    }
    for (int pass = 1; pass < 3; ++pass) {
        f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                               nullptr, 1, &barrier, 0, nullptr);
        f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass == 1 ? p.gridPass2 : m_gridPasses[pass]);
        f.vkCmdDispatch(cmd, g.groups[pass][0], g.groups[pass][1], p.layers);
    }
    return VK_SUCCESS;
}

} // namespace vkfx
