// vkfx::Downsampler: every written level of every layer against the CPU reference built from the
// definition in include/vkfx/downsample.hpp (tests/support/reference.hpp).
//
// Each case: create the image, upload the level read, poison the levels that will be written
// (NaN / random codes, so that a texel never written cannot pass), record with the vkfx API,
// download every written level of every layer and compare: Min / Max bit-exact, Average within
// vkfx's documented bound (1 code for unorm / sRGB, 1 ulp for small floats, 1e-5 for fp32).
// Levels that must not be written are checked to still hold the poison.
//
// VKFX_TEST_VERBOSE=1 prints the largest error of every case.
#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/formats.hpp"
#include "support/gpu.hpp"
#include "support/reference.hpp"
#include "support/vulkan_context.hpp"

#include <vkfx/downsample.hpp>

#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace vkfx_test;
using vkfx::Reduction;

// ---------------------------------------------------------------------------------------------
// Names

const char *reductionName(Reduction r) {
    switch (r) {
    case Reduction::Average:
        return "Average";
    case Reduction::Min:
        return "Min";
    case Reduction::Max:
        return "Max";
    case Reduction::MinMax:
        return "MinMax";
    }
    return "?";
}

std::string extentName(VkExtent2D e) {
    return std::to_string(e.width) + "x" + std::to_string(e.height);
}

bool verbose() {
    static const bool v = [] {
        const char *s = std::getenv("VKFX_TEST_VERBOSE");
        return s && std::strcmp(s, "1") == 0;
    }();
    return v;
}

// ---------------------------------------------------------------------------------------------
// Device support (decided here, independently of vkfx, so that vkfx refusing a format the device
// supports is a failure, not a skip).

VkFormat storageFormatOf(VkFormat format) {
    switch (format) {
    case VK_FORMAT_R8G8B8A8_SRGB:
        return VK_FORMAT_R8G8B8A8_UNORM;
    case VK_FORMAT_B8G8R8A8_SRGB:
        return VK_FORMAT_B8G8R8A8_UNORM;
    default:
        return format;
    }
}

