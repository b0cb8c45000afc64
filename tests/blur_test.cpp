// vkfx::Blurrer: every texel of the region of every layer against a CPU reference in double
// precision built from the definition in include/vkfx/blur.hpp (a weighted sum over the
// (2rx+1) x (2ry+1) window, the border modes written out from their definitions), not from the
// kernel's algorithm.
//
// Each case: create a source and a destination image, upload the source, poison the whole
// destination (NaN / random codes, so that a texel never written cannot pass), record with the
// vkfx API, download the destination and compare: the region within vkfx's documented bound
// (1 code for unorm / sRGB, 1 ulp for fp16, 1e-5 relative for fp32), every texel outside the
// region still poisoned.
//
// VKFX_TEST_VERBOSE=1 prints the largest error of every case.
#include "support/compare.hpp"
#include "support/errors.hpp"
#include "support/formats.hpp"
#include "support/gpu.hpp"
#include "support/reference.hpp"
#include "support/vulkan_context.hpp"

#include <vkfx/blur.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace vkfx_test;
using vkfx::BlurBorder;
using vkfx::BlurFilter;

bool verbose() {
    const char *s = std::getenv("VKFX_TEST_VERBOSE");
    return s && std::strcmp(s, "1") == 0;
}

// Whether every channel of the format is a float narrower than fp32 (RGBA16F, B10G11R11).
bool smallFloatFormat(const FormatInfo &f) {
    for (std::uint32_t c = 0; c < f.channels; ++c) {
        if (!f.isFloat(c) || f.channel[c].kind == ChannelKind::Float32)
            return false;
    }
    return true;
}

const char *borderName(BlurBorder b) {
    switch (b) {
    case BlurBorder::ClampToEdge:
        return "ClampToEdge";
    case BlurBorder::Mirror:
        return "Mirror";
    case BlurBorder::MirrorEdge:
        return "MirrorEdge";
    case BlurBorder::Wrap:
        return "Wrap";
    case BlurBorder::Constant:
        return "Constant";
    }
    return "?";
}

// ---------------------------------------------------------------------------------------------
// The reference

// Weights -r..r of one axis (index i + r), from the definition.
std::vector<double> weights(BlurFilter filter, double sigma, std::uint32_t radius) {
    if (filter == BlurFilter::Gaussian && radius == 0)
        radius = std::max(1u, static_cast<std::uint32_t>(std::ceil(3.0 * sigma)));
    const int r = static_cast<int>(radius);
    std::vector<double> w(2 * radius + 1);
    double sum = 0.0;
    for (int i = -r; i <= r; ++i) {
        double v = filter == BlurFilter::Box ? 1.0 : std::exp(-double(i) * i / (2.0 * sigma * sigma));
        w[static_cast<std::size_t>(i + r)] = v;
        sum += v;
    }
    for (double &v : w)
        v /= sum;
    return w;
}

// Where coordinate i of an axis of n texels reads, by the border mode's picture
// (aaa|abcd|ddd, dcb|abcd|cba, cba|abcd|dcb, bcd|abcd|abc), reflecting step by step; -1 for the
// constant colour.
int borderTexel(int i, int n, BlurBorder border) {
    if (i >= 0 && i < n)
        return i;
    switch (border) {
    case BlurBorder::ClampToEdge:
        return i < 0 ? 0 : n - 1;
    case BlurBorder::Mirror:
        if (n == 1)
            return 0;
        while (i < 0 || i >= n)
            i = i < 0 ? -i : 2 * (n - 1) - i;
        return i;
    case BlurBorder::MirrorEdge:
        while (i < 0 || i >= n)
            i = i < 0 ? -1 - i : 2 * n - 1 - i;
        return i;
    case BlurBorder::Wrap:
        while (i < 0)
            i += n;
        return i % n;
    case BlurBorder::Constant:
        return -1;
    }
    return -1;
}

struct BlurCase {
    VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
    VkExtent2D extent = {64, 64};    // of the source (and the destination unless dstExtent)
    VkExtent2D dstExtent = {0, 0};   // 0: extent
    std::uint32_t layers = 1;
    VkOffset2D srcOffset = {0, 0};
    VkOffset2D dstOffset = {0, 0};
    VkExtent2D region = {0, 0};      // 0: the whole source
    BlurFilter filter = BlurFilter::Gaussian;
    float sigmaX = 1.0f, sigmaY = 1.0f;
    std::uint32_t radiusX = 0, radiusY = 0;
    BlurBorder border = BlurBorder::ClampToEdge;
    float color[4] = {0.9f, 0.2f, 0.6f, 0.35f};
    enum class Content { Random, HotPixels, Gradient } content = Content::Random;
    std::uint64_t seed = 1;
    vkfx::BlurMethod method = vkfx::BlurMethod::Auto;
    bool scratch = false; // give a scratch buffer of scratchRequirements() bytes (filled with NaNs)

    VkExtent2D destination() const { return dstExtent.width ? dstExtent : extent; }
    VkExtent2D area() const { return region.width ? region : extent; }

    std::string describe() const {
        auto ext = [](VkExtent2D e) { return std::to_string(e.width) + "x" + std::to_string(e.height); };
        std::string s = formatName(format) + " " + ext(extent);
        if (layers > 1)
            s += " x" + std::to_string(layers) + " layers";
        if (region.width)
            s += " region " + ext(region) + " from (" + std::to_string(srcOffset.x) + "," +
                 std::to_string(srcOffset.y) + ") to (" + std::to_string(dstOffset.x) + "," +
                 std::to_string(dstOffset.y) + ")";
        if (filter == BlurFilter::Box)
            s += " box " + std::to_string(radiusX) + "," + std::to_string(radiusY);
        else
            s += " sigma " + std::to_string(sigmaX) + "," + std::to_string(sigmaY);
        s += std::string(" ") + borderName(border);
        if (content == Content::HotPixels)
            s += " hot pixels";
        if (content == Content::Gradient)
            s += " gradient";
        if (method == vkfx::BlurMethod::Decimated)
            s += " decimated";
        if (method == vkfx::BlurMethod::TwoPass)
            s += " two-pass";
        return s;
    }
};

// One layer of the source, stored texels of the whole level.
std::vector<std::uint8_t> makeSource(const FormatInfo &f, const BlurCase &c, std::uint32_t layer) {
    const VkExtent2D e = c.extent;
    const std::size_t texels = std::size_t{e.width} * e.height;
    std::mt19937_64 rng(c.seed * 1000 + layer);
    if (c.content == BlurCase::Content::Random)
        return randomTexels(f, texels, rng);
    std::vector<std::uint8_t> bytes(texels * f.bytesPerTexel);
    const double scale = patternScale(f);
    const std::uint32_t xl = e.width - 1, yl = e.height - 1;
    for (std::uint32_t y = 0; y < e.height; ++y) {
        for (std::uint32_t x = 0; x < e.width; ++x) {
            double v[4] = {0.1, 0.1, 0.1, 0.1};
            if (c.content == BlurCase::Content::Gradient) {
                v[0] = double(x) / std::max(1u, xl);
                v[1] = double(y) / std::max(1u, yl);
                v[2] = 1.0 - v[0];
                v[3] = 0.5 * (v[0] + v[1]);
            } else {
                // Single bright texels on and next to each edge and corner.
                const bool hot = ((x == 0 || x == xl) && (y == 0 || y == yl)) ||
                                 (x == 1 && y == e.height / 2) || (x == xl - 1 && y == e.height / 3) ||
                                 (y == 1 && x == e.width / 2) || (y == yl - 1 && x == e.width / 3);
                if (hot)
                    v[0] = 1.0, v[1] = 0.0, v[2] = 1.0, v[3] = 0.9;
            }
            for (double &ch : v)
                ch *= scale;
            encodeTexel(f, v, bytes.data() + (std::size_t{y} * e.width + x) * f.bytesPerTexel);
        }
    }
    return bytes;
}

