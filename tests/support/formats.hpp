// Texel formats as the tests see them: byte layout, exact decoding to double, correctly rounded
// encoding from double, and the error of a GPU texel against a reference value in units of the
// stored format. Written from the Vulkan format definitions, independently of vkfx.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace vkfx_test {

// How one logical channel is stored.
enum class ChannelKind {
    Unorm,    // `bits`-bit unsigned normalized
    Srgb,     // 8-bit sRGB-encoded colour (IEC 61966-2-1)
    Float16,  // IEEE binary16
    Float32,  // IEEE binary32
    UFloat11, // unsigned float, 5-bit exponent, 6-bit mantissa
    UFloat10, // unsigned float, 5-bit exponent, 5-bit mantissa
};

struct ChannelLayout {
    ChannelKind kind = ChannelKind::Unorm;
    std::uint32_t bits = 0;      // width of the stored field
    std::uint32_t bitOffset = 0; // position in the texel (little-endian bit order)
};

struct FormatInfo {
    VkFormat format = VK_FORMAT_UNDEFINED;
    const char *name = "";
    std::uint32_t bytesPerTexel = 0;
    // Logical channels in RGBA order (R, G, B, A; fewer for R16G16, R8G8, R32, B10G11R11, R16, R8,
    // depth).
    std::uint32_t channels = 0;
    std::array<ChannelLayout, 4> channel{};
    bool depth = false;
    bool srgb = false;

    bool isFloat(std::uint32_t c) const {
        ChannelKind k = channel[c].kind;
        return k != ChannelKind::Unorm && k != ChannelKind::Srgb;
    }
};

// The formats vkfx::Downsampler writes, in the order the tests iterate them.
const std::vector<VkFormat> &downsampleFormats();
// The formats vkfx::Blurrer reads and writes.
const std::vector<VkFormat> &blurFormats();
// The depth formats a depth pyramid reads.
const std::vector<VkFormat> &depthFormats();

// Aborts the test program for a format not listed above (a bug in the test).
const FormatInfo &formatInfo(VkFormat format);
// Short name, e.g. "R8G8B8A8_SRGB"; also for formats outside the table.
std::string formatName(VkFormat format);

// --- raw codes --------------------------------------------------------------------------------
// The stored field of channel c (the code of a unorm, the bits of a float).
std::uint32_t readCode(const FormatInfo &f, const std::uint8_t *texel, std::uint32_t c);
void writeCode(const FormatInfo &f, std::uint8_t *texel, std::uint32_t c, std::uint32_t code);

// --- values -----------------------------------------------------------------------------------
// Exact value of a stored field. sRGB colour channels are decoded to linear light with the exact
// IEC 61966-2-1 formula; alpha is linear. D16 decodes as the GPU samples it: float(code) /
// 65535.0f.
double decodeCode(const FormatInfo &f, std::uint32_t c, std::uint32_t code);
double decode(const FormatInfo &f, const std::uint8_t *texel, std::uint32_t c);
// Correctly rounded field for a value: round to nearest even for floats (overflow to infinity,
// negative values of unsigned floats to 0), round to nearest for unorm (clamped to [0, 1]);
// sRGB channels encode the linear value first.
std::uint32_t encodeValue(const FormatInfo &f, std::uint32_t c, double value);
void encodeTexel(const FormatInfo &f, const double *rgba, std::uint8_t *texel);

// sRGB transfer functions in double (IEC 61966-2-1).
double srgbToLinear(double encoded);
double linearToSrgb(double linear);

// --- comparison -------------------------------------------------------------------------------
// The error of the stored field `gpuCode` of channel c against the exact reference value `ref`,
// in units of the last place of the stored format:
//   unorm / sRGB: |gpu code - ref in code units| (sRGB: the linear ref encoded in double, * 255)
//   fp16, 11-bit, 10-bit floats: |gpu - ref| / ulp of the format at ref's magnitude
//   fp32: |gpu - ref| / max(|ref|, 1e-30) (relative error)
double errorInUlps(const FormatInfo &f, std::uint32_t c, std::uint32_t gpuCode, double ref);
// The ref in code units (unorm / sRGB only; for the messages and the error above).
double codeUnits(const FormatInfo &f, std::uint32_t c, double ref);
// Whether an Average error is within vkfx's documented bound: < 1 code for unorm / sRGB,
// <= 1 ulp for fp16 / 11-bit / 10-bit, <= 1e-5 relative for fp32.
bool averageErrorAllowed(const FormatInfo &f, std::uint32_t c, double error);
// Whether an Average error of a chain read through the sampler's linear filter
// (DownsamplerFlagSamplerFilter) is within the bound measured on the devices vkfx is tested on:
// kFilteredCodes for unorm / sRGB (as Average for fields under 8 bits), kFilteredUlps for fp16 /
// 11-bit / 10-bit, as Average for fp32.
inline constexpr double kFilteredCodes = 3.0;
inline constexpr double kFilteredUlps = 16.0;
bool filteredErrorAllowed(const FormatInfo &f, std::uint32_t c, double error);
// Text for one field: its value and code, e.g. "0.501961 (code 128)".
std::string describeCode(const FormatInfo &f, std::uint32_t c, std::uint32_t code);

// --- content ----------------------------------------------------------------------------------
// `count` random texels: unorm / sRGB uniform codes; fp16 / fp32 / 11- and 10-bit uniform values
// in [0, 8); depth in [0, 1].
std::vector<std::uint8_t> randomTexels(const FormatInfo &f, std::size_t count,
                                       std::mt19937_64 &rng);
// Scale that maps a pattern intensity in [0, 1] into the format's test range (1 for unorm and
// depth, 4 for floats).
double patternScale(const FormatInfo &f);

} // namespace vkfx_test
