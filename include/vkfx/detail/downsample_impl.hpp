// Implementation of vkfx/downsample.hpp. Include that header, not this one.
#pragma once

#include <vkfx/downsample.hpp>

namespace vkfx {
namespace detail {

struct DownsampleFormat {
    VkFormat format;
    VkFormat storage;  // format of the storage views (UNORM for sRGB)
    std::uint32_t channels;
    bool srgb;
    bool writeWithoutFormat; // no GLSL format qualifier
    bool extendedFormat;     // the qualifier needs StorageImageExtendedFormats
    const std::uint32_t* single;
    std::size_t singleBytes;
    const std::uint32_t* minmax;
    std::size_t minmaxBytes;
    // Kernels that read level 0 through a view of `packedView` (RGBA16F as R32G32_UINT: two
    // textureGather per footprint instead of four), for images created with MUTABLE_FORMAT.
    VkFormat packedView = VK_FORMAT_UNDEFINED;
    const std::uint32_t* packedSingle = nullptr;
    std::size_t packedSingleBytes = 0;
    const std::uint32_t* packedMinmax = nullptr;
    std::size_t packedMinmaxBytes = 0;
};

#define VKFX_DS_BLOBS(v)                                                                           \
    spirv::downsample_##v##_single, sizeof(spirv::downsample_##v##_single),                        \
        spirv::downsample_##v##_minmax, sizeof(spirv::downsample_##v##_minmax)

inline const DownsampleFormat* findDownsampleFormat(VkFormat format)
{
    static const DownsampleFormat table[] = {
        {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM, 4, false, false, false, VKFX_DS_BLOBS(rgba8)},
        {VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R8G8B8A8_UNORM, 4, true, false, false, VKFX_DS_BLOBS(rgba8)},
        {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM, 4, false, true, false, VKFX_DS_BLOBS(bgra8)},
        {VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM, 4, true, true, false, VKFX_DS_BLOBS(bgra8)},
        {VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT, 4, false, false, false,
         VKFX_DS_BLOBS(rgba16f), VK_FORMAT_R32G32_UINT, VKFX_DS_BLOBS(rgba16f_packed)},
        {VK_FORMAT_R16G16_SFLOAT, VK_FORMAT_R16G16_SFLOAT, 2, false, false, true, VKFX_DS_BLOBS(rg16f)},
        {VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32_SFLOAT, 1, false, false, false, VKFX_DS_BLOBS(r32f)},
        {VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT, 4, false, false, false,
         VKFX_DS_BLOBS(rgba32f)},
        {VK_FORMAT_B10G11R11_UFLOAT_PACK32, VK_FORMAT_B10G11R11_UFLOAT_PACK32, 3, false, false, true,
         VKFX_DS_BLOBS(r11g11b10f)},
        {VK_FORMAT_R16_UNORM, VK_FORMAT_R16_UNORM, 1, false, false, true, VKFX_DS_BLOBS(r16)},
        {VK_FORMAT_R8_UNORM, VK_FORMAT_R8_UNORM, 1, false, false, true, VKFX_DS_BLOBS(r8)},
        {VK_FORMAT_R8G8_UNORM, VK_FORMAT_R8G8_UNORM, 2, false, false, true, VKFX_DS_BLOBS(rg8)},
        {VK_FORMAT_R16_SFLOAT, VK_FORMAT_R16_SFLOAT, 1, false, false, true, VKFX_DS_BLOBS(r16f)},
        {VK_FORMAT_A2B10G10R10_UNORM_PACK32, VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4, false, false,
         true, VKFX_DS_BLOBS(rgb10a2)},
    };
    for (const DownsampleFormat& f : table) {
        if (f.format == format) return &f;
    }
    return nullptr;
}
#undef VKFX_DS_BLOBS

// Push constants of shaders/downsample/downsample.comp.
struct DownsamplePush {
    std::uint32_t extent[2];
    float invExtent[2];
    std::uint32_t levelCount;
    std::uint32_t counterOffset1;
    std::uint32_t counterOffset2;
    std::uint32_t dataOffset6;
    std::uint32_t dataOffset12;
    std::uint32_t shape; // the regular blocks a stage-0 workgroup holds: DownsampleGroupShape
    std::uint32_t split; // what the dispatch does: DownsampleSplit
};

// DownsamplePush::shape (downsample.comp's groupBlocks()).
enum DownsampleGroupShape : std::uint32_t {
    kDownsampleGroup1x1 = 0, // one regular block per workgroup
    kDownsampleGroup2x2 = 1, // a 2x2 of them
    kDownsampleGroup2x1 = 2, // two side by side
};

// DownsamplePush::split (downsample.comp's kWhole, kStage0, kAbove).
enum DownsampleSplit : std::uint32_t {
    kDownsampleWhole = 0,  // one dispatch: the whole chain
    kDownsampleStage0 = 1, // the first of two: levels up to 6, published, no tickets
    kDownsampleAbove = 2,  // the second: one workgroup per 64x64 block of level-6 texels
};

// Bindings of shaders/downsample/downsample.comp.
enum : std::uint32_t {
    kDownsampleBindingSource = 0,
    kDownsampleBindingDst = 1,
    kDownsampleBindingDstMax = 2,
    kDownsampleBindingScratch = 3,
};

// How the kernel reads the 2x2 footprints of level 0 (spec constant 4 of downsample.comp; the odd
// edges' 3-wide footprints always fetch).
enum DownsampleRead : std::uint32_t {
    kDownsampleReadFetch = 0,    // four texelFetch per 2x2 footprint
    kDownsampleReadBilinear = 1, // one bilinear sample per footprint (Average)
    kDownsampleReadGather = 2,   // one textureGather per channel of each footprint
};

// The multi-channel formats whose bilinear filter on NVIDIA GPUs is finer than the format, so that
// one sample per 2x2 footprint keeps an Average chain within 1 ulp of the exact one: measured on
// an H200 for 8-bit UNORM RGBA / BGRA (within 0.5 code of the exact mean), B10G11R11 and RGBA32F,
// and on an H100 for R8G8_UNORM and A2B10G10R10_UNORM_PACK32 (every level within 0.5625 code of
// the exact chain, as with texelFetch). Not RGBA16F nor RG16F (NVIDIA filters fp16 to fp16
// precision, so fp16 chains drift past 1 ulp from level 2 on): they fetch or gather.
inline bool downsampleNvidiaFilterIsFiner(VkFormat format)
{
    switch (format) {
    case VK_FORMAT_R8G8B8A8_UNORM:
    case VK_FORMAT_B8G8R8A8_UNORM:
    case VK_FORMAT_R8G8_UNORM:
    case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
    case VK_FORMAT_B10G11R11_UFLOAT_PACK32:
    case VK_FORMAT_R32G32B32A32_SFLOAT:
        return true;
    default:
        return false;
    }
}

// The read of a Downsampler (documented at DownsamplerFlagTexelFetch and
// DownsamplerFlagSamplerFilter) for `format` of `channels` channels, an sRGB format or not, a depth
// pyramid or not, on an NVIDIA GPU or not, where the format's optimal tiling supports linear
// filtering (`filters`) or not. By default one-channel formats and RGBA16F gather each footprint,
// one textureGather per channel (exact everywhere; RGBA16F on an H200: 4096^2 80 us against 92
// with texelFetch, while sRGB8 and RG16F were slower gathered), and Average chains of the formats
// of downsampleNvidiaFilterIsFiner take one bilinear sample per footprint on NVIDIA GPUs
// (lavapipe's 8-bit filter rounds to 8 bits); the others fetch. DownsamplerFlagSamplerFilter
// takes the bilinear sample for every Average chain of more than one channel that filters.
inline std::uint32_t downsampleReadMode(DownsamplerFlags flags, Reduction reduction, VkFormat format,
                                        std::uint32_t channels, bool srgb, bool depth, bool nvidia,
                                        bool filters)
{
    const bool average = reduction == Reduction::Average;
    if ((flags & DownsamplerFlagSamplerFilter) && average && !depth && channels > 1 && filters)
        return kDownsampleReadBilinear;
    if (flags & DownsamplerFlagTexelFetch)
        return kDownsampleReadFetch;
    if (channels == 1 || format == VK_FORMAT_R16G16B16A16_SFLOAT)
        return kDownsampleReadGather;
    if (average && !srgb && downsampleNvidiaFilterIsFiner(format) && nvidia && filters)
        return kDownsampleReadBilinear;
    return kDownsampleReadFetch;
}

// downsampleReadMode for a Downsampler of `info` (format `fmt`) on `device`: the device's vendor,
// and whether the optimal tiling of the format level 0 is sampled as (depthFormat for a depth
// pyramid) filters linearly. Downsampler::create and the tests take the read mode from here.
inline std::uint32_t downsampleReadModeOn(const Device& device, const DownsamplerCreateInfo& info,
                                          const DownsampleFormat& fmt)
{
    const bool depth = info.depthFormat != VK_FORMAT_UNDEFINED;
    const VkFormat sampledFormat = depth ? info.depthFormat : info.format;
    return downsampleReadMode(info.flags, info.reduction, info.format, fmt.channels, fmt.srgb, depth,
                              device.properties().vendorID == 0x10DEu,
                              (device.optimalFormatFeatures(sampledFormat) &
                               VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) != 0);
}

// Whether a kernel of read mode `read` and `channels` channels reads a regular 2x2 footprint with
// one sampler read (a bilinear sample, or the one gather of a one-channel format).
inline bool downsampleOneReadPerFootprint(std::uint32_t read, std::uint32_t channels) {
    return read == kDownsampleReadBilinear || (channels == 1 && read != kDownsampleReadFetch);
}

inline std::uint32_t mipExtent(std::uint32_t e, std::uint32_t level)
{
    return vkfx::mipExtent(VkExtent2D{e, 1u}, level).width;
}

// Scratch words of a dispatch: counters of the level-12 and level-18 blocks, then the published
// level-6 and level-12 texels, each for all layers.
struct DownsampleScratchLayout {
    std::uint32_t counterOffset1 = 0, counterOffset2 = 0, dataOffset6 = 0, dataOffset12 = 0;
    VkDeviceSize words = 0;
};

// Whether a record makes its chain in two dispatches (DownsampleDispatches): `levels` levels above
// the level read, whose extent is `extent`, over `layers` layers. `registersAbove`: the format has
// more than one channel and the second dispatch reduces regular blocks from registers (subgroup
// shuffles in use, subgroups of 4 or more); then a level 6 of more than
// kDownsampleTwoDispatchTexels6 texels a layer takes two (46x46 and up, from 2944x2944; 64x33 of
// 4096x2112; not 3840x2160's 60x33 nor 4096x2048's 64x32). H100, one / two dispatches, median us:
// RGBA8 4095^2 54.0 / 52.9, 3000^2 34.0 / 33.4, 3840x2160 33.2 / 33.0, 4095x2048 34.1 / 34.6,
// 2048^2 20.6 / 20.9; sRGB8 4095^2 70.3 / 68.6, 3000^2 43.7 / 42.1; RGBA16F 4095^2 96.5 / 94.6,
// 3000^2 58.2 / 57.5; but R32F 4095^2 55.8 / 57.2, whose one-dispatch tail reads 4-byte words.
// (H200, 4096^2: RGBA8 43.3 / 40.8, RGBA16F 79.7 / 75.2, sRGB8 60.0 / 58.1, R32F 37.5 / 38.0.)
inline bool downsampleTwoDispatches(DownsampleDispatches d, VkExtent2D extent, std::uint32_t layers,
                                    std::uint32_t levels, bool registersAbove) {
    if (levels <= 6 || d == DownsampleDispatches::One)
        return false;
    // Texels of level 6 in a layer: one per 64x64 block of the level read.
    const std::uint64_t texels6 = std::uint64_t{mipExtent(extent.width, 6)} * mipExtent(extent.height, 6);
    return d == DownsampleDispatches::Two || texels6 * layers >= kDownsampleTwoDispatchBlocks ||
           (registersAbove && texels6 > kDownsampleTwoDispatchTexels6);
}

// How many regular blocks (64x64 texels of level 0 that the extent's multiple of 64 covers, over
// all layers: `regularBlocks`) a stage-0 workgroup holds. The fewest that leave few enough
// workgroups to run at once: one block each up to 384 (every workgroup in the first wave), two
// side by side below 800, a 2x2 from there (each block's reads overlap the block before it where
// the kernel reads a footprint once, and one ticket serves four blocks). Measured on an H200,
// median us, one block / 2x1 / 2x2:
// - 1024^2 (256 blocks): RGBA8 11.0 / 11.8 / 13.8, R32F 10.4 / 11.4 / 13.4, sRGB8 11.9 / 14.0 /
//   18.9, RGBA16F 13.7 / 15.8 / 21.7;
// - 1920x1080 (450): RGBA8 15.4 / 15.0 / 15.3, R32F 14.1 / 13.9 / 14.8, sRGB8 18.4 / 17.4 / 20.4,
//   RGBA16F 21.0 / 21.3 / 24.9;
// - 2560x1440 (840): RGBA8 20.0 / 19.6 / 18.1, R32F 17.2 / 16.5 / 17.3, sRGB8 24.1 / 24.8 / 23.4,
//   RGBA16F 28.9 / 30.6 / 29.6;
// - 2048^2 (1024): RGBA8 20.8 / 20.0 / 18.1, R32F 17.5 / 16.4 / 17.3, sRGB8 24.8 / 25.0 / 23.5,
//   RGBA16F 30.3 / 31.5 / 30.1;
// - 4096^2: RGBA8 54.0 / 45.8 / 43.4, R32F 40.6 / 38.3 / 37.3, sRGB8 66.5 / 61.2 / 60.4, RGBA16F
//   82.6 / 79.5 / 80.6;
// - 2048x1536 (768): RGBA8 17.4 / 15.4 / 16.9, R32F 15.7 / 14.6 / 16.4, sRGB8 20.2 / 18.7 / 22.3,
//   RGBA16F 24.4 / 23.5 / 27.9 (two side by side: 384 workgroups, three to an SM of 132 hold them
//   all); 1280x720 (200 and 20 edge blocks): RGBA8 13.7 / 13.3 / 13.9, R32F 12.1 / 12.1 / 13.3,
//   sRGB8 15.6 / 14.4 / 19.3, RGBA16F 17.8 / 17.1 / 22.0 (not taken: below 384 one block each).
inline DownsampleGroupShape downsampleGroupShape(std::uint64_t regularBlocks) {
    return regularBlocks <= 384  ? kDownsampleGroup1x1
           : regularBlocks < 800 ? kDownsampleGroup2x1
                                 : kDownsampleGroup2x2;
}

// Workgroups of an Average downsample kernel an NVIDIA SM holds at once: three of 256 invocations
// at the 80 registers those kernels take (a 64K-register file; measured for sRGB8 and RGBA16F).
// Min+max kernels hold more (RGBA16F 148 registers: one workgroup an SM) and do not use it.
inline constexpr std::uint32_t kDownsampleGroupsPerMultiprocessor = 3;
// downsampleGroupSlotsOverride (tests only, not thread-safe): -1 the device's slots (above), else
// the workgroup slots that Downsamplers created after take where the shape rule uses them (0: not
// known, the rule by block count).
inline std::int64_t downsampleGroupSlotsOverride = -1;

// The shape for a grid of innerX x innerY regular blocks over `layers` layers, beside `edgeBlocks`
// edge blocks a layer (a workgroup each), on a device that runs `groupSlots` workgroups at once (0:
// not known, or a kernel that reads a footprint once, which keeps the rule above). Where that rule
// takes a 2x2 and a 2x2 leaves a part-filled last wave that two side by side fill better, the
// latter: the time taken as waves x blocks a workgroup, two side by side where that is at most 0.8
// of a 2x2's. Kernels that read a footprint once keep the 2x2 (each block's reads overlap the
// block before it). Where both shapes fit one wave (a GPU of more than 133 SMs at 2560x1440, say)
// the model takes two side by side too, as the rule by count does below 800 blocks (not measured
// there). H100, median us, 2x2 / 2x1 / one block: sRGB8 3840x2160 44.2 / 42.1 / 43.5 (540 / 1020 /
// 1980 workgroups for 396 slots), 2560x2560 38.6 / 35.2 / 36.2, 3200x2400 43.0 / 40.4 / 41.3,
// 4096^2 65.1 / 65.7 / 70.6, 2560x1440 25.0 / 26.4 / 25.8, 2048^2 25.5 / 26.9 / 27.1; RGBA16F
// 61.1 / 55.0 / 55.0, 51.6 / 46.2 / 45.3, 59.2 / 52.6 / 51.8, 93.1 / 90.6 / 91.1, 33.0 / 33.9 /
// 31.6, 34.4 / 34.8 / 33.8 (2x1 where 2x2 leaves 1-1.5 waves; the rule keeps 2x2 where the three
// are within 5%).
inline DownsampleGroupShape downsampleGroupShape(std::uint32_t innerX, std::uint32_t innerY, std::uint32_t layers,
                                                 std::uint32_t edgeBlocks, std::uint64_t groupSlots) {
    const DownsampleGroupShape shape = downsampleGroupShape(std::uint64_t{innerX} * innerY * layers);
    if (shape != kDownsampleGroup2x2 || groupSlots == 0)
        return shape;
    const std::uint64_t halfX = (std::uint64_t{innerX} + 1) / 2;
    const std::uint64_t quads = halfX * ((innerY + 1) / 2) * layers + std::uint64_t{edgeBlocks} * layers;
    const std::uint64_t pairs = halfX * innerY * layers + std::uint64_t{edgeBlocks} * layers;
    auto waves = [&](std::uint64_t groups) { return (groups + groupSlots - 1) / groupSlots; };
    return 5 * 2 * waves(pairs) <= 4 * 4 * waves(quads) ? kDownsampleGroup2x1 : kDownsampleGroup2x2;
}

// The shape for a kernel that gathers each channel of a footprint (RGBA16F without its packed view:
// four textureGather a footprint), after downsampleGroupShape (with the device's slots known):
// where that takes a 2x2, one block per workgroup below 2048 regular blocks and two side by side
// from there up to kDownsampleTwoDispatchBlocks (measured with one dispatch, 4096^2 included, which
// now takes two: DownsampleDispatches). Such groups spend most of their time waiting on their own
// reads; smaller groups hide more of it. H100 (two
// interleaved rounds within 1%), median us, one block / 2x2 / 2x1: 2048^2 33.8 / 34.9 / 34.9,
// 2560x1440 31.7 / 33.6 / 34.2, 2560x2048 39.4 / 41.4 / 39.7, 2880x1620 38.9 / 40.9 / 39.4,
// 3440x1440 40.0 / 42.2 / 41.1, 2304x2304 39.5 / 41.3 / 39.7, 4096^2 91.7 / 92.9 / 90.5; below
// 800 blocks two side by side stay ahead (2048x1536 27.7 / 30.8 / 26.9). On an H200: 2560x1440
// 28.9 / 29.6 / 30.6, 2048^2 30.3 / 30.1 / 31.5, 4096^2 82.6 / 80.6 / 79.5, and 8192^2 (two
// dispatches) 283.4 / 264.9 / 266.3, where the 2x2 stays.
inline DownsampleGroupShape downsampleGatherShape(DownsampleGroupShape shape, std::uint64_t regularBlocks) {
    if (shape != kDownsampleGroup2x2 || regularBlocks >= kDownsampleTwoDispatchBlocks)
        return shape;
    return regularBlocks < 2048 ? kDownsampleGroup1x1 : kDownsampleGroup2x1;
}

// Whether the kernel reads a generic footprint (from shared memory, and of an edge block's level 0
// or published input) as one 3x3 window, and a row of an edge's 2x2 footprints together (spec
// constant 5 of downsample.comp; the same bits as its loops but for the bilinear read mode): on
// every device but CPU implementations, whose compilers take about 1.9x as long with it (lavapipe,
// RGBA8: 11.1 against 5.8 s a pipeline; on an H200 the window made RGBA8 1920x1080 17.0 -> 15.3
// us). downsampleWindowReadsOverride (tests only, not thread-safe): 0 the rule, 1 the window, 2
// the loops, for Downsamplers created after.
inline int downsampleWindowReadsOverride = 0;
inline VkBool32 downsampleWindowReads(VkPhysicalDeviceType type) {
    if (downsampleWindowReadsOverride != 0)
        return downsampleWindowReadsOverride == 1 ? VK_TRUE : VK_FALSE;
    return type != VK_PHYSICAL_DEVICE_TYPE_CPU ? VK_TRUE : VK_FALSE;
}

// Whether a Downsampler also makes a pipeline whose edge blocks make their level-2 texels with odd
// footprints after the others (spec constant 7 of downsample.comp; the same bits), for chains
// whose level read is not a multiple of 4 on a side (downsampleOddEdges): on every device but CPU
// implementations, where it would only add a pipeline's compile time. (With the reordered loop in
// the one pipeline, sizes that never run it were slower: H100, sRGB8 3840x2160 39.1 -> 40.4 us,
// RGBA16F 4096^2 87.5 -> 89.5.) downsampleEdgeOrderOverride (tests only, not thread-safe): 0 the
// rule, 1 on, 2 off, for Downsamplers created after.
inline int downsampleEdgeOrderOverride = 0;
inline bool downsampleEdgeOrder(VkPhysicalDeviceType type) {
    if (downsampleEdgeOrderOverride != 0)
        return downsampleEdgeOrderOverride == 1;
    return type != VK_PHYSICAL_DEVICE_TYPE_CPU;
}

// The most 64x64 blocks of the level read (over all layers) with which a chain that has odd edge
// texels binds that pipeline (downsampleOddEdges), for a kernel of read mode `read` and
// `channels` channels: 2048 where it reads a regular footprint with one sampler read, 1024 for
// the others. Edge groups come first in dispatch order and end last; on larger images the regular
// blocks take the time, and the reordered pipeline's build of them was slower where a footprint
// takes several reads. H100, median us, row-major / odd texels last
// (docs/downsample-performance.md v44): 2047^2 (961 blocks) RGBA8 28.6 / 22.4, sRGB8 32.5 / 26.8,
// RGBA16F 39.6 / 34.3, R32F 27.1 / 20.9; 2879x1619 (1100) RGBA16F 36.9 / 37.2; 3839x2159 (1947)
// RGBA8 35.3 / 33.8, R32F 37.1 / 32.9, sRGB8 40.7 / 42.1, RGBA16F 54.1 / 56.7; 4095^2 (3969)
// RGBA8 51.6 / 51.8.
inline std::uint64_t downsampleOddEdgeBlocks(std::uint32_t read, std::uint32_t channels) {
    return downsampleOneReadPerFootprint(read, channels) ? 2048 : 1024;
}

// Whether a chain read from a level of `extent` over `layers` layers binds the pipeline with odd
// edge texels last: a side that is not a multiple of 4 (so level 2 has texels whose footprint is
// not 4x4, which only edge blocks hold), and at most `maxBlocks` 64x64 blocks.
inline bool downsampleOddEdges(VkExtent2D extent, std::uint32_t layers, std::uint64_t maxBlocks) {
    if ((extent.width & 3u) == 0 && (extent.height & 3u) == 0)
        return false;
    const std::uint64_t blocks = std::uint64_t{mipExtent(extent.width, 6)} * mipExtent(extent.height, 6);
    return blocks * layers <= maxBlocks;
}

// Scratch words of one published texel: three channels are padded to four (one 16-byte quad, as the
// kernel's kVecWords), MinMax holds two values.
inline std::uint32_t downsampleWordsPerTexel(std::uint32_t channels, bool minmax) {
    return (channels == 3 ? 4u : channels) * (minmax ? 2u : 1u);
}

inline DownsampleScratchLayout downsampleScratchLayout(VkExtent2D e, std::uint32_t layers,
                                                       std::uint32_t levelCount,
                                                       std::uint32_t wordsPerTexel)
{
    auto area = [&](std::uint32_t level) {
        return VkDeviceSize{mipExtent(e.width, level)} * mipExtent(e.height, level) * layers;
    };
    DownsampleScratchLayout l;
    VkDeviceSize w = 0;
    auto take = [&](VkDeviceSize n) {
        w = (w + 3) & ~VkDeviceSize{3}; // 16-byte aligned: 3- and 4-channel texels move as one quad
        auto at = static_cast<std::uint32_t>(w);
        w += n;
        return at;
    };
    if (levelCount > 6) l.counterOffset1 = take(area(12));
    if (levelCount > 12) l.counterOffset2 = take(area(18));
    if (levelCount > 6) l.dataOffset6 = take(area(6) * wordsPerTexel);
    if (levelCount > 12) l.dataOffset12 = take(area(12) * wordsPerTexel);
    l.words = w;
    return l;
}

inline bool isDepthFormat(VkFormat f)
{
    return f == VK_FORMAT_D32_SFLOAT || f == VK_FORMAT_D16_UNORM;
}

} // namespace detail

// ---------------------------------------------------------------------------------------------
// DownsampleTarget

inline void DownsampleTarget::swap(DownsampleTarget& other) noexcept
{
    std::swap(m_device, other.m_device);
    std::swap(m_info, other.m_info);
    std::swap(m_sampled, other.m_sampled);
    std::swap(m_sampledRaw, other.m_sampledRaw);
    std::swap(m_rawPacked, other.m_rawPacked);
    std::swap(m_storage, other.m_storage);
    std::swap(m_storageMax, other.m_storageMax);
    std::swap(m_depth, other.m_depth);
}

inline void DownsampleTarget::destroy()
{
    if (!m_device) return;
    const DeviceFunctions& f = m_device->fn();
    auto kill = [&](VkImageView& v) {
        if (v) f.vkDestroyImageView(m_device->handle(), v, m_device->allocator());
        v = VK_NULL_HANDLE;
    };
    for (std::uint32_t i = 0; i < kMaxLevels; ++i) {
        kill(m_sampled[i]);
        kill(m_sampledRaw[i]);
        kill(m_storage[i]);
        kill(m_storageMax[i]);
    }
    kill(m_depth);
    m_rawPacked = false;
    m_device = nullptr;
}

inline VkResult DownsampleTarget::create(const Device& device, const DownsampleTargetCreateInfo& info,
                                         DownsampleTarget* target)
{
    const char* fn = "vkfx::DownsampleTarget::create";
    if (!target) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: target is null", fn);
    target->destroy();
    if (!device.valid()) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: device is not created", fn);
    if (!info.image) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: image is VK_NULL_HANDLE", fn);
    const detail::DownsampleFormat* fmt = detail::findDownsampleFormat(info.format);
    if (!fmt) {
        return device.fail(VK_ERROR_FORMAT_NOT_SUPPORTED,
                           "%s: format %d is not one vkfx downsamples (see vkfx/downsample.hpp)", fn,
                           static_cast<int>(info.format));
    }
    const VkPhysicalDeviceLimits& limits = device.properties().limits;
    if (info.extent.width == 0 || info.extent.height == 0) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: extent %ux%u is empty", fn,
                           info.extent.width, info.extent.height);
    }
    if (info.extent.width > limits.maxImageDimension2D || info.extent.height > limits.maxImageDimension2D) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                           "%s: extent %ux%u exceeds the device's maxImageDimension2D %u", fn,
                           info.extent.width, info.extent.height, limits.maxImageDimension2D);
    }
    std::uint32_t full = fullMipLevels(info.extent);
    if (info.mipLevels == 0 || info.mipLevels > full || info.mipLevels > kMaxLevels) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                           "%s: mipLevels %u is outside 1..%u for a %ux%u image", fn, info.mipLevels,
                           std::min(full, kMaxLevels), info.extent.width, info.extent.height);
    }
    if (VkResult r = detail::checkLayers(device, fn, info.baseArrayLayer, info.layerCount); r != VK_SUCCESS) return r;
    const bool depth = info.depth.image != VK_NULL_HANDLE;
    if (!(info.usage & VK_IMAGE_USAGE_STORAGE_BIT)) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                           "%s: image usage lacks VK_IMAGE_USAGE_STORAGE_BIT (levels are written as "
                           "storage images)", fn);
    }
    if (!depth && !(info.usage & VK_IMAGE_USAGE_SAMPLED_BIT)) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                           "%s: image usage lacks VK_IMAGE_USAGE_SAMPLED_BIT (the level read is "
                           "sampled)", fn);
    }
    if (fmt->srgb && !(info.flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT)) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                           "%s: sRGB image without VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT (sRGB cannot "
                           "be a storage image: vkfx writes through a UNORM view)", fn);
    }
    if (info.viewFormatCount != 0 && !info.viewFormats) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: viewFormatCount is %u but viewFormats is null",
                           fn, info.viewFormatCount);
    }
    // The formats views of the image may have: any compatible one, or those of its format list.
    auto viewable = [&](VkFormat f) {
        if (info.viewFormatCount == 0) return true;
        for (std::uint32_t i = 0; i < info.viewFormatCount; ++i) {
            if (info.viewFormats[i] == f) return true;
        }
        return false;
    };
    if (!viewable(info.format)) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: viewFormats lacks the image's format", fn);
    }
    if (!viewable(fmt->storage)) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                           "%s: viewFormats lacks VkFormat %d, the format vkfx writes the levels as", fn,
                           static_cast<int>(fmt->storage));
    }
    if (depth) {
        if (!detail::isDepthFormat(info.depth.format)) {
            return device.fail(VK_ERROR_FORMAT_NOT_SUPPORTED,
                               "%s: depth.format %d is not D32_SFLOAT or D16_UNORM", fn,
                               static_cast<int>(info.depth.format));
        }
        if (info.format != VK_FORMAT_R32_SFLOAT) {
            return device.fail(VK_ERROR_FORMAT_NOT_SUPPORTED,
                               "%s: a depth pyramid must be VK_FORMAT_R32_SFLOAT", fn);
        }
        if (!(info.depth.usage & VK_IMAGE_USAGE_SAMPLED_BIT)) {
            return device.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                               "%s: depth image usage lacks VK_IMAGE_USAGE_SAMPLED_BIT", fn);
        }
        if (info.depth.extent.width == 0 || info.depth.extent.height == 0) {
            return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: depth.extent is empty", fn);
        }
    }

    DownsampleTarget t;
    t.m_device = &device;
    t.m_info = info;
    t.m_info.viewFormats = nullptr; // (not kept)
    t.m_info.viewFormatCount = 0;
    t.m_rawPacked = !depth && fmt->packedView != VK_FORMAT_UNDEFINED &&
                    (info.flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT) && viewable(fmt->packedView);
    auto makeView = [&](VkImage image, VkFormat format, VkImageAspectFlags aspect,
                        VkImageUsageFlags usage, std::uint32_t level, VkImageView* out) {
        return detail::createLevelView(device, image, format, aspect, usage, level, info.baseArrayLayer,
                                       info.layerCount, out);
    };
    VkResult r = VK_SUCCESS;
    for (std::uint32_t level = 0; level < info.mipLevels && r == VK_SUCCESS; ++level) {
        r = makeView(info.image, fmt->storage, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_USAGE_STORAGE_BIT,
                     level, &t.m_storage[level]);
        if (r == VK_SUCCESS && !depth) {
            r = makeView(info.image, info.format, VK_IMAGE_ASPECT_COLOR_BIT,
                         VK_IMAGE_USAGE_SAMPLED_BIT, level, &t.m_sampled[level]);
        }
        if (r == VK_SUCCESS && !depth && (fmt->srgb || t.m_rawPacked)) {
            r = makeView(info.image, fmt->srgb ? fmt->storage : fmt->packedView, VK_IMAGE_ASPECT_COLOR_BIT,
                         VK_IMAGE_USAGE_SAMPLED_BIT, level, &t.m_sampledRaw[level]);
        }
        if (r == VK_SUCCESS && info.maxImage) {
            r = makeView(info.maxImage, fmt->storage, VK_IMAGE_ASPECT_COLOR_BIT,
                         VK_IMAGE_USAGE_STORAGE_BIT, level, &t.m_storageMax[level]);
        }
    }
    if (r == VK_SUCCESS && depth) {
        r = makeView(info.depth.image, info.depth.format, VK_IMAGE_ASPECT_DEPTH_BIT,
                     VK_IMAGE_USAGE_SAMPLED_BIT, 0, &t.m_depth);
    }
    if (r != VK_SUCCESS) return device.fail(r, "%s: vkCreateImageView failed (%d)", fn, static_cast<int>(r));
    *target = std::move(t);
    return VK_SUCCESS;
}