// The blurred region of one layer: the definition's double sum over the window of each texel.
Plane referenceBlur(const FormatInfo &f, const BlurCase &c, const std::vector<std::uint8_t> &src) {
    const VkExtent2D a = c.area();
    const std::vector<double> wx = weights(c.filter, c.sigmaX, c.radiusX);
    const std::vector<double> wy = weights(c.filter, c.sigmaY, c.radiusY);
    const int rx = static_cast<int>(wx.size() / 2), ry = static_cast<int>(wy.size() / 2);
    const int w = static_cast<int>(a.width), h = static_cast<int>(a.height);
    // Decoded region with a border-mapped margin of rx, ry texels.
    const int mw = w + 2 * rx, mh = h + 2 * ry;
    auto at = [&](int x, int y) { return (std::size_t(y) * std::size_t(mw) + std::size_t(x)) * f.channels; };
    std::vector<double> margin(at(0, mh));
    for (int y = 0; y < mh; ++y) {
        const int sy = borderTexel(y - ry, h, c.border);
        for (int x = 0; x < mw; ++x) {
            const int sx = borderTexel(x - rx, w, c.border);
            for (std::uint32_t ch = 0; ch < f.channels; ++ch) {
                double v;
                if (sx < 0 || sy < 0) {
                    v = c.color[ch];
                } else {
                    std::size_t t = std::size_t(sy + c.srcOffset.y) * c.extent.width +
                                    std::size_t(sx) + std::size_t(c.srcOffset.x);
                    v = decode(f, src.data() + t * f.bytesPerTexel, ch);
                }
                margin[at(x, y) + ch] = v;
            }
        }
    }
    // The double sum over the window, factored by rows (exact in real arithmetic): each margin
    // row filtered horizontally once, then the columns of those sums vertically.
    std::vector<double> rows(std::size_t(mh) * std::size_t(w) * f.channels);
    for (int y = 0; y < mh; ++y) {
        for (int x = 0; x < w; ++x) {
            for (std::uint32_t ch = 0; ch < f.channels; ++ch) {
                double sum = 0.0;
                for (int i = 0; i <= 2 * rx; ++i)
                    sum += wx[std::size_t(i)] * margin[at(x + i, y) + ch];
                rows[(std::size_t(y) * std::size_t(w) + std::size_t(x)) * f.channels + ch] = sum;
            }
        }
    }
    Plane out(a.width, a.height, f.channels);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            for (std::uint32_t ch = 0; ch < f.channels; ++ch) {
                double sum = 0.0;
                for (int j = 0; j <= 2 * ry; ++j)
                    sum += wy[std::size_t(j)] * rows[(std::size_t(y + j) * std::size_t(w) + std::size_t(x)) * f.channels + ch];
                out.at(std::uint32_t(x), std::uint32_t(y), ch) = sum;
            }
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Device support, decided here independently of vkfx.

bool deviceCanBlur(VkFormat format, std::string *why) {
    if (!(ctx().formatProperties(format).optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)) {
        *why = "the device cannot sample " + formatName(format);
        return false;
    }
    VkFormat storage = format == VK_FORMAT_R8G8B8A8_SRGB   ? VK_FORMAT_R8G8B8A8_UNORM
                       : format == VK_FORMAT_B8G8R8A8_SRGB ? VK_FORMAT_B8G8R8A8_UNORM
                                                           : format;
    if (!(ctx().formatProperties(storage).optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)) {
        *why = "the device cannot store " + formatName(storage);
        return false;
    }
    if (storage == VK_FORMAT_B8G8R8A8_UNORM && !ctx().writeWithoutFormat) {
        *why = "B8G8R8A8 needs shaderStorageImageWriteWithoutFormat";
        return false;
    }
    return true;
}

// Blurrers are cached per format (and whether they have the moments form's pipelines, which
// vkfx::detail::blurMomentsOverride decides at creation, the vendor whose tile shapes
// vkfx::detail::blurTileVendorOverride makes them take, and the push-constant bytes
// vkfx::detail::blurMaxPushBytesOverride leaves them) for the whole process (pipeline creation is
// slow on lavapipe).
const vkfx::Blurrer *cachedBlurrer(VkFormat format) {
    using Key = std::tuple<VkFormat, bool, std::uint32_t, std::uint32_t>;
    static auto *cache = [] {
        auto *m = new std::map<Key, std::unique_ptr<vkfx::Blurrer>>;
        ctx().atShutdown([m] { m->clear(); });
        return m;
    }();
    const Key key{format, vkfx::detail::blurMoments(ctx().vkfx.properties().deviceType),
                  vkfx::detail::blurTileVendorOverride, vkfx::detail::blurMaxPushBytesOverride};
    auto it = cache->find(key);
    if (it != cache->end())
        return it->second.get();
    auto b = std::make_unique<vkfx::Blurrer>();
    VkResult r = vkfx::Blurrer::create(ctx().vkfx, {.format = format}, b.get());
    if (r != VK_SUCCESS) {
        ADD_FAILURE() << "vkfx::Blurrer::create(" << formatName(format) << ") failed (" << r
                      << "): " << vkfx::lastError();
        return nullptr;
    }
    return cache->emplace(key, std::move(b)).first->second.get();
}

// ---------------------------------------------------------------------------------------------
// One blur: images, targets, content, poison, record, readback, comparison.

constexpr VkImageUsageFlags kSourceUsage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
constexpr VkImageUsageFlags kDestinationUsage =
    VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;

class Job {
  public:
    explicit Job(const BlurCase &c) : m_case(c), m_format(formatInfo(c.format)) {}

    const BlurCase &spec() const { return m_case; }
    const vkfx::BlurTarget &source() const { return m_source; }
    const vkfx::BlurTarget &destination() const { return m_destination; }
    const Image &destinationImage() const { return m_dstImage; }

    ImageSpec imageSpec(bool destination) const {
        ImageSpec s;
        s.format = m_case.format;
        s.extent = destination ? m_case.destination() : m_case.extent;
        s.layers = m_case.layers;
        s.usage = destination ? kDestinationUsage : kSourceUsage;
        if (destination && m_format.srgb)
            s.flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
        return s;
    }

    bool supported(std::string *why) const {
        return deviceCanBlur(m_case.format, why) && imageSupported(imageSpec(false), why) &&
               imageSupported(imageSpec(true), why);
    }

    ::testing::AssertionResult create() {
        if (m_srcImage.create(imageSpec(false)) != VK_SUCCESS || m_dstImage.create(imageSpec(true)) != VK_SUCCESS)
            return ::testing::AssertionFailure() << "creating the images failed";
        for (int d = 0; d < 2; ++d) {
            const ImageSpec s = imageSpec(d == 1);
            vkfx::BlurTargetCreateInfo t;
            t.image = d ? m_dstImage.handle() : m_srcImage.handle();
            t.format = s.format;
            t.extent = s.extent;
            t.usage = s.usage;
            t.flags = s.flags;
            t.layerCount = m_case.layers;
            VkResult r = vkfx::BlurTarget::create(ctx().vkfx, t, d ? &m_destination : &m_source);
            if (r != VK_SUCCESS)
                return ::testing::AssertionFailure() << "BlurTarget::create failed (" << r << "): " << vkfx::lastError();
        }
        for (std::uint32_t layer = 0; layer < m_case.layers; ++layer)
            m_content.push_back(makeSource(m_format, m_case, layer));
        if (m_case.scratch) {
            const vkfx::Blurrer *blur = cachedBlurrer(m_case.format);
            if (!blur)
                return ::testing::AssertionFailure() << "no Blurrer";
            const vkfx::ScratchRequirements req = blur->scratchRequirements(info());
            if (req.size == 0)
                return ::testing::AssertionFailure() << "scratchRequirements() is 0: " << vkfx::lastError();
            if (m_scratch.create(req.size, req.usage) != VK_SUCCESS)
                return ::testing::AssertionFailure() << "creating the scratch buffer failed";
            std::memset(m_scratch.data(), 0xFF, req.size); // NaNs: a partial read before it is written shows
            m_scratch.flush();
            // Whether the Decimated method runs (its bound then applies).
            vkfx::BlurMethod method{};
            if (blur->methodFor(info(), &method) != VK_SUCCESS)
                return ::testing::AssertionFailure() << "methodFor() failed: " << vkfx::lastError();
            m_decimated = method == vkfx::BlurMethod::Decimated;
        }
        std::mt19937_64 rng(m_case.seed * 7919 + 17);
        m_poison = makePoison(m_format, rng);
        return ::testing::AssertionSuccess();
    }

    // Upload, poison, and the layouts the blur expects.
    void setup(VkCommandBuffer cmd, Staging &staging) {
        transition(cmd, m_srcImage, 0, 1, use::kNone, use::kTransferDst);
        for (std::uint32_t layer = 0; layer < m_case.layers; ++layer)
            staging.upload(cmd, m_srcImage, 0, layer, m_content[layer]);
        transition(cmd, m_srcImage, 0, 1, use::kTransferDst, use::kComputeRead);
        transition(cmd, m_dstImage, 0, 1, use::kNone, use::kTransferDst);
        poison(cmd, m_dstImage, 0, 1, m_poison);
        transition(cmd, m_dstImage, 0, 1, use::kTransferDst, use::kComputeWrite);
    }

    vkfx::BlurInfo info() const {
        vkfx::BlurInfo i;
        i.source = &m_source;
        i.destination = &m_destination;
        i.sourceOffset = m_case.srcOffset;
        i.destinationOffset = m_case.dstOffset;
        i.extent = m_case.region;
        i.filter = m_case.filter;
        i.sigmaX = m_case.sigmaX;
        i.sigmaY = m_case.sigmaY;
        i.radiusX = m_case.radiusX;
        i.radiusY = m_case.radiusY;
        i.border = m_case.border;
        for (int ch = 0; ch < 4; ++ch)
            i.borderColor[ch] = m_case.color[ch];
        i.method = m_case.method;
        i.scratchBuffer = m_scratch.handle();
        return i;
    }

    void readback(VkCommandBuffer cmd, Staging &staging) {
        transition(cmd, m_dstImage, 0, 1, use::kComputeWrite, use::kTransferSrc);
        m_downloads.clear();
        for (std::uint32_t layer = 0; layer < m_case.layers; ++layer)
            m_downloads.push_back(staging.download(cmd, m_dstImage, 0, layer));
    }

    // The destination layers readback() downloaded.
    std::vector<std::vector<std::uint8_t>> outputs(const Staging &staging) const {
        std::vector<std::vector<std::uint8_t>> out;
        for (std::size_t d : m_downloads)
            out.push_back(staging.bytes(d));
        return out;
    }

    // The region against the reference, the rest against the poison. `written`: false when the
    // record was expected to write nothing.
    void verify(const Staging &staging, bool written = true) const {
        const VkExtent2D de = m_case.destination(), a = m_case.area();
        LevelChecker checker(m_format, Tolerance::Average);
        std::string touched;
        for (std::uint32_t layer = 0; layer < m_case.layers; ++layer) {
            const std::vector<std::uint8_t> got = staging.bytes(m_downloads[layer]);
            std::vector<std::uint8_t> region;
            std::size_t changed = 0;
            for (std::uint32_t y = 0; y < de.height; ++y) {
                for (std::uint32_t x = 0; x < de.width; ++x) {
                    const std::uint8_t *t = got.data() + (std::size_t{y} * de.width + x) * m_format.bytesPerTexel;
                    const auto ox = std::uint32_t(m_case.dstOffset.x), oy = std::uint32_t(m_case.dstOffset.y);
                    const bool in = written && x >= ox && y >= oy && x < ox + a.width && y < oy + a.height;
                    if (in)
                        region.insert(region.end(), t, t + m_format.bytesPerTexel);
                    else if (!isPoison(m_format, t, m_poison))
                        ++changed;
                }
            }
            if (changed)
                touched += "  layer " + std::to_string(layer) + ": " + std::to_string(changed) + " texels\n";
            if (written && m_decimated)
                checker.setSlack(decimatedSlack(layer));
            if (written)
                checker.check(0, layer, referenceBlur(m_format, m_case, m_content[layer]), region);
        }
        EXPECT_TRUE(checker.passed()) << m_case.describe() << ":\n" << checker.report();
        // fp16 and the 11- and 10-bit floats: the exact methods round their fp32 results to nearest
        // (VKFX_ROUND: stores may truncate), so they stay within half an ulp and fp32's own error
        // (under 0.1 ulp at these radii); a truncating store would reach almost a whole ulp.
        if (written && !m_decimated && smallFloatFormat(m_format)) {
            EXPECT_LE(checker.maxError(), 0.6) << m_case.describe() << ": not rounded to nearest";
        }
        EXPECT_TRUE(touched.empty()) << m_case.describe() << ": texels outside the region were written:\n" << touched;
        if (verbose())
            std::printf("  %s: max error %.4g (%.4g against the exact blur)\n", m_case.describe().c_str(),
                        checker.maxError(), checker.maxErrorWithoutSlack());
    }

  private:
    // The Decimated method's documented bound: kDecimatedError times the range of each channel's
    // values in the region (and the border colour, which the Constant border blurs in).
    std::vector<double> decimatedSlack(std::uint32_t layer) const {
        const VkExtent2D a = m_case.area();
        std::vector<double> slack(m_format.channels);
        for (std::uint32_t ch = 0; ch < m_format.channels; ++ch) {
            double lo = INFINITY, hi = -INFINITY;
            if (m_case.border == BlurBorder::Constant)
                lo = hi = m_case.color[ch];
            for (std::uint32_t y = 0; y < a.height; ++y) {
                for (std::uint32_t x = 0; x < a.width; ++x) {
                    const std::size_t t = std::size_t(y + std::uint32_t(m_case.srcOffset.y)) * m_case.extent.width + x +
                                          std::uint32_t(m_case.srcOffset.x);
                    const double v = decode(m_format, m_content[layer].data() + t * m_format.bytesPerTexel, ch);
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
            }
            slack[ch] = vkfx::Blurrer::kDecimatedError * (hi - lo);
        }
        return slack;
    }

    BlurCase m_case;
    const FormatInfo &m_format;
    Image m_srcImage, m_dstImage;
    Buffer m_scratch;
    bool m_decimated = false; // the Decimated method runs: its bound applies
    vkfx::BlurTarget m_source, m_destination;
    std::vector<std::vector<std::uint8_t>> m_content;
    Poison m_poison;
    std::vector<std::size_t> m_downloads;
};

class BlurTest : public GpuTest {
  protected:
    // What Blurrer::scratchRequirements answers for case c's record (its images created), with
    // `edit` applied to the BlurInfo first; nullopt (and a test failure) when it cannot be asked.
    std::optional<VkDeviceSize> scratchFor(const BlurCase &c,
                                           const std::function<void(vkfx::BlurInfo &)> &edit = {}) {
        const vkfx::Blurrer *blur = cachedBlurrer(c.format);
        Job job(c);
        if (!blur || !job.create()) {
            ADD_FAILURE() << "no Blurrer or images for " << c.describe();
            return std::nullopt;
        }
        vkfx::BlurInfo info = job.info();
        if (edit)
            edit(info);
        return blur->scratchRequirements(info).size;
    }

    // The method Blurrer::methodFor names for case c's record (its images created and 8 MiB of
    // scratch given as c.scratch says), with `edit` applied to the BlurInfo first; nullopt where
    // methodFor refuses the info, and (with a test failure) where it cannot be asked.
    std::optional<vkfx::BlurMethod>
    methodFor(const BlurCase &c, const std::function<void(vkfx::BlurInfo &)> &edit = {}) {
        const vkfx::Blurrer *blur = cachedBlurrer(c.format);
        BlurCase images = c;
        images.scratch = false; // the job's images only: the scratch is this one
        Job job(images);
        Buffer scratch;
        if (!blur || !job.create() ||
            scratch.create(8u << 20, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) != VK_SUCCESS) {
            ADD_FAILURE() << "no Blurrer, images or scratch for " << c.describe();
            return std::nullopt;
        }
        vkfx::BlurInfo info = job.info();
        info.scratchBuffer = c.scratch ? scratch.handle() : VK_NULL_HANDLE;
        if (edit)
            edit(info);
        vkfx::BlurMethod method{};
        if (blur->methodFor(info, &method) != VK_SUCCESS)
            return std::nullopt;
        return method;
    }

    // Creates job's images and records its upload, blur and readback on the cached Blurrer of its
    // format, then waits for them.
    static ::testing::AssertionResult run(Job &job, Staging &staging) {
        const vkfx::Blurrer *blur = cachedBlurrer(job.spec().format);
        if (!blur)
            return ::testing::AssertionFailure() << "no Blurrer";
        const ::testing::AssertionResult created = job.create();
        if (!created)
            return created;
        VkResult recorded = VK_ERROR_UNKNOWN;
        const VkResult submitted = submitAndWait([&](VkCommandBuffer cmd) {
            job.setup(cmd, staging);
            recorded = blur->record(cmd, job.info());
            job.readback(cmd, staging);
            staging.downloadsToHost(cmd);
        });
        if (submitted != VK_SUCCESS)
            return ::testing::AssertionFailure() << "submitting failed (" << submitted << ")";
        if (!staging.ok())
            return ::testing::AssertionFailure() << staging.error();
        if (recorded != VK_SUCCESS)
            return ::testing::AssertionFailure() << "record failed (" << recorded << "): " << vkfx::lastError();
        return ::testing::AssertionSuccess();
    }

    // Case c's destination layers as recorded (not checked; empty after a failure).
    std::vector<std::vector<std::uint8_t>> outputs(const BlurCase &c) {
        Job job(c);
        Staging staging;
        const ::testing::AssertionResult ran = run(job, staging);
        if (!ran) {
            ADD_FAILURE() << c.describe() << ": " << ran.message();
            return {};
        }
        return job.outputs(staging);
    }

    void runCase(const BlurCase &c) {
        SCOPED_TRACE(c.describe());
        Job job(c);
        std::string why;
        if (!job.supported(&why))
            GTEST_SKIP() << why;
        Staging staging;
        ASSERT_TRUE(run(job, staging));
        job.verify(staging);
    }

    // Case c in every format the blur takes, seeds from `seed` up.
    void runEveryFormat(BlurCase c, std::uint64_t seed) {
        for (VkFormat format : blurFormats()) {
            c.format = format;
            c.seed = seed++;
            runCase(c);
            if (HasFatalFailure())
                return;
        }
    }

    // Case c with every border mode, random content and single bright pixels in turn.
    void runEveryBorder(BlurCase c) {
        for (std::uint32_t b = 0; b <= static_cast<std::uint32_t>(BlurBorder::Constant); ++b) {
            c.border = static_cast<BlurBorder>(b);
            c.content = b % 2 ? BlurCase::Content::HotPixels : BlurCase::Content::Random;
            runCase(c);
            if (stopped())
                return;
        }
    }
};

// ---------------------------------------------------------------------------------------------
// Formats, sizes, sigmas, borders, boxes, regions, layers

class BlurFormats : public BlurTest, public ::testing::WithParamInterface<VkFormat> {};

TEST_P(BlurFormats, RandomAndHotPixelsMatchReference) {
    BlurCase c;
    c.format = GetParam();
    c.extent = {65, 63};
    c.sigmaX = c.sigmaY = 1.6f;
    runCase(c);
    if (stopped())
        return;
    c.content = BlurCase::Content::HotPixels;
    c.sigmaX = c.sigmaY = 2.8f;
    c.border = BlurBorder::Mirror;
    c.seed = 2;
    runCase(c);
    if (stopped())
        return;
    c.content = BlurCase::Content::Gradient;
    c.border = BlurBorder::Constant;
    c.sigmaX = 4.0f;
    c.sigmaY = 0.5f;
    runCase(c);
}

INSTANTIATE_TEST_SUITE_P(, BlurFormats, ::testing::ValuesIn(blurFormats()),
                         [](const ::testing::TestParamInfo<VkFormat> &p) { return formatName(p.param); });

TEST_F(BlurTest, EverySizeMatchesReference) {
    const VkExtent2D sizes[] = {{1, 1}, {1, 37}, {37, 1}, {7, 5}, {64, 64}, {65, 63}, {1023, 769}, {1920, 1080}};
    int i = 0;
    for (VkExtent2D e : sizes) {
        BlurCase c;
        c.extent = e;
        c.sigmaX = c.sigmaY = 2.8f;
        c.border = static_cast<BlurBorder>(i % 5);
        c.seed = 10 + static_cast<std::uint64_t>(i++);
        runCase(c);
        if (stopped())
            return;
    }
}

TEST_F(BlurTest, LargeImageOnGpuMatchesReference) {
    if (ctx().isCpu())
        GTEST_SKIP() << "3840x2160 runs on GPUs only (minutes on lavapipe)";
    // 8-bit tiles at radius 12, RGBA16F walking radius 48, the widest tiles on devices that
    // take 256 bytes of push constants (else these walk): 8-bit BGRA at radius 22 (32 x 32 on
    // NVIDIA GPUs), RGBA16F at 15 (32 x 16), and R32F at radius 60 with scratch (Auto: TwoPass).
    const BlurCase cases[] = {
        {.format = VK_FORMAT_R8G8B8A8_UNORM,
         .extent = {3840, 2160},
         .sigmaX = 4.0f,
         .sigmaY = 4.0f,
         .border = BlurBorder::Mirror},
        {.format = VK_FORMAT_R16G16B16A16_SFLOAT,
         .extent = {3840, 2160},
         .sigmaX = 16.0f,
         .sigmaY = 16.0f,
         .border = BlurBorder::Mirror},
        {.format = VK_FORMAT_B8G8R8A8_SRGB,
         .extent = {3840, 2160},
         .sigmaX = 7.3f,
         .sigmaY = 6.1f,
         .radiusX = 22,
         .radiusY = 22,
         .border = BlurBorder::Wrap,
         .seed = 2},
        {.format = VK_FORMAT_R16G16B16A16_SFLOAT,
         .extent = {3840, 2160},
         .sigmaX = 4.2f,
         .sigmaY = 5.0f,
         .radiusX = 15,
         .radiusY = 15,
         .border = BlurBorder::Constant,
         .content = BlurCase::Content::HotPixels,
         .seed = 3},
        {.format = VK_FORMAT_R32_SFLOAT,
         .extent = {3840, 2160},
         .sigmaX = 20.0f,
         .sigmaY = 20.0f,
         .border = BlurBorder::MirrorEdge,
         .content = BlurCase::Content::HotPixels,
         .seed = 4,
         .scratch = true},
    };
    for (const BlurCase &c : cases) {
        runCase(c);
        if (stopped())
            return;
    }
}

class BlurSigmas : public BlurTest, public ::testing::WithParamInterface<float> {};

// "Sigma2_8" for 2.8.
std::string sigmaName(const ::testing::TestParamInfo<float> &p) {
    std::string s = std::to_string(p.param);
    s = s.substr(0, s.find_last_not_of('0') + 1);
    for (char &ch : s)
        if (ch == '.')
            ch = '_';
    return "Sigma" + s;
}

TEST_P(BlurSigmas, RandomAndHotPixelsMatchReference) {
    BlurCase c;
    c.extent = {97, 71};
    c.sigmaX = c.sigmaY = GetParam();
    c.border = BlurBorder::Mirror;
    runCase(c);
    if (stopped())
        return;
    c.format = VK_FORMAT_R32_SFLOAT;
    c.content = BlurCase::Content::HotPixels;
    c.border = BlurBorder::Constant;
    runCase(c);
}

INSTANTIATE_TEST_SUITE_P(, BlurSigmas, ::testing::Values(0.3f, 0.5f, 1.0f, 1.6f, 2.8f, 4.0f, 7.5f, 16.0f, 32.0f),
                         sigmaName);

// The push-constant bytes the device's Blurrers take (Blurrer::create; without
// vkfx::detail::blurMaxPushBytesOverride): 256 where it takes them, else 128.
std::uint32_t tilePushBytes() {
    return ctx().limits().maxPushConstantsSize >= vkfx::detail::kBlurTileWidePushBytes
               ? vkfx::detail::kBlurTileWidePushBytes
               : vkfx::detail::kBlurTilePushBytes;
}

// The tile this device's Blurrers take for `format` at radius r (0 x 0: none, they walk).
vkfx::detail::BlurTileShape deviceTileShape(VkFormat format, std::uint32_t r) {
    return vkfx::detail::blurTileShape(*vkfx::detail::findBlurFormat(format), r,
                                       ctx().limits().maxComputeSharedMemorySize,
                                       ctx().properties.vendorID, tilePushBytes());
}

// The tile shapes blurTileShape picks for a vendor, whatever the device's (lavapipe takes the
// tiles of NVIDIA GPUs).
struct VendorForced {
    explicit VendorForced(std::uint32_t vendorID) {
        vkfx::detail::blurTileVendorOverride = vendorID;
    }
    ~VendorForced() { vkfx::detail::blurTileVendorOverride = 0; }
};

// Tiles per workgroup forced (detail::blurTileSegmentsOverride) while it lives; 0: the rule's.
struct TileSegmentsForced {
    explicit TileSegmentsForced(std::uint32_t tiles) {
        vkfx::detail::blurTileSegmentsOverride = tiles;
    }
    ~TileSegmentsForced() { vkfx::detail::blurTileSegmentsOverride = 0; }
};

// The same radius on both axes, up to 13 (8-bit RGBA / BGRA; 22 on devices that take 256 bytes of
// push constants), 24 (one channel) or 11 (RGBA16F, RGBA32F; 15 with 256 bytes of push
// constants), takes the Tile method (up to radius 2 tiles of 32 x 24 for 8-bit RGBA / BGRA, 32 x 16
// for RGBA16F and RGBA32F, 64 x 16 for one channel; 32 x 32, 32 x 24 or 32 x 16 above) where the
// device's shared memory holds one: per format, every radius, every border, sizes below, at and
// across tile edges, different sigmas per axis (the weights of radii up to 11 come from the host,
// of each axis its own), boxes. Above radius 2 the four 8-bit formats take every other radius
// each, so that every radius runs once through a UNORM and once through an sRGB format, once as
// RGBA and once as BGRA. (Each radius is a pipeline, seconds to compile on lavapipe.)
class BlurTileRadii : public BlurTest, public ::testing::WithParamInterface<VkFormat> {};

TEST_P(BlurTileRadii, EveryRadiusMatchesReference) {
    const VkExtent2D sizes[] = {{1, 1}, {1, 37}, {37, 1}, {7, 5}, {64, 16}, {65, 17}, {130, 47}, {211, 133}};
    const VkFormat format = GetParam();
    const std::size_t f = static_cast<std::size_t>(
        std::find(blurFormats().begin(), blurFormats().end(), format) - blurFormats().begin());
    std::uint64_t seed = 300 + 100 * f;
    // The documented tile radii: one channel 24; 8-bit RGBA / BGRA 13 (22 with 256 bytes of push
    // constants); RGBA16F, RGBA32F and B10G11R11 (16-byte slots) 11 (15).
    const std::uint32_t channels = formatInfo(format).channels;
    const bool eightBitRgba = formatInfo(format).bytesPerTexel == 4 && channels == 4;
    const bool wide = tilePushBytes() == vkfx::detail::kBlurTileWidePushBytes;
    const std::uint32_t maxRadius = channels == 1  ? 24u
                                    : eightBitRgba ? (wide ? 22u : 13u)
                                                   : (wide ? 15u : 11u);
    const vkfx::detail::BlurFormat *fmt = vkfx::detail::findBlurFormat(format);
    ASSERT_NE(fmt, nullptr);
    ASSERT_TRUE(f >= 4 || maxRadius >= 13u)
        << "blurFormats() should begin with the four 8-bit RGBA / BGRA formats";
    for (std::uint32_t r = 1; r <= maxRadius; ++r) {
        // Radii whose tile does not fit this device's shared memory walk (other tests).
        if (r > 2 && deviceTileShape(format, r).width == 0)
            break;
        // blurFormats() begins RGBA8 UNORM, RGBA8 sRGB, BGRA8 UNORM, BGRA8 sRGB.
        if (r > 2 && f < 4 && (r + (f & 1) + (f >> 1)) % 2 != 0)
            continue;
        for (std::uint32_t v = 0; v < 3; ++v) {
            if (r > 2 && v != r % 3)
                continue; // one variant each above radius 2
            BlurCase c;
            c.format = format;
            c.extent = sizes[(seed + v) % std::size(sizes)];
            c.border = static_cast<BlurBorder>((seed + v) % 5);
            c.radiusX = c.radiusY = r;
            c.sigmaX = 0.4f * float(r) + 0.1f * float(v);
            c.sigmaY = 0.3f * float(r) + 0.25f;
            c.filter = v == 2 ? BlurFilter::Box : BlurFilter::Gaussian;
            c.content = v == 1 ? BlurCase::Content::HotPixels : BlurCase::Content::Random;
            c.seed = seed++;
            // Variant 1 runs two tiles a workgroup, variant 2 three (the rule's one at these
            // sizes): the rows a tile hands to the next, and groups whose last tiles lie below the
            // region.
            const TileSegmentsForced segments(v == 0 ? 0u : v + 1u);
            runCase(c);
            if (stopped())
                return;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(, BlurTileRadii, ::testing::ValuesIn(blurFormats()),
                         [](const ::testing::TestParamInfo<VkFormat> &p) {
                             return formatName(p.param);
                         });

// The Tile method on images large enough for several tiles per workgroup, interior tiles and
// border ones, the last tile of each column partial; the shapes NVIDIA GPUs take, forced; a region
// at odd offsets and layers.
TEST_F(BlurTest, TileMethodLargeImagesMatchReference) {
    std::uint64_t seed = 1000;
    // Large enough for several tiles per workgroup (3840x680, tiles of 32 x 24: 4, the last group
    // 1, its tile partial; 1100x990: 2, the last tile partial; at radius 4, tiles of 32 x 32, two
    // layers: 2, the last group of each layer 1, its tile partial).
    runCase({.format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {3840, 680}, .sigmaX = 0.4f, .sigmaY = 0.3f,
             .radiusX = 1, .radiusY = 1, .border = BlurBorder::Mirror, .seed = seed++});
    if (stopped())
        return;
    runCase({.format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {1100, 990}, .layers = 2, .sigmaX = 1.2f, .sigmaY = 1.4f,
             .radiusX = 4, .radiusY = 4, .border = BlurBorder::Mirror, .content = BlurCase::Content::HotPixels,
             .seed = seed++});
    if (stopped())
        return;
    runCase({.format = VK_FORMAT_R16G16B16A16_SFLOAT, .extent = {1100, 990}, .sigmaX = 0.7f, .sigmaY = 0.9f,
             .radiusX = 2, .radiusY = 2, .border = BlurBorder::Wrap, .content = BlurCase::Content::HotPixels,
             .seed = seed++});
    if (stopped())
        return;
    // Tiles of 32 x 24 (RGBA16F radius 4: two per workgroup, the last group's second tile
    // partial) and 32 x 16 (radius 6: four per workgroup), on devices with the shared memory for
    // them (32 KiB: lavapipe).
    for (std::uint32_t r : {4u, 6u}) {
        runCase({.format = VK_FORMAT_R16G16B16A16_SFLOAT, .extent = {1100, 990}, .layers = 2,
                 .sigmaX = 1.1f * float(r) / 3.0f, .sigmaY = float(r) / 3.0f, .radiusX = r, .radiusY = r,
                 .border = BlurBorder::Mirror, .content = BlurCase::Content::HotPixels, .seed = seed++});
        if (stopped())
            return;
    }
    // A 1100x990 case of radius r on both axes: several tiles a workgroup, interior tiles and
    // border ones, the last tile of each column partial. False once the test has stopped.
    auto largeCase = [&](VkFormat format, std::uint32_t r, std::uint32_t layers, float sigmaYScale,
                         BlurBorder border, BlurCase::Content content) {
        runCase({.format = format,
                 .extent = {1100, 990},
                 .layers = layers,
                 .sigmaX = float(r) / 3.0f,
                 .sigmaY = sigmaYScale * float(r) / 3.0f,
                 .radiusX = r,
                 .radiusY = r,
                 .border = border,
                 .content = content,
                 .seed = seed++});
        return !stopped();
    };
    // 8-bit tiles as NVIDIA GPUs take them (detail::blurTileHeightNvidia8Bit), on any device: 32 x
    // 24 at radii 4 and 7 (two layers: two per workgroup), where other devices take 32 x 32.
    {
        const VendorForced nvidia(0x10DE);
        const vkfx::detail::BlurFormat &bgra8 =
            *vkfx::detail::findBlurFormat(VK_FORMAT_B8G8R8A8_UNORM);
        const std::uint32_t shared = ctx().limits().maxComputeSharedMemorySize;
        ASSERT_EQ(vkfx::detail::blurTileShape(bgra8, 4, shared, 0, tilePushBytes()).height, 24u);
        ASSERT_EQ(vkfx::detail::blurTileShape(bgra8, 7, shared, 0, tilePushBytes()).height, 24u);
        if (!largeCase(VK_FORMAT_R8G8B8A8_UNORM, 4, 2, 1.2f, BlurBorder::Wrap,
                       BlurCase::Content::Random) ||
            !largeCase(VK_FORMAT_B8G8R8A8_UNORM, 7, 2, 1.2f, BlurBorder::ClampToEdge,
                       BlurCase::Content::HotPixels))
            return;
    }
    // 8-bit and RGBA16F / RGBA32F tiles of the radii that need 256 bytes of push constants, where
    // the device takes them (on NVIDIA GPUs 32 x 32 at radius 17 for 8-bit, 32 x 24 at 13 for
    // RGBA16F, two layers, and 32 x 16 at 14 for RGBA32F; elsewhere their own shapes).
    for (auto [format, r] :
         {std::pair{VK_FORMAT_R8G8B8A8_UNORM, 17u}, std::pair{VK_FORMAT_R16G16B16A16_SFLOAT, 13u},
          std::pair{VK_FORMAT_R32G32B32A32_SFLOAT, 14u}}) {
        if (deviceTileShape(format, r).width == 0)
            continue;
        if (!largeCase(format, r, format == VK_FORMAT_R16G16B16A16_SFLOAT ? 2u : 1u, 0.9f,
                       BlurBorder::MirrorEdge, BlurCase::Content::Random))
            return;
    }
    // One-channel tiles at the largest radii: R32F at 20 (76 x 76 staged texels, three rounds of
    // the horizontal pass; two layers), R8 at 24 (32 x 24 tiles: 80 x 72 staged texels). RGBA32F
    // at 5 (32 x 24 tiles of fp32 slots, as RGBA16F's).
    if (!largeCase(VK_FORMAT_R32_SFLOAT, 20, 2, 0.9f, BlurBorder::Mirror,
                   BlurCase::Content::Random) ||
        !largeCase(VK_FORMAT_R8_UNORM, 24, 1, 0.9f, BlurBorder::Constant,
                   BlurCase::Content::HotPixels) ||
        !largeCase(VK_FORMAT_R32G32B32A32_SFLOAT, 5, 1, 1.1f, BlurBorder::MirrorEdge,
                   BlurCase::Content::HotPixels))
        return;
    for (VkFormat format : {VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R16G16B16A16_SFLOAT}) {
        runCase({.format = format, .extent = {150, 70}, .dstExtent = {90, 60}, .layers = 2,
                 .srcOffset = {5, 7}, .dstOffset = {3, 9}, .region = {67, 35}, .sigmaX = 0.8f,
                 .sigmaY = 0.8f, .radiusX = 2, .radiusY = 2, .border = BlurBorder::Mirror,
                 .seed = seed++});
        if (stopped())
            return;
    }
}

// The Tile method above radius 11 with its weights made in the kernel from the scales, as on
// devices that take 128 bytes of push constants (lavapipe: BlurTileRadii runs these there),
// forced on a device that takes 256, whose Blurrers otherwise push the host's weights for those
// radii too (blur_tile.comp's "_wide" variants, which BlurTileRadii then runs).
struct PushBytesForced {
    explicit PushBytesForced(std::uint32_t bytes) {
        vkfx::detail::blurMaxPushBytesOverride = bytes;
    }
    ~PushBytesForced() { vkfx::detail::blurMaxPushBytesOverride = 0; }
};

TEST_F(BlurTest, TileWeightsMadeInTheKernelMatchReferenceWhere256PushBytesAreTaken) {
    if (ctx().limits().maxPushConstantsSize < vkfx::detail::kBlurTileWidePushBytes)
        GTEST_SKIP() << "the device takes " << ctx().limits().maxPushConstantsSize
                     << " bytes of push constants: its Tile method makes the weights above radius "
                        "11 in the kernel, which BlurTileRadii runs";
    const PushBytesForced narrow(vkfx::detail::kBlurTilePushBytes);
    struct Radius {
        VkFormat format;
        std::uint32_t radius;
    };
    std::uint64_t seed = 1200;
    for (const Radius &t :
         {Radius{VK_FORMAT_R8G8B8A8_UNORM, 12}, Radius{VK_FORMAT_B8G8R8A8_SRGB, 13},
          Radius{VK_FORMAT_R32_SFLOAT, 16}, Radius{VK_FORMAT_R8_UNORM, 24}}) {
        std::string why;
        if (!deviceCanBlur(t.format, &why))
            continue;
        for (std::uint32_t v = 0; v < 2; ++v) {
            BlurCase c;
            c.format = t.format;
            c.extent = v == 0 ? VkExtent2D{211, 133} : VkExtent2D{65, 17};
            c.border = static_cast<BlurBorder>(seed % 5);
            c.radiusX = c.radiusY = t.radius;
            c.sigmaX = 0.4f * float(t.radius);
            c.sigmaY = 0.3f * float(t.radius) + 0.25f;
            c.filter = v == 1 ? BlurFilter::Box : BlurFilter::Gaussian;
            c.content = v == 1 ? BlurCase::Content::HotPixels : BlurCase::Content::Random;
            c.seed = seed++;
            runCase(c);
            if (stopped())
                return;
        }
    }
}

// RGBA16F with radii 1 and 2 (different per axis: equal ones take the Tile method) runs a walk
// kernel of its own (one output per invocation instead of four): every border, hot pixels, a
// size of several strips and segments, a box, and radius 2 by 4 (which takes the four-output
// kernel).
TEST_F(BlurTest, Rgba16fSmallRadiiMatchReference) {
    struct Variant {
        float sigmaX, sigmaY; // radius ceil(3 sigma): 0.3 -> 1, 0.66 -> 2, 1.33 -> 4
        BlurFilter filter;
        std::uint32_t radiusX, radiusY;
    };
    const Variant variants[] = {{0.66f, 0.3f, BlurFilter::Gaussian, 0, 0}, {0.3f, 0.66f, BlurFilter::Gaussian, 0, 0},
                                {0.66f, 0.3f, BlurFilter::Gaussian, 0, 0}, {0.3f, 0.66f, BlurFilter::Gaussian, 0, 0},
                                {0.66f, 0.3f, BlurFilter::Gaussian, 0, 0}, {1.0f, 1.0f, BlurFilter::Box, 2, 1},
                                {0.66f, 1.33f, BlurFilter::Gaussian, 0, 0}};
    for (std::size_t i = 0; i < std::size(variants); ++i) {
        BlurCase c;
        c.format = VK_FORMAT_R16G16B16A16_SFLOAT;
        c.extent = {211, 133};
        c.border = static_cast<BlurBorder>(i % 5);
        c.sigmaX = variants[i].sigmaX;
        c.sigmaY = variants[i].sigmaY;
        c.filter = variants[i].filter;
        c.radiusX = variants[i].radiusX;
        c.radiusY = variants[i].radiusY;
        c.content = i % 2 ? BlurCase::Content::HotPixels : BlurCase::Content::Random;
        c.seed = 40 + i;
        runCase(c);
        if (stopped())
            return;
    }
}

TEST_F(BlurTest, DifferentSigmasInXAndYMatchReference) {
    BlurCase c;
    c.extent = {81, 67};
    c.sigmaX = 0.5f;
    c.sigmaY = 7.5f;
    runCase(c);
    c.sigmaX = 16.0f;
    c.sigmaY = 1.0f;
    c.format = VK_FORMAT_R8G8B8A8_SRGB;
    runCase(c);
}

// A sigma so small that -1 / (2 sigma^2) is below the float range: the kernel is the centre tap
// alone on that axis (it was NaN on the walk's path, whose centre weight was exp(-inf * 0)).
TEST_F(BlurTest, TinySigmaKeepsTheCentreTapAlone) {
    for (VkFormat format : {VK_FORMAT_R32_SFLOAT, VK_FORMAT_R8G8B8A8_UNORM}) {
        for (std::uint32_t radius : {0u, 3u, 20u}) {
            BlurCase c;
            c.format = format;
            c.extent = {33, 29};
            c.sigmaX = 1e-20f;
            c.sigmaY = 2.0f;
            c.radiusX = radius; // 0: from sigma (1); 3 and 20 take the walk
            runCase(c);
        }
    }
}

TEST_F(BlurTest, ExplicitRadiusTruncatesTheGaussian) {
    BlurCase c;
    c.extent = {50, 40};
    c.sigmaX = 6.0f;
    c.sigmaY = 3.0f;
    c.radiusX = 3;
    c.radiusY = 20;
    runCase(c);
}

class BlurBorders : public BlurTest, public ::testing::WithParamInterface<BlurBorder> {};

TEST_P(BlurBorders, RadiusLargerThanTheImageAndHotEdgesMatchReference) {
    BlurCase c;
    c.border = GetParam();
    c.extent = {13, 11};
    c.sigmaX = c.sigmaY = 4.0f; // radius 12: taps reach past the far edge
    runCase(c);
    if (stopped())
        return;
    c.extent = {64, 45};
    c.content = BlurCase::Content::HotPixels;
    c.sigmaX = c.sigmaY = 7.5f;
    c.format = VK_FORMAT_R16G16B16A16_SFLOAT;
    runCase(c);
    if (stopped())
        return;
    c.extent = {2, 3};
    c.format = VK_FORMAT_R8G8B8A8_SRGB;
    c.content = BlurCase::Content::Random;
    c.sigmaX = c.sigmaY = 1.0f;
    runCase(c);
}

INSTANTIATE_TEST_SUITE_P(, BlurBorders,
                         ::testing::Values(BlurBorder::ClampToEdge, BlurBorder::Mirror, BlurBorder::MirrorEdge,
                                           BlurBorder::Wrap, BlurBorder::Constant),
                         [](const ::testing::TestParamInfo<BlurBorder> &p) { return borderName(p.param); });

TEST_F(BlurTest, BoxOfEveryRadiusUpTo64MatchesReference) {
    for (std::uint32_t r = 1; r <= 64; ++r) {
        BlurCase c;
        c.extent = {70, 45};
        c.filter = BlurFilter::Box;
        c.radiusX = r;
        c.radiusY = (r * 7) % 64 + 1;
        c.border = static_cast<BlurBorder>(r % 5);
        c.format = r % 2 ? VK_FORMAT_R8G8B8A8_UNORM : VK_FORMAT_R8_UNORM;
        c.seed = 100 + r;
        runCase(c);
        if (stopped())
            return;
    }
}

TEST_F(BlurTest, BoxWithRadiusZeroBlursOneAxisOnly) {
    BlurCase c;
    c.extent = {40, 30};
    c.filter = BlurFilter::Box;
    c.radiusX = 0;
    c.radiusY = 5;
    runCase(c);
    c.radiusX = 6;
    c.radiusY = 0;
    runCase(c);
}

TEST_F(BlurTest, RegionAtOddOffsetsBlursAsAnImageOfItsOwn) {
    BlurCase c;
    c.extent = {70, 50};
    c.dstExtent = {50, 40};
    c.srcOffset = {5, 7};
    c.dstOffset = {3, 9};
    c.region = {33, 21};
    c.sigmaX = 2.8f;
    c.sigmaY = 1.6f;
    for (BlurBorder b : {BlurBorder::ClampToEdge, BlurBorder::Mirror, BlurBorder::Wrap, BlurBorder::Constant}) {
        c.border = b;
        runCase(c);
        if (stopped())
            return;
    }
}

TEST_F(BlurTest, ArrayOfThreeLayersMatchesReferencePerLayer) {
    BlurCase c;
    c.extent = {45, 38};
    c.layers = 3;
    c.sigmaX = c.sigmaY = 2.0f;
    c.border = BlurBorder::MirrorEdge;
    runCase(c);
}

// One image: layer 0 blurred into layer 1 (the same image, different layers, is allowed).
TEST_F(BlurTest, OtherLayerOfTheSameImageMatchesReference) {
    const VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
    std::string why;
    if (!deviceCanBlur(format, &why))
        GTEST_SKIP() << why;
    const FormatInfo &f = formatInfo(format);
    BlurCase c;
    c.extent = {33, 29};
    c.sigmaX = c.sigmaY = 1.6f;
    ImageSpec spec;
    spec.format = format;
    spec.extent = c.extent;
    spec.layers = 2;
    spec.usage = kSourceUsage | kDestinationUsage;
    Image image;
    ASSERT_EQ(image.create(spec), VK_SUCCESS);
    vkfx::BlurTarget layer0, layer1;
    vkfx::BlurTargetCreateInfo t{.image = image.handle(), .format = format, .extent = c.extent, .usage = spec.usage};
    ASSERT_EQ(vkfx::BlurTarget::create(ctx().vkfx, t, &layer0), VK_SUCCESS) << vkfx::lastError();
    t.baseArrayLayer = 1;
    ASSERT_EQ(vkfx::BlurTarget::create(ctx().vkfx, t, &layer1), VK_SUCCESS) << vkfx::lastError();
    const vkfx::Blurrer *blur = cachedBlurrer(format);
    ASSERT_NE(blur, nullptr);
    const std::vector<std::uint8_t> content = makeSource(f, c, 0);
    std::mt19937_64 rng(5);
    const Poison p = makePoison(f, rng);
    Staging staging;
    std::size_t down = 0;
    VkResult recorded = VK_ERROR_UNKNOWN;
    ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                  transition(cmd, image, 0, 1, use::kNone, use::kTransferDst);
                  poison(cmd, image, 0, 1, p); // both layers; layer 0 is then overwritten
                  transition(cmd, image, 0, 1, use::kTransferDst, use::kTransferDst, 0, 1);
                  staging.upload(cmd, image, 0, 0, content);
                  transition(cmd, image, 0, 1, use::kTransferDst, use::kComputeReadGeneral, 0, 1);
                  transition(cmd, image, 0, 1, use::kTransferDst, use::kComputeWrite, 1, 1);
                  vkfx::BlurInfo info{.source = &layer0, .destination = &layer1, .sigmaX = c.sigmaX,
                                      .sigmaY = c.sigmaY, .sourceLayout = VK_IMAGE_LAYOUT_GENERAL};
                  recorded = blur->record(cmd, info);
                  transition(cmd, image, 0, 1, use::kComputeWrite, use::kTransferSrc, 1, 1);
                  down = staging.download(cmd, image, 0, 1);
                  staging.downloadsToHost(cmd);
              }),
              VK_SUCCESS);
    ASSERT_EQ(recorded, VK_SUCCESS) << vkfx::lastError();
    LevelChecker checker(f, Tolerance::Average);
    checker.check(0, 1, referenceBlur(f, c, content), staging.bytes(down));
    EXPECT_TRUE(checker.passed()) << checker.report();
}

// ---------------------------------------------------------------------------------------------
// The Decimated method: within kDecimatedError of the range of the source (and the format's
// rounding) of the exact blur.

// The TwoPass method's scratch per texel and layer: four fp16 values for 8-bit four-channel
// formats, fp32 values for the others.
VkDeviceSize twoPassTexelBytes(VkFormat format) {
    switch (format) {
    case VK_FORMAT_R8G8B8A8_UNORM:
    case VK_FORMAT_R8G8B8A8_SRGB:
    case VK_FORMAT_B8G8R8A8_UNORM:
    case VK_FORMAT_B8G8R8A8_SRGB:
        return 8;
    case VK_FORMAT_R32_SFLOAT:
    case VK_FORMAT_R8_UNORM:
        return 4;
    default:
        return 16;
    }
}

// 8-bit RGBA and BGRA, UNORM or sRGB: the formats with rules of their own (TwoPass over the tiles
// from radius 17, decimated from 25).
bool isEightBitRgba(VkFormat format) { return twoPassTexelBytes(format) == 8; }

// A Gaussian of `sigma` on both axes with `method` forced, given scratch.
BlurCase withScratch(VkExtent2D extent, float sigma, vkfx::BlurMethod method) {
    BlurCase c;
    c.extent = extent;
    c.sigmaX = c.sigmaY = sigma;
    c.method = method;
    c.scratch = true;
    return c;
}

BlurCase decimated(VkExtent2D extent, float sigma) {
    return withScratch(extent, sigma, vkfx::BlurMethod::Decimated);
}

// Case c over a region of a 2-layer source at odd offsets into a larger destination.
BlurCase inRegionOfLayers(BlurCase c) {
    c.extent = {77, 59};
    c.dstExtent = {83, 64};
    c.srcOffset = {5, 3};
    c.dstOffset = {1, 7};
    c.region = {61, 49};
    c.layers = 2;
    return c;
}

class BlurDecimatedSigmas : public BlurTest, public ::testing::WithParamInterface<float> {};

TEST_P(BlurDecimatedSigmas, RandomHotPixelsAndGradientMatchReference) {
    const float sigma = GetParam();
    // The reference costs (width + 6 sigma) (height + 6 sigma) 6 sigma per channel: smaller
    // images for the largest sigmas.
    const VkExtent2D e = sigma > 100.0f ? VkExtent2D{67, 45} : sigma > 30.0f ? VkExtent2D{97, 61} : VkExtent2D{131, 97};
    BlurCase c = decimated(e, sigma);
    runCase(c);
    if (stopped())
        return;
    c.content = BlurCase::Content::HotPixels;
    c.border = BlurBorder::Mirror;
    c.seed = 2;
    runCase(c);
    if (stopped())
        return;
    c.content = BlurCase::Content::Gradient;
    c.border = BlurBorder::Wrap;
    c.format = VK_FORMAT_R16G16B16A16_SFLOAT;
    runCase(c);
}

INSTANTIATE_TEST_SUITE_P(, BlurDecimatedSigmas, ::testing::Values(1.0f, 6.0f, 8.5f, 12.5f, 21.3f, 64.0f, 200.0f),
                         sigmaName);

TEST_F(BlurTest, DecimatedEveryFormatMatchesReference) {
    runEveryFormat(decimated({45, 37}, 9.0f), 30);
}

TEST_F(BlurTest, DecimatedEveryBorderMatchesReference) {
    runEveryBorder(decimated({70, 50}, 16.0f));
}

TEST_F(BlurTest, DecimatedDifferentSigmasInXAndYMatchReference) {
    BlurCase c = decimated({90, 70}, 30.0f);
    c.sigmaY = 2.0f; // ky = 1
    runCase(c);
    if (stopped())
        return;
    c.sigmaX = 1.5f; // kx = 1
    c.sigmaY = 40.0f;
    c.format = VK_FORMAT_R8G8B8A8_SRGB;
    runCase(c);
}

TEST_F(BlurTest, DecimatedShortRadiusIsNotDecimatedOnThatAxis) {
    // radiusX 30 < 3 sigma: the truncated Gaussian is not smooth; x is blurred exactly.
    BlurCase c = decimated({60, 50}, 20.0f);
    c.radiusX = 30;
    c.content = BlurCase::Content::HotPixels;
    runCase(c);
}

TEST_F(BlurTest, DecimatedRadiusOfFloorThreeSigmaIsDecimated) {
    // sigma 64 / 3 with radius 64: 3 sigma is just above 64 in float; the axes are still decimated
    // (the scratch, about 16 bytes per texel over the row spacing, shrinks with the spacing 7)
    // and stay within the bound.
    BlurCase c = decimated({97, 61}, 64.0f / 3.0f);
    c.radiusX = c.radiusY = 64;
    const auto decimatedBytes = scratchFor(c);
    // below floor(3 sigma): exact on both axes, a grid of every texel
    const auto exactBytes = scratchFor(c, [](vkfx::BlurInfo &i) { i.radiusX = i.radiusY = 63; });
    ASSERT_TRUE(decimatedBytes && exactBytes);
    EXPECT_GT(*decimatedBytes, 0u);
    EXPECT_GT(*exactBytes, 4 * *decimatedBytes);
    c.content = BlurCase::Content::HotPixels;
    runCase(c);
}

TEST_F(BlurTest, DecimatedRegionAtOddOffsetsAndLayersMatchReference) {
    BlurCase c = inRegionOfLayers(decimated({77, 59}, 10.0f));
    c.border = BlurBorder::MirrorEdge;
    runCase(c);
}

TEST_F(BlurTest, AutoTakesDecimatedAboveTheDirectMaximum) {
    BlurCase c;
    c.extent = {50, 40};
    c.sigmaX = c.sigmaY = 50.0f; // radius 150 > kMaxRadius
    c.scratch = true;
    auto sigma = [](float s, vkfx::BlurMethod m = vkfx::BlurMethod::Auto) {
        return [=](vkfx::BlurInfo &i) {
            i.sigmaX = i.sigmaY = s;
            i.method = m;
        };
    };
    EXPECT_GT(scratchFor(c).value_or(0), 0u);
    EXPECT_GT(scratchFor(c, sigma(42.0f)).value_or(0), 0u); // radius 126: Decimated too (sigma >= 6)
    EXPECT_EQ(scratchFor(c, sigma(4.0f)).value_or(1), 0u);  // spacing 1: Direct, no scratch
    EXPECT_GT(scratchFor(c, sigma(42.0f, vkfx::BlurMethod::Decimated)).value_or(0), 0u);
    EXPECT_EQ(scratchFor(c, sigma(42.0f, vkfx::BlurMethod::Direct)).value_or(1), 0u);
    // A box is never decimated: radius 100 takes the TwoPass method (scratch of the region).
    auto box = [](vkfx::BlurMethod m) {
        return [=](vkfx::BlurInfo &i) {
            i.filter = BlurFilter::Box;
            i.radiusX = i.radiusY = 100;
            i.method = m;
        };
    };
    EXPECT_EQ(scratchFor(c, box(vkfx::BlurMethod::Auto)).value_or(0),
              50u * 40u * twoPassTexelBytes(c.format));
    EXPECT_EQ(scratchFor(c, box(vkfx::BlurMethod::Direct)).value_or(1), 0u);
    runCase(c); // Auto, with scratch: Decimated
}

// Below kMaxRadius, Auto takes the Decimated method where it is faster: both axes decimated with a
// spacing floor(sigma / 3) of at least detail::blurDecimatedMinStep (2; R8 3), scratch given,
// channels of at most 16 bits, and for 8-bit RGBA and BGRA a radius of at least
// detail::blurDecimatedMinRadius (below either, the exact TwoPass method, faster there). Otherwise
// Direct or TwoPass (exact: checked without the Decimated bound's slack).
TEST_F(BlurTest, AutoTakesDecimatedForCoarseGridsWithScratch) {
    using M = vkfx::BlurMethod;
    BlurCase c;
    c.extent = {53, 47};
    c.sigmaX = c.sigmaY = 9.0f; // spacing 3 on both axes, radius 27
    c.scratch = true;
    c.content = BlurCase::Content::HotPixels;
    auto sigmas = [](float x, float y, std::uint32_t radius = 0) {
        return [=](vkfx::BlurInfo &i) {
            i.sigmaX = x;
            i.sigmaY = y;
            i.radiusX = i.radiusY = radius; // 0: from sigma
        };
    };
    EXPECT_EQ(methodFor(c), M::Decimated);
    EXPECT_GT(scratchFor(c).value_or(0), 0u);
    EXPECT_EQ(scratchFor(c, [](vkfx::BlurInfo &i) { i.method = M::Direct; }).value_or(1), 0u);
    // Spacing 1: Direct (radius 15, below the TwoPass method's 16 for four channels).
    EXPECT_EQ(methodFor(c, sigmas(5.9f, 5.9f, 15)), M::Direct);
    // One axis only: not decimated; its radius 60 takes the TwoPass method.
    EXPECT_EQ(methodFor(c, sigmas(20.0f, 5.9f)), M::TwoPass);
    EXPECT_EQ(scratchFor(c, sigmas(20.0f, 5.9f)).value_or(1),
              53u * 47u * twoPassTexelBytes(c.format));
    // Below floor(3 sigma) and below the TwoPass method's radius: Direct.
    EXPECT_EQ(methodFor(c, sigmas(8.0f, 8.0f, 15)), M::Direct);
    // Spacing 2 (sigma 6 to 9) and 3 on every format: decimated from the format's first radius
    // (8-bit RGBA / BGRA 25: sigma above 8 by default, or a longer radius given) and spacing (R8
    // 3), TwoPass below them (8-bit RGBA / BGRA take TwoPass over their tiles from radius 17, R8
    // from 18); fp32 formats never.
    for (VkFormat f :
         {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_R16G16B16A16_SFLOAT,
          VK_FORMAT_R8_UNORM, VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT}) {
        if (!cachedBlurrer(f))
            continue; // not supported here (reported by the format tests)
        BlurCase o = c;
        o.format = f;
        const vkfx::detail::BlurFormat &format = *vkfx::detail::findBlurFormat(f);
        const std::uint32_t first = vkfx::detail::blurDecimatedMinRadius(format);
        const std::uint32_t minStep = vkfx::detail::blurDecimatedMinStep(format);
        const bool fp32 = f == VK_FORMAT_R32_SFLOAT || f == VK_FORMAT_R32G32B32A32_SFLOAT;
        // Not decimated at `radius`: the tiles or the walk, or TwoPass where the format takes it
        // there (the rules AutoTakesTwoPassForLargeRadiiWithScratch checks): a Gaussian of sigma 1
        // (spacing 1) with that radius.
        auto exactAt = [&](std::uint32_t radius) {
            const std::optional<M> m = methodFor(o, sigmas(1.0f, 1.0f, radius));
            EXPECT_TRUE(m.has_value())
                << formatName(f) << " radius " << radius << ": " << vkfx::lastError();
            return m;
        };
        auto decimates = [&](std::uint32_t radius, std::uint32_t step) {
            return !fp32 && radius >= first && step >= minStep;
        };
        auto expectedAt = [&](std::uint32_t radius, std::uint32_t step) {
            return decimates(radius, step) ? std::optional<M>(M::Decimated) : exactAt(radius);
        };
        for (float sigma : {6.0f, 7.0f, 8.0f, 8.34f, 8.99f, 9.0f, 11.9f}) {
            const auto radius = static_cast<std::uint32_t>(std::ceil(3.0 * double(sigma)));
            const auto step = static_cast<std::uint32_t>(sigma / 3.0f);
            EXPECT_EQ(methodFor(o, sigmas(sigma, sigma)), expectedAt(radius, step))
                << formatName(f) << " sigma " << sigma;
            if (!fp32 && !decimates(radius, step) && (first != 0 || minStep > 2)) {
                EXPECT_EQ(exactAt(radius), M::TwoPass) << formatName(f) << " sigma " << sigma;
            }
        }
        // A radius given longer than 3 sigma: the same spacing, decimated from the first radius.
        for (std::uint32_t radius : {18u, 24u, 25u, 30u})
            EXPECT_EQ(methodFor(o, sigmas(6.0f, 6.0f, radius)), expectedAt(radius, 2))
                << formatName(f) << " " << radius;
        EXPECT_EQ(methodFor(o, sigmas(9.0f, 9.0f, 40)), expectedAt(40, 3)) << formatName(f);
        EXPECT_EQ(methodFor(o, [](vkfx::BlurInfo &i) { i.scratchBuffer = VK_NULL_HANDLE; }),
                  M::Direct)
            << formatName(f);
    }
    runCase(c); // Auto with scratch: Decimated, within its bound
    if (stopped())
        return;
    c.sigmaX = c.sigmaY = 7.0f; // radius 21: TwoPass for 8-bit RGBA, exact
    runCase(c);
    if (stopped())
        return;
    c.scratch = false; // Auto without scratch: Direct, exact
    runCase(c);
    if (stopped())
        return;
    c.format = VK_FORMAT_R16G16B16A16_SFLOAT; // sigma 7 with scratch: Decimated
    c.scratch = true;
    c.content = BlurCase::Content::Random;
    runCase(c);
}

// ---------------------------------------------------------------------------------------------
// The TwoPass method: exact as the Direct method (checked without the Decimated bound's slack),
// Gaussian and box, through scratch filled with NaNs.

BlurCase twoPass(VkExtent2D extent, float sigma) {
    return withScratch(extent, sigma, vkfx::BlurMethod::TwoPass);
}

TEST_F(BlurTest, TwoPassEveryFormatMatchesReference) {
    BlurCase c = twoPass({45, 37}, 5.0f); // radius 15
    c.content = BlurCase::Content::HotPixels;
    runEveryFormat(c, 200);
}

TEST_F(BlurTest, TwoPassEveryBorderMatchesReference) {
    // Radius 48 on a 70x50 region: taps mapped past the far edge.
    BlurCase c = twoPass({70, 50}, 16.0f);
    c.format = VK_FORMAT_R32G32B32A32_SFLOAT;
    c.seed = 210;
    runEveryBorder(c);
}

// 8-bit four-channel formats keep the horizontal pass's rows in fp16: a border colour beyond its
// range (65504) still blurs to the reference's values.
TEST_F(BlurTest, TwoPassBorderColourBeyondHalfRangeMatchesReference) {
    BlurCase c = twoPass({45, 37}, 5.0f); // radius 15
    c.border = BlurBorder::Constant;
    const float color[4] = {1e6f, -1e6f, 0.6f, 3e4f};
    std::copy(std::begin(color), std::end(color), std::begin(c.color));
    for (VkFormat f : {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB}) {
        c.format = f;
        runCase(c);
        if (stopped())
            return;
    }
}

TEST_F(BlurTest, TwoPassBoxRadiiAndOneAxisMatchReference) {
    const std::uint32_t radii[][2] = {{1, 1},
                                      {0, 9},
                                      {17, 0},
                                      {64, 3},
                                      {vkfx::Blurrer::kMaxRadius, 100},
                                      {5, vkfx::Blurrer::kMaxRadius}};
    std::uint64_t seed = 220;
    for (const auto &r : radii) {
        BlurCase c = twoPass({61, 47}, 1.0f);
        c.filter = BlurFilter::Box;
        c.radiusX = r[0];
        c.radiusY = r[1];
        c.border = static_cast<BlurBorder>(seed % 5);
        c.format = seed % 2 ? VK_FORMAT_R8_UNORM : VK_FORMAT_R32G32B32A32_SFLOAT;
        c.seed = seed++;
        runCase(c);
        if (stopped())
            return;
    }
}

TEST_F(BlurTest, TwoPassRowsAndColumnsOfSeveralWorkgroupsMatchReference) {
    struct Shape {
        VkExtent2D extent;
        float sigmaX, sigmaY;
        VkFormat fourChannels; // after R32_SFLOAT with Mirror
        BlurBorder border;
    };
    const Shape shapes[] = {
        // Rows of two workgroups of the horizontal pass (2,048 outputs each for these formats;
        // detail::blurRowOutputs), the last one partly outside.
        {{2200, 37}, 9.0f, 1.2f, VK_FORMAT_R8G8B8A8_SRGB, BlurBorder::Wrap}, // radius 27
        // Columns of several workgroups of the vertical pass (8 runs of 8 rows each), rows near
        // the ends read through the border, the others directly.
        {{67, 300}, 2.0f, 7.0f, VK_FORMAT_R8G8B8A8_UNORM, BlurBorder::Constant}, // radius 21
        // The same in its wide form for one channel (runs of 16 rows; blurColumnWideRadius).
        {{40, 300}, 1.5f, 33.0f, VK_FORMAT_B8G8R8A8_UNORM, BlurBorder::ClampToEdge}, // radius 99
    };
    // The shapes' vertical radii take each form of the vertical pass for one channel.
    const std::uint32_t wide =
        vkfx::detail::blurColumnWideRadius(*vkfx::detail::findBlurFormat(VK_FORMAT_R32_SFLOAT));
    ASSERT_GT(wide, 21u);
    ASSERT_LE(wide, 99u);
    for (const Shape &shape : shapes) {
        BlurCase c = twoPass(shape.extent, shape.sigmaX);
        c.sigmaY = shape.sigmaY;
        c.format = VK_FORMAT_R32_SFLOAT;
        c.border = BlurBorder::Mirror;
        runCase(c);
        if (stopped())
            return;
        c.format = shape.fourChannels;
        c.border = shape.border;
        c.content = BlurCase::Content::HotPixels;
        runCase(c);
        if (stopped())
            return;
    }
}

// The vertical pass's window takes its texels in rounds of 8 (16 in the wide form), the last
// round made whole by zero weights after the last tap (detail::blurColumnTaps): every vertical
// radius mod 4 (mod 8 in the wide form), with box and Gaussian weights, in columns long enough
// that runs away from the ends read H directly and the others through the border.
TEST_F(BlurTest, TwoPassEveryRoundOfTheVerticalWindowMatchesReference) {
    const std::uint32_t wide =
        vkfx::detail::blurColumnWideRadius(*vkfx::detail::findBlurFormat(VK_FORMAT_R32_SFLOAT));
    struct Run {
        VkFormat format;
        VkExtent2D extent;
        std::uint32_t firstRadius; // and the 7 after it
    };
    const Run runs[] = {{VK_FORMAT_R8G8B8A8_UNORM, {37, 160}, 16},
                        {VK_FORMAT_R32_SFLOAT, {37, 160}, 16},
                        {VK_FORMAT_R32_SFLOAT, {21, 260}, wide}};
    std::uint64_t seed = 260;
    for (const Run &run : runs) {
        for (std::uint32_t radius = run.firstRadius; radius < run.firstRadius + 8; ++radius) {
            BlurCase c = twoPass(run.extent, 1.0f);
            c.filter = seed % 2 ? BlurFilter::Box : BlurFilter::Gaussian;
            c.sigmaY = float(radius) / 3.0f;
            c.radiusX = 2;
            c.radiusY = radius;
            c.format = run.format;
            c.border = static_cast<BlurBorder>(seed % 5);
            c.seed = seed++;
            runCase(c);
            if (stopped())
                return;
        }
    }
}

TEST_F(BlurTest, TwoPassRegionAtOddOffsetsAndLayersMatchReference) {
    BlurCase c = inRegionOfLayers(twoPass({77, 59}, 4.5f));
    c.radiusX = 40;
    c.radiusY = 7;
    c.border = BlurBorder::Wrap;
    c.format = VK_FORMAT_R16G16B16A16_SFLOAT;
    runCase(c);
}

// methodFor names the method a record of the BlurInfo takes: Auto resolved with and without
// scratch, and the forced methods; the records it refuses, record() refuses too (BlurBadInput).
TEST_F(BlurTest, MethodForNamesTheMethodARecordTakes) {
    const vkfx::Blurrer *blur = cachedBlurrer(VK_FORMAT_R8G8B8A8_UNORM);
    ASSERT_NE(blur, nullptr);
    BlurCase c;
    c.extent = {53, 47};
    Job job(c);
    ASSERT_TRUE(job.create());
    using M = vkfx::BlurMethod;
    // The method methodFor names for c's info after `edit`, with scratch or not; nullopt where it
    // fails.
    auto methodOf = [&](bool withScratch, const std::function<void(vkfx::BlurInfo &)> &edit) {
        BlurCase s = c;
        s.scratch = withScratch;
        return methodFor(s, edit);
    };
    auto gaussian = [](float sigma, M method = M::Auto) {
        return [=](vkfx::BlurInfo &i) {
            i.filter = BlurFilter::Gaussian;
            i.sigmaX = i.sigmaY = sigma;
            i.radiusX = i.radiusY = 0;
            i.method = method;
        };
    };
    auto box = [](std::uint32_t radius, M method = M::Auto) {
        return [=](vkfx::BlurInfo &i) {
            i.filter = BlurFilter::Box;
            i.radiusX = i.radiusY = radius;
            i.method = method;
        };
    };
    EXPECT_EQ(methodOf(true, gaussian(9.0f)), M::Decimated); // spacing 3, 8-bit channels
    EXPECT_EQ(methodOf(true, gaussian(7.0f)), M::TwoPass);   // spacing 2, radius 21: below 25
    EXPECT_EQ(methodOf(false, gaussian(7.0f)), M::Direct);
    EXPECT_EQ(methodOf(true, gaussian(4.0f)), M::Direct);      // spacing 1
    EXPECT_EQ(methodOf(true, gaussian(50.0f)), M::Decimated);  // radius 150 > kMaxRadius
    EXPECT_EQ(methodOf(false, gaussian(50.0f)), std::nullopt); // ... which needs scratch
    EXPECT_EQ(methodOf(true, gaussian(7.0f, M::Direct)), M::Direct);
    EXPECT_EQ(methodOf(true, gaussian(2.0f, M::Decimated)), M::Decimated);
    EXPECT_EQ(methodOf(true, box(100)), M::TwoPass);
    EXPECT_EQ(methodOf(false, box(100)), M::Direct);
    EXPECT_EQ(methodOf(true, box(3, M::TwoPass)), M::TwoPass);
    EXPECT_EQ(methodOf(false, box(3, M::TwoPass)), std::nullopt);
    // The TwoPass method's scratch exactly, and 4 bytes less.
    const VkDeviceSize twoPassBytes = 53u * 47u * twoPassTexelBytes(VK_FORMAT_R8G8B8A8_UNORM);
    auto boxWithScratch = [&](VkDeviceSize size) {
        return [=](vkfx::BlurInfo &i) {
            box(100)(i);
            i.scratchSize = size;
        };
    };
    EXPECT_EQ(methodOf(true, boxWithScratch(twoPassBytes)), M::TwoPass);
    EXPECT_EQ(methodOf(true, boxWithScratch(twoPassBytes - 4u)), std::nullopt);
    EXPECT_EQ(methodOf(true, box(129, M::TwoPass)), std::nullopt);
    M m{};
    EXPECT_EQ(blur->methodFor(job.info(), nullptr), VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_EQ(vkfx::Blurrer().methodFor(job.info(), &m), VK_ERROR_VALIDATION_FAILED_EXT);
}

// With scratch, Auto takes the TwoPass method (exact: checked without slack) for radii that are at
// least detail::blurTwoPassMinRadius and have no tile, or are at least the format's
// detail::blurTwoPassOverTileRadius (tiles or not): Gaussians that are not decimated and boxes;
// the tile or the walk below it, without scratch, or with Direct forced.
TEST_F(BlurTest, AutoTakesTwoPassForLargeRadiiWithScratch) {
    for (VkFormat f : {VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R8G8B8A8_UNORM,
                       VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_R32_SFLOAT, VK_FORMAT_R8_UNORM}) {
        if (!cachedBlurrer(f))
            continue; // not supported here (reported by the format tests)
        // The rule's radius, or past the device's tiles where they reach further, unless the
        // format takes TwoPass over its tiles from a radius (8-bit RGBA / BGRA 17, R8 18, R32F 22).
        const vkfx::detail::BlurFormat &format = *vkfx::detail::findBlurFormat(f);
        std::uint32_t minRadius = vkfx::detail::blurTwoPassMinRadius(format);
        const std::uint32_t overTile = vkfx::detail::blurTwoPassOverTileRadius(format);
        while (deviceTileShape(f, minRadius).width != 0 && (overTile == 0 || minRadius < overTile))
            ++minRadius;
        BlurCase c;
        c.format = f;
        c.extent = {57, 43};
        c.filter = BlurFilter::Box;
        c.radiusX = c.radiusY = minRadius;
        c.scratch = true;
        c.content = BlurCase::Content::HotPixels;
        const VkDeviceSize twoPassBytes = 57u * 43u * twoPassTexelBytes(f);
        EXPECT_EQ(scratchFor(c).value_or(0), twoPassBytes) << formatName(f);
        EXPECT_EQ(scratchFor(c, [](vkfx::BlurInfo &i) { i.method = vkfx::BlurMethod::Direct; })
                      .value_or(1),
                  0u);
        EXPECT_EQ(scratchFor(c, [=](vkfx::BlurInfo &i) { i.radiusY = minRadius - 1; }).value_or(0),
                  twoPassBytes);
        EXPECT_EQ(scratchFor(c, [=](vkfx::BlurInfo &i) { i.radiusX = i.radiusY = minRadius - 1; })
                      .value_or(1),
                  0u);
        // A Gaussian whose radius is below floor(3 sigma) is not decimated: TwoPass.
        EXPECT_EQ(scratchFor(c,
                             [](vkfx::BlurInfo &i) {
                                 i.filter = BlurFilter::Gaussian;
                                 i.sigmaX = i.sigmaY = 30.0f;
                             })
                      .value_or(0),
                  twoPassBytes)
            << formatName(f);
        runCase(c);
        if (stopped())
            return;
    }
}

// V in the moments form (blur_grid.comp passes 4 and 5), forced on every device from row spacing
// 4 (on GPUs records take it from spacing kBlurMomentMinStep): spacings 4 to 66, a head of 0 rows,
// long explicit radii, every border, layers and a region at odd offsets, fp16 and one channel.
// Each case asserts that the form is taken (its moments need more scratch than F).
struct MomentsForced {
    explicit MomentsForced(int value) { vkfx::detail::blurMomentsOverride = value; }
    ~MomentsForced() { vkfx::detail::blurMomentsOverride = 0; }
};

// Pass 5's blocks split among 1 to 8 invocations, whatever the rule picks for the case.
struct SplitsForced {
    explicit SplitsForced(std::uint32_t value) { vkfx::detail::blurMomentSplitsOverride = value; }
    ~SplitsForced() { vkfx::detail::blurMomentSplitsOverride = 0; }
};

TEST_F(BlurTest, DecimatedMomentsFormMatchesReference) {
    std::uint32_t splits = 0; // the rule, then 1, 2, 4, 8 in turn
    auto check = [&](const BlurCase &c) {
        std::optional<VkDeviceSize> without, with;
        {
            MomentsForced off(-1);
            without = scratchFor(c);
        }
        MomentsForced on(1);
        with = scratchFor(c);
        ASSERT_TRUE(without && with);
        EXPECT_GT(*with, *without) << c.describe() << ": the moments form was not taken";
        SplitsForced forced(splits);
        splits = splits == 0 ? 1 : splits == 8 ? 0 : 2 * splits;
        runCase(c);
    };
    BlurCase c = decimated({61, 53}, 13.0f); // spacing 4, 9 blocks and a head of 3 rows
    c.content = BlurCase::Content::HotPixels;
    check(c);
    c = decimated({70, 50}, 27.0f); // spacing 9, radius 94: 21 blocks, no head
    c.radiusY = 94;
    check(c);
    for (std::uint32_t b = 0; b <= static_cast<std::uint32_t>(BlurBorder::Constant) && !stopped(); ++b) {
        c = decimated({83, 71}, 30.0f); // spacing 10, 18 blocks and a head of 1 row
        c.border = static_cast<BlurBorder>(b);
        c.content = b % 2 ? BlurCase::Content::HotPixels : BlurCase::Content::Random;
        c.seed = 40 + b;
        check(c);
    }
    c = decimated({97, 61}, 64.0f); // spacing 21, 18 blocks and a head of 7 rows
    c.border = BlurBorder::Mirror;
    check(c);
    c = decimated({67, 45}, 200.0f); // spacing 66, 18 blocks and a head of 13 rows
    c.content = BlurCase::Content::HotPixels;
    check(c);
    c = inRegionOfLayers(decimated({77, 59}, 16.0f)); // radius 4 sigma: spacing 5, 25 blocks, a head of 4 rows
    c.sigmaX = 9.0f;
    c.radiusY = 64;
    c.border = BlurBorder::MirrorEdge;
    check(c);
    c = decimated({90, 70}, 40.0f);
    c.content = BlurCase::Content::Gradient;
    c.format = VK_FORMAT_R16G16B16A16_SFLOAT;
    check(c);
    c.format = VK_FORMAT_R32_SFLOAT;
    c.content = BlurCase::Content::Random;
    check(c);
}

// The moments form only where its scratch (about 7 times pass 1's) fits maxStorageBufferRange;
// above it pass 1 makes V. (detail::blurGridLayout with the limit given.)
TEST(BlurLayout, MomentsFormOnlyWhereItsScratchFits) {
    const MomentsForced on(1);
    const vkfx::detail::BlurFormat &rgba8 = *vkfx::detail::findBlurFormat(VK_FORMAT_R8G8B8A8_UNORM);
    auto layout = [&](VkDeviceSize maxBytes) {
        return vkfx::detail::blurGridLayout({1920, 1080}, 1, 192, 192, 64.0f, 64.0f, rgba8, 0, true, maxBytes);
    };
    const vkfx::detail::BlurGridLayout fits = layout(VK_WHOLE_SIZE);
    ASSERT_TRUE(fits.moments);
    const vkfx::detail::BlurGridLayout over = layout(fits.scratchBytes - 1);
    EXPECT_FALSE(over.moments);
    EXPECT_LT(over.scratchBytes, fits.scratchBytes / 4);
    EXPECT_TRUE(layout(fits.scratchBytes).moments);
}

// The moments form against V made by pass 1, in fp32 (the forms differ by the polynomial fit:
// at most 4.6e-5 of the range in the vertical kernel, so within 1e-4 of the range after the
// horizontal pass and the interpolation; kDecimatedError alone would let a lost head of 1e-3
// through).
TEST_F(BlurTest, DecimatedMomentsFormAgreesWithPassOne) {
    auto compare = [&](const BlurCase &c) {
        std::vector<std::vector<std::uint8_t>> plain, moments;
        {
            MomentsForced off(-1);
            plain = outputs(c);
        }
        {
            MomentsForced on(1);
            moments = outputs(c);
        }
        ASSERT_EQ(plain.size(), c.layers);
        ASSERT_EQ(moments.size(), c.layers);
        const FormatInfo &f = formatInfo(c.format);
        double worst = 0.0;
        for (std::uint32_t layer = 0; layer < c.layers; ++layer) {
            ASSERT_EQ(plain[layer].size(), moments[layer].size());
            for (std::size_t t = 0; t < plain[layer].size() / f.bytesPerTexel; ++t) {
                const std::uint8_t *p = plain[layer].data() + t * f.bytesPerTexel;
                const std::uint8_t *m = moments[layer].data() + t * f.bytesPerTexel;
                if (std::memcmp(p, m, f.bytesPerTexel) == 0)
                    continue; // equal, the poison outside the region included
                for (std::uint32_t ch = 0; ch < f.channels; ++ch) {
                    const double a = decode(f, p, ch);
                    const double b = decode(f, m, ch);
                    worst = std::isnan(a - b) ? INFINITY : std::max(worst, std::abs(a - b));
                }
            }
        }
        // Random content and the border colour lie in [0, 1].
        EXPECT_LE(worst, 1e-4) << c.describe();
        if (verbose())
            std::printf("  %s: largest difference between the forms %.3g\n", c.describe().c_str(), worst);
    };
    BlurCase c = decimated({61, 53}, 13.0f);
    c.format = VK_FORMAT_R32_SFLOAT;
    compare(c);
    c = decimated({70, 50}, 27.0f);
    c.radiusY = 94;
    c.format = VK_FORMAT_R32_SFLOAT;
    c.border = BlurBorder::Constant;
    compare(c);
    c = decimated({83, 71}, 30.0f);
    c.format = VK_FORMAT_R32G32B32A32_SFLOAT;
    c.border = BlurBorder::Wrap;
    compare(c);
    c = decimated({97, 61}, 64.0f);
    c.format = VK_FORMAT_R32_SFLOAT;
    compare(c);
    c = decimated({67, 45}, 200.0f);
    c.format = VK_FORMAT_R32_SFLOAT;
    c.border = BlurBorder::Mirror;
    compare(c);
    c = inRegionOfLayers(decimated({77, 59}, 16.0f));
    c.radiusY = 64;
    c.format = VK_FORMAT_R32G32B32A32_SFLOAT;
    compare(c);
}

TEST_F(BlurTest, DecimatedLargeImageOnGpuMatchesReference) {
    if (ctx().isCpu())
        GTEST_SKIP() << "1920x1080 at sigma 40 runs on GPUs only (minutes on lavapipe)";
    BlurCase c = decimated({1920, 1080}, 40.0f);
    c.border = BlurBorder::Mirror;
    runCase(c);
}

// ---------------------------------------------------------------------------------------------
// Bad input: the documented VkResult, a fresh readable lastError(), nothing created or recorded
// (a failed record leaves the command buffer valid and the destination untouched).

class BlurBadInput : public GpuTest {
  protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (HasFatalFailure())
            return;
        BlurCase c;
        c.extent = {40, 30};
        m_job = std::make_unique<Job>(c);
        std::string why;
        if (!m_job->supported(&why))
            GTEST_SKIP() << why;
        m_blur = cachedBlurrer(c.format);
        ASSERT_NE(m_blur, nullptr);
        ASSERT_TRUE(m_job->create());
    }

    vkfx::BlurInfo good() const { return m_job->info(); }

    // `record` runs inside a command buffer that also sets up and reads back the job's images;
    // it must fail with `expected` and leave the destination poisoned.
    void expectRecordFails(VkResult expected, const std::function<VkResult(VkCommandBuffer)> &record) {
        const std::string before = freshLastError();
        VkResult r = VK_SUCCESS;
        Staging staging;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                      m_job->setup(cmd, staging);
                      r = record(cmd);
                      m_job->readback(cmd, staging);
                      staging.downloadsToHost(cmd);
                  }),
                  VK_SUCCESS);
        EXPECT_EQ(r, expected);
        EXPECT_TRUE(isFreshReason(before)) << "(result " << r << ")";
        m_job->verify(staging, false);
    }

    // record(info) fails, recording nothing, and so does methodFor(info), leaving its output alone.
    void expectInfoFails(const vkfx::BlurInfo &info) {
        expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT, [&](VkCommandBuffer cmd) { return m_blur->record(cmd, info); });
        const std::string before = freshLastError();
        constexpr auto kUntouched = static_cast<vkfx::BlurMethod>(77);
        vkfx::BlurMethod method = kUntouched;
        EXPECT_EQ(m_blur->methodFor(info, &method), VK_ERROR_VALIDATION_FAILED_EXT);
        EXPECT_TRUE(isFreshReason(before));
        EXPECT_EQ(method, kUntouched);
    }

    // Records of `i` (a method that takes scratch, named `method` in the reason) fail without
    // scratch, with a misaligned scratchOffset and with a scratchSize below
    // scratchRequirements(i); then `i` holds `scratch`, created large enough.
    void expectScratchChecked(vkfx::BlurInfo &i, Buffer &scratch, const char *method) {
        const vkfx::ScratchRequirements req = m_blur->scratchRequirements(i);
        ASSERT_GT(req.size, 0u);
        ASSERT_EQ(scratch.create(req.size + 64, req.usage), VK_SUCCESS);
        expectInfoFails(i); // no scratch
        EXPECT_NE(std::string(vkfx::lastError()).find(method), std::string::npos)
            << vkfx::lastError();
        i.scratchBuffer = scratch.handle();
        i.scratchOffset = 2; // misaligned
        expectInfoFails(i);
        i.scratchOffset = 0;
        i.scratchSize = req.size - 4; // too small
        expectInfoFails(i);
        i.scratchSize = VK_WHOLE_SIZE;
    }

    void expectTargetFails(VkResult expected, const vkfx::BlurTargetCreateInfo &info) {
        const std::string before = freshLastError();
        vkfx::BlurTarget target;
        EXPECT_EQ(vkfx::BlurTarget::create(ctx().vkfx, info, &target), expected);
        EXPECT_TRUE(isFreshReason(before));
        EXPECT_FALSE(target.valid());
    }

    std::unique_ptr<Job> m_job;
    const vkfx::Blurrer *m_blur = nullptr;
};

