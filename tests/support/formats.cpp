#include "support/formats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace vkfx_test {
namespace {

constexpr ChannelLayout unorm(std::uint32_t bits, std::uint32_t at) {
    return {ChannelKind::Unorm, bits, at};
}
constexpr ChannelLayout srgb8(std::uint32_t at) { return {ChannelKind::Srgb, 8, at}; }
constexpr ChannelLayout f16(std::uint32_t at) { return {ChannelKind::Float16, 16, at}; }
constexpr ChannelLayout f32(std::uint32_t at) { return {ChannelKind::Float32, 32, at}; }

FormatInfo make(VkFormat format, const char *name, std::uint32_t bytes, std::uint32_t channels,
                std::array<ChannelLayout, 4> layout, bool depth = false) {
    FormatInfo f;
    f.format = format;
    f.name = name;
    f.bytesPerTexel = bytes;
    f.channels = channels;
    f.channel = layout;
    f.depth = depth;
    f.srgb = layout[0].kind == ChannelKind::Srgb;
    return f;
}

const std::vector<FormatInfo> &table() {
    static const std::vector<FormatInfo> formats = {
        make(VK_FORMAT_R8G8B8A8_UNORM, "R8G8B8A8_UNORM", 4, 4,
             {unorm(8, 0), unorm(8, 8), unorm(8, 16), unorm(8, 24)}),
        make(VK_FORMAT_R8G8B8A8_SRGB, "R8G8B8A8_SRGB", 4, 4,
             {srgb8(0), srgb8(8), srgb8(16), unorm(8, 24)}),
        // Stored B, G, R, A: logical R sits in byte 2.
        make(VK_FORMAT_B8G8R8A8_UNORM, "B8G8R8A8_UNORM", 4, 4,
             {unorm(8, 16), unorm(8, 8), unorm(8, 0), unorm(8, 24)}),
        make(VK_FORMAT_B8G8R8A8_SRGB, "B8G8R8A8_SRGB", 4, 4,
             {srgb8(16), srgb8(8), srgb8(0), unorm(8, 24)}),
        make(VK_FORMAT_R16G16B16A16_SFLOAT, "R16G16B16A16_SFLOAT", 8, 4,
             {f16(0), f16(16), f16(32), f16(48)}),
        make(VK_FORMAT_R16G16_SFLOAT, "R16G16_SFLOAT", 4, 2, {f16(0), f16(16), {}, {}}),
        make(VK_FORMAT_R32_SFLOAT, "R32_SFLOAT", 4, 1, {f32(0), {}, {}, {}}),
        make(VK_FORMAT_R32G32B32A32_SFLOAT, "R32G32B32A32_SFLOAT", 16, 4,
             {f32(0), f32(32), f32(64), f32(96)}),
        // PACK32: R in bits 0..10, G in 11..21, B in 22..31.
        make(VK_FORMAT_B10G11R11_UFLOAT_PACK32, "B10G11R11_UFLOAT_PACK32", 4, 3,
             {ChannelLayout{ChannelKind::UFloat11, 11, 0},
              ChannelLayout{ChannelKind::UFloat11, 11, 11},
              ChannelLayout{ChannelKind::UFloat10, 10, 22},
              {}}),
        make(VK_FORMAT_R16_UNORM, "R16_UNORM", 2, 1, {unorm(16, 0), {}, {}, {}}),
        make(VK_FORMAT_R8_UNORM, "R8_UNORM", 1, 1, {unorm(8, 0), {}, {}, {}}),
        make(VK_FORMAT_R8G8_UNORM, "R8G8_UNORM", 2, 2, {unorm(8, 0), unorm(8, 8), {}, {}}),
        make(VK_FORMAT_R16_SFLOAT, "R16_SFLOAT", 2, 1, {f16(0), {}, {}, {}}),
        // PACK32: R in bits 0..9, G in 10..19, B in 20..29, A in 30..31.
        make(VK_FORMAT_A2B10G10R10_UNORM_PACK32, "A2B10G10R10_UNORM_PACK32", 4, 4,
             {unorm(10, 0), unorm(10, 10), unorm(10, 20), unorm(2, 30)}),
        make(VK_FORMAT_D32_SFLOAT, "D32_SFLOAT", 4, 1, {f32(0), {}, {}, {}}, true),
        make(VK_FORMAT_D16_UNORM, "D16_UNORM", 2, 1, {unorm(16, 0), {}, {}, {}}, true),
    };
    return formats;
}

// Small IEEE-like floats with a 5-bit exponent (bias 15) and `m` mantissa bits.
double decodeSmallFloat(std::uint32_t code, int m, bool hasSign) {
    const std::uint32_t mantMask = (1u << m) - 1u;
    const bool negative = hasSign && ((code >> (5 + m)) & 1u);
    const std::uint32_t e = (code >> m) & 31u;
    const std::uint32_t mant = code & mantMask;
    double v;
    if (e == 0) {
        v = std::ldexp(static_cast<double>(mant), -14 - m);
    } else if (e == 31) {
        v = mant ? std::numeric_limits<double>::quiet_NaN()
                 : std::numeric_limits<double>::infinity();
    } else {
        v = std::ldexp(static_cast<double>((1u << m) + mant), static_cast<int>(e) - 15 - m);
    }
    return negative ? -v : v;
}

std::uint32_t encodeSmallFloat(double v, int m, bool hasSign) {
    const std::uint32_t signBit = hasSign ? (1u << (5 + m)) : 0u;
    const std::uint32_t inf = 31u << m;
    if (std::isnan(v))
        return inf | (1u << (m - 1));
    std::uint32_t sign = 0;
    if (std::signbit(v)) {
        if (!hasSign)
            return 0; // unsigned formats: negative values become 0
        sign = signBit;
        v = -v;
    }
    if (std::isinf(v))
        return sign | inf;
    if (v == 0.0)
        return sign;
    int ex = 0;
    std::frexp(v, &ex); // v = f * 2^ex, f in [0.5, 1)
    int e = ex - 1;     // v = 1.x * 2^e
    if (e < -14) {
        // Subnormal: multiples of 2^(-14-m). Rounding up to 2^m lands exactly on the smallest
        // normal's encoding.
        auto q = static_cast<std::uint32_t>(std::nearbyint(std::ldexp(v, 14 + m)));
        return sign | q;
    }
    double q = std::nearbyint(std::ldexp(v, m - e)); // in [2^m, 2^(m+1)], ties to even
    if (q >= std::ldexp(1.0, m + 1)) {
        q = std::ldexp(1.0, m);
        ++e;
    }
    if (e + 15 >= 31)
        return sign | inf;
    auto mant = static_cast<std::uint32_t>(q) - (1u << m);
    return sign | (static_cast<std::uint32_t>(e + 15) << m) | mant;
}

double smallFloatUlp(double ref, int m) {
    double a = std::fabs(ref);
    int e = -14; // subnormals share the smallest normal's ulp
    if (a >= std::ldexp(1.0, -14))
        e = std::ilogb(a);
    return std::ldexp(1.0, e - m);
}

int mantissaBits(ChannelKind k) {
    switch (k) {
    case ChannelKind::Float16:
        return 10;
    case ChannelKind::UFloat11:
        return 6;
    case ChannelKind::UFloat10:
        return 5;
    default:
        return 0;
    }
}

double unormMax(const ChannelLayout &ch) {
    return static_cast<double>((std::uint64_t{1} << ch.bits) - 1u);
}

} // namespace

