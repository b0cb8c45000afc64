#include "support/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vkfx_test {
namespace {

const char *channelName(const FormatInfo &f, std::uint32_t c) {
    static const char *names[] = {"R", "G", "B", "A"};
    if (f.depth)
        return "D";
    return names[c];
}

} // namespace

void LevelChecker::check(std::uint32_t level, std::uint32_t layer, const Plane &expected,
                         const std::vector<std::uint8_t> &gpu) {
    const std::size_t texels = std::size_t{expected.width} * expected.height;
    if (gpu.size() != texels * m_format.bytesPerTexel) {
        m_problems.push_back("level " + std::to_string(level) + " layer " + std::to_string(layer) +
                             ": " + std::to_string(gpu.size()) + " bytes downloaded, expected " +
                             std::to_string(texels * m_format.bytesPerTexel));
        return;
    }
    if (expected.channels != m_format.channels) {
        m_problems.push_back("reference has " + std::to_string(expected.channels) + " channels");
        return;
    }
    for (std::uint32_t y = 0; y < expected.height; ++y) {
        for (std::uint32_t x = 0; x < expected.width; ++x) {
            const std::uint8_t *texel =
                gpu.data() + (std::size_t{y} * expected.width + x) * m_format.bytesPerTexel;
            for (std::uint32_t c = 0; c < m_format.channels; ++c) {
                ++m_checked;
                const double ref = expected.at(x, y, c);
                const std::uint32_t got = readCode(m_format, texel, c);
                bool ok;
                double error;
                if (m_tolerance == Tolerance::Exact) {
                    ok = got == encodeValue(m_format, c, ref);
                    error = ok ? 0.0 : errorInUlps(m_format, c, got, ref);
                } else if (m_tolerance == Tolerance::Depth16Sampled) {
                    const auto code =
                        static_cast<float>(std::nearbyint(std::clamp(ref, 0.0, 1.0) * 65535.0));
                    volatile float reciprocal = 1.0f / 65535.0f; // not folded into a division
                    ok = got == encodeValue(m_format, c, code / 65535.0f) ||
                         got == encodeValue(m_format, c, code * reciprocal);
                    error = ok ? 0.0 : errorInUlps(m_format, c, got, ref);
                } else {
                    const double raw = errorInUlps(m_format, c, got, ref);
                    // With slack: the error against the nearest value of [ref - slack, ref + slack].
                    const double s = c < m_slack.size() ? m_slack[c] : 0.0;
                    error = s > 0.0 ? errorInUlps(m_format, c, got,
                                                  std::clamp(decodeCode(m_format, c, got), ref - s, ref + s))
                                    : raw;
                    ok = m_tolerance == Tolerance::Filtered ? filteredErrorAllowed(m_format, c, error)
                                                            : averageErrorAllowed(m_format, c, error);
                    if (!std::isnan(raw))
                        m_maxRawError = std::max(m_maxRawError, raw);
                }
                if (std::isnan(error))
                    error = INFINITY;
                m_maxError = std::max(m_maxError, error);
                if (!ok) {
                    ++m_failures;
                    if (m_first.size() < 32)
                        m_first.push_back({level, layer, x, y, c, got, ref, error});
                }
            }
        }
    }
}

std::string LevelChecker::report(std::size_t shown) const {
    std::string text;
    for (const std::string &p : m_problems)
        text += p + "\n";
    char line[512];
    for (std::size_t i = 0; i < m_first.size() && i < shown; ++i) {
        const Mismatch &m = m_first[i];
        std::string expected;
        if (m_format.isFloat(m.c) || m_format.depth) {
            std::snprintf(line, sizeof line, "%.9g", m.expected);
            expected = line;
            if (m_tolerance != Tolerance::Average && m_tolerance != Tolerance::Filtered) {
                expected += " (" +
                            describeCode(m_format, m.c, encodeValue(m_format, m.c, m.expected)) +
                            ")";
            }
        } else {
            std::snprintf(line, sizeof line, "%.7f (code %.4f)", m.expected,
                          codeUnits(m_format, m.c, m.expected));
            expected = line;
        }
        std::snprintf(line, sizeof line,
                      "  level %u layer %u texel (%u, %u) %s: got %s, expected %s, error %.4g\n",
                      m.level, m.layer, m.x, m.y, channelName(m_format, m.c),
                      describeCode(m_format, m.c, m.gotCode).c_str(), expected.c_str(), m.error);
        text += line;
    }
    std::snprintf(line, sizeof line, "%llu of %llu values wrong (%s, %s), max error %.4g %s",
                  static_cast<unsigned long long>(m_failures),
                  static_cast<unsigned long long>(m_checked), m_format.name,
                  m_tolerance == Tolerance::Average    ? "within 1 ulp"
                  : m_tolerance == Tolerance::Filtered ? "within the filtered bound"
                                                       : "bit-exact",
                  m_maxError,
                  m_format.isFloat(0)
                      ? (m_format.channel[0].kind == ChannelKind::Float32 ? "(relative)" : "ulp")
                      : "code");
    text += line;
    return text;
}

} // namespace vkfx_test