TEST_F(BlurBadInput, GoodInputIsAcceptedAndWrites) {
    // The baseline of the tests below: the same setup with a good record passes.
    Staging staging;
    VkResult r = VK_ERROR_UNKNOWN;
    ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                  m_job->setup(cmd, staging);
                  r = m_blur->record(cmd, good());
                  m_job->readback(cmd, staging);
                  staging.downloadsToHost(cmd);
              }),
              VK_SUCCESS);
    ASSERT_EQ(r, VK_SUCCESS) << vkfx::lastError();
    m_job->verify(staging);
}

TEST_F(BlurBadInput, SigmaThatIsNotPositiveAndFiniteIsRejected) {
    for (float s : {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        vkfx::BlurInfo i = good();
        i.sigmaX = s;
        expectInfoFails(i);
        i = good();
        i.sigmaY = s;
        expectInfoFails(i);
    }
}

TEST_F(BlurBadInput, SourceLayoutThatCannotBeSampledIsRejected) {
    for (VkImageLayout layout : {VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL}) {
        vkfx::BlurInfo i = good();
        i.sourceLayout = layout;
        expectInfoFails(i);
        EXPECT_NE(std::string(vkfx::lastError()).find("sourceLayout"), std::string::npos) << vkfx::lastError();
    }
}

TEST_F(BlurBadInput, RadiusAboveTheMaximumIsRejected) {
    vkfx::BlurInfo i = good();
    i.radiusX = vkfx::Blurrer::kMaxRadius + 1;
    expectInfoFails(i);
    i = good();
    i.sigmaY = 50.0f; // ceil(3 sigma) = 150
    expectInfoFails(i);
    i = good();
    i.filter = BlurFilter::Box;
    i.radiusY = 1000;
    expectInfoFails(i);
}

TEST_F(BlurBadInput, DecimatedWithoutGoodScratchIsRejected) {
    vkfx::BlurInfo i = good();
    i.method = vkfx::BlurMethod::Decimated;
    i.sigmaX = i.sigmaY = 10.0f;
    Buffer scratch;
    expectScratchChecked(i, scratch, "Decimated");
    i.filter = BlurFilter::Box; // Gaussians only
    i.radiusX = i.radiusY = 3;
    expectInfoFails(i);
    i = good();
    i.scratchBuffer = scratch.handle();
    i.sigmaX = 400.0f; // radius 1200 > kMaxDecimatedRadius
    expectInfoFails(i);
    i.sigmaX = 1.0f;
    i.method = static_cast<vkfx::BlurMethod>(5);
    expectInfoFails(i);
}

TEST_F(BlurBadInput, TwoPassWithoutGoodScratchOrWithTooLargeARadiusIsRejected) {
    vkfx::BlurInfo i = good();
    i.method = vkfx::BlurMethod::TwoPass;
    i.filter = BlurFilter::Box;
    i.radiusX = i.radiusY = 5;
    Buffer scratch;
    expectScratchChecked(i, scratch, "TwoPass");
    i.radiusX = vkfx::Blurrer::kMaxRadius + 1;
    expectInfoFails(i);
    i.filter = BlurFilter::Gaussian;
    i.radiusX = i.radiusY = 0;
    i.sigmaY = 50.0f; // radius 150
    expectInfoFails(i);
}

TEST_F(BlurBadInput, UnknownFilterOrBorderIsRejected) {
    vkfx::BlurInfo i = good();
    i.filter = static_cast<BlurFilter>(7);
    expectInfoFails(i);
    i = good();
    i.border = static_cast<BlurBorder>(9);
    expectInfoFails(i);
}

TEST_F(BlurBadInput, RegionOutsideEitherImageIsRejected) {
    vkfx::BlurInfo i = good();
    i.extent = {41, 30};
    expectInfoFails(i);
    i = good();
    i.extent = {20, 20};
    i.sourceOffset = {21, 0};
    expectInfoFails(i);
    i = good();
    i.extent = {20, 20};
    i.destinationOffset = {0, 11};
    expectInfoFails(i);
    i = good();
    i.extent = {10, 10};
    i.sourceOffset = {-1, 0};
    expectInfoFails(i);
    i = good();
    i.extent = {0, 10};
    expectInfoFails(i);
    i = good();
    i.sourceOffset = {1, 1}; // with the whole-source extent
    expectInfoFails(i);
}

TEST_F(BlurBadInput, NullHandlesAreRejected) {
    vkfx::BlurInfo i = good();
    i.source = nullptr;
    expectInfoFails(i);
    i = good();
    i.destination = nullptr;
    expectInfoFails(i);
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT, [&](VkCommandBuffer) { return m_blur->record(VK_NULL_HANDLE, good()); });
    vkfx::Blurrer none;
    expectRecordFails(VK_ERROR_VALIDATION_FAILED_EXT, [&](VkCommandBuffer cmd) { return none.record(cmd, good()); });
    vkfx::BlurTarget destroyed;
    i = good();
    i.source = &destroyed;
    expectInfoFails(i);
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT, {.image = VK_NULL_HANDLE, .format = VK_FORMAT_R8G8B8A8_UNORM,
                                                       .extent = {4, 4}, .usage = kSourceUsage});
}