bool deviceCanDownsample(VkFormat format, VkFormat depthFormat, std::string *why) {
    VkFormat sampled = depthFormat != VK_FORMAT_UNDEFINED ? depthFormat : format;
    if (!(ctx().formatProperties(sampled).optimalTilingFeatures &
          VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)) {
        *why = "the device cannot sample " + formatName(sampled);
        return false;
    }
    VkFormat storage = storageFormatOf(format);
    if (!(ctx().formatProperties(storage).optimalTilingFeatures &
          VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)) {
        *why = "the device cannot store " + formatName(storage) + " (no STORAGE_IMAGE feature)";
        return false;
    }
    if ((storage == VK_FORMAT_B8G8R8A8_UNORM) && !ctx().writeWithoutFormat) {
        *why = "B8G8R8A8 needs shaderStorageImageWriteWithoutFormat, which the device lacks";
        return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// Downsamplers are cached per configuration for the whole process: creating a pipeline is the
// slowest step on lavapipe.

struct DownsamplerKey {
    VkFormat format;
    Reduction reduction;
    VkFormat depthFormat;
    vkfx::DepthLevelZero levelZero;
    vkfx::DownsamplerFlags flags;
    int windowReads;
    bool edgeOrder;
    std::int64_t groupSlots;
    bool operator<(const DownsamplerKey &o) const {
        return std::tie(format, reduction, depthFormat, levelZero, flags, windowReads, edgeOrder, groupSlots) <
               std::tie(o.format, o.reduction, o.depthFormat, o.levelZero, o.flags, o.windowReads, o.edgeOrder,
                        o.groupSlots);
    }
};

std::map<DownsamplerKey, std::unique_ptr<vkfx::Downsampler>> &downsamplerCache() {
    static auto *cache = [] {
        auto *c = new std::map<DownsamplerKey, std::unique_ptr<vkfx::Downsampler>>;
        ctx().atShutdown([c] { c->clear(); });
        return c;
    }();
    return *cache;
}

// A Downsampler for `info` (default scratch size), or null after a test failure. `windowReads`,
// `edgeOrder`, `groupSlots`: Case::windowReads, Case::edgeOrder, Case::groupSlots.
const vkfx::Downsampler *cachedDownsampler(const vkfx::DownsamplerCreateInfo &info,
                                           int windowReads = 0, int edgeOrder = 0,
                                           std::int64_t groupSlots = -1) {
    // (Keyed by what the override makes of the device's rule, so that a case that names the rule's
    // choice shares the Downsampler of the cases that leave it.)
    vkfx::detail::downsampleEdgeOrderOverride = edgeOrder;
    const bool edgeOrderOn = vkfx::detail::downsampleEdgeOrder(ctx().vkfx.properties().deviceType);
    vkfx::detail::downsampleEdgeOrderOverride = 0;
    DownsamplerKey key{info.format, info.reduction, info.depthFormat, info.depthLevelZero,
                       info.flags,  windowReads,    edgeOrderOn,       groupSlots};
    auto &cache = downsamplerCache();
    auto it = cache.find(key);
    if (it != cache.end())
        return it->second.get();
    auto ds = std::make_unique<vkfx::Downsampler>();
    vkfx::detail::downsampleWindowReadsOverride = windowReads;
    vkfx::detail::downsampleEdgeOrderOverride = edgeOrder;
    vkfx::detail::downsampleGroupSlotsOverride = groupSlots;
    VkResult r = vkfx::Downsampler::create(ctx().vkfx, info, ds.get());
    vkfx::detail::downsampleWindowReadsOverride = 0;
    vkfx::detail::downsampleEdgeOrderOverride = 0;
    vkfx::detail::downsampleGroupSlotsOverride = -1;
    if (r != VK_SUCCESS) {
        ADD_FAILURE() << "vkfx::Downsampler::create(" << formatName(info.format) << ", "
                      << reductionName(info.reduction) << ") failed (" << r
                      << "): " << vkfx::lastError();
        return nullptr;
    }
    return cache.emplace(key, std::move(ds)).first->second.get();
}

// ---------------------------------------------------------------------------------------------
// Content of the level read.

enum class Pattern { Random, Gradient, Checker, HotPixels, RoundingTies };

const char *patternName(Pattern p) {
    switch (p) {
    case Pattern::Random:
        return "Random";
    case Pattern::Gradient:
        return "Gradient";
    case Pattern::Checker:
        return "Checker";
    case Pattern::HotPixels:
        return "HotPixels";
    case Pattern::RoundingTies:
        return "RoundingTies";
    }
    return "?";
}

// RoundingTies (fp16, RG16F, R16F, B10G11R11; 12x2): 2x2 footprints whose exact means lie between
// two values of the format, the unit u of its mantissa at 1.0 (2^-10; 2^-6, 2^-6, 2^-5 for
// B10G11R11): 1 + 0.75u, 1 + 0.5u (a tie), 1 + 1.5u (a tie), 1 + 0.25u, 0.75 of the smallest
// denormal, and -1 - 0.75u (signed formats; else 1 + 0.75u again). kRoundingTiesLevel1 holds the
// level-1 values rounded to nearest, ties to even, in the same units; truncation gives 1, 1, 1 + u,
// 1, 0, -1 for them.
struct TieFootprint {
    double base; // 1, or 0 for the denormal footprint
    int k[4];    // texels (x0, y0), (x1, y0), (x0, y1), (x1, y1): base + k * unit
    int rounded; // level 1: base + rounded * unit
};
constexpr TieFootprint kRoundingTies[6] = {{1, {0, 0, 0, 3}, 1},  {1, {0, 0, 1, 1}, 0},
                                           {1, {1, 1, 2, 2}, 2},  {1, {0, 0, 0, 1}, 0},
                                           {0, {0, 0, 0, 3}, 1},  {-1, {0, 0, 0, -3}, -1}};

// The unit of footprint i of RoundingTies in channel c: the spacing of the format's values at
// 1.0, or its smallest denormal.
double tieUnit(const FormatInfo &f, std::uint32_t c, std::size_t i) {
    const int mantissa = f.format == VK_FORMAT_B10G11R11_UFLOAT_PACK32 ? (c == 2 ? 5 : 6) : 10;
    return kRoundingTies[i].base == 0 ? std::ldexp(1.0, -14 - mantissa) : std::ldexp(1.0, -mantissa);
}

// Footprint i of RoundingTies for a format (unsigned floats take footprint 0's values for the
// negative one).
const TieFootprint &tieFootprint(const FormatInfo &f, std::size_t i) {
    const bool unsignedFloat = f.format == VK_FORMAT_B10G11R11_UFLOAT_PACK32;
    return kRoundingTies[unsignedFloat && kRoundingTies[i].base < 0 ? 0 : i];
}

std::vector<std::uint8_t> makeContent(const FormatInfo &f, VkExtent2D e, Pattern pattern,
                                      std::uint64_t seed) {
    const std::size_t texels = std::size_t{e.width} * e.height;
    std::mt19937_64 rng(seed);
    if (pattern == Pattern::Random)
        return randomTexels(f, texels, rng);
    if (pattern == Pattern::RoundingTies) {
        std::vector<std::uint8_t> bytes(texels * f.bytesPerTexel);
        for (std::uint32_t y = 0; y < e.height; ++y) {
            for (std::uint32_t x = 0; x < e.width; ++x) {
                const std::size_t i = std::min<std::size_t>(x / 2, std::size(kRoundingTies) - 1);
                const TieFootprint &t = tieFootprint(f, i);
                double v[4] = {};
                for (std::uint32_t c = 0; c < f.channels; ++c)
                    v[c] = t.base + t.k[(y & 1u) * 2 + (x & 1u)] * tieUnit(f, c, i);
                encodeTexel(f, v, bytes.data() + (std::size_t{y} * e.width + x) * f.bytesPerTexel);
            }
        }
        return bytes;
    }
    std::vector<std::uint8_t> bytes(texels * f.bytesPerTexel);
    const double scale = patternScale(f);
    const double w1 = std::max(1u, e.width - 1), h1 = std::max(1u, e.height - 1);
    auto hot = [&](std::uint32_t x, std::uint32_t y) {
        const std::uint32_t xl = e.width - 1, yl = e.height - 1;
        return (x == 0 && y == 0) || (x == xl && y == 0) || (x == 0 && y == yl) ||
               (x == xl && y == yl) || (x == e.width / 2 && y == yl) ||
               (x == xl && y == e.height / 2); // odd last row / column
    };
    for (std::uint32_t y = 0; y < e.height; ++y) {
        for (std::uint32_t x = 0; x < e.width; ++x) {
            double v[4] = {};
            switch (pattern) {
            case Pattern::Gradient:
                v[0] = x / w1;
                v[1] = y / h1;
                v[2] = (x + y) / (w1 + h1);
                v[3] = 1.0 - x / w1;
                break;
            case Pattern::Checker:
                v[0] = (x + y) & 1u;
                v[1] = (x + y + 1) & 1u;
                v[2] = ((x / 3) + (y / 3)) & 1u; // period 3: odd folds see both colours
                v[3] = (x & 1u) ? 1.0 : 0.25;
                break;
            case Pattern::HotPixels:
                if (hot(x, y)) {
                    v[0] = 1.0, v[1] = 0.0, v[2] = 1.0, v[3] = 0.0;
                } else {
                    v[0] = v[1] = v[2] = v[3] = 0.25;
                }
                break;
            case Pattern::Random:
            case Pattern::RoundingTies:
                break;
            }
            for (double &c : v)
                c *= scale;
            encodeTexel(f, v, bytes.data() + (std::size_t{y} * e.width + x) * f.bytesPerTexel);
        }
    }
    return bytes;
}

// Level 1.. of the reference chain over `count` levels, from stored texels of the level read.
std::vector<Plane> referenceFromBytes(const FormatInfo &f, VkExtent2D e,
                                      const std::vector<std::uint8_t> &bytes, ReduceOp op,
                                      std::uint32_t count) {
    if (count == 0)
        return {};
    const std::uint32_t bpt = f.bytesPerTexel;
    Plane level1 = reduceLevel(
        e.width, e.height, f.channels, op, [&](std::uint32_t x, std::uint32_t y, std::uint32_t c) {
            return decode(f, bytes.data() + (std::size_t{y} * e.width + x) * bpt, c);
        });
    return referenceChainFrom(std::move(level1), op, count);
}

// ---------------------------------------------------------------------------------------------
// One downsample of one image, step by step so that tests can put several into one command
// buffer.

struct Case {
    VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
    Reduction reduction = Reduction::Average;
    VkExtent2D extent = {64, 64};
    std::uint32_t layers = 1;
    bool cube = false;
    std::uint32_t mipLevels = 0; // 0: the full chain
    std::uint32_t baseLevel = 0;
    std::uint32_t levelCount = VK_REMAINING_MIP_LEVELS;
    // Layers the target covers (default: all).
    std::uint32_t targetBaseLayer = 0;
    std::uint32_t targetLayers = 0; // 0: all
    Pattern pattern = Pattern::Random;
    vkfx::DownsamplerFlags flags = 0;
    VkImageLayout sourceLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    std::uint64_t seed = 1;
    // The image is created with MUTABLE_FORMAT (sRGB images always are), and with this format
    // list when not empty (also given to the target).
    bool mutableFormat = false;
    std::vector<VkFormat> viewFormats;
    vkfx::DownsampleDispatches dispatches = vkfx::DownsampleDispatches::Auto;
    // The Downsampler's generic footprints read from shared memory as: 0 the device's rule
    // (loops on lavapipe), 1 one 3x3 window (GPUs), 2 loops (detail::downsampleWindowReads).
    int windowReads = 0;
    // Whether the Downsampler has a pipeline whose edge blocks make their odd level-2 texels last,
    // for chains that are not a multiple of 4 on a side: 0 the device's rule (not on lavapipe), 1
    // yes, 2 no (detail::downsampleEdgeOrder).
    int edgeOrder = 0;
    // Workgroup slots the Downsampler's shape rule takes for kernels without read-ahead: -1 the
    // device's, else this many (0: not known; detail::downsampleGroupShape).
    std::int64_t groupSlots = -1;

    std::string describe() const {
        std::string s =
            formatName(format) + " " + reductionName(reduction) + " " + extentName(extent);
        if (layers > 1)
            s += " x" + std::to_string(layers) + (cube ? " (cube)" : " layers");
        if (baseLevel)
            s += " base " + std::to_string(baseLevel);
        if (levelCount != VK_REMAINING_MIP_LEVELS)
            s += " count " + std::to_string(levelCount);
        if (mipLevels)
            s += " mipLevels " + std::to_string(mipLevels);
        if (pattern != Pattern::Random)
            s += std::string(" ") + patternName(pattern);
        if (flags & vkfx::DownsamplerFlagSharedMemoryOnly)
            s += " SharedMemoryOnly";
        if (flags & vkfx::DownsamplerFlagTexelFetch)
            s += " TexelFetch";
        if (flags & vkfx::DownsamplerFlagSamplerFilter)
            s += " SamplerFilter";
        if (mutableFormat)
            s += " MutableFormat";
        if (!viewFormats.empty())
            s += " viewFormats " + std::to_string(viewFormats.size());
        if (dispatches == vkfx::DownsampleDispatches::One)
            s += " OneDispatch";
        if (dispatches == vkfx::DownsampleDispatches::Two)
            s += " TwoDispatches";
        if (windowReads)
            s += windowReads == 1 ? " WindowReads" : " LoopedReads";
        if (edgeOrder)
            s += edgeOrder == 1 ? " OddEdgesLast" : " RowMajorEdges";
        if (groupSlots >= 0)
            s += " " + std::to_string(groupSlots) + " slots";
        return s;
    }
};

void PrintTo(const Case &c, std::ostream *os) { *os << c.describe(); }

struct Expected {
    // [layer][i]: reference of level base + 1 + i (hi: the max image of MinMax).
    std::vector<std::vector<Plane>> lo, hi;
};

class Job {
  public:
    explicit Job(const Case &c) : m_case(c), m_format(formatInfo(c.format)) {
        m_mipLevels = c.mipLevels ? c.mipLevels : fullChainLength(c.extent.width, c.extent.height);
        std::uint32_t rest = m_mipLevels > c.baseLevel ? m_mipLevels - 1 - c.baseLevel : 0;
        m_written = c.levelCount == VK_REMAINING_MIP_LEVELS ? rest : c.levelCount;
        m_targetLayers = c.targetLayers ? c.targetLayers : c.layers;
    }

    const Case &spec() const { return m_case; }
    const FormatInfo &format() const { return m_format; }
    std::uint32_t writtenLevels() const { return m_written; }
    const Image &image() const { return m_image; }
    const vkfx::DownsampleTarget &target() const { return m_target; }
    VkExtent2D baseExtent() const { return m_image.levelExtent(m_case.baseLevel); }
    bool minmax() const { return m_case.reduction == Reduction::MinMax; }
    const Poison &poisonLo() const { return m_poisonLo; }

    ImageSpec imageSpec() const {
        ImageSpec s;
        s.format = m_case.format;
        s.extent = m_case.extent;
        s.mipLevels = m_mipLevels;
        s.layers = m_case.layers;
        s.usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                  VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
        if (m_format.srgb)
            s.flags |= VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
        if (m_case.mutableFormat)
            s.flags |= VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT;
        s.viewFormats = m_case.viewFormats;
        if (m_case.cube)
            s.flags |= VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT;
        return s;
    }

    // Whether the device can run this case at all.
    bool supported(std::string *why) const {
        const std::uint32_t maxDim = ctx().limits().maxImageDimension2D;
        if (m_case.extent.width > maxDim || m_case.extent.height > maxDim) {
            *why = extentName(m_case.extent) + " exceeds maxImageDimension2D " +
                   std::to_string(maxDim);
            return false;
        }
        if (!deviceCanDownsample(m_case.format, VK_FORMAT_UNDEFINED, why))
            return false;
        return imageSupported(imageSpec(), why);
    }

    // Images, target and content. Content may be shared with another job (same case content).
    ::testing::AssertionResult create(const Job *sameContentAs = nullptr) {
        VkResult r = m_image.create(imageSpec());
        if (r != VK_SUCCESS)
            return ::testing::AssertionFailure() << "vkCreateImage / memory failed: " << r;
        if (minmax()) {
            r = m_maxImage.create(imageSpec());
            if (r != VK_SUCCESS)
                return ::testing::AssertionFailure() << "creating the max image failed: " << r;
        }
        vkfx::DownsampleTargetCreateInfo t;
        t.image = m_image.handle();
        t.format = m_case.format;
        t.extent = m_case.extent;
        t.mipLevels = m_mipLevels;
        t.usage = imageSpec().usage;
        t.flags = imageSpec().flags;
        t.baseArrayLayer = m_case.targetBaseLayer;
        t.layerCount = m_targetLayers;
        t.maxImage = m_maxImage.handle();
        t.viewFormats = m_case.viewFormats.data();
        t.viewFormatCount = static_cast<std::uint32_t>(m_case.viewFormats.size());
        r = vkfx::DownsampleTarget::create(ctx().vkfx, t, &m_target);
        if (r != VK_SUCCESS) {
            return ::testing::AssertionFailure()
                   << "DownsampleTarget::create failed (" << r << "): " << vkfx::lastError();
        }
        if (sameContentAs) {
            m_content = sameContentAs->m_content;
        } else {
            for (std::uint32_t layer = 0; layer < m_case.layers; ++layer) {
                m_content.push_back(std::make_shared<const std::vector<std::uint8_t>>(makeContent(
                    m_format, baseExtent(), m_case.pattern, m_case.seed * 1000 + layer)));
            }
        }
        std::mt19937_64 rng(m_case.seed * 7919 + 17);
        m_poisonLo = makePoison(m_format, rng);
        m_poisonHi = makePoison(m_format, rng);
        return ::testing::AssertionSuccess();
    }

    // Upload of the level read, poison of every level above it, then the layouts the downsample
    // expects: the level read in sourceLayout (visible to compute reads), the levels above in
    // GENERAL (after the clears, ordered before compute writes).
    void setup(VkCommandBuffer cmd, Staging &staging) {
        const std::uint32_t base = m_case.baseLevel;
        const std::uint32_t above = m_mipLevels - 1 - base;
        transition(cmd, m_image, 0, VK_REMAINING_MIP_LEVELS, use::kNone, use::kTransferDst);
        for (std::uint32_t layer = 0; layer < m_case.layers; ++layer) {
            staging.upload(cmd, m_image, base, layer, *m_content[layer]);
        }
        if (above)
            poison(cmd, m_image, base + 1, above, m_poisonLo);
        transition(cmd, m_image, base, 1, use::kTransferDst, sourceUse());
        if (above)
            transition(cmd, m_image, base + 1, above, use::kTransferDst, use::kComputeWrite);
        if (minmax() && above) {
            transition(cmd, m_maxImage, base + 1, above, use::kNone, use::kTransferDst);
            poison(cmd, m_maxImage, base + 1, above, m_poisonHi);
            transition(cmd, m_maxImage, base + 1, above, use::kTransferDst, use::kComputeWrite);
        }
    }

    Use sourceUse() const {
        return m_case.sourceLayout == VK_IMAGE_LAYOUT_GENERAL ? use::kComputeReadGeneral
                                                              : use::kComputeRead;
    }

    vkfx::DownsampleInfo info() const {
        vkfx::DownsampleInfo i;
        i.target = &m_target;
        i.baseLevel = m_case.baseLevel;
        i.levelCount = m_case.levelCount;
        i.sourceLayout = m_case.sourceLayout;
        i.dispatches = m_case.dispatches;
        return i;
    }

    // Downloads every level above the level read (written or not), all layers.
    void readback(VkCommandBuffer cmd, Staging &staging) {
        const std::uint32_t base = m_case.baseLevel;
        const std::uint32_t above = m_mipLevels - 1 - base;
        if (!above)
            return;
        transition(cmd, m_image, base + 1, above, use::kComputeWrite, use::kTransferSrc);
        if (minmax())
            transition(cmd, m_maxImage, base + 1, above, use::kComputeWrite, use::kTransferSrc);
        m_downLo.assign(above, {});
        m_downHi.assign(above, {});
        for (std::uint32_t i = 0; i < above; ++i) {
            for (std::uint32_t layer = 0; layer < m_case.layers; ++layer) {
                m_downLo[i].push_back(staging.download(cmd, m_image, base + 1 + i, layer));
                if (minmax())
                    m_downHi[i].push_back(staging.download(cmd, m_maxImage, base + 1 + i, layer));
            }
        }
    }

    // The reference of the written levels, from the stored texels of the level read.
    Expected expected() const {
        Expected e;
        const VkExtent2D extent = baseExtent();
        for (std::uint32_t layer = 0; layer < m_case.layers; ++layer) {
            const auto &bytes = *m_content[layer];
            switch (m_case.reduction) {
            case Reduction::Average:
                e.lo.push_back(
                    referenceFromBytes(m_format, extent, bytes, ReduceOp::Average, m_written));
                break;
            case Reduction::Min:
                e.lo.push_back(
                    referenceFromBytes(m_format, extent, bytes, ReduceOp::Min, m_written));
                break;
            case Reduction::Max:
                e.lo.push_back(
                    referenceFromBytes(m_format, extent, bytes, ReduceOp::Max, m_written));
                break;
            case Reduction::MinMax:
                e.lo.push_back(
                    referenceFromBytes(m_format, extent, bytes, ReduceOp::Min, m_written));
                e.hi.push_back(
                    referenceFromBytes(m_format, extent, bytes, ReduceOp::Max, m_written));
                break;
            }
        }
        return e;
    }

    bool inTarget(std::uint32_t layer) const {
        return layer >= m_case.targetBaseLayer && layer < m_case.targetBaseLayer + m_targetLayers;
    }

    // Downloaded bytes of one layer of image level `level` (> base).
    std::vector<std::uint8_t> level(const Staging &staging, std::uint32_t level,
                                    std::uint32_t layer, bool max = false) const {
        const auto &d = max ? m_downHi : m_downLo;
        return staging.bytes(d.at(level - m_case.baseLevel - 1).at(layer));
    }

    // Written levels of the target's layers match `expected`; every other level / layer above
    // the level read still holds the poison. Reports through EXPECT.
    void verify(const Staging &staging, const Expected &expected,
                std::uint32_t firstChecked = 0) const {
        const bool filtered = (m_case.flags & vkfx::DownsamplerFlagSamplerFilter) && m_format.channels > 1;
        const Tolerance tol = m_case.reduction != Reduction::Average ? Tolerance::Exact
                              : filtered                             ? Tolerance::Filtered
                                                                     : Tolerance::Average;
        LevelChecker lo(m_format, tol), hi(m_format, tol);
        std::string untouched;
        const std::uint32_t base = m_case.baseLevel;
        const std::uint32_t above = m_mipLevels - 1 - base;
        for (std::uint32_t i = 0; i < above; ++i) {
            const std::uint32_t level = base + 1 + i;
            for (std::uint32_t layer = 0; layer < m_case.layers; ++layer) {
                const bool written = i < m_written && inTarget(layer);
                for (int which = 0; which < (minmax() ? 2 : 1); ++which) {
                    std::vector<std::uint8_t> got = this->level(staging, level, layer, which == 1);
                    if (written) {
                        if (i < firstChecked)
                            continue;
                        const Plane &ref = (which == 1 ? expected.hi : expected.lo).at(layer).at(i);
                        (which == 1 ? hi : lo).check(level, layer, ref, got);
                    } else {
                        checkPoison(got, level, layer, which == 1 ? m_poisonHi : m_poisonLo,
                                    &untouched);
                    }
                }
            }
        }
        EXPECT_TRUE(lo.passed()) << m_case.describe() << (minmax() ? " (min image)" : "") << ":\n"
                                 << lo.report();
        if (minmax()) {
            EXPECT_TRUE(hi.passed()) << m_case.describe() << " (max image):\n" << hi.report();
        }
        EXPECT_TRUE(untouched.empty())
            << m_case.describe() << ": texels that must not be written were:\n"
            << untouched;
        const double maxError = std::max(lo.maxError(), hi.maxError());
        ::testing::Test::RecordProperty("max_error", std::to_string(maxError));
        if (verbose()) {
            std::printf("  %s: %llu values, max error %.4g\n", m_case.describe().c_str(),
                        static_cast<unsigned long long>(lo.checked() + hi.checked()), maxError);
        }
    }

    void checkPoison(const std::vector<std::uint8_t> &got, std::uint32_t level, std::uint32_t layer,
                     const Poison &p, std::string *report) const {
        const std::size_t texels = got.size() / m_format.bytesPerTexel;
        std::size_t bad = 0;
        std::size_t first = 0;
        for (std::size_t t = 0; t < texels; ++t) {
            if (!isPoison(m_format, got.data() + t * m_format.bytesPerTexel, p)) {
                if (!bad++)
                    first = t;
            }
        }
        if (bad || got.empty()) {
            const std::uint32_t w = m_image.levelExtent(level).width;
            *report += "  level " + std::to_string(level) + " layer " + std::to_string(layer) +
                       ": " + std::to_string(bad) + " of " + std::to_string(texels) +
                       " texels changed, first at (" + std::to_string(first % w) + ", " +
                       std::to_string(first / w) + ")\n";
        }
    }

  private:
    Case m_case;
    const FormatInfo &m_format;
    std::uint32_t m_mipLevels = 1;
    std::uint32_t m_written = 0;
    std::uint32_t m_targetLayers = 1;
    Image m_image, m_maxImage;
    vkfx::DownsampleTarget m_target;
    std::vector<std::shared_ptr<const std::vector<std::uint8_t>>> m_content;
    Poison m_poisonLo, m_poisonHi;
    std::vector<std::vector<std::size_t>> m_downLo, m_downHi;
};

vkfx::DownsamplerCreateInfo downsamplerInfo(const Case &c) {
    vkfx::DownsamplerCreateInfo info;
    info.format = c.format;
    info.reduction = c.reduction;
    info.flags = c.flags;
    return info;
}

// The cached Downsampler a case runs on (its create info, Case::windowReads, Case::edgeOrder and
// Case::groupSlots).
const vkfx::Downsampler *cachedDownsampler(const Case &c) {
    return cachedDownsampler(downsamplerInfo(c), c.windowReads, c.edgeOrder, c.groupSlots);
}

class DownsampleTest : public GpuTest {
  protected:
    // A supported job in one submission: create, setup, record, readback (callers check
    // HasFatalFailure() before reading `staging`).
    void recordAndRead(Job &job, Staging &staging) {
        const vkfx::Downsampler *ds = cachedDownsampler(job.spec());
        ASSERT_NE(ds, nullptr);
        ASSERT_TRUE(job.create());
        VkResult recorded = VK_SUCCESS;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                      job.setup(cmd, staging);
                      recorded = ds->record(cmd, job.info());
                      job.readback(cmd, staging);
                      staging.downloadsToHost(cmd);
                  }),
                  VK_SUCCESS);
        ASSERT_TRUE(staging.ok()) << staging.error();
        ASSERT_EQ(recorded, VK_SUCCESS) << vkfx::lastError();
    }

    // One case run two ways, `a` and `b` (the same content), recorded in one command buffer, `a`
    // first: each against the reference, and against each other byte for byte.
    // Both cases against the reference, and (sameBits) against each other byte for byte.
    void runBothWays(const Case &a, const Case &b, const char *ways, bool sameBits = true);

    // The whole case in one submission; then verification.
    void runCase(const Case &c) {
        SCOPED_TRACE(c.describe());
        Job job(c);
        std::string why;
        if (!job.supported(&why))
            GTEST_SKIP() << why;
        Staging staging;
        recordAndRead(job, staging);
        if (HasFatalFailure())
            return;
        job.verify(staging, job.expected());
    }
};