// ---------------------------------------------------------------------------------------------
// Downsampler

struct Downsampler::Chain {
    VkImageView source;
    bool packed;             // source is the target's packed view (m_pipelinePacked)
    VkImageView dst[kMaxOutputLevels];
    VkImageView dstMax[kMaxOutputLevels];
    VkExtent2D extent;       // chain level 0
    std::uint32_t levels;    // N: chain levels generated
    std::uint32_t copyLevel0;
    std::uint32_t layers;
    VkBuffer scratch;
    VkDeviceSize scratchOffset;
    VkDeviceSize scratchRange;
    detail::DownsampleScratchLayout layout;
};

inline void Downsampler::swap(Downsampler& other) noexcept
{
    std::swap(m_device, other.m_device);
    std::swap(m_info, other.m_info);
    std::swap(m_channels, other.m_channels);
    std::swap(m_srgbEncode, other.m_srgbEncode);
    std::swap(m_groupSlots, other.m_groupSlots);
    std::swap(m_gatherChannels, other.m_gatherChannels);
    std::swap(m_registersAbove, other.m_registersAbove);
    std::swap(m_setLayout, other.m_setLayout);
    std::swap(m_pipelineLayout, other.m_pipelineLayout);
    std::swap(m_pipeline, other.m_pipeline);
    std::swap(m_pipelinePacked, other.m_pipelinePacked);
    std::swap(m_pipelineOddEdges, other.m_pipelineOddEdges);
    std::swap(m_pipelineOddEdgesPacked, other.m_pipelineOddEdgesPacked);
    std::swap(m_oddEdgeBlocks, other.m_oddEdgeBlocks);
    std::swap(m_pipelineAbove, other.m_pipelineAbove);
    std::swap(m_pipelineAbovePacked, other.m_pipelineAbovePacked);
    std::swap(m_sampler, other.m_sampler);
    std::swap(m_scratch, other.m_scratch);
    std::swap(m_scratchMemory, other.m_scratchMemory);
    std::swap(m_scratchSize, other.m_scratchSize);
}

