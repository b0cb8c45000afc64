// The CPU reference of a mip chain, from the definition in include/vkfx/downsample.hpp, in double:
//
//   Level k+1 has the extent max(1, floor(e_k / 2)). Its texel x reduces texels 2x and 2x+1 of
//   level k, plus 2x+2 when x is the last texel and e_k is odd; where e_k is 1 it reduces texel 0
//   alone. The same for y. Average = arithmetic mean of the footprint; Min / Max per channel.
//
// The chain is carried in full double precision from level to level (never quantized). For Min
// and Max on decoded stored values every result is one of those values, exactly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace vkfx_test {

enum class ReduceOp { Average, Min, Max };

const char *reduceOpName(ReduceOp op);

// One level of one layer: width x height texels of `channels` doubles, row-major.
struct Plane {
    std::uint32_t width = 0, height = 0, channels = 0;
    std::vector<double> values;

    Plane() = default;
    Plane(std::uint32_t w, std::uint32_t h, std::uint32_t c)
        : width(w), height(h), channels(c), values(std::size_t{w} * h * c, 0.0) {}
    double &at(std::uint32_t x, std::uint32_t y, std::uint32_t c) {
        return values[(std::size_t{y} * width + x) * channels + c];
    }
    double at(std::uint32_t x, std::uint32_t y, std::uint32_t c) const {
        return values[(std::size_t{y} * width + x) * channels + c];
    }
};

// Extent of the next level: max(1, floor(e / 2)).
inline std::uint32_t nextExtent(std::uint32_t e) { return std::max(1u, e / 2); }

// Levels of a full chain whose level 0 is w x h (1 for 1x1).
std::uint32_t fullChainLength(std::uint32_t w, std::uint32_t h);

// The texels of a level of extent `e` (along one axis) that texel `i` of the next level reduces.
struct Span {
    std::uint32_t first = 0, count = 0;
};
inline Span footprint(std::uint32_t e, std::uint32_t i) {
    if (e == 1)
        return {0, 1};
    bool last = i == nextExtent(e) - 1;
    return {2 * i, (last && e % 2 == 1) ? 3u : 2u};
}

// Level k+1 from level k, whose texels `get(x, y, c)` returns (w x h, `channels` channels).
template <class Get>
Plane reduceLevel(std::uint32_t w, std::uint32_t h, std::uint32_t channels, ReduceOp op,
                  Get &&get) {
    Plane out(nextExtent(w), nextExtent(h), channels);
    for (std::uint32_t y = 0; y < out.height; ++y) {
        Span sy = footprint(h, y);
        for (std::uint32_t x = 0; x < out.width; ++x) {
            Span sx = footprint(w, x);
            for (std::uint32_t c = 0; c < channels; ++c) {
                double sum = 0.0;
                double lo = get(sx.first, sy.first, c);
                double hi = lo;
                for (std::uint32_t j = sy.first; j < sy.first + sy.count; ++j) {
                    for (std::uint32_t i = sx.first; i < sx.first + sx.count; ++i) {
                        double v = get(i, j, c);
                        sum += v;
                        lo = std::min(lo, v);
                        hi = std::max(hi, v);
                    }
                }
                double r = op == ReduceOp::Average ? sum / (sx.count * sy.count)
                           : op == ReduceOp::Min   ? lo
                                                   : hi;
                out.at(x, y, c) = r;
            }
        }
    }
    return out;
}

Plane reduceLevel(const Plane &level, ReduceOp op);

// Levels 1..count of the chain whose level 0 is `level0` (result[i] is level i + 1).
std::vector<Plane> referenceChain(const Plane &level0, ReduceOp op, std::uint32_t count);
// The same, continuing from an already reduced level 1.
std::vector<Plane> referenceChainFrom(Plane level1, ReduceOp op, std::uint32_t count);

} // namespace vkfx_test
