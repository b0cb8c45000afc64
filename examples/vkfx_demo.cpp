// vkfx-demo: the three operations of vkfx doing real work on the first Vulkan device (lavapipe,
// Mesa's CPU driver, where there is no GPU), each timed with GPU timestamps beside the baseline an
// engine would otherwise use, measured in the same run.
//
//   vkfx-demo [--out FOLDER] [IMAGE]     IMAGE: a PNG or JPEG (default: a built-in test card)
//
// It writes into FOLDER (default vkfx-demo-out):
//   input.png           the image used
//   mips.png            its whole sRGB mip chain from one record, every level on a contact sheet
//   depth-pyramid.png   a max-depth pyramid of a generated depth buffer (checked exactly on
//                       the CPU)
//   blur.png            the image blurred in linear light at three sigmas, side by side
//   particles.png       3 million particles drawn back to front in the order the GPU sorted them
//                       (checked against std::stable_sort)
// Exits non-zero with a one-line reason on any failure.
#include <vkfx/vkfx.hpp>

#include "example_gpu.hpp" // the Vulkan boilerplate the examples share

#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

#include <vkfx/spirv/bench_blur2.hpp> // the two-pass blur baseline (examples/bench/blur2.comp)

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

// --- errors ---------------------------------------------------------------------------------

[[noreturn]] void die(const std::string& why) { example::fail("%s", why.c_str()); }

using example::check;

// --- pictures on the CPU --------------------------------------------------------------------

// An RGBA8 picture (sRGB-encoded for display).
struct Picture {
    std::uint32_t width = 0, height = 0;
    std::vector<std::uint8_t> rgba;
    Picture() = default;
    Picture(std::uint32_t w, std::uint32_t h, std::uint8_t grey = 0)
        : width(w), height(h), rgba(std::size_t{w} * h * 4, grey)
    {
        for (std::size_t i = 3; i < rgba.size(); i += 4) rgba[i] = 255;
    }
    std::uint8_t* at(std::uint32_t x, std::uint32_t y) { return &rgba[(std::size_t{y} * width + x) * 4]; }
    const std::uint8_t* at(std::uint32_t x, std::uint32_t y) const
    {
        return &rgba[(std::size_t{y} * width + x) * 4];
    }
    // Copies `p` with its top-left corner at (x, y), clipped.
    void paste(const Picture& p, std::uint32_t x, std::uint32_t y)
    {
        for (std::uint32_t j = 0; j < p.height && y + j < height; ++j) {
            for (std::uint32_t i = 0; i < p.width && x + i < width; ++i) std::memcpy(at(x + i, y + j), p.at(i, j), 4);
        }
    }
};

std::uint8_t toByte(double v) { return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0)); }

double srgbToLinear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double linearToSrgb(double c)
{
    c = std::clamp(c, 0.0, 1.0);
    return c <= 0.0031308 ? c * 12.92 : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
}

// fp16 <-> fp32 (round to nearest even), for the blur's R16G16B16A16_SFLOAT images.
std::uint16_t toHalf(float f)
{
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    const std::uint32_t exp = (x >> 23) & 0xffu;
    std::uint32_t mant = x & 0x7fffffu;
    if (exp == 0xffu) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
    const int e = int(exp) - 127 + 15;
    if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10) return static_cast<std::uint16_t>(sign);
        mant |= 0x800000u;
        const std::uint32_t shift = std::uint32_t(14 - e);
        std::uint32_t h = mant >> shift;
        const std::uint32_t rest = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rest > half || (rest == half && (h & 1u))) ++h;
        return static_cast<std::uint16_t>(sign | h);
    }
    std::uint32_t h = (std::uint32_t(e) << 10) | (mant >> 13);
    const std::uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h; // may carry into the exponent: right
    return static_cast<std::uint16_t>(sign | h);
}