inline void Downsampler::destroy()
{
    if (!m_device) return;
    const DeviceFunctions& f = m_device->fn();
    VkDevice d = m_device->handle();
    const VkAllocationCallbacks* a = m_device->allocator();
    if (m_pipeline) f.vkDestroyPipeline(d, m_pipeline, a);
    if (m_pipelinePacked) f.vkDestroyPipeline(d, m_pipelinePacked, a);
    if (m_pipelineOddEdges) f.vkDestroyPipeline(d, m_pipelineOddEdges, a);
    if (m_pipelineOddEdgesPacked) f.vkDestroyPipeline(d, m_pipelineOddEdgesPacked, a);
    if (m_pipelineAbove) f.vkDestroyPipeline(d, m_pipelineAbove, a);
    if (m_pipelineAbovePacked) f.vkDestroyPipeline(d, m_pipelineAbovePacked, a);
    if (m_pipelineLayout) f.vkDestroyPipelineLayout(d, m_pipelineLayout, a);
    if (m_setLayout) f.vkDestroyDescriptorSetLayout(d, m_setLayout, a);
    if (m_sampler) f.vkDestroySampler(d, m_sampler, a);
    if (m_scratch) f.vkDestroyBuffer(d, m_scratch, a);
    if (m_scratchMemory) f.vkFreeMemory(d, m_scratchMemory, a);
    m_pipeline = VK_NULL_HANDLE;
    m_pipelinePacked = VK_NULL_HANDLE;
    m_pipelineOddEdges = VK_NULL_HANDLE;
    m_pipelineOddEdgesPacked = VK_NULL_HANDLE;
    m_oddEdgeBlocks = 0;
    m_pipelineAbove = VK_NULL_HANDLE;
    m_pipelineAbovePacked = VK_NULL_HANDLE;
    m_pipelineLayout = VK_NULL_HANDLE;
    m_setLayout = VK_NULL_HANDLE;
    m_sampler = VK_NULL_HANDLE;
    m_scratch = VK_NULL_HANDLE;
    m_scratchMemory = VK_NULL_HANDLE;
    m_scratchSize = 0;
    m_device = nullptr;
}