// Every written level of every layer of the target (and of the max image) holds the same bytes in
// `a` and `b`, two jobs of one case run two ways. Reports the first differing texel of each level.
void expectSameLevels(const Job &a, const Job &b, const Staging &staging, const char *ways) {
    const std::uint32_t bpt = a.format().bytesPerTexel;
    for (std::uint32_t i = 0; i < a.writtenLevels(); ++i) {
        const std::uint32_t level = a.spec().baseLevel + 1 + i;
        for (std::uint32_t layer = 0; layer < a.spec().layers; ++layer) {
            if (!a.inTarget(layer))
                continue;
            for (int which = 0; which < (a.minmax() ? 2 : 1); ++which) {
                std::vector<std::uint8_t> x = a.level(staging, level, layer, which == 1);
                std::vector<std::uint8_t> y = b.level(staging, level, layer, which == 1);
                ASSERT_EQ(x.size(), y.size());
                std::size_t diff = 0;
                while (diff < x.size() && x[diff] == y[diff])
                    ++diff;
                if (diff < x.size()) {
                    const std::size_t texel = diff / bpt;
                    const std::uint32_t w = a.image().levelExtent(level).width;
                    ADD_FAILURE() << "level " << level << " layer " << layer
                                  << (which ? " (max)" : "") << ": " << ways
                                  << " differ, first at texel (" << texel % w << ", " << texel / w
                                  << ") byte " << diff % bpt << ": " << int(x[diff]) << " vs "
                                  << int(y[diff]);
                }
            }
        }
    }
}

void DownsampleTest::runBothWays(const Case &a, const Case &b, const char *ways, bool sameBits) {
    Job jobA(a), jobB(b);
    std::string why;
    if (!jobA.supported(&why))
        GTEST_SKIP() << why;
    const vkfx::Downsampler *dsA = cachedDownsampler(a);
    const vkfx::Downsampler *dsB = cachedDownsampler(b);
    ASSERT_TRUE(dsA && dsB);
    ASSERT_TRUE(jobA.create());
    ASSERT_TRUE(jobB.create(&jobA));
    Staging staging;
    VkResult ra = VK_SUCCESS, rb = VK_SUCCESS;
    ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                  jobA.setup(cmd, staging);
                  jobB.setup(cmd, staging);
                  ra = dsA->record(cmd, jobA.info());
                  rb = dsB->record(cmd, jobB.info());
                  jobA.readback(cmd, staging);
                  jobB.readback(cmd, staging);
                  staging.downloadsToHost(cmd);
              }),
              VK_SUCCESS);
    ASSERT_TRUE(staging.ok()) << staging.error();
    ASSERT_EQ(ra, VK_SUCCESS) << vkfx::lastError();
    ASSERT_EQ(rb, VK_SUCCESS) << vkfx::lastError();
    const Expected expected = jobA.expected();
    jobA.verify(staging, expected);
    jobB.verify(staging, expected);
    if (sameBits)
        expectSameLevels(jobA, jobB, staging, ways);
}

// ---------------------------------------------------------------------------------------------
// Sizes: the full chain of RGBA8 Average on both code paths, which must agree byte for byte.

struct SizeParam {
    VkExtent2D extent;
};

class DownsampleSizes : public DownsampleTest, public ::testing::WithParamInterface<SizeParam> {};

TEST_P(DownsampleSizes, EveryLevelMatchesReferenceOnBothPathsWhichAgreeBitForBit) {
    // 8192x8192 takes about 20 s and 2.6 GB of host memory on lavapipe with 2 cores.
    const VkExtent2D extent = GetParam().extent;
    Case c;
    c.format = VK_FORMAT_R8G8B8A8_UNORM;
    c.reduction = Reduction::Average;
    c.extent = extent;
    c.seed = extent.width * 131u + extent.height;
    Case shared = c;
    shared.flags = vkfx::DownsamplerFlagSharedMemoryOnly;
    // Different images, different Downsamplers.
    runBothWays(c, shared, "the subgroup and shared-memory paths");
}

INSTANTIATE_TEST_SUITE_P(
    , DownsampleSizes,
    ::testing::Values(SizeParam{{1, 2}}, SizeParam{{2, 1}}, SizeParam{{1, 1000}},
                      SizeParam{{1000, 1}}, SizeParam{{3, 3}}, SizeParam{{7, 4}},
                      SizeParam{{63, 65}}, SizeParam{{64, 64}}, SizeParam{{65, 64}},
                      SizeParam{{128, 32}}, SizeParam{{255, 257}}, SizeParam{{1920, 1080}},
                      SizeParam{{382, 254}}, SizeParam{{4095, 17}}, SizeParam{{4097, 3}},
                      SizeParam{{2048, 2048}}, SizeParam{{4095, 2175}}, SizeParam{{1600, 1024}},
                      SizeParam{{2200, 1600}}, SizeParam{{4096, 4096}}, SizeParam{{16384, 4}},
                      SizeParam{{8192, 8192}}),
    [](const ::testing::TestParamInfo<SizeParam> &p) { return extentName(p.param.extent); });

// A generic footprint's reads (from shared memory: edge blocks above level +2, the continuing
// groups' small levels; and an edge block's odd footprints of level 0) as one 3x3 window, as GPUs
// run them, and in loops, as lavapipe does: each against the reference, and the same bits where
// level 0 is read exactly (with the bilinear read of 8-bit UNORM on NVIDIA GPUs, the window's rows
// sample the 2x2 children of an odd edge as the regular blocks do, the loops fetch them). Odd
// sizes whose edge blocks take 3x3 footprints and whose chains go on past level 6; MinMax for its
// two-value accumulators; RGBA8 and R32F (one gather a 2x2 footprint) where level 1 is odd and
// level 0 even, so that rows of three 2x2 children are read together.
TEST_F(DownsampleTest, WindowAndLoopedFootprintReadsAgreeBitForBit) {
    Case odd, minmax, fetched, gathered;
    odd.extent = {1917, 1079};
    minmax.reduction = Reduction::MinMax;
    minmax.extent = {383, 129};
    fetched.extent = {382, 254};
    gathered.format = VK_FORMAT_R32_SFLOAT;
    gathered.extent = {382, 254};
    for (Case c : {odd, minmax, fetched, gathered}) {
        c.seed = 77;
        Case window = c, looped = c;
        window.windowReads = 1;
        looped.windowReads = 2;
        SCOPED_TRACE(c.describe());
        const std::uint32_t read = vkfx::detail::downsampleReadModeOn(
            ctx().vkfx, downsamplerInfo(c), *vkfx::detail::findDownsampleFormat(c.format));
        runBothWays(window, looped, "window and looped reads",
                    read != vkfx::detail::kDownsampleReadBilinear);
        if (HasFatalFailure())
            return;
    }
}

// An edge block's level-2 texels in row-major order, and with those whose footprints are not 4x4
// last (the pipeline GPUs bind for chains that are not a multiple of 4 on a side): each against
// the reference, and the same bits. RGBA8 1917x1079 (both sides odd at level 0; the chain goes on
// past level 6), 5x301 and 301x5 (level 2 one texel wide or tall, and not interior: no interior
// column or row at all) and 382x254 (level 1 odd, level 0 even); R32F 4223x1087 (the continuing
// group's block of 65x16 level-6 texels, too many for its small path, takes the loop at level 8,
// whose last column is odd).
TEST_F(DownsampleTest, OddEdgeTexelsLastAgreeBitForBit) {
    using namespace vkfx::detail;
    ASSERT_TRUE(downsampleOddEdges({2047, 2047}, 1, 1024));  // 961 blocks
    ASSERT_FALSE(downsampleOddEdges({2879, 1619}, 1, 1024)); // 1100
    ASSERT_TRUE(downsampleOddEdges({2879, 1619}, 1, 2048));
    ASSERT_FALSE(downsampleOddEdges({2047, 2047}, 3, 2048));
    ASSERT_FALSE(downsampleOddEdges({1920, 1080}, 1, 2048)); // multiples of 4
    ASSERT_TRUE(downsampleOddEdges({1920, 1078}, 1, 2048));
    Case odd, narrow, flat, evenOdd, above;
    odd.extent = {1917, 1079};
    narrow.extent = {5, 301};
    flat.extent = {301, 5};
    evenOdd.extent = {382, 254};
    above.format = VK_FORMAT_R32_SFLOAT;
    above.extent = {4223, 1087};
    for (Case c : {odd, narrow, flat, evenOdd, above}) {
        c.seed = 83;
        Case last = c, rowMajor = c;
        last.edgeOrder = 1;
        rowMajor.edgeOrder = 2;
        SCOPED_TRACE(last.describe());
        // The chain binds the pipeline (the Downsampler's block limit, as create() takes it).
        const vkfx::DownsamplerCreateInfo info = downsamplerInfo(c);
        const DownsampleFormat &fmt = *findDownsampleFormat(c.format);
        const std::uint32_t read = downsampleReadModeOn(ctx().vkfx, info, fmt);
        ASSERT_TRUE(downsampleOddEdges(c.extent, c.layers, downsampleOddEdgeBlocks(read, fmt.channels)));
        runBothWays(last, rowMajor, "odd edge texels last and row-major");
        if (HasFatalFailure())
            return;
    }
}

// The shapes the device's workgroup slots decide (the slots overridden, so that every device runs
// them), each against the reference and against the rule by block count (slots not known: a 2x2),
// byte for byte. Average kernels that read a footprint with more than one sampler read: sRGB8 and
// RGBA16F at 1950x1950 (29x29 regular blocks, the last of each row alone in its workgroup; 59 edge
// blocks) with 250 slots take two side by side (a 2x2 would leave a part-filled wave); RGBA16F,
// which gathers each channel, at 2048x2048 (1024 blocks) with 396 slots one block each.
TEST_F(DownsampleTest, ShapesBySlotsAgreeWithTheBlockCountShapeBitForBit) {
    using namespace vkfx::detail;
    ASSERT_EQ(downsampleGroupShape(29, 29, 1, 59, 250), kDownsampleGroup2x1);
    ASSERT_EQ(downsampleGroupShape(29, 29, 1, 59, 0), kDownsampleGroup2x2);
    ASSERT_EQ(downsampleGroupShape(32, 32, 1, 0, 396), kDownsampleGroup2x2);
    ASSERT_EQ(downsampleGatherShape(kDownsampleGroup2x2, 32 * 32), kDownsampleGroup1x1);
    struct Shape {
        VkFormat format;
        VkExtent2D extent;
        std::int64_t slots;
    };
    for (Shape shape : {Shape{VK_FORMAT_R8G8B8A8_SRGB, {1950, 1950}, 250},
                        Shape{VK_FORMAT_R16G16B16A16_SFLOAT, {1950, 1950}, 250},
                        Shape{VK_FORMAT_R16G16B16A16_SFLOAT, {2048, 2048}, 396}}) {
        Case c;
        c.format = shape.format;
        c.extent = shape.extent;
        c.seed = 91;
        Case slots = c, count = c;
        slots.groupSlots = shape.slots;
        count.groupSlots = 0;
        SCOPED_TRACE(slots.describe());
        runBothWays(slots, count, "the shapes by slots and by block count");
        if (HasFatalFailure())
            return;
    }
}

// Two dispatches (the levels above 6 in a second one, which Auto takes on large images) against
// the reference and against one dispatch, byte for byte: both records in one command buffer, the
// two-dispatch one first, on one scratch (which it must leave zeroed for the other).
class DownsampleDispatchCount : public DownsampleTest,
                                public ::testing::WithParamInterface<Case> {};

TEST_P(DownsampleDispatchCount, TwoDispatchesMatchReferenceAndOneDispatchBitForBit) {
    Case one = GetParam();
    one.dispatches = vkfx::DownsampleDispatches::One;
    Case two = one;
    two.dispatches = vkfx::DownsampleDispatches::Two;
    SCOPED_TRACE(two.describe());
    runBothWays(two, one, "two and one dispatches");
}

// A case of random content whose seed is made of its extent and `salt`.
Case randomCase(VkFormat format, Reduction reduction, VkExtent2D extent, std::uint32_t salt,
                vkfx::DownsamplerFlags flags = 0) {
    Case c;
    c.format = format;
    c.reduction = reduction;
    c.extent = extent;
    c.flags = flags;
    c.seed = extent.width * 7u + extent.height + salt;
    return c;
}