TEST_F(BlurBadInput, MissingUsageIsRejected) {
    // The destination's target has STORAGE only (no SAMPLED): it cannot be a source; the source's
    // has SAMPLED only: it cannot be a destination.
    vkfx::BlurInfo i = good();
    i.source = &m_job->destination();
    i.destination = &m_job->destination();
    expectInfoFails(i);
    i = good();
    i.destination = &m_job->source();
    expectInfoFails(i);
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      {.image = m_job->destinationImage().handle(), .format = VK_FORMAT_R8G8B8A8_UNORM,
                       .extent = {40, 30}, .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT});
}

TEST_F(BlurBadInput, OverlappingSourceAndDestinationAreRejected) {
    ImageSpec spec = m_job->imageSpec(true);
    spec.usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
    spec.layers = 3;
    Image image;
    ASSERT_EQ(image.create(spec), VK_SUCCESS);
    vkfx::BlurTargetCreateInfo t{.image = image.handle(), .format = spec.format, .extent = spec.extent,
                                 .usage = spec.usage, .layerCount = 2};
    vkfx::BlurTarget a, b;
    ASSERT_EQ(vkfx::BlurTarget::create(ctx().vkfx, t, &a), VK_SUCCESS) << vkfx::lastError();
    t.baseArrayLayer = 1; // layers 1, 2 against 0, 1
    ASSERT_EQ(vkfx::BlurTarget::create(ctx().vkfx, t, &b), VK_SUCCESS) << vkfx::lastError();
    vkfx::BlurInfo i = good();
    i.source = &a;
    i.destination = &a;
    expectInfoFails(i);
    i.destination = &b;
    expectInfoFails(i);
}