const std::vector<VkFormat> &downsampleFormats() {
    static const std::vector<VkFormat> formats = {
        VK_FORMAT_R8G8B8A8_UNORM,
        VK_FORMAT_R8G8B8A8_SRGB,
        VK_FORMAT_B8G8R8A8_UNORM,
        VK_FORMAT_B8G8R8A8_SRGB,
        VK_FORMAT_R16G16B16A16_SFLOAT,
        VK_FORMAT_R16G16_SFLOAT,
        VK_FORMAT_R32_SFLOAT,
        VK_FORMAT_R32G32B32A32_SFLOAT,
        VK_FORMAT_B10G11R11_UFLOAT_PACK32,
        VK_FORMAT_R16_UNORM,
        VK_FORMAT_R8_UNORM,
        VK_FORMAT_R8G8_UNORM,
        VK_FORMAT_R16_SFLOAT,
        VK_FORMAT_A2B10G10R10_UNORM_PACK32,
    };
    return formats;
}

const std::vector<VkFormat> &blurFormats() {
    static const std::vector<VkFormat> formats = {
        VK_FORMAT_R8G8B8A8_UNORM,          VK_FORMAT_R8G8B8A8_SRGB,
        VK_FORMAT_B8G8R8A8_UNORM,          VK_FORMAT_B8G8R8A8_SRGB,
        VK_FORMAT_R16G16B16A16_SFLOAT,     VK_FORMAT_R32_SFLOAT,
        VK_FORMAT_R32G32B32A32_SFLOAT,     VK_FORMAT_R8_UNORM,
        VK_FORMAT_B10G11R11_UFLOAT_PACK32,
    };
    return formats;
}

const std::vector<VkFormat> &depthFormats() {
    static const std::vector<VkFormat> formats = {VK_FORMAT_D32_SFLOAT, VK_FORMAT_D16_UNORM};
    return formats;
}

const FormatInfo &formatInfo(VkFormat format) {
    for (const FormatInfo &f : table()) {
        if (f.format == format)
            return f;
    }
    std::fprintf(stderr, "vkfx_test: formatInfo: format %d is not in the test table\n",
                 static_cast<int>(format));
    std::abort();
}