std::vector<Case> dispatchCountCases() {
    std::vector<Case> cases;
    auto add = [&](VkFormat f, Reduction r, VkExtent2D e, std::uint32_t layers = 1) {
        Case c = randomCase(f, r, e, layers);
        c.layers = layers;
        cases.push_back(c);
        return cases.size() - 1;
    };
    add(VK_FORMAT_R8G8B8A8_UNORM, Reduction::Average, {129, 130});      // levels 7..
    add(VK_FORMAT_R8G8B8A8_UNORM, Reduction::Average, {1920, 1080});    // a 30x16 stage-1 block
    add(VK_FORMAT_R8G8B8A8_UNORM, Reduction::Average, {3840, 2160});    // 60x33: level 7 in rounds
    add(VK_FORMAT_R8G8B8A8_SRGB, Reduction::Average, {4095, 4095});     // 63x63: odd to the top
    add(VK_FORMAT_R8G8B8A8_UNORM, Reduction::Average, {4097, 3});       // levels 7..12
    add(VK_FORMAT_R8G8B8A8_UNORM, Reduction::Average, {16384, 4});      // and 13.. (stage 2)
    add(VK_FORMAT_R8G8B8A8_UNORM, Reduction::Average, {5, 12300});      // 1x3 stage-1 blocks
    add(VK_FORMAT_R8G8B8A8_UNORM, Reduction::Average, {1000, 1000}, 3); // a group per layer
    add(VK_FORMAT_R8G8B8A8_SRGB, Reduction::Average, {130, 66});
    cases[add(VK_FORMAT_R16G16B16A16_SFLOAT, Reduction::MinMax, {255, 257})].mutableFormat = true;
    add(VK_FORMAT_R32_SFLOAT, Reduction::Min, {300, 2000});
    add(VK_FORMAT_B10G11R11_UFLOAT_PACK32, Reduction::Average, {513, 129});
    Case &base = cases[add(VK_FORMAT_R8G8B8A8_UNORM, Reduction::Average, {4096, 64})];
    base.baseLevel = 1;
    base.sourceLayout = VK_IMAGE_LAYOUT_GENERAL;
    // Regular 64x64 blocks of level-6 texels, which the second dispatch's pipeline reduces 16
    // published texels an invocation (reduceRegularAbove): two layers; beside a folded 65-wide
    // block, and on to level 13; two values a texel, through the packed RGBA16F view.
    add(VK_FORMAT_R8G8B8A8_UNORM, Reduction::Average, {4096, 4096}, 2);
    cases[add(VK_FORMAT_R8G8B8A8_UNORM, Reduction::Average, {4096, 4096})].levelCount = 9; // 7..9
    add(VK_FORMAT_R32_SFLOAT, Reduction::Min, {8256, 4096});
    cases[add(VK_FORMAT_R16G16B16A16_SFLOAT, Reduction::MinMax, {4096, 4096})].mutableFormat = true;
    return cases;
}

INSTANTIATE_TEST_SUITE_P(, DownsampleDispatchCount, ::testing::ValuesIn(dispatchCountCases()),
                         [](const ::testing::TestParamInfo<Case> &p) {
                             std::string n = p.param.describe();
                             for (char &ch : n)
                                 if (!std::isalnum(static_cast<unsigned char>(ch)))
                                     ch = '_';
                             return n;
                         });

// How level 0 is read: the device's default (textureGather for one channel, and per channel for
// RGBA16F, everywhere; bilinear samples on NVIDIA for the formats of
// detail::downsampleNvidiaFilterIsFiner) and DownsamplerFlagTexelFetch, each against the reference.
// 2200x1100 has 33x16 regular blocks, held two side by side (the last group of each row holds one),
// beside the 50 edge blocks of its bottom row and right column, a workgroup each, and a spare
// group.
using ReadParam = std::tuple<VkFormat, Reduction, VkExtent2D>;
class DownsampleReads : public DownsampleTest, public ::testing::WithParamInterface<ReadParam> {};

TEST_P(DownsampleReads, DefaultAndTexelFetchReadsMatchReference) {
    // RGBA16F also with MUTABLE_FORMAT: level 0 then read through an R32G32_UINT view.
    const bool packable = std::get<0>(GetParam()) == VK_FORMAT_R16G16B16A16_SFLOAT;
    for (std::uint32_t run = 0; run < (packable ? 3u : 2u); ++run) {
        Case c = randomCase(std::get<0>(GetParam()), std::get<1>(GetParam()), std::get<2>(GetParam()), run,
                            run == 1 ? vkfx::DownsamplerFlagTexelFetch : 0u);
        c.mutableFormat = run == 2;
        SCOPED_TRACE(c.describe());
        runCase(c);
    }
}

INSTANTIATE_TEST_SUITE_P(
    , DownsampleReads,
    ::testing::Combine(::testing::Values(VK_FORMAT_R32_SFLOAT, VK_FORMAT_R8G8B8A8_UNORM,
                                         VK_FORMAT_R16G16B16A16_SFLOAT),
                       ::testing::Values(Reduction::Average, Reduction::Min),
                       ::testing::Values(VkExtent2D{255, 257}, VkExtent2D{2200, 1100})),
    [](const ::testing::TestParamInfo<ReadParam> &p) {
        return formatName(std::get<0>(p.param)) + "_" + reductionName(std::get<1>(p.param)) + "_" +
               extentName(std::get<2>(p.param));
    });

// DownsamplerFlagSamplerFilter: Average chains read each 2x2 footprint of level 0 with one bilinear
// sample (sRGB decoded by the sampler; fp16, RG8, A2B10G10R10 and RGBA8 UNORM on every device; the
// 3-wide footprints of odd edges exactly), within the filtered bound of the reference
// (tests/support/formats.hpp); ignored by Min chains (bit-exact). 2200x1100: 33x16 regular blocks
// held two side by side beside 50 edge blocks; 255x257: three regular blocks beside edge blocks.
using FilterParam = std::tuple<VkFormat, VkExtent2D>;
class DownsampleSamplerFilter : public DownsampleTest, public ::testing::WithParamInterface<FilterParam> {};

TEST_P(DownsampleSamplerFilter, FilteredReadsMatchReferenceWithinTheFilteredBound) {
    // RGBA16F also with MUTABLE_FORMAT (whose packed view the filtered read does not take) and
    // with SharedMemoryOnly.
    const bool half4 = std::get<0>(GetParam()) == VK_FORMAT_R16G16B16A16_SFLOAT;
    for (std::uint32_t run = 0; run < (half4 ? 4u : 2u); ++run) {
        const Reduction reduction = run == 1 ? Reduction::Min : Reduction::Average;
        Case c = randomCase(std::get<0>(GetParam()), reduction, std::get<1>(GetParam()), 5u + run,
                            vkfx::DownsamplerFlagSamplerFilter |
                                (run == 3 ? vkfx::DownsamplerFlagSharedMemoryOnly : 0u));
        c.mutableFormat = run == 2;
        SCOPED_TRACE(c.describe());
        runCase(c);
    }
}

INSTANTIATE_TEST_SUITE_P(
    , DownsampleSamplerFilter,
    ::testing::Combine(::testing::Values(VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_SRGB,
                                         VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R16G16_SFLOAT,
                                         VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8_UNORM,
                                         VK_FORMAT_A2B10G10R10_UNORM_PACK32),
                       ::testing::Values(VkExtent2D{255, 257}, VkExtent2D{2200, 1100})),
    [](const ::testing::TestParamInfo<FilterParam> &p) {
        return formatName(std::get<0>(p.param)) + "_" + extentName(std::get<1>(p.param));
    });

// A 1x1 image has no level to generate: recording the (empty) rest of its chain is a valid no-op
// (and records nothing: a dispatch would have no valid destination and fail validation).
TEST_F(DownsampleTest, SingleTexelImageHasNothingToWrite) {
    Case c;
    c.extent = {1, 1};
    Job job(c);
    const vkfx::Downsampler *ds = cachedDownsampler(c);
    ASSERT_NE(ds, nullptr);
    ASSERT_TRUE(job.create());
    Staging staging;
    VkResult r = VK_ERROR_UNKNOWN;
    ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                  job.setup(cmd, staging);
                  r = ds->record(cmd, job.info());
              }),
              VK_SUCCESS);
    EXPECT_EQ(r, VK_SUCCESS) << "levelCount = VK_REMAINING_MIP_LEVELS on a 1-level image: "
                             << vkfx::lastError();
}

// ---------------------------------------------------------------------------------------------
// Average and MinMax on every format, Min and Max on every other one; odd sizes, short and long
// chains.

using FormatParam = std::tuple<VkFormat, Reduction, VkExtent2D>;

class DownsampleFormats : public DownsampleTest,
                          public ::testing::WithParamInterface<FormatParam> {};

TEST_P(DownsampleFormats, EveryLevelMatchesReference) {
    Case c;
    c.format = std::get<0>(GetParam());
    c.reduction = std::get<1>(GetParam());
    c.extent = std::get<2>(GetParam());
    c.seed = static_cast<std::uint64_t>(c.format) * 100 +
             static_cast<std::uint64_t>(c.reduction) * 10 + c.extent.width;
    runCase(c);
}