TEST_F(BlurBadInput, FormatsTheBlurrerCannotTakeAreRejected) {
    // A target of another format than the Blurrer's.
    ImageSpec spec = m_job->imageSpec(false);
    spec.format = VK_FORMAT_R32_SFLOAT;
    Image image;
    ASSERT_EQ(image.create(spec), VK_SUCCESS);
    vkfx::BlurTarget other;
    ASSERT_EQ(vkfx::BlurTarget::create(ctx().vkfx, {.image = image.handle(), .format = spec.format,
                                                    .extent = spec.extent, .usage = spec.usage},
                                       &other),
              VK_SUCCESS)
        << vkfx::lastError();
    vkfx::BlurInfo i = good();
    i.source = &other;
    expectInfoFails(i);
    // Formats outside the list.
    for (VkFormat f : {VK_FORMAT_R16G16_SFLOAT, VK_FORMAT_UNDEFINED, VK_FORMAT_D32_SFLOAT}) {
        const std::string before = freshLastError();
        vkfx::Blurrer b;
        EXPECT_EQ(vkfx::Blurrer::create(ctx().vkfx, {.format = f}, &b), VK_ERROR_FORMAT_NOT_SUPPORTED);
        EXPECT_TRUE(isFreshReason(before));
        EXPECT_FALSE(b.valid());
        expectTargetFails(VK_ERROR_FORMAT_NOT_SUPPORTED, {.image = image.handle(), .format = f, .extent = spec.extent,
                                                          .usage = spec.usage});
    }
}