std::string formatName(VkFormat format) {
    for (const FormatInfo &f : table()) {
        if (f.format == format)
            return f.name;
    }
    switch (format) {
    case VK_FORMAT_R8G8B8_UNORM:
        return "R8G8B8_UNORM";
    case VK_FORMAT_R32G32B32A32_UINT:
        return "R32G32B32A32_UINT";
    default:
        return "VkFormat(" + std::to_string(static_cast<int>(format)) + ")";
    }
}

std::uint32_t readCode(const FormatInfo &f, const std::uint8_t *texel, std::uint32_t c) {
    const ChannelLayout &ch = f.channel[c];
    std::uint64_t bits = 0;
    // Gather the bytes spanned by the field (at most 5 for an unaligned 32-bit field).
    std::uint32_t firstByte = ch.bitOffset / 8;
    std::uint32_t lastByte = (ch.bitOffset + ch.bits - 1) / 8;
    for (std::uint32_t b = lastByte + 1; b-- > firstByte;)
        bits = (bits << 8) | texel[b];
    bits >>= ch.bitOffset % 8;
    return static_cast<std::uint32_t>(bits & ((std::uint64_t{1} << ch.bits) - 1u));
}

void writeCode(const FormatInfo &f, std::uint8_t *texel, std::uint32_t c, std::uint32_t code) {
    const ChannelLayout &ch = f.channel[c];
    const std::uint32_t firstByte = ch.bitOffset / 8;
    const std::uint32_t lastByte = (ch.bitOffset + ch.bits - 1) / 8;
    const std::uint32_t shift = ch.bitOffset % 8;
    std::uint64_t bits = 0;
    for (std::uint32_t b = lastByte + 1; b-- > firstByte;)
        bits = (bits << 8) | texel[b];
    const std::uint64_t mask = ((std::uint64_t{1} << ch.bits) - 1u) << shift;
    bits = (bits & ~mask) | ((std::uint64_t{code} << shift) & mask);
    for (std::uint32_t b = firstByte; b <= lastByte; ++b, bits >>= 8)
        texel[b] = static_cast<std::uint8_t>(bits);
}

double srgbToLinear(double s) {
    return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
}

double linearToSrgb(double l) {
    return l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1.0 / 2.4) - 0.055;
}

double decodeCode(const FormatInfo &f, std::uint32_t c, std::uint32_t code) {
    const ChannelLayout &ch = f.channel[c];
    switch (ch.kind) {
    case ChannelKind::Unorm:
        if (f.depth)
            return static_cast<double>(static_cast<float>(code) / 65535.0f);
        return static_cast<double>(code) / unormMax(ch);
    case ChannelKind::Srgb:
        return srgbToLinear(static_cast<double>(code) / 255.0);
    case ChannelKind::Float16:
        return decodeSmallFloat(code, 10, true);
    case ChannelKind::UFloat11:
        return decodeSmallFloat(code, 6, false);
    case ChannelKind::UFloat10:
        return decodeSmallFloat(code, 5, false);
    case ChannelKind::Float32: {
        float v;
        std::memcpy(&v, &code, sizeof v);
        return static_cast<double>(v);
    }
    }
    return 0.0;
}

double decode(const FormatInfo &f, const std::uint8_t *texel, std::uint32_t c) {
    return decodeCode(f, c, readCode(f, texel, c));
}

std::uint32_t encodeValue(const FormatInfo &f, std::uint32_t c, double value) {
    const ChannelLayout &ch = f.channel[c];
    switch (ch.kind) {
    case ChannelKind::Unorm:
        if (f.depth) {
            // The code whose sampled value (float(code) / 65535.0f) is `value`, if any.
            auto code =
                static_cast<std::uint32_t>(std::nearbyint(std::clamp(value, 0.0, 1.0) * 65535.0));
            return code;
        }
        return static_cast<std::uint32_t>(
            std::floor(std::clamp(value, 0.0, 1.0) * unormMax(ch) + 0.5));
    case ChannelKind::Srgb:
        return static_cast<std::uint32_t>(
            std::floor(linearToSrgb(std::clamp(value, 0.0, 1.0)) * 255.0 + 0.5));
    case ChannelKind::Float16:
        return encodeSmallFloat(value, 10, true);
    case ChannelKind::UFloat11:
        return encodeSmallFloat(value, 6, false);
    case ChannelKind::UFloat10:
        return encodeSmallFloat(value, 5, false);
    case ChannelKind::Float32: {
        auto v = static_cast<float>(value);
        std::uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        return bits;
    }
    }
    return 0;
}