inline VkResult Downsampler::create(const Device& device, const DownsamplerCreateInfo& info,
                                    Downsampler* downsampler)
{
    const char* fn = "vkfx::Downsampler::create";
    if (!downsampler) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: downsampler is null", fn);
    downsampler->destroy();
    if (!device.valid()) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: device is not created", fn);
    const detail::DownsampleFormat* fmt = detail::findDownsampleFormat(info.format);
    if (!fmt) {
        return device.fail(VK_ERROR_FORMAT_NOT_SUPPORTED,
                           "%s: format %d is not one vkfx downsamples (see vkfx/downsample.hpp)", fn,
                           static_cast<int>(info.format));
    }
    if (static_cast<std::uint32_t>(info.reduction) > static_cast<std::uint32_t>(Reduction::MinMax)) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: unknown reduction", fn);
    }
    if (info.flags & ~std::uint32_t{DownsamplerFlagSharedMemoryOnly | DownsamplerFlagTexelFetch |
                                    DownsamplerFlagSamplerFilter}) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: unknown flags 0x%x", fn,
                           static_cast<unsigned>(info.flags));
    }
    if (static_cast<std::uint32_t>(info.depthLevelZero) > static_cast<std::uint32_t>(DepthLevelZero::Reduce)) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: unknown depthLevelZero %u", fn,
                           static_cast<unsigned>(info.depthLevelZero));
    }
    if ((info.flags & DownsamplerFlagTexelFetch) && (info.flags & DownsamplerFlagSamplerFilter)) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                           "%s: DownsamplerFlagTexelFetch and DownsamplerFlagSamplerFilter exclude each other", fn);
    }
    const bool depth = info.depthFormat != VK_FORMAT_UNDEFINED;
    if (depth) {
        if (!detail::isDepthFormat(info.depthFormat)) {
            return device.fail(VK_ERROR_FORMAT_NOT_SUPPORTED,
                               "%s: depthFormat %d is not D32_SFLOAT or D16_UNORM", fn,
                               static_cast<int>(info.depthFormat));
        }
        if (info.format != VK_FORMAT_R32_SFLOAT) {
            return device.fail(VK_ERROR_FORMAT_NOT_SUPPORTED,
                               "%s: a depth pyramid must be VK_FORMAT_R32_SFLOAT", fn);
        }
    }
    VkResult r = detail::checkSampleAndStore(device, fn, depth ? info.depthFormat : info.format, fmt->storage,
                                             fmt->writeWithoutFormat, fmt->extendedFormat);
    if (r != VK_SUCCESS) return r;
    // At most 2 + 2 * 15 = 32 descriptors: maxPushDescriptors is at least 32 everywhere.
    const bool minmax = info.reduction == Reduction::MinMax;

    Downsampler ds;
    ds.m_device = &device;
    ds.m_info = info;
    ds.m_channels = fmt->channels;
    ds.m_srgbEncode = fmt->srgb && info.reduction == Reduction::Average;
    const DeviceFunctions& f = device.fn();
    VkDevice d = device.handle();

    const std::uint32_t read = detail::downsampleReadModeOn(device, info, *fmt);
    // Kernels that read each footprint with one sampler read issue a block's reads while the
    // block before it reduces, and keep 2x2 workgroups; the other Average kernels (more than one
    // read a footprint: sRGB, RGBA16F, RG16F, DownsamplerFlagTexelFetch) size them by the waves
    // they make, where the device says how many workgroups run at once
    // (detail::downsampleGroupShape). Min and max chains keep the rule by block count.
    const bool readsAhead = detail::downsampleOneReadPerFootprint(read, fmt->channels);
    const bool waveShape = !readsAhead && info.reduction == Reduction::Average;
    ds.m_gatherChannels = read == detail::kDownsampleReadGather && fmt->channels > 1;
    const std::int64_t slotsOverride = detail::downsampleGroupSlotsOverride;
    ds.m_groupSlots = !waveShape           ? 0u
                      : slotsOverride >= 0 ? static_cast<std::uint32_t>(slotsOverride)
                                           : device.multiprocessorCount() * detail::kDownsampleGroupsPerMultiprocessor;
    r = detail::createClampSampler(device, fn, read == detail::kDownsampleReadBilinear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST,
                                   &ds.m_sampler);
    if (r != VK_SUCCESS) return r;

    VkDescriptorSetLayoutBinding bindings[4] = {
        {detail::kDownsampleBindingSource, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, &ds.m_sampler},
        {detail::kDownsampleBindingDst, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, kMaxOutputLevels, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {detail::kDownsampleBindingScratch, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {detail::kDownsampleBindingDstMax, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, kMaxOutputLevels, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
    };
    r = detail::createPushLayouts(device, fn, bindings, minmax ? 4 : 3, sizeof(detail::DownsamplePush), &ds.m_setLayout,
                                  &ds.m_pipelineLayout);
    if (r != VK_SUCCESS) return r;

    struct Spec {
        std::uint32_t reduction;
        VkBool32 useSubgroups;
        VkBool32 srgb;
        std::uint32_t copyLevel0;
        std::uint32_t read;
        VkBool32 windowReads;
        VkBool32 aboveOnly;
        VkBool32 edgeOrder;
    } spec{minmax ? 0u : static_cast<std::uint32_t>(info.reduction),
           device.subgroupShuffle() && !(info.flags & DownsamplerFlagSharedMemoryOnly),
           ds.m_srgbEncode,
           depth && info.depthLevelZero == DepthLevelZero::Copy ? 1u : 0u,
           read,
           detail::downsampleWindowReads(device.properties().deviceType),
           VK_FALSE,
           VK_FALSE};
    VkSpecializationMapEntry entries[8] = {{0, offsetof(Spec, reduction), sizeof(std::uint32_t)},
                                           {1, offsetof(Spec, useSubgroups), sizeof(VkBool32)},
                                           {2, offsetof(Spec, srgb), sizeof(VkBool32)},
                                           {3, offsetof(Spec, copyLevel0), sizeof(std::uint32_t)},
                                           {4, offsetof(Spec, read), sizeof(std::uint32_t)},
                                           {5, offsetof(Spec, windowReads), sizeof(VkBool32)},
                                           {6, offsetof(Spec, aboveOnly), sizeof(VkBool32)},
                                           {7, offsetof(Spec, edgeOrder), sizeof(VkBool32)}};
    // (reduceRegularAbove's condition: full subgroups of 4 or more lanes with shuffles.)
    ds.m_registersAbove = fmt->channels > 1 && spec.useSubgroups && device.subgroupSize() >= 4;
    VkSpecializationInfo specInfo{8, entries, sizeof(Spec), &spec};
    // A pipeline of the format's kernel, or of its packed-view kernel, with `spec` as it stands.
    auto create = [&](bool packed, VkPipeline* pipeline) {
        const std::uint32_t* code = packed ? (minmax ? fmt->packedMinmax : fmt->packedSingle)
                                           : (minmax ? fmt->minmax : fmt->single);
        const std::size_t bytes = packed ? (minmax ? fmt->packedMinmaxBytes : fmt->packedSingleBytes)
                                         : (minmax ? fmt->minmaxBytes : fmt->singleBytes);
        return detail::createComputePipeline(device, fn, code, bytes, &specInfo, ds.m_pipelineLayout, pipeline);
    };
    r = create(false, &ds.m_pipeline);
    if (r != VK_SUCCESS) return r;
    if (fmt->packedView != VK_FORMAT_UNDEFINED && read == detail::kDownsampleReadGather && !depth) {
        // H200, RGBA16F 4096^2: 82.1 us gathering each channel, 69.1 through the packed view.
        r = create(true, &ds.m_pipelinePacked);
        if (r != VK_SUCCESS) return r;
    }
    // A variant of both: of the format's kernel, and of the packed one where the Downsampler has
    // it.
    auto createVariant = [&](VkPipeline* pipeline, VkPipeline* packed) {
        VkResult result = create(false, pipeline);
        if (result == VK_SUCCESS && ds.m_pipelinePacked) result = create(true, packed);
        return result;
    };
    // Chains with odd level-2 texels (downsampleOddEdges): the same kernel with the edge blocks'
    // loop reordered (downsample.comp, kEdgeOrder), a pipeline of its own so that the others keep
    // their build.
    if (detail::downsampleEdgeOrder(device.properties().deviceType)) {
        spec.edgeOrder = VK_TRUE;
        r = createVariant(&ds.m_pipelineOddEdges, &ds.m_pipelineOddEdgesPacked);
        if (r != VK_SUCCESS) return r;
        spec.edgeOrder = VK_FALSE;
        ds.m_oddEdgeBlocks = detail::downsampleOddEdgeBlocks(read, fmt->channels);
    }
    // The second dispatch's pipelines: the same kernel with stage 0 compiled away, whose regular
    // blocks above stage 0 read each invocation's 16 published texels at once and make two levels
    // in registers (H200, two dispatches before / after, median us: RGBA8 8192^2 115.8 / 113.2,
    // sRGB8 180.0 / 176.8, RGBA16F 253.1 / 250.6, RGBA8 4096^2 x6 158.8 / 156.2; the packed
    // variant for records that read RGBA16F through its packed view, whose source binding it
    // declares).
    spec.aboveOnly = VK_TRUE;
    r = createVariant(&ds.m_pipelineAbove, &ds.m_pipelineAbovePacked);
    if (r != VK_SUCCESS) return r;

    // Owned scratch: host-visible so that it can be zeroed here, without a queue.
    ds.m_scratchSize = std::max<VkDeviceSize>(info.scratchSize, 256);
    VkDeviceSize allocated = 0;
    r = detail::createBoundBuffer(device, "vkfx::Downsampler::create: scratch", ds.m_scratchSize,
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &ds.m_scratch, &ds.m_scratchMemory,
                                  &allocated);
    if (r != VK_SUCCESS) return r;
    void* mapped = nullptr;
    r = f.vkMapMemory(d, ds.m_scratchMemory, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (r != VK_SUCCESS) return device.fail(r, "%s: mapping the scratch failed (%d)", fn, static_cast<int>(r));
    std::memset(mapped, 0, static_cast<std::size_t>(allocated));
    VkMappedMemoryRange flush{};
    flush.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
    flush.memory = ds.m_scratchMemory;
    flush.size = VK_WHOLE_SIZE;
    r = f.vkFlushMappedMemoryRanges(d, 1, &flush);
    f.vkUnmapMemory(d, ds.m_scratchMemory);
    if (r != VK_SUCCESS) return device.fail(r, "%s: flushing the scratch failed (%d)", fn, static_cast<int>(r));

    *downsampler = std::move(ds);
    return VK_SUCCESS;
}

inline ScratchRequirements Downsampler::scratchRequirements(VkExtent2D extent, std::uint32_t layerCount,
                                                            std::uint32_t levelCount) const
{
    ScratchRequirements req;
    if (!m_device) return req;
    std::uint32_t wordsPerTexel =
        detail::downsampleWordsPerTexel(m_channels, m_info.reduction == Reduction::MinMax);
    detail::DownsampleScratchLayout l =
        detail::downsampleScratchLayout(extent, layerCount, levelCount, wordsPerTexel);
    req.size = std::max<VkDeviceSize>(l.words * 4, 16);
    req.alignment = detail::storageBufferAlignment(*m_device);
    return req;
}

inline VkResult Downsampler::resolve(const DownsampleInfo& info, Chain* c) const
{
    const char* fn = "vkfx::Downsampler::record";
    const Device& dev = *m_device;
    const DownsampleTarget* t = info.target;
    if (!t || !t->valid()) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: target is null or destroyed", fn);
    if (t->m_device->handle() != dev.handle()) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: target belongs to another VkDevice", fn);
    }
    const DownsampleTargetCreateInfo& ti = t->m_info;
    if (ti.format != m_info.format) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                        "%s: target format %d differs from the Downsampler's %d", fn,
                        static_cast<int>(ti.format), static_cast<int>(m_info.format));
    }
    const bool depth = m_info.depthFormat != VK_FORMAT_UNDEFINED;
    const bool minmax = m_info.reduction == Reduction::MinMax;
    if (minmax && !ti.maxImage) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: Reduction::MinMax needs a target with maxImage", fn);
    }
    if (minmax && info.baseLevel != 0) {
        // Both chains come from the one level read, which holds the min chain above level 0.
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                        "%s: Reduction::MinMax reads level 0 only (baseLevel %u: a chain continued there would take "
                        "its max chain from the min image; continue with a Min and a Max record)",
                        fn, info.baseLevel);
    }
    // Checks that do not depend on the levels (also made for a record that is a no-op).
    switch (info.sourceLayout) {
    case VK_IMAGE_LAYOUT_GENERAL:
    case VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL:
    case VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL:
        break;
    case VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL:
    case VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL:
        if (depth) break;
        [[fallthrough]];
    default:
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: sourceLayout %d cannot be sampled here", fn,
                        static_cast<int>(info.sourceLayout));
    }
    if (static_cast<std::uint32_t>(info.dispatches) >
        static_cast<std::uint32_t>(DownsampleDispatches::Two)) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                        "%s: dispatches %u is not a DownsampleDispatches", fn,
                        static_cast<unsigned>(info.dispatches));
    }
    if (info.scratchBuffer) {
        VkDeviceSize align = detail::storageBufferAlignment(dev);
        if (info.scratchOffset % align != 0) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                            "%s: scratchOffset %llu is not a multiple of %llu", fn,
                            static_cast<unsigned long long>(info.scratchOffset), static_cast<unsigned long long>(align));
        }
    }
    *c = Chain{};
    c->layers = ti.layerCount;
    std::uint32_t firstDst = 0; // image level of the first destination slot
    if (depth) {
        if (!t->m_depth) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: a depth Downsampler needs a target with a depth image", fn);
        if (ti.depth.format != m_info.depthFormat) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: target depth format %d differs from the Downsampler's %d", fn,
                            static_cast<int>(ti.depth.format), static_cast<int>(m_info.depthFormat));
        }
        if (info.baseLevel != 0) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: depth pyramids read level 0 (baseLevel %u)", fn, info.baseLevel);
        const bool copy = m_info.depthLevelZero == DepthLevelZero::Copy;
        VkExtent2D expect = copy ? ti.depth.extent
                                 : VkExtent2D{detail::mipExtent(ti.depth.extent.width, 1),
                                              detail::mipExtent(ti.depth.extent.height, 1)};
        if (expect.width != ti.extent.width || expect.height != ti.extent.height) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                            "%s: pyramid extent %ux%u should be %ux%u for a %ux%u depth image (%s)", fn,
                            ti.extent.width, ti.extent.height, expect.width, expect.height,
                            ti.depth.extent.width, ti.depth.extent.height, copy ? "Copy" : "Reduce");
        }
        std::uint32_t count = info.levelCount == VK_REMAINING_MIP_LEVELS ? ti.mipLevels : info.levelCount;
        if (count == 0 || count > ti.mipLevels) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: levelCount %u is outside 1..%u", fn, count, ti.mipLevels);
        }
        c->source = t->m_depth;
        c->extent = ti.depth.extent;
        c->copyLevel0 = copy ? 1u : 0u;
        c->levels = copy ? count - 1 : count;
        if (count > kMaxOutputLevels) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: %u levels in one record; at most %u", fn, count, kMaxOutputLevels);
        }
    } else {
        if (t->m_depth) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: target has a depth image but the Downsampler is not a depth pyramid", fn);
        if (info.baseLevel >= ti.mipLevels) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: baseLevel %u is beyond the image's %u levels", fn,
                            info.baseLevel, ti.mipLevels);
        }
        std::uint32_t rest = ti.mipLevels - 1 - info.baseLevel;
        if (info.levelCount == VK_REMAINING_MIP_LEVELS && rest == 0) {
            *c = Chain{}; // nothing below the level read: a valid no-op
            return VK_SUCCESS;
        }
        std::uint32_t count = info.levelCount == VK_REMAINING_MIP_LEVELS ? rest : info.levelCount;
        if (count == 0 || count > rest) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                            "%s: levelCount %u: levels %u..%u are outside the image's chain of %u levels",
                            fn, count, info.baseLevel + 1, info.baseLevel + count, ti.mipLevels);
        }
        if (count > kMaxOutputLevels) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: %u levels in one record; at most %u", fn, count, kMaxOutputLevels);
        }
        // sRGB: the UNORM view where nothing is decoded (min, max); RGBA16F: the packed view
        // where this Downsampler has the kernel that reads it.
        c->packed = t->m_rawPacked && m_pipelinePacked != VK_NULL_HANDLE;
        const bool raw = c->packed || (t->m_sampledRaw[0] != VK_NULL_HANDLE && !t->m_rawPacked && !m_srgbEncode);
        c->source = raw ? t->m_sampledRaw[info.baseLevel] : t->m_sampled[info.baseLevel];
        c->extent = {detail::mipExtent(ti.extent.width, info.baseLevel),
                     detail::mipExtent(ti.extent.height, info.baseLevel)};
        c->copyLevel0 = 0;
        c->levels = count;
        firstDst = info.baseLevel + 1;
    }
    const std::uint32_t outputs = c->levels + c->copyLevel0;
    for (std::uint32_t i = 0; i < kMaxOutputLevels; ++i) {
        // Unused slots repeat the last level written: every statically used descriptor is valid.
        std::uint32_t level = firstDst + std::min(i, outputs - 1);
        c->dst[i] = t->m_storage[level];
        c->dstMax[i] = minmax ? t->m_storageMax[level] : VK_NULL_HANDLE;
    }

    std::uint32_t wordsPerTexel = detail::downsampleWordsPerTexel(m_channels, minmax);
    c->layout = detail::downsampleScratchLayout(c->extent, c->layers, c->levels, wordsPerTexel);
    VkDeviceSize need = std::max<VkDeviceSize>(c->layout.words * 4, 16);
    if (c->layout.words > UINT32_MAX / 2) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the image needs more scratch than one dispatch can address", fn);
    }
    if (need > dev.properties().limits.maxStorageBufferRange) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                        "%s: this record needs %llu bytes of scratch, more than the device's maxStorageBufferRange %u", fn,
                        static_cast<unsigned long long>(need), dev.properties().limits.maxStorageBufferRange);
    }
    if (info.scratchBuffer) {
        if (info.scratchSize != VK_WHOLE_SIZE && info.scratchSize < need) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                            "%s: scratch of %llu bytes is too small; this record needs %llu", fn,
                            static_cast<unsigned long long>(info.scratchSize), static_cast<unsigned long long>(need));
        }
        c->scratch = info.scratchBuffer;
        c->scratchOffset = info.scratchOffset;
    } else {
        if (need > m_scratchSize) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                            "%s: this record needs %llu bytes of scratch and the Downsampler owns %llu: "
                            "create it with a larger scratchSize or pass DownsampleInfo::scratchBuffer",
                            fn, static_cast<unsigned long long>(need), static_cast<unsigned long long>(m_scratchSize));
        }
        c->scratch = m_scratch;
        c->scratchOffset = 0;
    }
    c->scratchRange = need;
    return VK_SUCCESS;
}