TEST_F(BlurBadInput, LayerCountMismatchIsRejected) {
    ImageSpec spec = m_job->imageSpec(true);
    spec.layers = 2;
    Image image;
    ASSERT_EQ(image.create(spec), VK_SUCCESS);
    vkfx::BlurTarget two;
    ASSERT_EQ(vkfx::BlurTarget::create(ctx().vkfx, {.image = image.handle(), .format = spec.format,
                                                    .extent = spec.extent, .usage = spec.usage, .layerCount = 2},
                                       &two),
              VK_SUCCESS)
        << vkfx::lastError();
    vkfx::BlurInfo i = good();
    i.destination = &two;
    expectInfoFails(i);
}

TEST_F(BlurBadInput, SrgbDestinationWithoutMutableFormatIsRejected) {
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      {.image = m_job->destinationImage().handle(), .format = VK_FORMAT_R8G8B8A8_SRGB,
                       .extent = {40, 30}, .usage = kDestinationUsage});
}

TEST_F(BlurBadInput, BadTargetDescriptionsAreRejected) {
    const VkImage image = m_job->destinationImage().handle();
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      {.image = image, .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {0, 30}, .usage = kDestinationUsage});
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      {.image = image, .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {40, 30}, .mipLevels = 1,
                       .usage = kDestinationUsage, .mipLevel = 1});
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      {.image = image, .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {40, 30},
                       .usage = kDestinationUsage, .layerCount = 0});
    // 40x30 has 6 levels.
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      {.image = image, .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {40, 30}, .mipLevels = 7,
                       .usage = kDestinationUsage, .mipLevel = 6});
    const VkPhysicalDeviceLimits &limits = ctx().vkfx.properties().limits;
    expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT,
                      {.image = image, .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {40, 30},
                       .usage = kDestinationUsage,
                       .layerCount = std::min(limits.maxImageArrayLayers, limits.maxComputeWorkGroupCount[2]) + 1});
    for (std::uint32_t base : {0xFFFFFFFFu, limits.maxImageArrayLayers}) {
        expectTargetFails(VK_ERROR_VALIDATION_FAILED_EXT,
                          {.image = image, .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {40, 30},
                           .usage = kDestinationUsage, .baseArrayLayer = base, .layerCount = 2});
        EXPECT_NE(std::string(vkfx::lastError()).find("maxImageArrayLayers"), std::string::npos) << vkfx::lastError();
    }
}

