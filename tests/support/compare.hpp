// Comparison of downloaded levels against the reference (support/reference.hpp).
#pragma once

#include "support/formats.hpp"
#include "support/reference.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vkfx_test {

enum class Tolerance {
    Exact,   // Min / Max / copies: the stored code must be the reference's code, bit for bit
    Average, // vkfx's documented Average bound (averageErrorAllowed in formats.hpp)
    // R32_SFLOAT values sampled from D16_UNORM: the reference's code c (ref * 65535) as the sampler
    // returns it, bit-exact: float(c) / 65535.0f correctly rounded, or float(c) * (1.0f / 65535.0f)
    // (lavapipe's conversion, 1 ulp lower for 512 of the 65536 codes). Both are monotonic in c, so
    // Min / Max of sampled values is the sampled value of the Min / Max code.
    Depth16Sampled,
    // Average chains with DownsamplerFlagSamplerFilter: the bound of filteredErrorAllowed
    // (formats.hpp), what the devices' linear filters were measured to keep.
    Filtered,
};

class LevelChecker {
  public:
    LevelChecker(const FormatInfo &format, Tolerance tolerance)
        : m_format(format), m_tolerance(tolerance) {}

    // Compares one layer of one level (tightly packed texels) with its reference values.
    void check(std::uint32_t level, std::uint32_t layer, const Plane &expected,
               const std::vector<std::uint8_t> &gpu);

    // Average only: also accept a value within `slack[c]` (in the value's units, per channel) of
    // the reference, up to the usual bound (for approximations with a documented error).
    void setSlack(const std::vector<double> &slack) { m_slack = slack; }

    bool passed() const { return m_failures == 0 && m_problems.empty(); }
    std::uint64_t failures() const { return m_failures; }
    std::uint64_t checked() const { return m_checked; }
    // Largest error seen (Average: in units of formats.hpp's errorInUlps; Exact: the same measure
    // of the mismatching codes, 0 when all match).
    double maxError() const { return m_maxError; }
    // Average with slack: the largest error against the reference itself (the slack not used).
    double maxErrorWithoutSlack() const { return m_maxRawError; }
    // The first mismatches (level, layer, x, y, channel, got, expected) and the totals.
    std::string report(std::size_t shown = 8) const;

  private:
    struct Mismatch {
        std::uint32_t level, layer, x, y, c;
        std::uint32_t gotCode;
        double expected;
        double error;
    };
    const FormatInfo &m_format;
    Tolerance m_tolerance;
    std::vector<double> m_slack;
    std::uint64_t m_checked = 0;
    std::uint64_t m_failures = 0;
    double m_maxError = 0.0;
    double m_maxRawError = 0.0;
    std::vector<Mismatch> m_first;
    std::vector<std::string> m_problems;
};

} // namespace vkfx_test