// On lavapipe every new (pipeline, power-of-two-ness of the image extent) pair costs a shader
// compile of up to seconds (MinMax: up to 20), so the sizes share one class (odd x odd) except
// 1x1000 (width 1), which runs Average for every format and MinMax for one format of each kind
// of texel (8-bit, fp16, fp32). Min and Max each take every other format, each of them one UNORM
// and one sRGB 8-bit format (their kernels differ from each other only in the operator, which
// MinMax runs both of for every format).
std::vector<FormatParam> formatCases() {
    std::vector<FormatParam> cases;
    const std::vector<VkFormat> &formats = downsampleFormats();
    for (std::size_t f = 0; f < formats.size(); ++f) {
        const VkFormat format = formats[f];
        for (Reduction r :
             {Reduction::Average, Reduction::Min, Reduction::Max, Reduction::MinMax}) {
            const bool minHere = ((f ^ (f >> 1)) & 1u) == 0; // f = 0, 3, 4, 7, 8, 11, 12
            if ((r == Reduction::Min && !minHere) || (r == Reduction::Max && minHere))
                continue;
            for (VkExtent2D e : {VkExtent2D{7, 5}, VkExtent2D{63, 65}, VkExtent2D{255, 257},
                                 VkExtent2D{4097, 3}}) {
                cases.emplace_back(format, r, e);
            }
            const bool minMaxWidth1 = format == VK_FORMAT_R8G8B8A8_UNORM ||
                                      format == VK_FORMAT_R16G16B16A16_SFLOAT ||
                                      format == VK_FORMAT_R32_SFLOAT;
            if (r == Reduction::Average || (r == Reduction::MinMax && minMaxWidth1))
                cases.emplace_back(format, r, VkExtent2D{1, 1000});
        }
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(, DownsampleFormats, ::testing::ValuesIn(formatCases()),
                         [](const ::testing::TestParamInfo<FormatParam> &p) {
                             return formatName(std::get<0>(p.param)) + "_" +
                                    reductionName(std::get<1>(p.param)) + "_" +
                                    extentName(std::get<2>(p.param));
                         });

// ---------------------------------------------------------------------------------------------
// Structured content: gradients, checkerboards (period 1 and 3), hot pixels in the corners and
// on the odd last row and column (which fold into the last texel of the next level).

using PatternParam = std::tuple<Pattern, VkFormat, Reduction>;

class DownsamplePatterns : public DownsampleTest,
                           public ::testing::WithParamInterface<PatternParam> {};

TEST_P(DownsamplePatterns, EveryLevelMatchesReferenceOnOddSizes) {
    for (VkExtent2D extent : {VkExtent2D{7, 5}, VkExtent2D{63, 65}, VkExtent2D{129, 255}}) {
        Case c;
        c.pattern = std::get<0>(GetParam());
        c.format = std::get<1>(GetParam());
        c.reduction = std::get<2>(GetParam());
        c.extent = extent;
        runCase(c);
        if (stopped())
            return;
    }
}

INSTANTIATE_TEST_SUITE_P(
    , DownsamplePatterns,
    ::testing::Combine(::testing::Values(Pattern::Gradient, Pattern::Checker, Pattern::HotPixels),
                       ::testing::Values(VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R16G16B16A16_SFLOAT,
                                         VK_FORMAT_B10G11R11_UFLOAT_PACK32, VK_FORMAT_R16_UNORM),
                       ::testing::Values(Reduction::Average, Reduction::MinMax)),
    [](const ::testing::TestParamInfo<PatternParam> &p) {
        return std::string(patternName(std::get<0>(p.param))) + "_" +
               formatName(std::get<1>(p.param)) + "_" + reductionName(std::get<2>(p.param));
    });

// Float formats round each level to nearest, ties to even (a store's own conversion may truncate):
// level 1 of RoundingTies equals the correctly rounded means exactly, not only within 1 ulp.
TEST_F(DownsampleTest, FloatLevelsRoundToNearestTiesToEven) {
    for (VkFormat format : {VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R16G16_SFLOAT,
                            VK_FORMAT_R16_SFLOAT, VK_FORMAT_B10G11R11_UFLOAT_PACK32}) {
        Case c;
        c.format = format;
        c.extent = {12, 2};
        c.mipLevels = 2;
        c.pattern = Pattern::RoundingTies;
        SCOPED_TRACE(c.describe());
        Job job(c);
        std::string why;
        if (!job.supported(&why)) {
            std::printf("vkfx_test: %s skipped: %s\n", formatName(format).c_str(), why.c_str());
            continue;
        }
        Staging staging;
        recordAndRead(job, staging);
        if (HasFatalFailure())
            return;
        job.verify(staging, job.expected());
        const FormatInfo &f = job.format();
        const std::vector<std::uint8_t> level1 = job.level(staging, 1, 0);
        ASSERT_EQ(level1.size(), std::size(kRoundingTies) * f.bytesPerTexel);
        for (std::size_t i = 0; i < std::size(kRoundingTies); ++i) {
            const TieFootprint &t = tieFootprint(f, i);
            for (std::uint32_t ch = 0; ch < f.channels; ++ch) {
                EXPECT_EQ(decode(f, level1.data() + i * f.bytesPerTexel, ch),
                          t.base + t.rounded * tieUnit(f, ch, i))
                    << "level-1 texel " << i << " channel " << ch;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Layers, cubes, partial chains, base levels.

TEST_F(DownsampleTest, ArrayOfThreeLayersMatchesReferencePerLayer) {
    Case c;
    c.extent = {255, 257};
    c.layers = 3;
    runCase(c);
}

TEST_F(DownsampleTest, ArrayLayersWithMinMaxMatchReferencePerLayer) {
    Case c;
    c.format = VK_FORMAT_R32_SFLOAT;
    c.reduction = Reduction::MinMax;
    c.extent = {1000, 300};
    c.layers = 3;
    runCase(c);
}

// RGBA16F images created with MUTABLE_FORMAT are read through an R32G32_UINT view (a kernel of
// its own, min+max included); with a format list that lacks R32G32_UINT they are not (the
// validation layer would report the view), and the result is the same.
TEST_F(DownsampleTest, MutableRgba16fMinMaxReadsPackedHalvesAndMatchesReference) {
    Case c;
    c.format = VK_FORMAT_R16G16B16A16_SFLOAT;
    c.reduction = Reduction::MinMax;
    c.extent = {255, 257};
    c.mutableFormat = true;
    runCase(c);
}

TEST_F(DownsampleTest, MutableRgba16fWithAFormatListWithoutR32G32UintMatchesReference) {
    for (bool listed : {false, true}) {
        Case c;
        c.format = VK_FORMAT_R16G16B16A16_SFLOAT;
        c.extent = {300, 200};
        c.mutableFormat = true;
        c.viewFormats = {VK_FORMAT_R16G16B16A16_SFLOAT};
        if (listed)
            c.viewFormats.push_back(VK_FORMAT_R32G32_UINT);
        SCOPED_TRACE(c.describe());
        runCase(c);
    }
}

TEST_F(DownsampleTest, CubeOfSixFacesMatchesReferencePerFace) {
    Case c;
    c.format = VK_FORMAT_R16G16B16A16_SFLOAT;
    c.extent = {300, 300};
    c.layers = 6;
    c.cube = true;
    runCase(c);
}

TEST_F(DownsampleTest, SrgbCubeMatchesReferencePerFace) {
    Case c;
    c.format = VK_FORMAT_R8G8B8A8_SRGB;
    c.extent = {65, 65};
    c.layers = 6;
    c.cube = true;
    c.pattern = Pattern::Gradient;
    runCase(c);
}

TEST_F(DownsampleTest, OnlyTheTargetsLayersAreWritten) {
    Case c;
    c.extent = {100, 70};
    c.layers = 4;
    c.targetBaseLayer = 1;
    c.targetLayers = 2;
    runCase(c); // layers 0 and 3 are checked to keep their poison
}

// The public chain helpers against the definition (floor(log2(max side)) + 1 levels; each side
// max(1, side >> level)), counted here by halving.
TEST(DownsampleHelpers, FullMipLevelsAndMipExtentFollowVulkan) {
    const VkExtent2D extents[] = {{1, 1}, {2, 1}, {1, 3}, {7, 5}, {64, 100}, {1917, 1079},
                                  {4096, 4096}, {4095, 17}, {32768, 1}};
    for (const VkExtent2D e : extents) {
        std::uint32_t levels = 1;
        for (VkExtent2D m = e; m.width > 1 || m.height > 1; ++levels)
            m = {std::max(1u, m.width / 2), std::max(1u, m.height / 2)};
        EXPECT_EQ(vkfx::fullMipLevels(e), levels) << e.width << "x" << e.height;
        VkExtent2D m = e;
        for (std::uint32_t l = 0; l < levels + 2; ++l) {
            const VkExtent2D got = vkfx::mipExtent(e, l);
            EXPECT_EQ(got.width, m.width) << e.width << "x" << e.height << " level " << l;
            EXPECT_EQ(got.height, m.height) << e.width << "x" << e.height << " level " << l;
            m = {std::max(1u, m.width / 2), std::max(1u, m.height / 2)};
        }
    }
    EXPECT_EQ(vkfx::mipExtent({5, 5}, 40).width, 1u);
}

// DownsampleDispatches::Auto takes two dispatches from 16384 blocks of 64x64 over all layers, or,
// where the second dispatch reduces regular blocks from registers, where level 6 holds more than
// 2048 texels a layer, and only where more than 6 levels are made; One and Two force either (Two:
// beyond 6 levels).
TEST(DownsampleHelpers, TwoDispatchesWhereTheRuleSays) {
    using vkfx::DownsampleDispatches;
    using vkfx::detail::downsampleTwoDispatches;
    const DownsampleDispatches a = DownsampleDispatches::Auto;
    EXPECT_TRUE(downsampleTwoDispatches(a, {8192, 8192}, 1, 13, true));  // 128 x 128 blocks
    EXPECT_TRUE(downsampleTwoDispatches(a, {16384, 8192}, 1, 14, true));
    EXPECT_TRUE(downsampleTwoDispatches(a, {12287, 8191}, 1, 13, true)); // 191 x 127: 24257 blocks
    EXPECT_TRUE(downsampleTwoDispatches(a, {4096, 4096}, 6, 12, true));  // a cube
    EXPECT_FALSE(downsampleTwoDispatches(a, {1024, 1024}, 6, 10, true));
    EXPECT_FALSE(downsampleTwoDispatches(a, {2048, 2048}, 6, 11, true)); // 32 x 32 texels a layer
    // Level 6 of more than 2048 texels a layer.
    EXPECT_TRUE(downsampleTwoDispatches(a, {4096, 4096}, 1, 12, true));
    EXPECT_TRUE(downsampleTwoDispatches(a, {8191, 8191}, 1, 12, true)); // 127 x 127
    EXPECT_TRUE(downsampleTwoDispatches(a, {4095, 4095}, 1, 11, true)); // 63 x 63
    EXPECT_TRUE(downsampleTwoDispatches(a, {2944, 2944}, 1, 11, true)); // 46 x 46: 2116
    EXPECT_FALSE(downsampleTwoDispatches(a, {2943, 2943}, 1, 11, true)); // 45 x 45: 2025
    EXPECT_TRUE(downsampleTwoDispatches(a, {4096, 2112}, 1, 12, true)); // 64 x 33: 2112
    EXPECT_FALSE(downsampleTwoDispatches(a, {4096, 2048}, 1, 12, true)); // 64 x 32: 2048
    EXPECT_FALSE(downsampleTwoDispatches(a, {3840, 2160}, 1, 11, true)); // 60 x 33: 1980
    EXPECT_TRUE(downsampleTwoDispatches(a, {4160, 4096}, 1, 12, true));
    EXPECT_TRUE(downsampleTwoDispatches(a, {4096, 4096}, 1, 7, true)); // part of the chain
    // One channel, or no subgroup shuffles: the second dispatch would not take the registers.
    EXPECT_FALSE(downsampleTwoDispatches(a, {4096, 4096}, 1, 12, false));
    EXPECT_TRUE(downsampleTwoDispatches(a, {8192, 8192}, 1, 13, false));
    EXPECT_FALSE(downsampleTwoDispatches(a, {1920, 1080}, 1, 10, true));
    EXPECT_FALSE(downsampleTwoDispatches(a, {16384, 16384}, 1, 6, true)); // no level above 6
    EXPECT_FALSE(downsampleTwoDispatches(DownsampleDispatches::One, {16384, 16384}, 1, 14, true));
    EXPECT_TRUE(downsampleTwoDispatches(DownsampleDispatches::Two, {129, 130}, 1, 7, true));
    EXPECT_FALSE(downsampleTwoDispatches(DownsampleDispatches::Two, {129, 130}, 1, 6, true));
}

// How level 0 is read by format, reduction, flags and device (detail::downsampleReadMode):
// DownsamplerFlagSamplerFilter takes one bilinear sample for Average chains of more than one
// channel whose format filters, on any device, and leaves every other chain as it was.
TEST(DownsampleHelpers, ReadModeWhereTheFlagsSay) {
    using namespace vkfx::detail;
    using vkfx::Reduction;
    const vkfx::DownsamplerFlags filter = vkfx::DownsamplerFlagSamplerFilter;
    const vkfx::DownsamplerFlags fetch = vkfx::DownsamplerFlagTexelFetch;
    const VkFormat srgb = VK_FORMAT_R8G8B8A8_SRGB, half4 = VK_FORMAT_R16G16B16A16_SFLOAT,
                   half2 = VK_FORMAT_R16G16_SFLOAT, rgba8 = VK_FORMAT_R8G8B8A8_UNORM, r32 = VK_FORMAT_R32_SFLOAT;
    // Defaults (flags, reduction, format, channels, sRGB, depth, NVIDIA, filters).
    EXPECT_EQ(downsampleReadMode(0, Reduction::Average, srgb, 4, true, false, true, true), kDownsampleReadFetch);
    EXPECT_EQ(downsampleReadMode(0, Reduction::Average, half4, 4, false, false, true, true), kDownsampleReadGather);
    EXPECT_EQ(downsampleReadMode(0, Reduction::Average, half2, 2, false, false, true, true), kDownsampleReadFetch);
    EXPECT_EQ(downsampleReadMode(0, Reduction::Average, rgba8, 4, false, false, true, true), kDownsampleReadBilinear);
    EXPECT_EQ(downsampleReadMode(0, Reduction::Average, rgba8, 4, false, false, false, true), kDownsampleReadFetch);
    EXPECT_EQ(downsampleReadMode(0, Reduction::Average, r32, 1, false, false, true, true), kDownsampleReadGather);
    // On NVIDIA, bilinear only for the formats whose filter was measured finer than the format:
    // B10G11R11, RGBA32F, RG8 and A2B10G10R10 as RGBA8; R16F and R8 gather.
    EXPECT_EQ(downsampleReadMode(0, Reduction::Average, VK_FORMAT_B10G11R11_UFLOAT_PACK32, 3, false,
                                 false, true, true),
              kDownsampleReadBilinear);
    EXPECT_EQ(downsampleReadMode(0, Reduction::Average, VK_FORMAT_R32G32B32A32_SFLOAT, 4, false,
                                 false, true, true),
              kDownsampleReadBilinear);
    EXPECT_EQ(downsampleReadMode(0, Reduction::Average, VK_FORMAT_R8G8_UNORM, 2, false, false, true,
                                 true),
              kDownsampleReadBilinear);
    EXPECT_EQ(downsampleReadMode(0, Reduction::Average, VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4,
                                 false, false, true, true),
              kDownsampleReadBilinear);
    EXPECT_EQ(downsampleReadMode(0, Reduction::Average, VK_FORMAT_R16_SFLOAT, 1, false, false, true,
                                 true),
              kDownsampleReadGather);
    EXPECT_EQ(
        downsampleReadMode(0, Reduction::Average, VK_FORMAT_R8_UNORM, 1, false, false, true, true),
        kDownsampleReadGather);
    EXPECT_EQ(downsampleReadMode(fetch, Reduction::Average, rgba8, 4, false, false, true, true), kDownsampleReadFetch);
    EXPECT_EQ(downsampleReadMode(fetch, Reduction::Min, r32, 1, false, true, true, true), kDownsampleReadFetch);
    // The flag: bilinear for sRGB, RGBA16F, RG16F and 8-bit UNORM off NVIDIA ...
    EXPECT_EQ(downsampleReadMode(filter, Reduction::Average, srgb, 4, true, false, true, true), kDownsampleReadBilinear);
    EXPECT_EQ(downsampleReadMode(filter, Reduction::Average, half4, 4, false, false, false, true), kDownsampleReadBilinear);
    EXPECT_EQ(downsampleReadMode(filter, Reduction::Average, half2, 2, false, false, true, true), kDownsampleReadBilinear);
    EXPECT_EQ(downsampleReadMode(filter, Reduction::Average, rgba8, 4, false, false, false, true), kDownsampleReadBilinear);
    EXPECT_EQ(downsampleReadMode(filter, Reduction::Average, VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4,
                                 false, false, true, true),
              kDownsampleReadBilinear);
    // ... but not where the format does not filter, for Min / Max, one channel or depth.
    EXPECT_EQ(downsampleReadMode(filter, Reduction::Average, half4, 4, false, false, true, false), kDownsampleReadGather);
    EXPECT_EQ(downsampleReadMode(filter, Reduction::Min, srgb, 4, true, false, true, true), kDownsampleReadFetch);
    EXPECT_EQ(downsampleReadMode(filter, Reduction::MinMax, half4, 4, false, false, true, true), kDownsampleReadGather);
    EXPECT_EQ(downsampleReadMode(filter, Reduction::Average, r32, 1, false, false, true, true), kDownsampleReadGather);
    EXPECT_EQ(downsampleReadMode(filter, Reduction::Average, r32, 1, false, true, true, true), kDownsampleReadGather);
}

// A stage-0 workgroup holds one regular block up to 384 of them (over all layers), two side by
// side below 800, a 2x2 from there. (DownsampleSizes runs each: 255x257; 1920x1080 and 1600x1024,
// 25x16 blocks, the last group of each row holding one; 2048x2048 and 2200x1600, 33x25 regular
// blocks, the last groups partly filled, beside a right edge column.)
TEST(DownsampleHelpers, GroupShapeByRegularBlocks) {
    using namespace vkfx::detail;
    EXPECT_EQ(downsampleGroupShape(1), kDownsampleGroup1x1);
    EXPECT_EQ(downsampleGroupShape(256), kDownsampleGroup1x1); // 1024^2
    EXPECT_EQ(downsampleGroupShape(384), kDownsampleGroup1x1);
    EXPECT_EQ(downsampleGroupShape(385), kDownsampleGroup2x1);
    EXPECT_EQ(downsampleGroupShape(30 * 15), kDownsampleGroup2x1); // 1920x1080
    EXPECT_EQ(downsampleGroupShape(32 * 24), kDownsampleGroup2x1); // 2048x1536
    EXPECT_EQ(downsampleGroupShape(799), kDownsampleGroup2x1);
    EXPECT_EQ(downsampleGroupShape(800), kDownsampleGroup2x2);
    EXPECT_EQ(downsampleGroupShape(40 * 21), kDownsampleGroup2x2);     // 2560x1440
    EXPECT_EQ(downsampleGroupShape(16 * 16 * 6), kDownsampleGroup2x2); // a 1024^2 cube
}

// Average kernels without read-ahead on a device that runs 396 workgroups at once (132 SMs): two
// side by side where a 2x2 would leave a second, part-filled wave that they fill (innerX, innerY,
// layers, edge blocks a layer); elsewhere, and where the slots are not known, the rule by block
// count.
TEST(DownsampleHelpers, GroupShapeByWaves) {
    using namespace vkfx::detail;
    const std::uint64_t slots = 132 * kDownsampleGroupsPerMultiprocessor;
    EXPECT_EQ(downsampleGroupShape(60, 32, 1, 60, slots), kDownsampleGroup2x1);      // 3840x2160
    EXPECT_EQ(downsampleGroupShape(40, 40, 1, 0, slots), kDownsampleGroup2x1);       // 2560x2560
    EXPECT_EQ(downsampleGroupShape(50, 36, 1, 50, slots), kDownsampleGroup2x1);      // 3200x2400
    EXPECT_EQ(downsampleGroupShape(64, 64, 1, 0, slots), kDownsampleGroup2x2);       // 4096^2
    EXPECT_EQ(downsampleGroupShape(128, 128, 1, 0, slots), kDownsampleGroup2x2);     // 8192^2
    EXPECT_EQ(downsampleGroupShape(40, 21, 1, 40, slots), kDownsampleGroup2x2);      // 2560x1440
    EXPECT_EQ(downsampleGroupShape(32, 32, 1, 0, slots), kDownsampleGroup2x2);       // 2048^2
    EXPECT_EQ(downsampleGroupShape(16, 16, 6, 0, slots), kDownsampleGroup2x2);       // a 1024^2 cube
    EXPECT_EQ(downsampleGroupShape(30, 15, 1, 30, slots), kDownsampleGroup2x1);      // 1920x1080: by count
    EXPECT_EQ(downsampleGroupShape(16, 16, 1, 0, slots), kDownsampleGroup1x1);       // 1024^2: by count
    EXPECT_EQ(downsampleGroupShape(60, 32, 1, 60, 0), kDownsampleGroup2x2);          // slots unknown
    EXPECT_EQ(downsampleGroupShape(40, 40, 1, 0, 0), kDownsampleGroup2x2);
}

// Kernels that gather each channel (RGBA16F), after the rules above: where those take a 2x2, one
// block per workgroup below 2048 regular blocks, two side by side from there to the two-dispatch
// sizes.
TEST(DownsampleHelpers, GatherShapeByRegularBlocks) {
    using namespace vkfx::detail;
    EXPECT_EQ(downsampleGatherShape(kDownsampleGroup2x2, 40 * 21), kDownsampleGroup1x1); // 2560x1440
    EXPECT_EQ(downsampleGatherShape(kDownsampleGroup2x2, 2047), kDownsampleGroup1x1);
    EXPECT_EQ(downsampleGatherShape(kDownsampleGroup2x2, 2048), kDownsampleGroup2x1);
    EXPECT_EQ(downsampleGatherShape(kDownsampleGroup2x2, 64 * 64), kDownsampleGroup2x1); // 4096^2
    EXPECT_EQ(downsampleGatherShape(kDownsampleGroup2x2, 16383), kDownsampleGroup2x1);
    EXPECT_EQ(downsampleGatherShape(kDownsampleGroup2x2, 128 * 128), kDownsampleGroup2x2); // 8192^2
    EXPECT_EQ(downsampleGatherShape(kDownsampleGroup2x2, 64 * 64 * 6), kDownsampleGroup2x2); // a cube
    EXPECT_EQ(downsampleGatherShape(kDownsampleGroup2x1, 60 * 32), kDownsampleGroup2x1); // 3840x2160
    EXPECT_EQ(downsampleGatherShape(kDownsampleGroup2x1, 30 * 15), kDownsampleGroup2x1); // 1920x1080
    EXPECT_EQ(downsampleGatherShape(kDownsampleGroup1x1, 256), kDownsampleGroup1x1);
}

TEST_F(DownsampleTest, BaseLevelAboveZeroReadsThatLevelInGeneralLayout) {
    Case c;
    c.extent = {1000, 1000};
    c.baseLevel = 2; // reads 250x250, writes levels 3..9 (more than one block of levels)
    c.sourceLayout = VK_IMAGE_LAYOUT_GENERAL;
    runCase(c);
}

TEST_F(DownsampleTest, PartialChainLeavesTheLevelsAfterItUntouched) {
    for (VkFormat format : {VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_B10G11R11_UFLOAT_PACK32,
                            VK_FORMAT_R8G8B8A8_SRGB}) {
        Case c;
        c.format = format;
        c.extent = {255, 257};
        c.levelCount = 4; // levels 1..4 of 8
        runCase(c);
    }
}

TEST_F(DownsampleTest, PartialChainAcrossTheFirstBlockOfLevels) {
    Case c;
    c.extent = {4097, 300};
    c.levelCount = 8; // levels 1..8 of 12: stops inside the second block
    c.reduction = Reduction::Max;
    runCase(c);
}

TEST_F(DownsampleTest, ImageWithAShortChainWritesItsLevelsOnly) {
    Case c;
    c.format = VK_FORMAT_R32G32B32A32_SFLOAT;
    c.extent = {255, 257};
    c.mipLevels = 5;
    runCase(c);
}

// ---------------------------------------------------------------------------------------------
// Several records in one command buffer; the same Downsampler twice on one image.

TEST_F(DownsampleTest, SameDownsamplerTwiceOnOneImageContinuesFromTheStoredLevel) {
    Case c;
    c.extent = {1000, 700};
    Job job(c);
    std::string why;
    if (!job.supported(&why))
        GTEST_SKIP() << why;
    const vkfx::Downsampler *ds = cachedDownsampler(c);
    ASSERT_NE(ds, nullptr);
    ASSERT_TRUE(job.create());
    Staging staging;
    VkResult first = VK_ERROR_UNKNOWN, second = VK_ERROR_UNKNOWN;
    ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                  job.setup(cmd, staging);
                  vkfx::DownsampleInfo a = job.info();
                  a.levelCount = 3; // levels 1..3
                  first = ds->record(cmd, a);
                  // Level 3 was written by compute; the second record samples it in GENERAL.
                  transition(cmd, job.image(), 3, 1, use::kComputeWrite, use::kComputeReadGeneral);
                  vkfx::DownsampleInfo b = job.info();
                  b.baseLevel = 3; // levels 4..9
                  b.sourceLayout = VK_IMAGE_LAYOUT_GENERAL;
                  second = ds->record(cmd, b);
                  transition(cmd, job.image(), 3, 1, use::kComputeReadGeneral, use::kComputeWrite);
                  job.readback(cmd, staging);
                  staging.downloadsToHost(cmd);
              }),
              VK_SUCCESS);
    ASSERT_EQ(first, VK_SUCCESS) << vkfx::lastError();
    ASSERT_EQ(second, VK_SUCCESS) << vkfx::lastError();
    ASSERT_TRUE(staging.ok()) << staging.error();

    // Levels 1..3 from level 0.
    Expected fromLevel0 = job.expected();
    // Levels 4.. from level 3 as stored (the second record reads what the first one wrote).
    const VkExtent2D e3 = job.image().levelExtent(3);
    std::vector<Plane> rest = referenceFromBytes(job.format(), e3, job.level(staging, 3, 0),
                                                 ReduceOp::Average, job.writtenLevels() - 3);
    Expected expected = fromLevel0;
    for (std::uint32_t i = 3; i < job.writtenLevels(); ++i)
        expected.lo[0][i] = rest[i - 3];
    job.verify(staging, expected);
}

// ---------------------------------------------------------------------------------------------
// Scratch.

TEST_F(DownsampleTest, CallerScratchIsSharedByRecordsAndLeftZeroed) {
    std::vector<Case> cases(4);
    cases[0].extent = {1000, 700}; // 10 levels: level-12 counters
    cases[1].extent = {4097, 3};   // 13 levels: level-18 counters
    cases[2].extent = {255, 257};
    cases[2].layers = 3;
    cases[3].extent = {4096, 4096}; // a regular block of level-6 texels (reduceRegularAbove)
    cases[1].dispatches = vkfx::DownsampleDispatches::Two; // each leaves the scratch zeroed too
    cases[2].dispatches = vkfx::DownsampleDispatches::Two;
    cases[3].dispatches = vkfx::DownsampleDispatches::Two;
    const vkfx::Downsampler *ds = cachedDownsampler(cases[0]);
    ASSERT_NE(ds, nullptr);
    std::vector<std::unique_ptr<Job>> jobs;
    VkDeviceSize need = 0, align = 4;
    for (const Case &c : cases) {
        jobs.push_back(std::make_unique<Job>(c));
        std::string why;
        if (!jobs.back()->supported(&why))
            GTEST_SKIP() << why;
        ASSERT_TRUE(jobs.back()->create());
        vkfx::ScratchRequirements req = ds->scratchRequirements(jobs.back()->baseExtent(), c.layers,
                                                                jobs.back()->writtenLevels());
        EXPECT_NE(req.usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0u);
        need = std::max(need, req.size);
        align = std::max(align, req.alignment);
    }
    // The scratch sits at a non-zero aligned offset, with guard bytes before and after.
    const VkDeviceSize offset = align * 2;
    Buffer scratch;
    ASSERT_EQ(scratch.create(offset + need + 256,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT),
              VK_SUCCESS);
    Staging staging;
    std::vector<VkResult> results(jobs.size(), VK_ERROR_UNKNOWN);
    ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                  for (auto &job : jobs)
                      job->setup(cmd, staging);
                  vkCmdFillBuffer(cmd, scratch.handle(), 0, VK_WHOLE_SIZE, 0);
                  memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
                  for (std::size_t i = 0; i < jobs.size(); ++i) {
                      vkfx::DownsampleInfo info = jobs[i]->info();
                      info.scratchBuffer = scratch.handle();
                      info.scratchOffset = offset;
                      info.scratchSize = need;
                      results[i] = ds->record(cmd, info);
                  }
                  for (auto &job : jobs)
                      job->readback(cmd, staging);
                  memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                                VK_ACCESS_HOST_READ_BIT);
                  staging.downloadsToHost(cmd);
              }),
              VK_SUCCESS);
    ASSERT_TRUE(staging.ok()) << staging.error();
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        ASSERT_EQ(results[i], VK_SUCCESS) << cases[i].describe() << ": " << vkfx::lastError();
        jobs[i]->verify(staging, jobs[i]->expected());
    }
    scratch.invalidate();
    std::size_t nonZero = 0, firstNonZero = 0;
    for (std::size_t b = 0; b < scratch.size(); ++b) {
        if (scratch.data()[b] != 0 && !nonZero++)
            firstNonZero = b;
    }
    EXPECT_EQ(nonZero, 0u) << "the scratch must be left zeroed; first non-zero byte at "
                           << firstNonZero << " (scratch at " << offset << ".." << offset + need
                           << ")";
}