void encodeTexel(const FormatInfo &f, const double *rgba, std::uint8_t *texel) {
    for (std::uint32_t c = 0; c < f.channels; ++c)
        writeCode(f, texel, c, encodeValue(f, c, rgba[c]));
}

double codeUnits(const FormatInfo &f, std::uint32_t c, double ref) {
    const ChannelLayout &ch = f.channel[c];
    double r = std::clamp(ref, 0.0, 1.0);
    if (ch.kind == ChannelKind::Srgb)
        return linearToSrgb(r) * 255.0;
    return r * unormMax(ch);
}

double errorInUlps(const FormatInfo &f, std::uint32_t c, std::uint32_t gpuCode, double ref) {
    const ChannelLayout &ch = f.channel[c];
    switch (ch.kind) {
    case ChannelKind::Unorm:
    case ChannelKind::Srgb:
        return std::fabs(static_cast<double>(gpuCode) - codeUnits(f, c, ref));
    case ChannelKind::Float16:
    case ChannelKind::UFloat11:
    case ChannelKind::UFloat10: {
        double g = decodeCode(f, c, gpuCode);
        if (!std::isfinite(g))
            return std::numeric_limits<double>::infinity();
        return std::fabs(g - ref) / smallFloatUlp(ref, mantissaBits(ch.kind));
    }
    case ChannelKind::Float32: {
        double g = decodeCode(f, c, gpuCode);
        if (!std::isfinite(g))
            return std::numeric_limits<double>::infinity();
        return std::fabs(g - ref) / std::max(std::fabs(ref), 1e-30);
    }
    }
    return std::numeric_limits<double>::infinity();
}

bool averageErrorAllowed(const FormatInfo &f, std::uint32_t c, double error) {
    switch (f.channel[c].kind) {
    case ChannelKind::Unorm:
    case ChannelKind::Srgb:
        return error < 1.0;
    case ChannelKind::Float16:
    case ChannelKind::UFloat11:
    case ChannelKind::UFloat10:
        return error <= 1.0;
    case ChannelKind::Float32:
        return error <= 1e-5;
    }
    return false;
}

bool filteredErrorAllowed(const FormatInfo &f, std::uint32_t c, double error) {
    switch (f.channel[c].kind) {
    case ChannelKind::Unorm:
    case ChannelKind::Srgb:
        // Fields narrower than 8 bits (A2B10G10R10's alpha): codes coarser than any filter's
        // weights, so the Average bound (3 codes would be the whole range of 2 bits).
        if (f.channel[c].bits < 8)
            return averageErrorAllowed(f, c, error);
        return error <= kFilteredCodes;
    case ChannelKind::Float16:
    case ChannelKind::UFloat11:
    case ChannelKind::UFloat10:
        return error <= kFilteredUlps;
    case ChannelKind::Float32:
        return averageErrorAllowed(f, c, error);
    }
    return false;
}

std::string describeCode(const FormatInfo &f, std::uint32_t c, std::uint32_t code) {
    char text[96];
    double v = decodeCode(f, c, code);
    if (f.isFloat(c) || f.depth) {
        std::snprintf(text, sizeof text, "%.9g (0x%0*x)", v,
                      static_cast<int>((f.channel[c].bits + 3) / 4), code);
    } else {
        std::snprintf(text, sizeof text, "%.7f (code %u)", v, code);
    }
    return text;
}

std::vector<std::uint8_t> randomTexels(const FormatInfo &f, std::size_t count,
                                       std::mt19937_64 &rng) {
    std::vector<std::uint8_t> bytes(count * f.bytesPerTexel);
    std::uniform_real_distribution<double> floatRange(0.0, f.depth ? 1.0 : 8.0);
    // Unorm / sRGB codes are drawn from a pool of random bits, 64 at a time.
    std::uint64_t pool = 0;
    std::uint32_t poolBits = 0;
    for (std::size_t i = 0; i < count; ++i) {
        std::uint8_t *texel = bytes.data() + i * f.bytesPerTexel;
        for (std::uint32_t c = 0; c < f.channels; ++c) {
            const ChannelLayout &ch = f.channel[c];
            std::uint32_t code;
            if (ch.kind == ChannelKind::Unorm || ch.kind == ChannelKind::Srgb) {
                if (poolBits < ch.bits) {
                    pool = rng();
                    poolBits = 64;
                }
                code = static_cast<std::uint32_t>(pool & ((std::uint64_t{1} << ch.bits) - 1u));
                pool >>= ch.bits;
                poolBits -= ch.bits;
            } else {
                code = encodeValue(f, c, floatRange(rng));
            }
            writeCode(f, texel, c, code);
        }
    }
    return bytes;
}

double patternScale(const FormatInfo &f) {
    if (f.depth)
        return 1.0;
    return f.isFloat(0) ? 4.0 : 1.0;
}

} // namespace vkfx_test