// The Tile method's tiles per workgroup (detail::blurTilesPerGroup): the most, up to 8 (4 for
// 8-bit RGBA / BGRA), that leave at least 480 workgroups of 64 x 16 tiles or 960 of 32-column tiles.
TEST(BlurHelpers, TilesPerWorkgroupByFormatAndSize) {
    using vkfx::detail::blurTilesPerGroup;
    const vkfx::detail::BlurFormat &rgba8 = *vkfx::detail::findBlurFormat(VK_FORMAT_R8G8B8A8_UNORM);
    const vkfx::detail::BlurFormat &bgra8 = *vkfx::detail::findBlurFormat(VK_FORMAT_B8G8R8A8_SRGB);
    const vkfx::detail::BlurFormat &rgba16f = *vkfx::detail::findBlurFormat(VK_FORMAT_R16G16B16A16_SFLOAT);
    const vkfx::detail::BlurTileShape wide{64, 16}, narrow{32, 32};
    // 3840x2160: 60 x 135 wide tiles, 120 x 68 narrow ones; 8 tiles leave 1020 / 1080 workgroups.
    EXPECT_EQ(blurTilesPerGroup(rgba8, {3840, 2160}, 1, wide), 4u);
    EXPECT_EQ(blurTilesPerGroup(bgra8, {3840, 2160}, 1, narrow), 4u);
    EXPECT_EQ(blurTilesPerGroup(rgba16f, {3840, 2160}, 1, wide), 8u);
    EXPECT_EQ(blurTilesPerGroup(rgba16f, {3840, 2160}, 1, narrow), 8u);
    // 1920x1080: 30 x 68 wide tiles (4 tiles: 510 workgroups, 8: 270), 60 x 34 narrow ones (2: 1020,
    // 4: 540); a second layer doubles the columns.
    EXPECT_EQ(blurTilesPerGroup(rgba8, {1920, 1080}, 1, wide), 4u);
    EXPECT_EQ(blurTilesPerGroup(rgba16f, {1920, 1080}, 1, wide), 4u);
    EXPECT_EQ(blurTilesPerGroup(rgba16f, {1920, 1080}, 2, wide), 8u);
    EXPECT_EQ(blurTilesPerGroup(rgba8, {1920, 1080}, 1, narrow), 2u);
    EXPECT_EQ(blurTilesPerGroup(rgba16f, {1920, 1080}, 1, narrow), 2u);
    EXPECT_EQ(blurTilesPerGroup(rgba16f, {256, 256}, 1, wide), 1u);
    // The large case of TileMethodLargeImagesMatchReference: 120 x 29 tiles of 32 x 24.
    EXPECT_EQ(blurTilesPerGroup(rgba8, {3840, 680}, 1, {32, 24}), 4u);
}

// The Tile method's tile (detail::blurTileShape): up to radius 2, 32 x 24 for 8-bit RGBA / BGRA,
// 32 x 16 for RGBA16F and RGBA32F, 64 x 16 for one channel; above, 32 columns by the most of 32, 24
// and 16 rows under 23.5 KiB; none past a format's largest Tile radius (13 for 8-bit RGBA / BGRA,
// 22 with 256 push-constant bytes, 24 for one channel, 11 for RGBA16F and RGBA32F, 15 with 256
// push-constant bytes) or where nothing fits.
// Blurrer::create builds a tile pipeline for every radius whose tile blurTileShape gives (none
// left to the walk because the Blurrer holds fewer tile pipelines than a format's largest radius),
// each specialized with that radius and shape, and carrying rows from tile to tile from radius 5
// (fp32 RGBA slots) or 7 (detail::blurTileCarries): the pipelines
// DeviceCreateInfo::pipelineCallback hears of with blur_tile.comp's six constants (sRGB, radius,
// rows, columns, padded, carry).
struct TilePipelineLog {
    std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>>
        shapes;                                     // radius -> (columns, rows)
    std::map<std::uint32_t, std::uint32_t> carries; // radius -> carry
};

void tilePipelineCallback(VkPipeline, const char *, const VkSpecializationInfo *spec,
                          void *userData) {
    if (!spec || spec->mapEntryCount != 6 || !spec->pData)
        return;
    std::uint32_t v[6] = {};
    for (std::uint32_t i = 0; i < 6; ++i) {
        const VkSpecializationMapEntry &e = spec->pMapEntries[i];
        if (e.constantID < 6 && e.size == sizeof(std::uint32_t))
            std::memcpy(&v[e.constantID], static_cast<const char *>(spec->pData) + e.offset,
                        sizeof(std::uint32_t));
    }
    static_cast<TilePipelineLog *>(userData)->shapes[v[1]] = {v[3], v[2]};
    static_cast<TilePipelineLog *>(userData)->carries[v[1]] = v[5];
}

TEST_F(BlurTest, EveryRadiusWithATileHasATilePipeline) {
    for (VkFormat format :
         {VK_FORMAT_R32_SFLOAT, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R32G32B32A32_SFLOAT}) {
        std::string why;
        if (!deviceCanBlur(format, &why)) {
            GTEST_SKIP() << why;
        }
        TilePipelineLog log;
        vkfx::DeviceCreateInfo info;
        info.instance = ctx().instance;
        info.physicalDevice = ctx().physicalDevice;
        info.device = ctx().device;
        info.getInstanceProcAddr = vkGetInstanceProcAddr;
        info.pipelineCallback = tilePipelineCallback;
        info.pipelineUserData = &log;
        vkfx::Device device;
        ASSERT_EQ(vkfx::Device::create(info, &device), VK_SUCCESS) << vkfx::lastError();
        vkfx::Blurrer blur;
        ASSERT_EQ(vkfx::Blurrer::create(device, {.format = format}, &blur), VK_SUCCESS)
            << vkfx::lastError();
        std::uint32_t tiled = 0;
        for (std::uint32_t r = 1; r <= 64; ++r) {
            const vkfx::detail::BlurTileShape shape = deviceTileShape(format, r);
            const auto it = log.shapes.find(r);
            if (shape.width == 0) {
                EXPECT_EQ(it, log.shapes.end()) << formatName(format) << " radius " << r;
                continue;
            }
            ++tiled;
            ASSERT_NE(it, log.shapes.end())
                << formatName(format) << " radius " << r << ": no tile pipeline";
            EXPECT_EQ(it->second.first, shape.width) << formatName(format) << " radius " << r;
            EXPECT_EQ(it->second.second, shape.height) << formatName(format) << " radius " << r;
            EXPECT_EQ(log.carries[r],
                      r >= (format == VK_FORMAT_R32G32B32A32_SFLOAT ? 5u : 7u) ? 1u : 0u)
                << formatName(format) << " radius " << r;
        }
        // Every tile fits 32 KiB, but RGBA32F's above radius 7 (32 x 32 of padded fp32 slots) and
        // 8-bit RGBA's above 16 (32 x 32 of 8-byte slots; up to 46,208 bytes at 22): 48. RGBA32F
        // above 11 (256 push bytes): 32 x 16 tiles on NVIDIA GPUs (up to 46,368 bytes at 15), else
        // 32 x 32 (61,504 bytes at 15; between 48 KiB and that, some of 12-15).
        const bool wide = tilePushBytes() == vkfx::detail::kBlurTileWidePushBytes;
        const bool wide8Bit = format == VK_FORMAT_R8G8B8A8_UNORM && wide;
        const bool rgba32f = format == VK_FORMAT_R32G32B32A32_SFLOAT;
        const bool nvidia = ctx().properties.vendorID == 0x10DE;
        const std::uint32_t needed = rgba32f && wide && !nvidia ? 61504u
                                     : rgba32f || wide8Bit      ? 48u * 1024
                                                                : 32u * 1024;
        if (ctx().limits().maxComputeSharedMemorySize >= needed) {
            EXPECT_EQ(tiled, rgba32f                          ? (wide ? 15u : 11u)
                             : format == VK_FORMAT_R32_SFLOAT ? 24u
                             : wide8Bit                       ? 22u
                                                              : 13u)
                << formatName(format);
        }
    }
}

// The Tile method's push constants hold offsets and extent as 16-bit halves: regions beyond them
// (possible on devices whose images are larger than 65535 texels a side) take the walk.
TEST(BlurHelpers, TileRegionsFitTheirPushConstants) {
    using vkfx::detail::blurTileFitsPush;
    EXPECT_EQ(vkfx::detail::blurPackHalves(3, 5), 0x50003u);
    EXPECT_EQ(vkfx::detail::blurPackHalves(65535, 65535), 0xFFFFFFFFu);
    EXPECT_TRUE(blurTileFitsPush({0, 0}, {0, 0}, {65535, 65535}));
    EXPECT_TRUE(blurTileFitsPush({65534, 7}, {9, 65534}, {1, 1}));
    EXPECT_FALSE(blurTileFitsPush({0, 0}, {0, 0}, {65536, 1}));
    EXPECT_FALSE(blurTileFitsPush({0, 0}, {0, 0}, {1, 65536}));
    EXPECT_FALSE(blurTileFitsPush({65536, 0}, {0, 0}, {1, 1}));
    EXPECT_FALSE(blurTileFitsPush({0, 0}, {0, 70000}, {1, 1}));
    EXPECT_FALSE(blurTileFitsPush({-1, 0}, {0, 0}, {1, 1}));
}

// The TwoPass method's row pass: 2048 outputs a workgroup where its stage (fp16 slots for 8-bit
// RGBA / BGRA, fp32 for the others, and the weights) stays within 24 KiB, else the largest half
// of 2048 that does and that the device's shared memory holds.
TEST(BlurHelpers, RowOutputsByFormatAndSharedMemory) {
    using vkfx::detail::blurRowOutputs;
    auto format = [](VkFormat f) { return *vkfx::detail::findBlurFormat(f); };
    for (std::uint32_t shared : {48u * 1024u, 32u * 1024u, 24u * 1024u}) {
        EXPECT_EQ(blurRowOutputs(shared, format(VK_FORMAT_R8G8B8A8_UNORM)), 2048u) << shared;
        EXPECT_EQ(blurRowOutputs(shared, format(VK_FORMAT_B8G8R8A8_SRGB)), 2048u) << shared;
        EXPECT_EQ(blurRowOutputs(shared, format(VK_FORMAT_R32_SFLOAT)), 2048u) << shared;
        EXPECT_EQ(blurRowOutputs(shared, format(VK_FORMAT_R8_UNORM)), 2048u) << shared;
        EXPECT_EQ(blurRowOutputs(shared, format(VK_FORMAT_R16G16B16A16_SFLOAT)), 1024u) << shared;
        EXPECT_EQ(blurRowOutputs(shared, format(VK_FORMAT_R32G32B32A32_SFLOAT)), 1024u) << shared;
    }
    // Vulkan's minimum of 16 KiB.
    EXPECT_EQ(blurRowOutputs(16u * 1024u, format(VK_FORMAT_R8G8B8A8_UNORM)), 1024u);
    EXPECT_EQ(blurRowOutputs(16u * 1024u, format(VK_FORMAT_R32G32B32A32_SFLOAT)), 512u);
}

// The TwoPass method's layout: its scratch (twoPassTexelBytes per texel and layer), and its
// vertical pass in the wide form (runs of 16 rows, workgroups of 128 rows) for one-channel formats
// from vertical radius 48, else runs of 8 (workgroups of 64 rows); the padding of the weight table
// holds the zeros each form's window reads past the last tap.
TEST(BlurHelpers, TwoPassLayoutByFormatAndRadius) {
    using vkfx::detail::blurColumnTableStep;
    static_assert(6 * blurColumnTableStep(vkfx::detail::kBlurColumnOutputs) >=
                  vkfx::detail::kBlurColumnOutputs - 1);
    static_assert(6 * blurColumnTableStep(vkfx::detail::kBlurColumnWideOutputs) >=
                  vkfx::detail::kBlurColumnWideOutputs - 1);
    const VkExtent2D extent{100, 300};
    for (VkFormat f : blurFormats()) {
        const vkfx::detail::BlurFormat &format = *vkfx::detail::findBlurFormat(f);
        const bool oneChannel = formatInfo(f).channels == 1;
        for (std::uint32_t radius : {1u, 47u, 48u, 128u}) {
            const vkfx::detail::BlurTwoPassLayout t =
                vkfx::detail::blurTwoPassLayout(extent, 3, format, 2048, radius);
            const bool wide = oneChannel && radius >= 48;
            EXPECT_EQ(t.wideColumns, wide) << formatName(f) << " radius " << radius;
            EXPECT_EQ(t.groups[1][1], wide ? 3u : 5u) << formatName(f) << " radius " << radius;
            EXPECT_EQ(t.groups[1][0], 4u);
            EXPECT_EQ(t.scratchBytes, 3u * 100u * 300u * twoPassTexelBytes(f)) << formatName(f);
            EXPECT_EQ(t.columnTaps, vkfx::detail::blurColumnTaps(
                                        radius, wide ? vkfx::detail::kBlurColumnWideOutputs
                                                     : vkfx::detail::kBlurColumnOutputs));
        }
    }
    // The vertical pass's taps: 2 r + 1 and fewer than `outputs` zeros, which make the texels its
    // window reads (taps + outputs - 1) whole rounds of `outputs`; its weight table has room for
    // them and for the outputs - 1 zeros the window reads past the last tap.
    for (std::uint32_t outputs :
         {vkfx::detail::kBlurColumnOutputs, vkfx::detail::kBlurColumnWideOutputs}) {
        for (std::uint32_t radius = 0; radius <= vkfx::Blurrer::kMaxRadius; ++radius) {
            const std::uint32_t taps = vkfx::detail::blurColumnTaps(radius, outputs);
            ASSERT_GE(taps, 2 * radius + 1) << radius;
            ASSERT_LT(taps - (2 * radius + 1), outputs) << radius;
            ASSERT_EQ((taps + outputs - 1) % outputs, 0u) << radius << " " << outputs;
            ASSERT_GE(6 * blurColumnTableStep(outputs), taps - (2 * radius + 1) + outputs - 1);
        }
    }
    EXPECT_EQ(vkfx::detail::blurColumnTaps(16, 8), 33u);
    EXPECT_EQ(vkfx::detail::blurColumnTaps(18, 8), 41u);
    EXPECT_EQ(vkfx::detail::blurColumnTaps(63, 16), 129u);
}

// Auto with scratch takes TwoPass over the tiles from radius 17 for 8-bit RGBA / BGRA and 22 for
// R32F (measured, docs v59), never for the other formats; the radius is one from which TwoPass is
// taken at all (blurTwoPassMinRadius), so that no tile is dropped for the walk.
TEST(BlurHelpers, TwoPassOverTilesByFormat) {
    for (VkFormat f : blurFormats()) {
        const vkfx::detail::BlurFormat &format = *vkfx::detail::findBlurFormat(f);
        const std::uint32_t overTile = vkfx::detail::blurTwoPassOverTileRadius(format);
        EXPECT_EQ(overTile, isEightBitRgba(f)           ? 17u
                            : f == VK_FORMAT_R8_UNORM   ? 18u
                            : f == VK_FORMAT_R32_SFLOAT ? 22u
                                                        : 0u)
            << formatName(f);
        if (overTile != 0) {
            EXPECT_GE(overTile, vkfx::detail::blurTwoPassMinRadius(format)) << formatName(f);
        }
    }
}