TEST_F(DownsampleTest, OwnScratchIsReusedAcrossSubmissionsOfDifferentSizes) {
    // A fresh Downsampler: its own scratch starts zeroed and must stay reusable.
    Case first;
    vkfx::Downsampler ds;
    ASSERT_EQ(vkfx::Downsampler::create(ctx().vkfx, downsamplerInfo(first), &ds), VK_SUCCESS)
        << vkfx::lastError();
    for (VkExtent2D extent : {VkExtent2D{4096, 64}, VkExtent2D{300, 2000}, VkExtent2D{4097, 3},
                              VkExtent2D{1000, 1000}, VkExtent2D{70, 70}, VkExtent2D{4096, 64}}) {
        Case c;
        c.extent = extent;
        c.seed = extent.width + extent.height;
        SCOPED_TRACE(c.describe());
        Job job(c);
        ASSERT_TRUE(job.create());
        Staging staging;
        VkResult r = VK_ERROR_UNKNOWN;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                      job.setup(cmd, staging);
                      r = ds.record(cmd, job.info());
                      job.readback(cmd, staging);
                      staging.downloadsToHost(cmd);
                  }),
                  VK_SUCCESS);
        ASSERT_EQ(r, VK_SUCCESS) << vkfx::lastError();
        job.verify(staging, job.expected());
    }
}

// ---------------------------------------------------------------------------------------------
// Depth pyramids: D32_SFLOAT / D16_UNORM level 0 -> R32_SFLOAT pyramid, Min / Max / MinMax,
// level 0 copied (bit-exact: D16 as float(code) / 65535.0f) or reduced.

using DepthParam = std::tuple<VkFormat, Reduction, vkfx::DepthLevelZero>;

class DepthPyramid : public GpuTest, public ::testing::WithParamInterface<DepthParam> {
  protected:
    void runDepth(VkExtent2D depthExtent,
                  vkfx::DownsampleDispatches dispatches = vkfx::DownsampleDispatches::Auto,
                  vkfx::DownsamplerFlags flags = 0) {
        const VkFormat depthFormat = std::get<0>(GetParam());
        const Reduction reduction = std::get<1>(GetParam());
        const vkfx::DepthLevelZero levelZero = std::get<2>(GetParam());
        const bool copy = levelZero == vkfx::DepthLevelZero::Copy;
        const bool minmax = reduction == Reduction::MinMax;
        SCOPED_TRACE(formatName(depthFormat) + " " + reductionName(reduction) +
                     (copy ? " Copy " : " Reduce ") + extentName(depthExtent) +
                     (dispatches == vkfx::DownsampleDispatches::Two ? " TwoDispatches" : "") +
                     (flags & vkfx::DownsamplerFlagSharedMemoryOnly ? " SharedMemoryOnly" : "") +
                     (flags & vkfx::DownsamplerFlagTexelFetch ? " TexelFetch" : ""));
        std::string why;
        if (!deviceCanDownsample(VK_FORMAT_R32_SFLOAT, depthFormat, &why))
            GTEST_SKIP() << why;

        const FormatInfo &df = formatInfo(depthFormat);
        const FormatInfo &pf = formatInfo(VK_FORMAT_R32_SFLOAT);
        ImageSpec depthSpec;
        depthSpec.format = depthFormat;
        depthSpec.extent = depthExtent;
        // A depth buffer as rendered to, then sampled.
        depthSpec.usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                          VK_IMAGE_USAGE_TRANSFER_DST_BIT;
        const VkExtent2D pyramidExtent =
            copy ? depthExtent
                 : VkExtent2D{nextExtent(depthExtent.width), nextExtent(depthExtent.height)};
        ImageSpec pyramidSpec;
        pyramidSpec.format = VK_FORMAT_R32_SFLOAT;
        pyramidSpec.extent = pyramidExtent;
        pyramidSpec.mipLevels = fullChainLength(pyramidExtent.width, pyramidExtent.height);
        // No SAMPLED: a depth pyramid is only written as storage.
        pyramidSpec.usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                            VK_IMAGE_USAGE_TRANSFER_DST_BIT;
        if (!imageSupported(depthSpec, &why) || !imageSupported(pyramidSpec, &why))
            GTEST_SKIP() << why;

        vkfx::DownsamplerCreateInfo dsInfo;
        dsInfo.format = VK_FORMAT_R32_SFLOAT;
        dsInfo.reduction = reduction;
        dsInfo.depthFormat = depthFormat;
        dsInfo.depthLevelZero = levelZero;
        dsInfo.flags = flags;
        const vkfx::Downsampler *ds = cachedDownsampler(dsInfo);
        ASSERT_NE(ds, nullptr);

        Image depth, pyramid, pyramidMax;
        ASSERT_EQ(depth.create(depthSpec), VK_SUCCESS);
        ASSERT_EQ(pyramid.create(pyramidSpec), VK_SUCCESS);
        if (minmax) {
            ASSERT_EQ(pyramidMax.create(pyramidSpec), VK_SUCCESS);
        }
        vkfx::DownsampleTargetCreateInfo t;
        t.image = pyramid.handle();
        t.format = VK_FORMAT_R32_SFLOAT;
        t.extent = pyramidExtent;
        t.mipLevels = pyramidSpec.mipLevels;
        t.usage = pyramidSpec.usage;
        t.maxImage = pyramidMax.handle();
        t.depth.image = depth.handle();
        t.depth.format = depthFormat;
        t.depth.extent = depthExtent;
        t.depth.usage = depthSpec.usage;
        vkfx::DownsampleTarget target;
        ASSERT_EQ(vkfx::DownsampleTarget::create(ctx().vkfx, t, &target), VK_SUCCESS)
            << vkfx::lastError();

        std::mt19937_64 rng(depthExtent.width * 31u + depthExtent.height);
        const std::vector<std::uint8_t> content =
            randomTexels(df, std::size_t{depthExtent.width} * depthExtent.height, rng);
        const Poison poisonValue = makePoison(pf, rng);
        // Both layouts a depth buffer is sampled in.
        const Use depthUse = copy ? use::kDepthRead : use::kComputeRead;
        const std::uint32_t levels = pyramidSpec.mipLevels;
        Staging staging;
        std::vector<std::size_t> downLo, downHi;
        VkResult recorded = VK_ERROR_UNKNOWN;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                      transition(cmd, depth, 0, 1, use::kNone, use::kTransferDst);
                      staging.upload(cmd, depth, 0, 0, content);
                      transition(cmd, depth, 0, 1, use::kTransferDst, depthUse);
                      for (Image *img : {&pyramid, &pyramidMax}) {
                          if (!img->handle())
                              continue;
                          transition(cmd, *img, 0, levels, use::kNone, use::kTransferDst);
                          poison(cmd, *img, 0, levels, poisonValue);
                          transition(cmd, *img, 0, levels, use::kTransferDst, use::kComputeWrite);
                      }
                      vkfx::DownsampleInfo info;
                      info.target = &target;
                      info.sourceLayout = depthUse.layout;
                      info.dispatches = dispatches;
                      recorded = ds->record(cmd, info);
                      for (Image *img : {&pyramid, &pyramidMax}) {
                          if (!img->handle())
                              continue;
                          transition(cmd, *img, 0, levels, use::kComputeWrite, use::kTransferSrc);
                          for (std::uint32_t l = 0; l < levels; ++l) {
                              (img == &pyramid ? downLo : downHi)
                                  .push_back(staging.download(cmd, *img, l, 0));
                          }
                      }
                      staging.downloadsToHost(cmd);
                  }),
                  VK_SUCCESS);
        ASSERT_TRUE(staging.ok()) << staging.error();
        ASSERT_EQ(recorded, VK_SUCCESS) << vkfx::lastError();

        // The reference: the depth values as sampled, then the chain; pyramid level k is chain
        // level k (Copy) or k + 1 (Reduce).
        Plane level0(depthExtent.width, depthExtent.height, 1);
        for (std::uint32_t y = 0; y < depthExtent.height; ++y)
            for (std::uint32_t x = 0; x < depthExtent.width; ++x)
                level0.at(x, y, 0) = decode(
                    df,
                    content.data() + (std::size_t{y} * depthExtent.width + x) * df.bytesPerTexel,
                    0);
        for (int which = 0; which < (minmax ? 2 : 1); ++which) {
            const ReduceOp op =
                (reduction == Reduction::Max || which == 1) ? ReduceOp::Max : ReduceOp::Min;
            std::vector<Plane> chain = referenceChain(level0, op, copy ? levels - 1 : levels);
            if (copy)
                chain.insert(chain.begin(), level0);
            LevelChecker checker(pf, depthFormat == VK_FORMAT_D16_UNORM ? Tolerance::Depth16Sampled
                                                                        : Tolerance::Exact);
            for (std::uint32_t l = 0; l < levels; ++l) {
                checker.check(l, 0, chain[l], staging.bytes((which ? downHi : downLo)[l]));
            }
            EXPECT_TRUE(checker.passed())
                << (which ? "max pyramid" : (minmax ? "min pyramid" : "pyramid")) << ":\n"
                << checker.report();
        }
    }
};