inline VkResult Downsampler::record(VkCommandBuffer cmd, const DownsampleInfo& info) const
{
    if (!m_device) {
        return detail::fail(nullptr, nullptr, VK_ERROR_VALIDATION_FAILED_EXT,
                            "vkfx::Downsampler::record: the Downsampler is not created");
    }
    if (!cmd) return m_device->fail(VK_ERROR_VALIDATION_FAILED_EXT, "vkfx::Downsampler::record: cmd is VK_NULL_HANDLE");
    Chain c;
    VkResult r = resolve(info, &c);
    if (r != VK_SUCCESS || (c.levels == 0 && c.copyLevel0 == 0)) return r;
    const DeviceFunctions& f = m_device->fn();
    const bool minmax = m_info.reduction == Reduction::MinMax;

    VkBufferMemoryBarrier barrier{};

    barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.buffer = c.scratch;
    barrier.offset = c.scratchOffset;
    barrier.size = c.scratchRange;
    f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                           0, nullptr, 1, &barrier, 0, nullptr);

    VkDescriptorImageInfo source{VK_NULL_HANDLE, c.source, info.sourceLayout};
    VkDescriptorImageInfo dst[kMaxOutputLevels], dstMax[kMaxOutputLevels];
    for (std::uint32_t i = 0; i < kMaxOutputLevels; ++i) {
        dst[i] = {VK_NULL_HANDLE, c.dst[i], VK_IMAGE_LAYOUT_GENERAL};
        dstMax[i] = {VK_NULL_HANDLE, c.dstMax[i], VK_IMAGE_LAYOUT_GENERAL};
    }
    VkDescriptorBufferInfo scratch{c.scratch, c.scratchOffset, c.scratchRange};
    VkWriteDescriptorSet writes[4] = {};
    for (VkWriteDescriptorSet& w : writes) w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[0].dstBinding = detail::kDownsampleBindingSource;
    writes[0].descriptorCount = 1;
    writes[0].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER; // immutable sampler
    writes[0].pImageInfo = &source;
    writes[1].dstBinding = detail::kDownsampleBindingDst;
    writes[1].descriptorCount = kMaxOutputLevels;
    writes[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    writes[1].pImageInfo = dst;
    writes[2].dstBinding = detail::kDownsampleBindingScratch;
    writes[2].descriptorCount = 1;
    writes[2].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[2].pBufferInfo = &scratch;
    writes[3].dstBinding = detail::kDownsampleBindingDstMax;
    writes[3].descriptorCount = kMaxOutputLevels;
    writes[3].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    writes[3].pImageInfo = dstMax;
    f.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m_pipelineLayout, 0, minmax ? 4 : 3, writes);

    detail::DownsamplePush push{};
    push.extent[0] = c.extent.width;
    push.extent[1] = c.extent.height;
    push.levelCount = c.levels;
    push.counterOffset1 = c.layout.counterOffset1;
    push.counterOffset2 = c.layout.counterOffset2;
    push.dataOffset6 = c.layout.dataOffset6;
    push.dataOffset12 = c.layout.dataOffset12;
    push.invExtent[0] = static_cast<float>(1.0 / c.extent.width);
    push.invExtent[1] = static_cast<float>(1.0 / c.extent.height);
    // A block is the 64x64 texels of level 0 under one level-6 texel. Edge blocks (the bottom row
    // and right column when the extent is not a multiple of 64) get a workgroup each, first in
    // dispatch order; the regular blocks inside them are held one, two side by side or a 2x2 to a
    // workgroup (detail::downsampleGroupShape; downsample.comp, groupBlocks()).
    const std::uint32_t blocksX = detail::mipExtent(c.extent.width, 6);
    const std::uint32_t blocksY = detail::mipExtent(c.extent.height, 6);
    const std::uint32_t edgeX = c.extent.width != blocksX << 6 ? 1u : 0u;
    const std::uint32_t edgeY = c.extent.height != blocksY << 6 ? 1u : 0u;
    const std::uint32_t innerX = blocksX - edgeX, innerY = blocksY - edgeY;
    const std::uint32_t edgeBlocks = edgeY * blocksX + edgeX * innerY;
    detail::DownsampleGroupShape shape =
        detail::downsampleGroupShape(innerX, innerY, c.layers, edgeBlocks, m_groupSlots);
    if (m_gatherChannels && !c.packed && m_groupSlots != 0)
        shape = detail::downsampleGatherShape(shape, std::uint64_t{innerX} * innerY * c.layers);
    push.shape = shape;
    const std::uint32_t shiftX = push.shape != detail::kDownsampleGroup1x1 ? 1u : 0u;
    const std::uint32_t shiftY = push.shape == detail::kDownsampleGroup2x2 ? 1u : 0u;
    const std::uint32_t groupsX = (innerX + shiftX) >> shiftX;
    const std::uint32_t groupsY = (innerY + shiftY) >> shiftY;
    const std::uint32_t width = std::max(groupsX, 1u);
    const std::uint32_t height = (edgeBlocks + groupsX * groupsY + width - 1u) / width;
    // Two dispatches on large images (DownsampleDispatches::Auto): the first makes the levels up
    // to 6 and publishes without tickets, the second the levels above from the published texels.
    const bool two = detail::downsampleTwoDispatches(info.dispatches, c.extent, c.layers, c.levels, m_registersAbove);
    push.split = two ? detail::kDownsampleStage0 : detail::kDownsampleWhole;
    const bool oddEdges = m_pipelineOddEdges != VK_NULL_HANDLE &&
                          detail::downsampleOddEdges(c.extent, c.layers, m_oddEdgeBlocks);
    f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                        oddEdges ? (c.packed ? m_pipelineOddEdgesPacked : m_pipelineOddEdges)
                                 : (c.packed ? m_pipelinePacked : m_pipeline));
    f.vkCmdPushConstants(cmd, m_pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    f.vkCmdDispatch(cmd, width, height, c.layers);
    if (two) {
        // The published level-6 texels. A global barrier, which makes no claim about which of the
        // bound level views either dispatch touches.
        VkMemoryBarrier published{};
        published.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
        published.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        published.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &published, 0, nullptr,
                               0, nullptr);
        push.split = detail::kDownsampleAbove;
        f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c.packed ? m_pipelineAbovePacked : m_pipelineAbove);
        f.vkCmdPushConstants(cmd, m_pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT,
                             offsetof(detail::DownsamplePush, split), sizeof(push.split),
                             &push.split);
        f.vkCmdDispatch(cmd, detail::mipExtent(c.extent.width, 12),
                        detail::mipExtent(c.extent.height, 12), c.layers);
    }
    return VK_SUCCESS;
}

} // namespace vkfx