// Auto decimates 8-bit RGBA / BGRA Gaussians below kMaxRadius from radius 25 only, the other
// formats wherever the grid spacing allows (0); R8 from grid spacing 3, the others from 2 (TwoPass,
// exact, faster below).
TEST(BlurHelpers, DecimatedFromRadiusAndSpacingByFormat) {
    for (VkFormat f : blurFormats()) {
        const vkfx::detail::BlurFormat &format = *vkfx::detail::findBlurFormat(f);
        const std::uint32_t first = vkfx::detail::blurDecimatedMinRadius(format);
        const std::uint32_t minStep = vkfx::detail::blurDecimatedMinStep(format);
        EXPECT_EQ(first, isEightBitRgba(f) ? 25u : 0u) << formatName(f);
        EXPECT_LE(first, vkfx::Blurrer::kMaxRadius) << formatName(f);
        EXPECT_EQ(minStep, f == VK_FORMAT_R8_UNORM ? 3u : 2u) << formatName(f);
        EXPECT_LE(minStep, vkfx::detail::kBlurGridMaxStep) << formatName(f);
    }
}

// Auto's whole rule for decimating below kMaxRadius (given scratch): never for fp32 formats; both
// grid spacings at least 2 (R8: 3); 8-bit RGBA / BGRA from radius 25.
TEST(BlurHelpers, AutoDecimatesByFormatSpacingAndRadius) {
    for (VkFormat f : blurFormats()) {
        const vkfx::detail::BlurFormat &format = *vkfx::detail::findBlurFormat(f);
        const bool fp32 = f == VK_FORMAT_R32_SFLOAT || f == VK_FORMAT_R32G32B32A32_SFLOAT;
        const std::uint32_t step = f == VK_FORMAT_R8_UNORM ? 3u : 2u;
        const std::uint32_t radius = isEightBitRgba(f) ? 25u : 18u;
        auto decimates = [&](std::uint32_t x, std::uint32_t y, std::uint32_t r) {
            return vkfx::detail::blurAutoDecimates(format, x, y, r);
        };
        EXPECT_EQ(decimates(step, step, radius), !fp32) << formatName(f);
        EXPECT_EQ(decimates(step + 5, step + 1, 120), !fp32) << formatName(f);
        EXPECT_FALSE(decimates(step - 1, step, radius)) << formatName(f);
        EXPECT_FALSE(decimates(step, step - 1, radius)) << formatName(f);
        EXPECT_FALSE(decimates(1, 1, 120)) << formatName(f);
        if (isEightBitRgba(f)) {
            EXPECT_FALSE(decimates(step, step, radius - 1)) << formatName(f);
        }
    }
}

// A Blurrer takes 256 bytes of push constants where the device does (capped by
// blurMaxPushBytesOverride), and builds its tiles above radius 11 from the "_wide" kernels where it
// takes them and the format has them (8-bit RGBA / BGRA and one channel; RGBA16F and RGBA32F
// tile no radius above 11).
TEST(BlurHelpers, PushBytesAndWideTilesByDeviceLimit) {
    using vkfx::detail::blurPushBytes;
    using vkfx::detail::blurTileWide;
    using vkfx::detail::findBlurFormat;
    EXPECT_EQ(blurPushBytes(128), 128u);
    EXPECT_EQ(blurPushBytes(252), 128u);
    EXPECT_EQ(blurPushBytes(256), 256u);
    EXPECT_EQ(blurPushBytes(4096), 256u);
    {
        const PushBytesForced narrow(128);
        EXPECT_EQ(blurPushBytes(256), 128u);
    }
    EXPECT_EQ(blurPushBytes(256), 256u);
    const vkfx::detail::BlurFormat &rgba8 = *findBlurFormat(VK_FORMAT_R8G8B8A8_SRGB);
    const vkfx::detail::BlurFormat &r8 = *findBlurFormat(VK_FORMAT_R8_UNORM);
    const vkfx::detail::BlurFormat &rgba16f = *findBlurFormat(VK_FORMAT_R16G16B16A16_SFLOAT);
    EXPECT_FALSE(blurTileWide(rgba8, 11, 256));
    EXPECT_TRUE(blurTileWide(rgba8, 12, 256));
    EXPECT_FALSE(blurTileWide(rgba8, 12, 128));
    EXPECT_TRUE(blurTileWide(r8, 24, 256));
    EXPECT_FALSE(blurTileWide(r8, 24, 128));
    EXPECT_TRUE(blurTileWide(rgba16f, 12, 256));
    EXPECT_FALSE(blurTileWide(rgba16f, 11, 256));
    EXPECT_FALSE(blurTileWide(rgba16f, 12, 128));
}

// The host's weights (blurTileWeights) of taps 0..r of each axis: exp(-k^2 / (2 sigma^2)) over
// their sum (a box: 1 / (2r + 1)), each within an ulp of the double-precision value, up to the
// wide kernels' radius 27 (56 weights); nothing written past 2 (r + 1).
TEST(BlurHelpers, HostWeightsMatchTheNormalizedGaussian) {
    for (std::uint32_t r : {1u, 5u, 11u, 12u, 27u}) {
        for (bool box : {false, true}) {
            const double sigma[2] = {0.4 * r, 0.3 * r + 0.25};
            const float scale[2] = {box ? 0.0f : float(-1.0 / (2.0 * sigma[0] * sigma[0])),
                                    box ? 0.0f : float(-1.0 / (2.0 * sigma[1] * sigma[1]))};
            float w[64];
            std::fill(std::begin(w), std::end(w), -1.0f);
            vkfx::detail::blurTileWeights(scale, r, w);
            for (std::uint32_t a = 0; a < 2; ++a) {
                double sum = 0.0;
                for (std::uint32_t k = 0; k <= r; ++k)
                    sum += (k == 0 ? 1.0 : 2.0) * std::exp(double(scale[a]) * double(k * k));
                double total = 0.0;
                for (std::uint32_t k = 0; k <= r; ++k) {
                    const double expected = std::exp(double(scale[a]) * double(k * k)) / sum;
                    const float got = w[a * (r + 1) + k];
                    EXPECT_NEAR(got, expected, expected * 1.2e-7)
                        << "radius " << r << (box ? " box" : "") << " axis " << a << " tap " << k;
                    total += (k == 0 ? 1.0 : 2.0) * double(got);
                }
                EXPECT_NEAR(total, 1.0, 1e-6) << "radius " << r << " axis " << a;
            }
            for (std::uint32_t i = 2 * (r + 1); i < std::size(w); ++i)
                EXPECT_EQ(w[i], -1.0f) << "radius " << r << ": written past 2 (r + 1), at " << i;
        }
    }
}

TEST(BlurHelpers, TileShapeByFormatAndRadius) {
    using vkfx::detail::blurTileShape;
    using vkfx::detail::findBlurFormat;
    auto shape = [](VkFormat format, std::uint32_t radius, std::uint32_t sharedBytes = 48 * 1024,
                    std::uint32_t vendorID = 0x1002,
                    std::uint32_t pushBytes = vkfx::detail::kBlurTilePushBytes) {
        const vkfx::detail::BlurTileShape s =
            blurTileShape(*findBlurFormat(format), radius, sharedBytes, vendorID, pushBytes);
        return std::to_string(s.width) + "x" + std::to_string(s.height);
    };
    EXPECT_EQ(shape(VK_FORMAT_R8G8B8A8_UNORM, 1), "32x24");
    EXPECT_EQ(shape(VK_FORMAT_B8G8R8A8_SRGB, 2), "32x24");
    EXPECT_EQ(shape(VK_FORMAT_R16G16B16A16_SFLOAT, 1), "32x16");
    EXPECT_EQ(shape(VK_FORMAT_R16G16B16A16_SFLOAT, 2), "32x16");
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 2), "64x16");
    EXPECT_EQ(shape(VK_FORMAT_R8G8B8A8_UNORM, 4), "32x32");  // 40 x 40 x 8 bytes
    EXPECT_EQ(shape(VK_FORMAT_R16G16B16A16_SFLOAT, 4), "32x24"); // 41 x 32 x 16 bytes (padded)
    EXPECT_EQ(shape(VK_FORMAT_R8G8B8A8_UNORM, 14), "0x0");
    // 8-bit RGBA / BGRA up to 22 with 256 bytes of push constants, in 32 x 16 tiles (r = 15: 62 x
    // 46 x 8 bytes; 32 x 24 would be 62 x 54 x 8, over 23.5 KiB), on NVIDIA GPUs too; at 16 (64 x
    // 48 x 8 bytes, 512 over 23.5 KiB) 32 x 16 on NVIDIA GPUs (blurTileHeightNvidia8Bit), else
    // 32 x 32; from 17 32 x 32 on every GPU where it fits (r = 22: 76 x 76 x 8 bytes, r = 17: 66 x
    // 66 x 8, over 32 KiB, and 64 x 16 too: 98 x 50 x 8).
    constexpr std::uint32_t wide = vkfx::detail::kBlurTileWidePushBytes;
    EXPECT_EQ(shape(VK_FORMAT_R8G8B8A8_UNORM, 13, 48 * 1024, 0x1002, wide), "32x24");
    EXPECT_EQ(shape(VK_FORMAT_R8G8B8A8_UNORM, 14, 48 * 1024, 0x1002, wide), "32x16");
    EXPECT_EQ(shape(VK_FORMAT_B8G8R8A8_SRGB, 15, 48 * 1024, 0x10DE, wide), "32x16");
    EXPECT_EQ(shape(VK_FORMAT_R8G8B8A8_UNORM, 16, 48 * 1024, 0x10DE, wide), "32x16");
    EXPECT_EQ(shape(VK_FORMAT_B8G8R8A8_UNORM, 16, 48 * 1024, 0x1002, wide), "32x32");
    EXPECT_EQ(shape(VK_FORMAT_R8G8B8A8_UNORM, 16, 24 * 1024 - 1, 0x10DE, wide), "0x0");
    // RGBA16F and RGBA32F up to 15 with 256 bytes of push constants: on NVIDIA GPUs 32 x 24 at 12
    // and 13 (r = 13: 59 x 50 x 16 bytes, rows padded), 32 x 16 at 14 and 15 (r = 15: 63 x 46 x
    // 16), else 32 x 32 where it fits (r = 12: 56 x 56 x 16 bytes, over 48 KiB; r = 15: 62 x 62 x
    // 16, under 64 KiB). (push: the push-constant bytes.)
    struct Wide {
        VkFormat format;
        std::uint32_t radius, sharedBytes, vendorID, push;
        const char *shape;
    };
    const Wide wideShapes[] = {
        {VK_FORMAT_R8G8B8A8_UNORM, 17, 48 * 1024, 0x10DE, wide, "32x32"},
        {VK_FORMAT_B8G8R8A8_SRGB, 17, 48 * 1024, 0x1002, wide, "32x32"},
        {VK_FORMAT_R8G8B8A8_UNORM, 17, 32 * 1024, 0x10DE, wide, "0x0"},
        {VK_FORMAT_R8G8B8A8_SRGB, 20, 48 * 1024, 0x10DE, wide, "32x32"},
        {VK_FORMAT_B8G8R8A8_UNORM, 22, 48 * 1024, 0x10DE, wide, "32x32"},
        {VK_FORMAT_R8G8B8A8_UNORM, 22, 45 * 1024, 0x10DE, wide, "0x0"},
        {VK_FORMAT_R8G8B8A8_UNORM, 23, 48 * 1024, 0x10DE, wide, "0x0"},
        {VK_FORMAT_R16G16B16A16_SFLOAT, 12, 48 * 1024, 0x10DE, wide, "32x24"},
        {VK_FORMAT_R32G32B32A32_SFLOAT, 13, 48 * 1024, 0x10DE, wide, "32x24"},
        {VK_FORMAT_R16G16B16A16_SFLOAT, 14, 48 * 1024, 0x10DE, wide, "32x16"},
        {VK_FORMAT_R32G32B32A32_SFLOAT, 15, 48 * 1024, 0x10DE, wide, "32x16"},
        {VK_FORMAT_R16G16B16A16_SFLOAT, 16, 48 * 1024, 0x10DE, wide, "0x0"},
        {VK_FORMAT_R16G16B16A16_SFLOAT, 12, 48 * 1024, 0x10DE, vkfx::detail::kBlurTilePushBytes,
         "0x0"},
        {VK_FORMAT_R16G16B16A16_SFLOAT, 12, 48 * 1024, 0x1002, wide, "0x0"},
        {VK_FORMAT_R32G32B32A32_SFLOAT, 15, 64 * 1024, 0x1002, wide, "32x32"},
        {VK_FORMAT_R16G16B16A16_SFLOAT, 15, 45 * 1024, 0x10DE, wide, "0x0"},
    };
    for (const Wide &c : wideShapes) {
        EXPECT_EQ(shape(c.format, c.radius, c.sharedBytes, c.vendorID, c.push), c.shape)
            << formatName(c.format) << " radius " << c.radius << ", " << c.sharedBytes
            << " bytes, vendor " << c.vendorID << ", " << c.push << " push bytes";
    }
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 25, 48 * 1024, 0x10DE, wide), "0x0");
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 3), "32x32"); // 38 x 38 x 4 bytes
    EXPECT_EQ(shape(VK_FORMAT_R8_UNORM, 22), "32x32");  // 76 x 76 x 4 bytes
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 23), "32x24"); // 78 x 70 x 4 bytes (32 x 32: 78 x 78)
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 24), "32x24"); // 80 x 72 x 4 bytes
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 25), "0x0");
    EXPECT_EQ(shape(VK_FORMAT_R32G32B32A32_SFLOAT, 1), "32x16");
    EXPECT_EQ(shape(VK_FORMAT_R32G32B32A32_SFLOAT, 4), "32x24"); // as RGBA16F's
    EXPECT_EQ(shape(VK_FORMAT_R32G32B32A32_SFLOAT, 11), "32x32");
    EXPECT_EQ(shape(VK_FORMAT_R32G32B32A32_SFLOAT, 12), "0x0");
    // One channel with 16 KiB: 32 x 32 up to radius 16, then 24 rows (r = 17: 66 x 58 x 4 bytes),
    // 16 (r = 19: 70 x 54 x 4), none (r = 21: 74 x 58 x 4 is over, and so is 64 x 16).
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 16, 16 * 1024), "32x32");
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 17, 16 * 1024), "32x24");
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 19, 16 * 1024), "32x16");
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 21, 16 * 1024), "0x0");
    EXPECT_EQ(shape(VK_FORMAT_R16G16B16A16_SFLOAT, 1, 4 * 1024), "0x0");
    // NVIDIA (blurTileHeightNvidia8Bit): 8-bit RGBA / BGRA by radius; RGBA16F and RGBA32F as
    // above.
    constexpr std::uint32_t nv = 0x10DE;
    const char *nvidia8Bit[] = {"32x24", "32x24", "32x32", "32x24", "32x32", "32x32", "32x24",
                                "32x32", "32x32", "32x32", "32x32", "32x24", "32x24"};
    for (std::uint32_t r = 1; r <= 13; ++r) {
        EXPECT_EQ(shape(VK_FORMAT_R8G8B8A8_UNORM, r, 48 * 1024, nv), nvidia8Bit[r - 1])
            << "radius " << r;
        EXPECT_EQ(shape(VK_FORMAT_B8G8R8A8_SRGB, r, 48 * 1024, nv), nvidia8Bit[r - 1])
            << "radius " << r;
    }
    EXPECT_EQ(shape(VK_FORMAT_R8G8B8A8_UNORM, 14, 48 * 1024, nv), "0x0");
    // One channel (blurTileHeightNvidia): 24 rows at radii 3 and 4, then the rule's.
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 2, 48 * 1024, nv), "64x16");
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 3, 48 * 1024, nv), "32x24");
    EXPECT_EQ(shape(VK_FORMAT_R8_UNORM, 4, 48 * 1024, nv), "32x24");
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 5, 48 * 1024, nv), "32x32");
    EXPECT_EQ(shape(VK_FORMAT_R8_UNORM, 7, 48 * 1024, nv), "32x32");
    EXPECT_EQ(shape(VK_FORMAT_R32_SFLOAT, 24, 48 * 1024, nv), "32x24");
    EXPECT_EQ(shape(VK_FORMAT_R16G16B16A16_SFLOAT, 4, 48 * 1024, nv), "32x24");
    EXPECT_EQ(shape(VK_FORMAT_R16G16B16A16_SFLOAT, 8, 48 * 1024, nv), "32x32");
    // Where the NVIDIA tile does not fit the shared memory, the rule's: radius 8's 32 x 32 (48 x
    // 48 x 8 bytes) does not fit 12,000 bytes, nor does any other (32 x 16: 48 x 32 x 8); radius
    // 4's 32 x 24 (40 x 32 x 8) does not fit 10,000, 32 x 16 does.
    EXPECT_EQ(shape(VK_FORMAT_R8G8B8A8_UNORM, 8, 12000, nv), "0x0");
    EXPECT_EQ(shape(VK_FORMAT_R8G8B8A8_UNORM, 4, 10000, nv), "32x16");
}

} // namespace