TEST_P(DepthPyramid, EveryLevelMatchesReferenceOnOddSizes) {
    for (VkExtent2D e :
         {VkExtent2D{1, 1}, VkExtent2D{7, 5}, VkExtent2D{255, 257}, VkExtent2D{1000, 3}}) {
        runDepth(e);
        if (stopped())
            return;
    }
    // The levels above 6 in a second dispatch (Copy: 255x257 writes 8 levels, 128x129 7).
    for (VkExtent2D e : {VkExtent2D{255, 257}, VkExtent2D{128, 129}}) {
        runDepth(e, vkfx::DownsampleDispatches::Two);
        if (stopped())
            return;
    }
    // Copies of level 0 from workgroups of two regular blocks side by side (1344^2: 441 blocks)
    // and of a 2x2 (1856x1792: 812), whose next block's reads are issued while one is reduced
    // (detail::downsampleGroupShape).
    if (std::get<2>(GetParam()) == vkfx::DepthLevelZero::Copy) {
        for (VkExtent2D e : {VkExtent2D{1344, 1344}, VkExtent2D{1856, 1792}}) {
            runDepth(e);
            if (stopped())
                return;
        }
    }
    // The level-0 copy without subgroup operations (each invocation stores its own footprint's
    // texels) and with texelFetch reads; one case each way (a pipeline each).
    if (std::get<0>(GetParam()) == VK_FORMAT_D32_SFLOAT &&
        std::get<1>(GetParam()) == Reduction::Min) {
        for (vkfx::DownsamplerFlags flags :
             {vkfx::DownsamplerFlags{vkfx::DownsamplerFlagSharedMemoryOnly},
              vkfx::DownsamplerFlags{vkfx::DownsamplerFlagTexelFetch}}) {
            runDepth({255, 257}, vkfx::DownsampleDispatches::Auto, flags);
            if (stopped())
                return;
        }
    }
}

// Every depth format runs MinMax with level 0 copied and reduced; Min and Max each once per
// format, one copying level 0 and one reducing it, the other way round for the other format (each
// case compiles pipelines: seconds on lavapipe).
std::vector<DepthParam> depthCases() {
    std::vector<DepthParam> cases;
    const std::vector<VkFormat> &formats = depthFormats();
    for (std::size_t f = 0; f < formats.size(); ++f) {
        const bool even = f % 2 == 0;
        cases.emplace_back(formats[f], Reduction::Min,
                           even ? vkfx::DepthLevelZero::Copy : vkfx::DepthLevelZero::Reduce);
        cases.emplace_back(formats[f], Reduction::Max,
                           even ? vkfx::DepthLevelZero::Reduce : vkfx::DepthLevelZero::Copy);
        cases.emplace_back(formats[f], Reduction::MinMax, vkfx::DepthLevelZero::Copy);
        cases.emplace_back(formats[f], Reduction::MinMax, vkfx::DepthLevelZero::Reduce);
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(, DepthPyramid, ::testing::ValuesIn(depthCases()),
                         [](const ::testing::TestParamInfo<DepthParam> &p) {
                             return formatName(std::get<0>(p.param)) + "_" +
                                    reductionName(std::get<1>(p.param)) + "_" +
                                    (std::get<2>(p.param) == vkfx::DepthLevelZero::Copy ? "Copy"
                                                                                        : "Reduce");
                         });

// ---------------------------------------------------------------------------------------------
// Bad input: the documented VkResult, a fresh readable lastError(), and nothing created or
// recorded (a failed record leaves the command buffer valid and the image untouched).

class DownsampleBadInput : public GpuTest {
  protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (HasFatalFailure())
            return;
        Case c;
        c.extent = {64, 100};
        m_job = std::make_unique<Job>(c);
        std::string why;
        if (!m_job->supported(&why))
            GTEST_SKIP() << why;
        m_ds = cachedDownsampler(c);
        ASSERT_NE(m_ds, nullptr);
        ASSERT_TRUE(m_job->create());
        Staging staging;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) { m_job->setup(cmd, staging); }),
                  VK_SUCCESS);
    }

    // `record` (which calls a record that must fail) jobs inside a command buffer that is then
    // ended and submitted; the image must still hold its poison afterwards.
    void expectRecordFails(VkResult expected,
                           const std::function<VkResult(VkCommandBuffer)> &record) {
        const std::string before = freshLastError();
        VkResult r = VK_SUCCESS;
        std::string reason;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                      r = record(cmd);
                      reason = vkfx::lastError();
                  }),
                  VK_SUCCESS);
        EXPECT_EQ(r, expected);
        EXPECT_TRUE(isFreshReason(before)) << "(result " << r << ")";
        Staging staging;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                      m_job->readback(cmd, staging);
                      staging.downloadsToHost(cmd);
                  }),
                  VK_SUCCESS);
        // Nothing may have been written: every level keeps the poison.
        Job &job = *m_job;
        std::string changed;
        for (std::uint32_t level = 1; level <= job.writtenLevels(); ++level) {
            // Every level above 0 is unwritten here.
            job.checkPoison(job.level(staging, level, 0), level, 0, job.poisonLo(), &changed);
        }
        EXPECT_TRUE(changed.empty()) << "a failed record wrote:\n" << changed;
        // Back to the layouts setup() left, for a following record in the same test.
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                      transition(cmd, job.image(), 1, VK_REMAINING_MIP_LEVELS, use::kTransferSrc,
                                 use::kComputeWrite);
                  }),
                  VK_SUCCESS);
    }

    void expectTargetFails(VkResult expected, const vkfx::DownsampleTargetCreateInfo &info) {
        const std::string before = freshLastError();
        vkfx::DownsampleTarget target;
        EXPECT_EQ(vkfx::DownsampleTarget::create(ctx().vkfx, info, &target), expected);
        EXPECT_TRUE(isFreshReason(before));
        EXPECT_FALSE(target.valid());
    }

    // A description of m_job's image that target creation accepts.
    vkfx::DownsampleTargetCreateInfo goodTargetInfo() const {
        vkfx::DownsampleTargetCreateInfo t;
        t.image = m_job->image().handle();
        t.format = m_job->spec().format;
        t.extent = m_job->spec().extent;
        t.mipLevels = m_job->image().spec().mipLevels;
        t.usage = m_job->image().spec().usage;
        t.flags = m_job->image().spec().flags;
        return t;
    }

    std::unique_ptr<Job> m_job;
    const vkfx::Downsampler *m_ds = nullptr;
};

TEST_F(DownsampleBadInput, GoodTargetDescriptionIsAccepted) {
    // The baseline of the target tests below.
    vkfx::DownsampleTarget target;
    EXPECT_EQ(vkfx::DownsampleTarget::create(ctx().vkfx, goodTargetInfo(), &target), VK_SUCCESS)
        << vkfx::lastError();
    EXPECT_TRUE(target.valid());
}

TEST_F(DownsampleBadInput, ImageWithoutStorageUsageIsRejected) {
    ImageSpec spec = m_job->imageSpec();
    spec.usage &= ~VkImageUsageFlags{VK_IMAGE_USAGE_STORAGE_BIT};
    Image image;
    ASSERT_EQ(image.create(spec), VK_SUCCESS);
    vkfx::DownsampleTargetCreateInfo t = goodTargetInfo();
    t.image = image.handle();
    t.usage = spec.usage;
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
}

TEST_F(DownsampleBadInput, ImageWithoutSampledUsageIsRejected) {
    ImageSpec spec = m_job->imageSpec();
    spec.usage &= ~VkImageUsageFlags{VK_IMAGE_USAGE_SAMPLED_BIT};
    Image image;
    ASSERT_EQ(image.create(spec), VK_SUCCESS);
    vkfx::DownsampleTargetCreateInfo t = goodTargetInfo();
    t.image = image.handle();
    t.usage = spec.usage;
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
}

TEST_F(DownsampleBadInput, SrgbImageWithoutMutableFormatIsRejected) {
    Case c;
    c.format = VK_FORMAT_R8G8B8A8_SRGB;
    c.extent = {64, 100};
    Job srgb(c);
    std::string why;
    if (!srgb.supported(&why))
        GTEST_SKIP() << why;
    Image image;
    ASSERT_EQ(image.create(srgb.imageSpec()),
              VK_SUCCESS); // a valid image (mutable, extended usage)
    vkfx::DownsampleTargetCreateInfo t = goodTargetInfo();
    t.image = image.handle();
    t.format = VK_FORMAT_R8G8B8A8_SRGB;
    t.flags = 0; // described without MUTABLE_FORMAT
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
}

TEST_F(DownsampleBadInput, SrgbImageWhoseFormatListLacksUnormIsRejected) {
    Case c;
    c.format = VK_FORMAT_R8G8B8A8_SRGB;
    c.extent = {64, 100};
    c.viewFormats = {VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R8G8B8A8_UNORM};
    Job srgb(c);
    std::string why;
    if (!srgb.supported(&why))
        GTEST_SKIP() << why;
    Image image;
    ASSERT_EQ(image.create(srgb.imageSpec()), VK_SUCCESS); // a valid image (both formats listed)
    vkfx::DownsampleTargetCreateInfo t = goodTargetInfo();
    t.image = image.handle();
    t.format = VK_FORMAT_R8G8B8A8_SRGB;
    t.flags = srgb.imageSpec().flags;
    const VkFormat onlySrgb[] = {VK_FORMAT_R8G8B8A8_SRGB};
    t.viewFormats = onlySrgb; // described with a list that lacks UNORM
    t.viewFormatCount = 1;
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
}

TEST_F(DownsampleBadInput, ViewFormatCountWithoutFormatsIsRejected) {
    vkfx::DownsampleTargetCreateInfo t = goodTargetInfo();
    t.viewFormatCount = 2;
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
}

TEST_F(DownsampleBadInput, TargetMipLevelsBeyondTheFullChainAreRejected) {
    vkfx::DownsampleTargetCreateInfo t = goodTargetInfo();
    t.mipLevels = fullChainLength(t.extent.width, t.extent.height) + 1;
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
}

TEST_F(DownsampleBadInput, LayerRangesPastTheDeviceLimitAreRejected) {
    const VkPhysicalDeviceLimits &limits = ctx().vkfx.properties().limits;
    for (std::uint32_t count : {0u, std::min(limits.maxImageArrayLayers, limits.maxComputeWorkGroupCount[2]) + 1}) {
        vkfx::DownsampleTargetCreateInfo t = goodTargetInfo();
        t.layerCount = count;
        expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
        EXPECT_NE(std::string(vkfx::lastError()).find("layerCount"), std::string::npos) << vkfx::lastError();
    }
    const std::uint32_t maxLayers = limits.maxImageArrayLayers;
    const std::uint32_t bases[] = {0xFFFFFFFFu, maxLayers};
    for (std::uint32_t base : bases) {
        SCOPED_TRACE(base);
        vkfx::DownsampleTargetCreateInfo t = goodTargetInfo();
        t.baseArrayLayer = base;
        t.layerCount = 2; // base + count wraps around 32 bits for the first
        expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
        EXPECT_NE(std::string(vkfx::lastError()).find("maxImageArrayLayers"), std::string::npos)
            << vkfx::lastError();
    }
}