float fromHalf(std::uint16_t h)
{
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    std::uint32_t x;
    if (exp == 0) {
        if (mant == 0) {
            x = sign;
        } else {
            float f = std::ldexp(float(mant), -24);
            std::memcpy(&x, &f, 4);
            x |= sign;
        }
    } else if (exp == 31) {
        x = sign | 0x7f800000u | (mant << 13);
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

// A 5x7 font for the test card and the labels: one byte per row, bit 4 the leftmost column.
struct Glyph {
    char c;
    std::uint8_t rows[7];
};
constexpr Glyph kFont[] = {
    {'A', {0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001}},
    {'B', {0b11110, 0b10001, 0b10001, 0b11110, 0b10001, 0b10001, 0b11110}},
    {'C', {0b01110, 0b10001, 0b10000, 0b10000, 0b10000, 0b10001, 0b01110}},
    {'D', {0b11100, 0b10010, 0b10001, 0b10001, 0b10001, 0b10010, 0b11100}},
    {'E', {0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111}},
    {'F', {0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000}},
    {'G', {0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111}},
    {'H', {0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001}},
    {'I', {0b01110, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110}},
    {'J', {0b00111, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100}},
    {'K', {0b10001, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b10001}},
    {'L', {0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111}},
    {'M', {0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001}},
    {'N', {0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001}},
    {'O', {0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110}},
    {'P', {0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000}},
    {'Q', {0b01110, 0b10001, 0b10001, 0b10001, 0b10101, 0b10010, 0b01101}},
    {'R', {0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001}},
    {'S', {0b01111, 0b10000, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110}},
    {'T', {0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100}},
    {'U', {0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110}},
    {'V', {0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100}},
    {'W', {0b10001, 0b10001, 0b10001, 0b10101, 0b10101, 0b10101, 0b01010}},
    {'X', {0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001}},
    {'Y', {0b10001, 0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100}},
    {'Z', {0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111}},
    {'0', {0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110}},
    {'1', {0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110}},
    {'2', {0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111}},
    {'3', {0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110}},
    {'4', {0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010}},
    {'5', {0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110}},
    {'6', {0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110}},
    {'7', {0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000}},
    {'8', {0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110}},
    {'9', {0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100}},
    {'.', {0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b01100}},
    {',', {0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b00100, 0b01000}},
    {':', {0b00000, 0b01100, 0b01100, 0b00000, 0b01100, 0b01100, 0b00000}},
    {'-', {0b00000, 0b00000, 0b00000, 0b11111, 0b00000, 0b00000, 0b00000}},
    {'/', {0b00000, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b00000}},
    {'=', {0b00000, 0b00000, 0b11111, 0b00000, 0b11111, 0b00000, 0b00000}},
};

// Draws `text` (upper case; other characters as blanks) with its top-left corner at (x, y),
// each font pixel `scale` x `scale` picture pixels. Returns the x after the text.
std::uint32_t drawText(Picture& p, std::uint32_t x, std::uint32_t y, const std::string& text, std::uint32_t scale,
                       const std::array<std::uint8_t, 3>& colour)
{
    for (char ch : text) {
        if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
        const Glyph* g = nullptr;
        for (const Glyph& candidate : kFont) {
            if (candidate.c == ch) g = &candidate;
        }
        for (std::uint32_t row = 0; g && row < 7; ++row) {
            for (std::uint32_t col = 0; col < 5; ++col) {
                if (!(g->rows[row] & (0x10u >> col))) continue;
                for (std::uint32_t j = 0; j < scale; ++j) {
                    for (std::uint32_t i = 0; i < scale; ++i) {
                        const std::uint32_t px = x + col * scale + i, py = y + row * scale + j;
                        if (px < p.width && py < p.height) std::memcpy(p.at(px, py), colour.data(), 3);
                    }
                }
            }
        }
        x += 6 * scale;
    }
    return x;
}

// The built-in test card (1917x1079, odd on both sides so that every level of the chain has odd
// edges to fold): a zone plate (aliases visibly when filtered badly), fine text at one pixel per
// font pixel, a hue sweep over brightness, sRGB grey steps, a checkerboard with 1-pixel lines, and
// a white border.
Picture testCard()
{
    const std::uint32_t w = 1917, h = 1079;
    Picture p(w, h, 24);
    const double pi = 3.14159265358979;
    for (std::uint32_t y = 0; y < h; ++y) {
        for (std::uint32_t x = 0; x < w; ++x) {
            std::uint8_t* px = p.at(x, y);
            if (x < 4 || y < 4 || x + 4 >= w || y + 4 >= h) {
                px[0] = px[1] = px[2] = 255;
            } else if (x < 1000 && y >= 40) {
                // Zone plate centred in a 960x960 square: the phase grows with r^2, so its rings get
                // finer outwards until they pass the pixel spacing at the square's edge.
                const double dx = double(x) - 500.0, dy = double(y) - 559.5;
                const double zone = 0.5 + 0.5 * std::cos(pi * (dx * dx + dy * dy) / 960.0);
                px[0] = px[1] = px[2] = toByte(zone);
            } else if (x >= 1020 && y >= 40 && y < 420) {
                // Hue sweep (x) over brightness (y), in linear light, encoded as sRGB.
                const double hue = double(x - 1020) / double(w - 1024) * 6.0, v = double(y - 40) / 379.0;
                const double r = std::clamp(std::abs(hue - 3.0) - 1.0, 0.0, 1.0);
                const double g = std::clamp(2.0 - std::abs(hue - 2.0), 0.0, 1.0);
                const double b = std::clamp(2.0 - std::abs(hue - 4.0), 0.0, 1.0);
                px[0] = toByte(linearToSrgb(r * v));
                px[1] = toByte(linearToSrgb(g * v));
                px[2] = toByte(linearToSrgb(b * v));
            } else if (x >= 1020 && y >= 430 && y < 470) {
                const std::uint8_t grey = static_cast<std::uint8_t>(((x - 1020) * 16 / (w - 1024)) * 17);
                px[0] = px[1] = px[2] = grey;
            } else if (x >= 1020 && y >= 760) {
                const bool checker = ((x / 16) + (y / 16)) % 2 == 0, line = x % 32 == 0 || y % 32 == 0;
                px[0] = line ? 255 : (checker ? 230 : 26);
                px[1] = line ? 51 : (checker ? 153 : 26);
                px[2] = line ? 51 : (checker ? 51 : 102);
            }
        }
    }
    drawText(p, 12, 10, "VKFX TEST CARD 1917X1079", 3, {255, 255, 255});
    // Fine text on white, one picture pixel per font pixel.
    for (std::uint32_t y = 480; y < 750; ++y) {
        for (std::uint32_t x = 1020; x + 4 < w; ++x) {
            std::uint8_t* px = p.at(x, y);
            px[0] = px[1] = px[2] = 250;
        }
    }
    const char* lines[] = {
        "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG. 0123456789",
        "SINGLE-PASS DOWNSAMPLE: ONE DISPATCH, EVERY LEVEL, ODD EDGES FOLDED.",
        "STABLE RADIX SORT: KEYS AND VALUES, ONESWEEP, GPU-SIDE COUNTS.",
        "SEPARABLE BLUR: ONE DISPATCH, HORIZONTAL PASS KEPT IN SHARED MEMORY.",
    };
    std::uint32_t y = 488;
    for (int round = 0; round < 7; ++round) {
        for (const char* line : lines) {
            drawText(p, 1026, y, line, 1, {0, 0, 0});
            y += 9;
        }
    }
    return p;
}

Picture loadPicture(const std::string& path)
{
    int w = 0, h = 0, channels = 0;
    stbi_uc* data = stbi_load(path.c_str(), &w, &h, &channels, 4);
    if (!data) die("cannot read " + path + ": " + stbi_failure_reason());
    Picture p;
    p.width = std::uint32_t(w);
    p.height = std::uint32_t(h);
    p.rgba.assign(data, data + std::size_t(w) * std::size_t(h) * 4);
    stbi_image_free(data);
    return p;
}

void writePng(const std::filesystem::path& file, const Picture& p)
{
    if (!stbi_write_png(file.string().c_str(), int(p.width), int(p.height), 4, p.rgba.data(), int(p.width * 4))) {
        die("cannot write " + file.string() + " (is the disk full or the folder read-only?)");
    }
}

// Level 0 on the left, the other levels stacked top to bottom on its right, 2 pixels apart.
Picture contactSheet(const std::vector<Picture>& levels)
{
    std::uint32_t stack = 0;
    for (std::size_t l = 1; l < levels.size(); ++l) stack += levels[l].height + 2;
    const std::uint32_t right = levels.size() > 1 ? levels[1].width + 2 : 0;
    Picture sheet(levels[0].width + right, std::max(levels[0].height, stack), 40);
    sheet.paste(levels[0], 0, 0);
    std::uint32_t y = 0;
    for (std::size_t l = 1; l < levels.size(); ++l) {
        sheet.paste(levels[l], levels[0].width + 2, y);
        y += levels[l].height + 2;
    }
    return sheet;
}

// --- the device -----------------------------------------------------------------------------

// The examples' device (example_gpu.hpp) on a queue that also blits (the mip chain's baseline is
// a vkCmdBlitImage chain), and the push-descriptor entry point the two-pass blur binds with.
struct Gpu : example::Gpu {
    PFN_vkCmdPushDescriptorSetKHR pushDescriptorSet = nullptr;
    bool cpu() const { return props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU; }
};

Gpu openGpu()
{
    Gpu g;
    static_cast<example::Gpu&>(g) = example::openGpu("vkfx-demo", VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT);
    g.pushDescriptorSet =
        reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(g.device, "vkCmdPushDescriptorSetKHR"));
    return g;
}

using example::Buffer;
using example::destroy;
using example::Image;
using example::createImage;

// A device-local buffer, or (host = true) a host-visible, coherent, mapped one.
Buffer makeBuffer(const Gpu& g, VkDeviceSize size, VkBufferUsageFlags usage, bool host)
{
    return example::createBuffer(g, size, usage,
                                 host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                      : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
}

VkImageView makeView(const Gpu& g, const Image& im, VkFormat format, VkImageViewType type)
{
    VkImageViewCreateInfo vi{};
    vi.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
    vi.image = im.image;
    vi.viewType = type;
    vi.format = format;
    vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageView view;
    check(vkCreateImageView(g.device, &vi, nullptr, &view), "vkCreateImageView");
    return view;
}

// --- recording and timing -------------------------------------------------------------------

// Everything written by compute or transfer before it is visible to compute and transfer after it.
void settle(VkCommandBuffer cmd)
{
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    example::memoryBarrier(cmd, stages, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, stages,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                               VK_ACCESS_TRANSFER_WRITE_BIT);
}

// Before reading results on the host.
void toHost(VkCommandBuffer cmd)
{
    example::memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                           VK_ACCESS_HOST_READ_BIT);
}

using Recorder = std::function<void(VkCommandBuffer)>;

// Records `work` into a new command buffer, submits it and waits.
void submit(const Gpu& g, const Recorder& work)
{
    VkCommandBuffer cmd = example::beginCommands(g);
    work(cmd);
    example::submitAndWait(g, cmd);
}

// Median GPU time, in milliseconds, of `work` recorded `reps` times after one warm-up run, with
// `prepare` (untimed) before each and everything settled between them; NaN without timestamps.
double timeGpu(const Gpu& g, std::uint32_t reps, const Recorder& prepare, const Recorder& work)
{
    VkQueryPool queries = VK_NULL_HANDLE;
    if (g.timestampValidBits > 0) {
        VkQueryPoolCreateInfo qpi{};
        qpi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
        qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qpi.queryCount = 2 * reps;
        check(vkCreateQueryPool(g.device, &qpi, nullptr, &queries), "vkCreateQueryPool");
    }
    submit(g, [&](VkCommandBuffer cmd) {
        if (queries) vkCmdResetQueryPool(cmd, queries, 0, 2 * reps);
        for (std::uint32_t i = 0; i <= reps; ++i) {
            if (prepare) prepare(cmd);
            settle(cmd);
            if (queries && i > 0) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 2 * (i - 1));
            work(cmd);
            if (queries && i > 0) {
                vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 2 * (i - 1) + 1);
            }
            settle(cmd);
        }
    });
    if (!queries) return std::numeric_limits<double>::quiet_NaN();
    std::vector<std::uint64_t> stamps(2 * reps);
    check(vkGetQueryPoolResults(g.device, queries, 0, 2 * reps, stamps.size() * sizeof(std::uint64_t), stamps.data(),
                                sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    vkDestroyQueryPool(g.device, queries, nullptr);
    std::vector<double> ms(reps);
    for (std::uint32_t i = 0; i < reps; ++i) {
        ms[i] = double(stamps[2 * i + 1] - stamps[2 * i]) * double(g.props.limits.timestampPeriod) * 1e-6;
    }
    std::nth_element(ms.begin(), ms.begin() + reps / 2, ms.end());
    return ms[reps / 2];
}

// timeGpu of a vkfx record call (`record(cmd)` returns its VkResult): dies with `what` and the
// reason if a record fails.
template <typename Record>
double timeRecord(const Gpu& g, std::uint32_t reps, const Recorder& prepare, const char* what, const Record& record)
{
    VkResult result = VK_SUCCESS;
    const double ms = timeGpu(g, reps, prepare, [&](VkCommandBuffer cmd) {
        if (result == VK_SUCCESS) result = record(cmd);
    });
    check(result, what);
    return ms;
}

std::string msText(double ms)
{
    if (std::isnan(ms)) return "n/a (no timestamps)";
    char text[32];
    if (ms < 1.0) {
        std::snprintf(text, sizeof(text), "%.1f us", ms * 1000.0);
    } else {
        std::snprintf(text, sizeof(text), "%.1f ms", ms);
    }
    return text;
}

std::string speedup(double ours, double theirs)
{
    if (std::isnan(ours) || std::isnan(theirs) || ours <= 0.0) return "";
    char text[48];
    const double ratio = theirs / ours;
    std::snprintf(text, sizeof(text), " (%.1fx %s)", ratio >= 1.0 ? ratio : 1.0 / ratio,
                  ratio >= 1.0 ? "faster" : "slower");
    return text;
}

// Copies levels [0, levels) of `image` (in TRANSFER_SRC_OPTIMAL) to a new host buffer, tightly
// packed level after level, and returns the buffer with each level's offset.
struct Readback {
    Buffer buffer;
    std::vector<VkDeviceSize> offsets;
};
Readback readLevels(const Gpu& g, const Image& image, std::uint32_t levels, std::uint32_t texelBytes)
{
    Readback rb;
    std::vector<VkBufferImageCopy> regions(levels);
    VkDeviceSize total = 0;
    for (std::uint32_t l = 0; l < levels; ++l) {
        const VkExtent2D level = vkfx::mipExtent({image.info.extent.width, image.info.extent.height}, l);
        const VkExtent3D e{level.width, level.height, 1};
        regions[l] = {};
        regions[l].bufferOffset = total;
        regions[l].imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1};
        regions[l].imageExtent = e;
        rb.offsets.push_back(total);
        total += VkDeviceSize{e.width} * e.height * texelBytes;
    }
    rb.buffer = makeBuffer(g, total, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
    submit(g, [&](VkCommandBuffer cmd) {
        vkCmdCopyImageToBuffer(cmd, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb.buffer.buffer, levels,
                               regions.data());
        toHost(cmd);
    });
    return rb;
}

// --- 1. the mip chain -----------------------------------------------------------------------

void mipChain(const Gpu& g, const vkfx::Device& dev, const Picture& input, std::uint32_t reps,
              const std::filesystem::path& out)
{
    const VkExtent2D extent{input.width, input.height};
    const VkFormat format = VK_FORMAT_R8G8B8A8_SRGB;
    const std::uint32_t levels = vkfx::fullMipLevels(extent);
    std::printf("mip chain: %ux%u R8G8B8A8_SRGB, levels 1..%u ...\n", extent.width, extent.height, levels - 1);
    std::fflush(stdout);

    // vkfx reads sRGB levels through an sRGB view and writes them through a UNORM one, hence
    // MUTABLE_FORMAT | EXTENDED_USAGE (sRGB formats are not storage formats).
    Image image = createImage(g, format, extent, levels,
                              VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                  VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                              VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT);
    // The baseline: the same chain by vkCmdBlitImage, level by level (linear filter).
    Image blitImage = createImage(g, format, extent, levels, VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(g.physical, format, &fp);
    const VkFormatFeatureFlags blitFeatures = VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT |
                                              VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
    const bool canBlit = (fp.optimalTilingFeatures & blitFeatures) == blitFeatures;

    Buffer upload = makeBuffer(g, input.rgba.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
    std::memcpy(upload.mapped, input.rgba.data(), input.rgba.size());
    submit(g, [&](VkCommandBuffer cmd) {
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {extent.width, extent.height, 1};
        for (const Image* im : {&image, &blitImage}) {
            example::imageBarrier(cmd, im->image, 0, levels, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
            vkCmdCopyBufferToImage(cmd, upload.buffer, im->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        }
        // vkfx: level 0 is read (sampled), levels 1.. are written (storage, GENERAL).
        example::imageBarrier(cmd, image.image, 0, 1, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        example::imageBarrier(cmd, image.image, 1, levels - 1, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL);
        // The blit chain's image: every level a blit source once written.
        example::imageBarrier(cmd, blitImage.image, 0, levels, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    });

    // The vkfx part: one Downsampler per format and reduction, one target per image.
    vkfx::Downsampler downsampler;
    check(vkfx::Downsampler::create(dev, {.format = format, .reduction = vkfx::Reduction::Average}, &downsampler),
          "vkfx::Downsampler::create");
    vkfx::DownsampleTarget target;
    check(vkfx::DownsampleTarget::create(dev,
                                         {.image = image.image, .format = format, .extent = extent, .mipLevels = levels,
                                          .usage = image.info.usage, .flags = image.info.flags},
                                         &target),
          "vkfx::DownsampleTarget::create");
    const vkfx::DownsampleInfo info{.target = &target, .sourceLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    const double vkfxMs = timeRecord(g, reps, nullptr, "vkfx::Downsampler::record",
                                 [&](VkCommandBuffer cmd) { return downsampler.record(cmd, info); });

    double blitMs = std::numeric_limits<double>::quiet_NaN();
    if (canBlit) {
        blitMs = timeGpu(g, reps, nullptr, [&](VkCommandBuffer cmd) {
            for (std::uint32_t l = 1; l < levels; ++l) {
                example::imageBarrier(cmd, blitImage.image, l, 1, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
                VkImageBlit blit{};
                blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l - 1, 0, 1};
                const VkExtent2D from = vkfx::mipExtent(extent, l - 1), to = vkfx::mipExtent(extent, l);
                blit.srcOffsets[1] = {int(from.width), int(from.height), 1};
                blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1};
                blit.dstOffsets[1] = {int(to.width), int(to.height), 1};
                vkCmdBlitImage(cmd, blitImage.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, blitImage.image,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
                example::imageBarrier(cmd, blitImage.image, l, 1, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
            }
        });
    }
    std::printf("  vkfx, one record:            %s%s\n", msText(vkfxMs).c_str(),
                speedup(vkfxMs, blitMs).c_str());
    std::printf("  vkCmdBlitImage chain:        %s\n",
                canBlit ? msText(blitMs).c_str() : "n/a (the format cannot be blitted with a linear filter here)");

    submit(g, [&](VkCommandBuffer cmd) {
        example::imageBarrier(cmd, image.image, 0, 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        example::imageBarrier(cmd, image.image, 1, levels - 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    });
    Readback rb = readLevels(g, image, levels, 4);
    std::vector<Picture> pictures;
    for (std::uint32_t l = 0; l < levels; ++l) {
        const VkExtent2D e = vkfx::mipExtent(extent, l);
        Picture p(e.width, e.height);
        std::memcpy(p.rgba.data(), static_cast<const std::uint8_t*>(rb.buffer.mapped) + rb.offsets[l], p.rgba.size());
        pictures.push_back(std::move(p));
    }
    writePng(out / "mips.png", contactSheet(pictures));

    destroy(g, rb.buffer);
    target.destroy();
    downsampler.destroy();
    destroy(g, upload);
    destroy(g, blitImage);
    destroy(g, image);
}

// --- 2. the depth pyramid -------------------------------------------------------------------

// A depth buffer of a made-up scene (a floor receding to the horizon and a few spheres), depth 0
// near and 1 far.
std::vector<float> depthScene(std::uint32_t w, std::uint32_t h)
{
    std::vector<float> depth(std::size_t{w} * h);
    struct Sphere {
        double x, y, r, z;
    };
    const Sphere spheres[] = {{0.3, 0.55, 0.18, 0.35}, {0.62, 0.5, 0.12, 0.55}, {0.8, 0.7, 0.1, 0.25},
                              {0.45, 0.3, 0.07, 0.7}};
    for (std::uint32_t y = 0; y < h; ++y) {
        for (std::uint32_t x = 0; x < w; ++x) {
            const double u = (x + 0.5) / w, v = (y + 0.5) / h;
            double d = v > 0.4 ? 0.05 + 0.9 * (1.0 - (v - 0.4) / 0.6) * (1.0 - (v - 0.4) / 0.6) : 1.0;
            for (const Sphere& s : spheres) {
                const double dx = (u - s.x) * w / h, dy = v - s.y, rr = s.r * s.r - dx * dx - dy * dy;
                if (rr > 0.0) d = std::min(d, s.z - 0.5 * std::sqrt(rr));
            }
            depth[std::size_t{y} * w + x] = static_cast<float>(d);
        }
    }
    return depth;
}

void depthPyramid(const Gpu& g, const vkfx::Device& dev, std::uint32_t reps, const std::filesystem::path& out)
{
    const VkExtent2D extent{1600, 900};
    const std::uint32_t levels = vkfx::fullMipLevels(extent);
    std::printf("depth pyramid: %ux%u D32_SFLOAT -> R32_SFLOAT max pyramid, levels 0..%u ...\n", extent.width,
                extent.height, levels - 1);
    std::fflush(stdout);
    const std::vector<float> depth = depthScene(extent.width, extent.height);

    Image depthImage = createImage(g, VK_FORMAT_D32_SFLOAT, extent, 1,
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    Image pyramid = createImage(g, VK_FORMAT_R32_SFLOAT, extent, levels,
                                VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    Buffer upload = makeBuffer(g, depth.size() * sizeof(float), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
    std::memcpy(upload.mapped, depth.data(), depth.size() * sizeof(float));
    submit(g, [&](VkCommandBuffer cmd) {
        example::imageBarrier(cmd, depthImage.image, 0, 1, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_ASPECT_DEPTH_BIT);
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1};
        region.imageExtent = {extent.width, extent.height, 1};
        vkCmdCopyBufferToImage(cmd, upload.buffer, depthImage.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        example::imageBarrier(cmd, depthImage.image, 0, 1, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_ASPECT_DEPTH_BIT);
        example::imageBarrier(cmd, pyramid.image, 0, levels, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL);
    });

    // Max: each pyramid texel holds the farthest depth it covers (conservative occlusion culling
    // with depth 1 far; reversed-Z engines take Min). Level 0 is a copy of the depth.
    vkfx::Downsampler downsampler;
    check(vkfx::Downsampler::create(dev,
                                    {.format = VK_FORMAT_R32_SFLOAT, .reduction = vkfx::Reduction::Max,
                                     .depthFormat = VK_FORMAT_D32_SFLOAT, .depthLevelZero = vkfx::DepthLevelZero::Copy},
                                    &downsampler),
          "vkfx::Downsampler::create (depth pyramid)");
    vkfx::DownsampleTarget target;
    check(vkfx::DownsampleTarget::create(dev,
                                         {.image = pyramid.image, .format = VK_FORMAT_R32_SFLOAT, .extent = extent,
                                          .mipLevels = levels, .usage = pyramid.info.usage,
                                          .depth = {depthImage.image, VK_FORMAT_D32_SFLOAT, extent,
                                                    depthImage.info.usage}},
                                         &target),
          "vkfx::DownsampleTarget::create (depth pyramid)");
    const vkfx::DownsampleInfo info{.target = &target, .sourceLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    const double ms = timeRecord(g, reps, nullptr, "vkfx::Downsampler::record (depth pyramid)",
                                 [&](VkCommandBuffer cmd) { return downsampler.record(cmd, info); });
    std::printf("  vkfx, one record:            %s\n", msText(ms).c_str());

    submit(g, [&](VkCommandBuffer cmd) {
        example::imageBarrier(cmd, pyramid.image, 0, levels, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    });
    Readback rb = readLevels(g, pyramid, levels, 4);

    // The check: the max chain on the CPU, with vkfx's footprint rule (an odd extent's last texel
    // also takes the third row or column; a side of 1 stays 1).
    std::vector<float> level = depth;
    std::uint32_t w = extent.width, h = extent.height;
    std::size_t wrong = 0;
    std::vector<Picture> pictures;
    for (std::uint32_t l = 0; l < levels; ++l) {
        if (l > 0) {
            const std::uint32_t nw = std::max(1u, w / 2), nh = std::max(1u, h / 2);
            std::vector<float> next(std::size_t{nw} * nh);
            auto span = [](std::uint32_t i, std::uint32_t n, std::uint32_t e, std::uint32_t* first, std::uint32_t* last) {
                *first = e == 1 ? 0 : 2 * i;
                *last = e == 1 ? 0 : (i + 1 == n && e % 2 ? 2 * i + 2 : 2 * i + 1);
            };
            for (std::uint32_t y = 0; y < nh; ++y) {
                for (std::uint32_t x = 0; x < nw; ++x) {
                    std::uint32_t x0, x1, y0, y1;
                    span(x, nw, w, &x0, &x1);
                    span(y, nh, h, &y0, &y1);
                    float m = -std::numeric_limits<float>::infinity();
                    for (std::uint32_t j = y0; j <= y1; ++j) {
                        for (std::uint32_t i = x0; i <= x1; ++i) m = std::max(m, level[std::size_t{j} * w + i]);
                    }
                    next[std::size_t{y} * nw + x] = m;
                }
            }
            level = std::move(next);
            w = nw;
            h = nh;
        }
        const float* gpu = reinterpret_cast<const float*>(static_cast<const std::uint8_t*>(rb.buffer.mapped) +
                                                          rb.offsets[l]);
        Picture p(w, h);
        for (std::size_t i = 0; i < level.size(); ++i) {
            if (gpu[i] != level[i]) ++wrong;
            const std::uint8_t grey = toByte(1.0 - double(gpu[i])); // near bright
            p.rgba[4 * i] = p.rgba[4 * i + 1] = p.rgba[4 * i + 2] = grey;
        }
        pictures.push_back(std::move(p));
    }
    if (wrong) die("depth pyramid: " + std::to_string(wrong) + " texels differ from the CPU's max chain");
    std::printf("  checked: every texel of every level equals the CPU's max chain\n");
    writePng(out / "depth-pyramid.png", contactSheet(pictures));

    destroy(g, rb.buffer);
    target.destroy();
    downsampler.destroy();
    destroy(g, upload);
    destroy(g, pyramid);
    destroy(g, depthImage);
}

// --- 3. the blur ----------------------------------------------------------------------------

// The two-pass blur an engine writes today (examples/bench/blur2.comp: one axis per dispatch,
// texelFetch taps, clamp to edge, through an intermediate image): the baseline.
struct TwoPassBlur {
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pass[2] = {}; // horizontal, vertical
    struct Push {
        std::uint32_t radius;
        float weightScale; // -1 / (2 sigma^2)
        std::int32_t size[2];
    };

    void create(const Gpu& g)
    {
        VkDescriptorSetLayoutBinding bindings[2] = {};
        bindings[0].binding = 0;
        bindings[0].descriptorType = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
        bindings[1].binding = 1;
        bindings[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
        for (auto& b : bindings) {
            b.descriptorCount = 1;
            b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        }
        VkDescriptorSetLayoutCreateInfo dsl{};
        dsl.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
        dsl.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
        dsl.bindingCount = 2;
        dsl.pBindings = bindings;
        check(vkCreateDescriptorSetLayout(g.device, &dsl, nullptr, &setLayout), "vkCreateDescriptorSetLayout");
        const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push)};
        VkPipelineLayoutCreateInfo pl{};
        pl.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
        pl.setLayoutCount = 1;
        pl.pSetLayouts = &setLayout;
        pl.pushConstantRangeCount = 1;
        pl.pPushConstantRanges = &range;
        check(vkCreatePipelineLayout(g.device, &pl, nullptr, &layout), "vkCreatePipelineLayout");
        const std::uint32_t* code[2] = {vkfx::spirv::bench_blur2_rgba16f_x, vkfx::spirv::bench_blur2_rgba16f_y};
        const std::size_t bytes[2] = {sizeof(vkfx::spirv::bench_blur2_rgba16f_x), sizeof(vkfx::spirv::bench_blur2_rgba16f_y)};
        for (int i = 0; i < 2; ++i) {
            VkShaderModuleCreateInfo mi{};
            mi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
            mi.codeSize = bytes[i];
            mi.pCode = code[i];
            VkShaderModule module;
            check(vkCreateShaderModule(g.device, &mi, nullptr, &module), "vkCreateShaderModule");
            VkComputePipelineCreateInfo ci{};
            ci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
            ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
            ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
            ci.stage.module = module;
            ci.stage.pName = "main";
            ci.layout = layout;
            check(vkCreateComputePipelines(g.device, VK_NULL_HANDLE, 1, &ci, nullptr, &pass[i]),
                  "vkCreateComputePipelines");
            vkDestroyShaderModule(g.device, module, nullptr);
        }
    }
    void destroy(const Gpu& g)
    {
        for (VkPipeline p : pass) vkDestroyPipeline(g.device, p, nullptr);
        vkDestroyPipelineLayout(g.device, layout, nullptr);
        vkDestroyDescriptorSetLayout(g.device, setLayout, nullptr);
    }
    // One axis: `from` (sampled view, in `layout`) into `to` (storage view, GENERAL).
    void record(const Gpu& g, VkCommandBuffer cmd, int axis, VkImageView from, VkImageLayout fromLayout, VkImageView to,
                VkExtent2D extent, const Push& push) const
    {
        const VkDescriptorImageInfo read{VK_NULL_HANDLE, from, fromLayout};
        const VkDescriptorImageInfo write{VK_NULL_HANDLE, to, VK_IMAGE_LAYOUT_GENERAL};
        VkWriteDescriptorSet writes[2] = {};
        for (std::uint32_t i = 0; i < 2; ++i) {
            writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
            writes[i].dstBinding = i;
            writes[i].descriptorCount = 1;
            writes[i].descriptorType = i == 0 ? VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
            writes[i].pImageInfo = i == 0 ? &read : &write;
        }
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass[axis]);
        g.pushDescriptorSet(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 2, writes);
        vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
        vkCmdDispatch(cmd, (extent.width + 15) / 16, (extent.height + 15) / 16, 1);
    }
};

void blurs(const Gpu& g, const vkfx::Device& dev, const Picture& input, std::uint32_t reps,
           const std::filesystem::path& out)
{
    const VkExtent2D extent{input.width, input.height};
    const VkFormat format = VK_FORMAT_R16G16B16A16_SFLOAT;
    const float sigmas[] = {2.0f, 6.0f, 20.0f};
    std::printf("blur: %ux%u R16G16B16A16_SFLOAT (linear light), Gaussian sigma 2, 6, 20 ...\n", extent.width,
                extent.height);
    std::fflush(stdout);

    // The input in linear light as fp16.
    std::vector<std::uint16_t> linear(std::size_t{extent.width} * extent.height * 4);
    for (std::size_t i = 0; i < linear.size(); ++i) {
        const double c = input.rgba[i] / 255.0;
        linear[i] = toHalf(static_cast<float>(i % 4 == 3 ? c : srgbToLinear(c)));
    }
    const VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    Image src = createImage(g, format, extent, 1, usage), dst = createImage(g, format, extent, 1, usage);
    Image mid = createImage(g, format, extent, 1, usage), dst2 = createImage(g, format, extent, 1, usage);
    const VkDeviceSize bytes = linear.size() * sizeof(std::uint16_t);
    Buffer upload = makeBuffer(g, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
    std::memcpy(upload.mapped, linear.data(), bytes);
    Buffer readback = makeBuffer(g, 2 * bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
    submit(g, [&](VkCommandBuffer cmd) {
        example::imageBarrier(cmd, src.image, 0, 1, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {extent.width, extent.height, 1};
        vkCmdCopyBufferToImage(cmd, upload.buffer, src.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        example::imageBarrier(cmd, src.image, 0, 1, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        for (const Image* im : {&dst, &mid, &dst2}) {
            example::imageBarrier(cmd, im->image, 0, 1, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL);
        }
    });

    // The vkfx part: one Blurrer per format, one BlurTarget per image.
    vkfx::Blurrer blurrer;
    check(vkfx::Blurrer::create(dev, {.format = format}, &blurrer), "vkfx::Blurrer::create");
    vkfx::BlurTarget from, to;
    check(vkfx::BlurTarget::create(dev, {.image = src.image, .format = format, .extent = extent, .usage = usage}, &from),
          "vkfx::BlurTarget::create");
    check(vkfx::BlurTarget::create(dev, {.image = dst.image, .format = format, .extent = extent, .usage = usage}, &to),
          "vkfx::BlurTarget::create");

    TwoPassBlur twoPass;
    twoPass.create(g);
    const VkImageView srcView = makeView(g, src, format, VK_IMAGE_VIEW_TYPE_2D_ARRAY);
    const VkImageView midView = makeView(g, mid, format, VK_IMAGE_VIEW_TYPE_2D_ARRAY);
    const VkImageView dst2View = makeView(g, dst2, format, VK_IMAGE_VIEW_TYPE_2D_ARRAY);

    // Panels: the input and each blur, halved (2x2 box in linear light), on a 2x2 sheet.
    const std::uint32_t pw = std::max(1u, extent.width / 2), ph = std::max(1u, extent.height / 2);
    Picture sheet(2 * pw + 4, 2 * ph + 4, 40);
    auto panel = [&](const std::uint16_t* texels, const std::string& label, std::uint32_t index) {
        Picture p(pw, ph);
        for (std::uint32_t y = 0; y < ph; ++y) {
            for (std::uint32_t x = 0; x < pw; ++x) {
                for (std::uint32_t c = 0; c < 3; ++c) {
                    double sum = 0.0;
                    for (std::uint32_t j = 0; j < 2; ++j) {
                        for (std::uint32_t i = 0; i < 2; ++i) {
                            const std::uint32_t sx = std::min(2 * x + i, extent.width - 1);
                            const std::uint32_t sy = std::min(2 * y + j, extent.height - 1);
                            sum += fromHalf(texels[(std::size_t{sy} * extent.width + sx) * 4 + c]);
                        }
                    }
                    p.at(x, y)[c] = toByte(linearToSrgb(sum / 4.0));
                }
            }
        }
        drawText(p, 10, ph > 40 ? ph - 34 : 0, label, 3, {255, 255, 255});
        sheet.paste(p, (index % 2) * (pw + 4), (index / 2) * (ph + 4));
    };
    panel(linear.data(), "INPUT", 0);

    std::uint32_t index = 1;
    for (float sigma : sigmas) {
        const auto radius = static_cast<std::uint32_t>(std::ceil(3.0f * sigma));
        // Clamp-to-edge, as the baseline does, so that the two results can be compared.
        vkfx::BlurInfo info{.source = &from, .destination = &to, .sigmaX = sigma, .sigmaY = sigma};
        // Scratch lets Auto take the Decimated method from sigma 6 up (cost flat in sigma).
        const vkfx::ScratchRequirements need = blurrer.scratchRequirements(info);
        Buffer scratch;
        if (need.size > 0) {
            scratch = makeBuffer(g, need.size, need.usage, false);
            info.scratchBuffer = scratch.buffer;
        }
        const double vkfxMs = timeRecord(g, reps, nullptr, "vkfx::Blurrer::record",
                                         [&](VkCommandBuffer cmd) { return blurrer.record(cmd, info); });
        const TwoPassBlur::Push push{radius, static_cast<float>(-1.0 / (2.0 * double(sigma) * double(sigma))),
                                     {static_cast<std::int32_t>(extent.width), static_cast<std::int32_t>(extent.height)}};
        const double twoPassMs = timeGpu(g, reps, nullptr, [&](VkCommandBuffer cmd) {
            twoPass.record(g, cmd, 0, srcView, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, midView, extent, push);
            example::imageBarrier(cmd, mid.image, 0, 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, VK_IMAGE_LAYOUT_GENERAL);
            twoPass.record(g, cmd, 1, midView, VK_IMAGE_LAYOUT_GENERAL, dst2View, extent, push);
        });

        submit(g, [&](VkCommandBuffer cmd) {
            VkBufferImageCopy region{};
            region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
            region.imageExtent = {extent.width, extent.height, 1};
            for (const Image* im : {&dst, &dst2}) {
                example::imageBarrier(cmd, im->image, 0, 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
                vkCmdCopyImageToBuffer(cmd, im->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
                region.bufferOffset += bytes;
                example::imageBarrier(cmd, im->image, 0, 1, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL);
            }
            toHost(cmd);
        });
        const auto* ours = static_cast<const std::uint16_t*>(readback.mapped);
        const std::uint16_t* theirs = ours + linear.size();
        double worst = 0.0;
        for (std::size_t i = 0; i < linear.size(); ++i) {
            worst = std::max(worst, std::abs(double(fromHalf(ours[i])) - double(fromHalf(theirs[i]))));
        }
        std::printf("  sigma %4.1f (radius %2u): vkfx %s%s, two-pass blur %s; largest difference %.4f\n", double(sigma),
                    radius, msText(vkfxMs).c_str(), speedup(vkfxMs, twoPassMs).c_str(), msText(twoPassMs).c_str(),
                    worst);
        // Exact methods agree to fp16 rounding; the Decimated method within its documented bound.
        if (worst > vkfx::Blurrer::kDecimatedError + 0.002) {
            die("blur: vkfx and the two-pass blur differ by " + std::to_string(worst));
        }
        char label[32];
        std::snprintf(label, sizeof(label), "SIGMA %g", double(sigma));
        panel(ours, label, index++);
        if (scratch.buffer) destroy(g, scratch);
    }
    writePng(out / "blur.png", sheet);

    vkDestroyImageView(g.device, srcView, nullptr);
    vkDestroyImageView(g.device, midView, nullptr);
    vkDestroyImageView(g.device, dst2View, nullptr);
    twoPass.destroy(g);
    to.destroy();
    from.destroy();
    blurrer.destroy();
    destroy(g, readback);
    destroy(g, upload);
    for (Image* im : {&src, &dst, &mid, &dst2}) destroy(g, *im);
}

// --- 4. the sort ----------------------------------------------------------------------------

void particles(const Gpu& g, const vkfx::Device& dev, std::uint32_t reps, const std::filesystem::path& out)
{
    const std::uint32_t n = 3'000'000;
    std::printf("sort: %u particle depths (float32) with their indices (uint32), back to front ...\n", n);
    std::fflush(stdout);

    // Three overlapping clouds of particles in front of a camera at the origin looking down +z.
    struct Particle {
        float x, y, z;
        std::uint8_t colour[3];
    };
    std::vector<Particle> cloud(n);
    std::mt19937 rng(2026);
    std::normal_distribution<float> gauss(0.0f, 1.0f);
    const float centres[3][3] = {{-0.5f, 0.1f, 5.0f}, {0.4f, -0.2f, 6.0f}, {0.0f, 0.35f, 7.0f}};
    const std::uint8_t colours[3][3] = {{255, 70, 40}, {60, 220, 90}, {70, 110, 255}};
    std::vector<float> keys(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t c = i % 3;
        Particle& p = cloud[i];
        p.x = centres[c][0] + 0.45f * gauss(rng);
        p.y = centres[c][1] + 0.3f * gauss(rng);
        p.z = centres[c][2] + 0.8f * gauss(rng);
        std::memcpy(p.colour, colours[c], 3);
        // The distance to the camera, in steps of 1/1024 as a depth buffer would hold it: many
        // particles share a depth, and keep their order among themselves (the sort is stable).
        keys[i] = std::round(std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z) * 1024.0f) / 1024.0f;
    }
    std::vector<std::uint32_t> indices(n);
    std::iota(indices.begin(), indices.end(), 0u);

    // The vkfx part: the Sorter, and scratch the caller places (queried, then allocated).
    const vkfx::SorterCreateInfo sci{.key = vkfx::SortKey::Float32, .order = vkfx::SortOrder::Descending,
                                     .values = vkfx::SortValues::Bits32, .maxCount = n, .ownScratch = false};
    const vkfx::ScratchRequirements need = vkfx::Sorter::scratchRequirements(dev, sci, n);
    Buffer scratch = makeBuffer(g, need.size, need.usage, false);
    vkfx::Sorter sorter;
    check(vkfx::Sorter::create(dev, sci, &sorter), "vkfx::Sorter::create");

    const VkDeviceSize bytes = VkDeviceSize{n} * 4;
    const VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    Buffer keyBuffer = makeBuffer(g, bytes, usage, false), valueBuffer = makeBuffer(g, bytes, usage, false);
    Buffer upload = makeBuffer(g, 2 * bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
    std::memcpy(upload.mapped, keys.data(), bytes);
    std::memcpy(static_cast<std::uint8_t*>(upload.mapped) + bytes, indices.data(), bytes);
    Buffer readback = makeBuffer(g, 2 * bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);

    // Each run sorts the unsorted input again (copied in before it, untimed).
    const Recorder load = [&](VkCommandBuffer cmd) {
        const VkBufferCopy k{0, 0, bytes}, v{bytes, 0, bytes};
        vkCmdCopyBuffer(cmd, upload.buffer, keyBuffer.buffer, 1, &k);
        vkCmdCopyBuffer(cmd, upload.buffer, valueBuffer.buffer, 1, &v);
    };
    const vkfx::SortInfo info{.keys = {keyBuffer.buffer, 0}, .values = {valueBuffer.buffer, 0}, .count = n,
                              .scratchBuffer = scratch.buffer};
    const double vkfxMs = timeRecord(g, reps, load, "vkfx::Sorter::record",
                                 [&](VkCommandBuffer cmd) { return sorter.record(cmd, info); });
    submit(g, [&](VkCommandBuffer cmd) {
        const VkBufferCopy k{0, 0, bytes}, v{0, bytes, bytes};
        vkCmdCopyBuffer(cmd, keyBuffer.buffer, readback.buffer, 1, &k);
        vkCmdCopyBuffer(cmd, valueBuffer.buffer, readback.buffer, 1, &v);
        toHost(cmd);
    });

    // The baseline and the check: std::stable_sort of the indices by key, on the CPU.
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::uint32_t> expected = indices;
    std::stable_sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] > keys[b]; });
    const double cpuMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const auto* sortedKeys = static_cast<const float*>(readback.mapped);
    const auto* sortedIndices = reinterpret_cast<const std::uint32_t*>(sortedKeys + n);
    for (std::uint32_t i = 0; i < n; ++i) {
        if (sortedIndices[i] != expected[i] || sortedKeys[i] != keys[expected[i]]) {
            die("sort: position " + std::to_string(i) + " differs from std::stable_sort");
        }
    }
    std::printf("  vkfx:                        %s%s\n", msText(vkfxMs).c_str(), speedup(vkfxMs, cpuMs).c_str());
    std::printf("  std::stable_sort on the CPU: %s\n", msText(cpuMs).c_str());
    std::printf("  checked: the order is std::stable_sort's (keys descending, equal keys in input order)\n");

    // Draw them back to front in the sorted order: each particle a translucent dot over what is
    // behind it, so the nearer clouds cover the farther ones.
    const std::uint32_t w = 1280, h = 720;
    std::vector<double> canvas(std::size_t{w} * h * 3, 0.0);
    for (std::uint32_t i = 0; i < n; ++i) {
        const Particle& p = cloud[sortedIndices[i]];
        const double sx = w * 0.5 + double(p.x) / double(p.z) * w * 0.9;
        const double sy = h * 0.5 - double(p.y) / double(p.z) * w * 0.9;
        if (sx < 0.0 || sy < 0.0 || sx >= w || sy >= h) continue;
        double* px = &canvas[(std::size_t(sy) * w + std::size_t(sx)) * 3];
        for (int c = 0; c < 3; ++c) px[c] += 0.25 * (srgbToLinear(p.colour[c] / 255.0) - px[c]);
    }
    Picture picture(w, h);
    for (std::size_t i = 0; i < std::size_t{w} * h; ++i) {
        for (int c = 0; c < 3; ++c) picture.rgba[4 * i + std::size_t(c)] = toByte(linearToSrgb(canvas[3 * i + std::size_t(c)]));
    }
    writePng(out / "particles.png", picture);

    sorter.destroy();
    for (Buffer* b : {&scratch, &keyBuffer, &valueBuffer, &upload, &readback}) destroy(g, *b);
}

void usage()
{
    std::printf("usage: vkfx-demo [--out FOLDER] [IMAGE]\n"
                "  IMAGE   a PNG or JPEG to use instead of the built-in test card\n"
                "  --out   the folder to write the pictures to (default: vkfx-demo-out)\n");
}

} // namespace

int main(int argc, char** argv)
{
    example::programName = "vkfx-demo";
    std::filesystem::path out = "vkfx-demo-out";
    std::string inputPath;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            usage();
            return 0;
        } else if (arg == "--out" && i + 1 < argc) {
            out = argv[++i];
        } else if (!arg.empty() && arg[0] == '-') {
            usage();
            die("unknown option " + arg);
        } else if (inputPath.empty()) {
            inputPath = arg;
        } else {
            usage();
            die("one input image at most");
        }
    }

    const Picture input = inputPath.empty() ? testCard() : loadPicture(inputPath);
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) die("cannot create " + out.string() + ": " + ec.message());
    writePng(out / "input.png", input);

    Gpu g = openGpu();
    const std::uint32_t maxSide = g.props.limits.maxImageDimension2D;
    if (input.width < 16 || input.height < 16 || input.width > maxSide || input.height > maxSide) {
        die("the input is " + std::to_string(input.width) + "x" + std::to_string(input.height) +
            "; the demo takes 16x16 up to " + std::to_string(maxSide) + "x" + std::to_string(maxSide) + " here");
    }
    // The CPU driver (lavapipe) is far slower: fewer repetitions there.
    const std::uint32_t reps = g.cpu() ? 3 : 30;
    std::printf("device: %s; times are GPU timestamps, median of %u runs\n", g.props.deviceName, reps);
    if (g.cpu()) {
        std::printf("  (a CPU Vulkan driver: its times say nothing of a GPU's; vkfx's kernels are written for GPUs)\n");
    }

    vkfx::Device dev;
    check(vkfx::Device::create({.instance = g.instance, .physicalDevice = g.physical, .device = g.device}, &dev),
          "vkfx::Device::create");

    const auto start = std::chrono::steady_clock::now();
    mipChain(g, dev, input, reps, out);
    depthPyramid(g, dev, reps, out);
    blurs(g, dev, input, reps, out);
    particles(g, dev, reps, out);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("wrote input.png, mips.png, depth-pyramid.png, blur.png, particles.png to %s/ (%.1f s)\n",
                out.string().c_str(), seconds);

    example::closeGpu(g);
    return 0;
}