// A record with nothing below its level (a no-op) still checks the rest of its arguments.
TEST_F(DownsampleBadInput, ANoOpRecordStillChecksItsArguments) {
    vkfx::DownsampleInfo good = m_job->info();
    good.baseLevel = m_job->image().spec().mipLevels - 1;
    good.levelCount = VK_REMAINING_MIP_LEVELS;
    ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) { EXPECT_EQ(m_ds->record(cmd, good), VK_SUCCESS); }),
              VK_SUCCESS);
    vkfx::DownsampleInfo layout = good;
    layout.sourceLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT, [&](VkCommandBuffer cmd) { return m_ds->record(cmd, layout); });
    vkfx::DownsampleInfo dispatches = good;
    dispatches.dispatches = static_cast<vkfx::DownsampleDispatches>(9);
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return m_ds->record(cmd, dispatches); });
    Buffer scratch;
    ASSERT_EQ(scratch.create(4096, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), VK_SUCCESS);
    vkfx::DownsampleInfo offset = good;
    offset.scratchBuffer = scratch.handle();
    offset.scratchOffset = 3;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT, [&](VkCommandBuffer cmd) { return m_ds->record(cmd, offset); });
}

// Depth pyramids: descriptions that do not fit are rejected at target creation, Downsampler
// creation or record.
TEST_F(DownsampleBadInput, DepthDescriptionsThatDoNotFitAreRejected) {
    ImageSpec depthSpec;
    depthSpec.format = VK_FORMAT_D32_SFLOAT;
    depthSpec.extent = {64, 48};
    depthSpec.usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
    ImageSpec pyramidSpec;
    pyramidSpec.format = VK_FORMAT_R32_SFLOAT;
    pyramidSpec.extent = {32, 24}; // half the depth's: DepthLevelZero::Reduce
    pyramidSpec.mipLevels = fullChainLength(32, 24);
    pyramidSpec.usage = VK_IMAGE_USAGE_STORAGE_BIT;
    std::string why;
    if (!imageSupported(depthSpec, &why) || !imageSupported(pyramidSpec, &why))
        GTEST_SKIP() << why;
    Image depth, pyramid;
    ASSERT_EQ(depth.create(depthSpec), VK_SUCCESS);
    ASSERT_EQ(pyramid.create(pyramidSpec), VK_SUCCESS);
    vkfx::DownsampleTargetCreateInfo good;
    good.image = pyramid.handle();
    good.format = VK_FORMAT_R32_SFLOAT;
    good.extent = pyramidSpec.extent;
    good.mipLevels = pyramidSpec.mipLevels;
    good.usage = pyramidSpec.usage;
    good.depth = {depth.handle(), VK_FORMAT_D32_SFLOAT, depthSpec.extent, depthSpec.usage};
    vkfx::DownsampleTarget target;
    ASSERT_EQ(vkfx::DownsampleTarget::create(ctx().vkfx, good, &target), VK_SUCCESS) << vkfx::lastError();

    vkfx::DownsampleTargetCreateInfo t = good;
    t.depth.usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT; // no SAMPLED
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
    t = good;
    t.depth.extent = {0, 48};
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
    t = good;
    t.depth.format = VK_FORMAT_R32_SFLOAT; // not a depth format
    expectTargetFails(VK_ERROR_FORMAT_NOT_SUPPORTED, t);

    for (const vkfx::DownsamplerCreateInfo &info :
         {vkfx::DownsamplerCreateInfo{.format = VK_FORMAT_R32_SFLOAT, .depthFormat = VK_FORMAT_R32_SFLOAT},
          vkfx::DownsamplerCreateInfo{.format = VK_FORMAT_R8G8B8A8_UNORM, .depthFormat = VK_FORMAT_D32_SFLOAT}}) {
        vkfx::Downsampler ds;
        EXPECT_EQ(vkfx::Downsampler::create(ctx().vkfx, info, &ds), VK_ERROR_FORMAT_NOT_SUPPORTED);
        EXPECT_FALSE(ds.valid());
    }

    // Records: the depth target with a colour Downsampler; a depth Downsampler whose level 0 is the
    // depth image itself (Copy) given this half-extent pyramid; a baseLevel other than 0.
    vkfx::DownsampleInfo info;
    info.target = &target;
    info.sourceLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    const vkfx::Downsampler *colour = cachedDownsampler(vkfx::DownsamplerCreateInfo{.format = VK_FORMAT_R32_SFLOAT});
    const vkfx::Downsampler *copy = cachedDownsampler(vkfx::DownsamplerCreateInfo{
        .format = VK_FORMAT_R32_SFLOAT, .depthFormat = VK_FORMAT_D32_SFLOAT, .depthLevelZero = vkfx::DepthLevelZero::Copy});
    const vkfx::Downsampler *reduce =
        cachedDownsampler(vkfx::DownsamplerCreateInfo{.format = VK_FORMAT_R32_SFLOAT, .depthFormat = VK_FORMAT_D32_SFLOAT,
                                                      .depthLevelZero = vkfx::DepthLevelZero::Reduce});
    ASSERT_TRUE(colour && copy && reduce);
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT, [&](VkCommandBuffer cmd) { return colour->record(cmd, info); });
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT, [&](VkCommandBuffer cmd) { return copy->record(cmd, info); });
    vkfx::DownsampleInfo base = info;
    base.baseLevel = 1;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT, [&](VkCommandBuffer cmd) { return reduce->record(cmd, base); });
}

TEST_F(DownsampleBadInput, UnknownDepthLevelZeroIsRejectedAtDownsamplerCreation) {
    const std::string before = freshLastError();
    vkfx::DownsamplerCreateInfo info;
    info.format = VK_FORMAT_R32_SFLOAT;
    info.depthFormat = VK_FORMAT_D32_SFLOAT;
    info.depthLevelZero = static_cast<vkfx::DepthLevelZero>(7);
    vkfx::Downsampler ds;
    EXPECT_EQ(vkfx::Downsampler::create(ctx().vkfx, info, &ds), VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_TRUE(isFreshReason(before));
    EXPECT_NE(std::string(vkfx::lastError()).find("depthLevelZero"), std::string::npos) << vkfx::lastError();
    EXPECT_FALSE(ds.valid());
}

TEST_F(DownsampleBadInput, LevelCountBeyondTheChainIsRejected) {
    vkfx::DownsampleInfo info = m_job->info();
    info.levelCount = m_job->writtenLevels() + 1;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return m_ds->record(cmd, info); });
}

TEST_F(DownsampleBadInput, ZeroLevelCountIsRejected) {
    vkfx::DownsampleInfo info = m_job->info();
    info.levelCount = 0;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return m_ds->record(cmd, info); });
}

TEST_F(DownsampleBadInput, UnknownDispatchesIsRejected) {
    vkfx::DownsampleInfo info = m_job->info();
    info.dispatches = static_cast<vkfx::DownsampleDispatches>(3);
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return m_ds->record(cmd, info); });
    EXPECT_NE(std::string(vkfx::lastError()).find("dispatches"), std::string::npos)
        << vkfx::lastError();
}

TEST_F(DownsampleBadInput, BaseLevelBeyondTheImageIsRejected) {
    vkfx::DownsampleInfo info = m_job->info();
    info.baseLevel = m_job->image().spec().mipLevels;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return m_ds->record(cmd, info); });
}

TEST_F(DownsampleBadInput, UnsupportedFormatsAreRejectedAtDownsamplerCreation) {
    for (VkFormat format :
         {VK_FORMAT_R8G8B8_UNORM, VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_D32_SFLOAT}) {
        SCOPED_TRACE(formatName(format));
        const std::string before = freshLastError();
        vkfx::DownsamplerCreateInfo info;
        info.format = format;
        vkfx::Downsampler ds;
        EXPECT_EQ(vkfx::Downsampler::create(ctx().vkfx, info, &ds), VK_ERROR_FORMAT_NOT_SUPPORTED);
        EXPECT_TRUE(isFreshReason(before));
        EXPECT_FALSE(ds.valid());
    }
}

TEST_F(DownsampleBadInput, UnknownOrConflictingFlagsAreRejectedAtDownsamplerCreation) {
    const vkfx::DownsamplerFlags bad[] = {
        1u << 3, vkfx::DownsamplerFlagTexelFetch | vkfx::DownsamplerFlagSamplerFilter};
    const char *words[] = {"unknown flags", "exclude each other"};
    for (int i = 0; i < 2; ++i) {
        SCOPED_TRACE(i);
        const std::string before = freshLastError();
        vkfx::DownsamplerCreateInfo info;
        info.format = VK_FORMAT_R8G8B8A8_SRGB;
        info.flags = bad[i];
        vkfx::Downsampler ds;
        EXPECT_EQ(vkfx::Downsampler::create(ctx().vkfx, info, &ds), VK_ERROR_VALIDATION_FAILED_EXT);
        EXPECT_TRUE(isFreshReason(before));
        EXPECT_NE(std::string(vkfx::lastError()).find(words[i]), std::string::npos) << vkfx::lastError();
        EXPECT_FALSE(ds.valid());
    }
}

TEST_F(DownsampleBadInput, UnsupportedFormatsAreRejectedAtTargetCreation) {
    for (VkFormat format : {VK_FORMAT_R8G8B8_UNORM, VK_FORMAT_R32G32B32A32_UINT}) {
        SCOPED_TRACE(formatName(format));
        vkfx::DownsampleTargetCreateInfo t = goodTargetInfo();
        t.format = format; // vkfx must refuse before touching the image
        expectTargetFails(VK_ERROR_FORMAT_NOT_SUPPORTED, t);
    }
}

TEST_F(DownsampleBadInput, ZeroExtentIsRejected) {
    for (VkExtent2D e : {VkExtent2D{0, 100}, VkExtent2D{64, 0}}) {
        SCOPED_TRACE(extentName(e));
        vkfx::DownsampleTargetCreateInfo t = goodTargetInfo();
        t.extent = e;
        t.mipLevels = 1;
        expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
    }
}

TEST_F(DownsampleBadInput, ExtentOverMaxImageDimension2DIsRejected) {
    const std::uint32_t max = ctx().limits().maxImageDimension2D;
    for (VkExtent2D e : {VkExtent2D{max + 1, 1}, VkExtent2D{1, max + 1}}) {
        SCOPED_TRACE(extentName(e));
        vkfx::DownsampleTargetCreateInfo t = goodTargetInfo();
        t.extent = e;
        t.mipLevels = 1;
        expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, t);
    }
}

TEST_F(DownsampleBadInput, NullCommandBufferIsRejected) {
    const std::string before = freshLastError();
    EXPECT_EQ(m_ds->record(VK_NULL_HANDLE, m_job->info()), VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_TRUE(isFreshReason(before));
}

TEST_F(DownsampleBadInput, NullTargetIsRejected) {
    vkfx::DownsampleInfo info = m_job->info();
    info.target = nullptr;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return m_ds->record(cmd, info); });
}

TEST_F(DownsampleBadInput, DestroyedTargetIsRejected) {
    vkfx::DownsampleTarget target;
    ASSERT_EQ(vkfx::DownsampleTarget::create(ctx().vkfx, goodTargetInfo(), &target), VK_SUCCESS);
    target.destroy();
    vkfx::DownsampleInfo info = m_job->info();
    info.target = &target;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return m_ds->record(cmd, info); });
}

TEST_F(DownsampleBadInput, TargetOfAnotherFormatIsRejected) {
    Case c;
    c.format = VK_FORMAT_R16G16B16A16_SFLOAT;
    c.extent = {64, 100};
    Job other(c);
    std::string why;
    if (!other.supported(&why))
        GTEST_SKIP() << why;
    ASSERT_TRUE(other.create());
    vkfx::DownsampleInfo info = other.info(); // an RGBA16F target for the RGBA8 Downsampler
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return m_ds->record(cmd, info); });
}

TEST_F(DownsampleBadInput, MinMaxWithoutMaxImageIsRejected) {
    Case c = m_job->spec();
    c.reduction = Reduction::MinMax;
    const vkfx::Downsampler *minmax = cachedDownsampler(c);
    ASSERT_NE(minmax, nullptr);
    vkfx::DownsampleInfo info = m_job->info(); // m_job's target has no maxImage
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return minmax->record(cmd, info); });
}

TEST_F(DownsampleBadInput, MinMaxAboveLevelZeroIsRejected) {
    Case c = m_job->spec();
    c.reduction = Reduction::MinMax;
    Job other(c);
    std::string why;
    if (!other.supported(&why))
        GTEST_SKIP() << why;
    ASSERT_TRUE(other.create());
    const vkfx::Downsampler *minmax = cachedDownsampler(c);
    ASSERT_NE(minmax, nullptr);
    vkfx::DownsampleInfo info = other.info();
    info.baseLevel = 1; // level 1 of `image` holds the min chain, not the max chain's input
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return minmax->record(cmd, info); });
}

TEST_F(DownsampleBadInput, SourceLayoutThatCannotBeSampledIsRejected) {
    vkfx::DownsampleInfo info = m_job->info();
    info.sourceLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return m_ds->record(cmd, info); });
}

TEST_F(DownsampleBadInput, TooSmallCallerScratchIsRejected) {
    Case c;
    c.extent = {1000, 700}; // 10 levels: needs more than the minimum scratch
    Job big(c);
    std::string why;
    if (!big.supported(&why))
        GTEST_SKIP() << why;
    ASSERT_TRUE(big.create());
    vkfx::ScratchRequirements req = m_ds->scratchRequirements(c.extent, 1, big.writtenLevels());
    ASSERT_GT(req.size, 16u);
    Buffer scratch;
    ASSERT_EQ(scratch.create(req.size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), VK_SUCCESS);
    vkfx::DownsampleInfo info = big.info();
    info.scratchBuffer = scratch.handle();
    info.scratchSize = req.size - 4;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return m_ds->record(cmd, info); });
}

TEST_F(DownsampleBadInput, MisalignedScratchOffsetIsRejected) {
    vkfx::DownsampleInfo info = m_job->info();
    vkfx::ScratchRequirements req =
        m_ds->scratchRequirements(m_job->baseExtent(), 1, m_job->writtenLevels());
    ASSERT_GE(req.alignment, 4u);
    Buffer scratch;
    ASSERT_EQ(scratch.create(req.alignment * 4 + req.size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT),
              VK_SUCCESS);
    info.scratchBuffer = scratch.handle();
    info.scratchOffset = req.alignment + req.alignment / 2;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      [&](VkCommandBuffer cmd) { return m_ds->record(cmd, info); });
}

} // namespace
