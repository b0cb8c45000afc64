#include "support/reference.hpp"

namespace vkfx_test {

const char *reduceOpName(ReduceOp op) {
    switch (op) {
    case ReduceOp::Average:
        return "Average";
    case ReduceOp::Min:
        return "Min";
    case ReduceOp::Max:
        return "Max";
    }
    return "?";
}

std::uint32_t fullChainLength(std::uint32_t w, std::uint32_t h) {
    std::uint32_t levels = 1;
    while (w > 1 || h > 1) {
        w = nextExtent(w);
        h = nextExtent(h);
        ++levels;
    }
    return levels;
}

Plane reduceLevel(const Plane &level, ReduceOp op) {
    return reduceLevel(
        level.width, level.height, level.channels, op,
        [&](std::uint32_t x, std::uint32_t y, std::uint32_t c) { return level.at(x, y, c); });
}

std::vector<Plane> referenceChainFrom(Plane level1, ReduceOp op, std::uint32_t count) {
    std::vector<Plane> levels;
    if (count == 0)
        return levels;
    levels.push_back(std::move(level1));
    while (levels.size() < count)
        levels.push_back(reduceLevel(levels.back(), op));
    return levels;
}

std::vector<Plane> referenceChain(const Plane &level0, ReduceOp op, std::uint32_t count) {
    if (count == 0)
        return {};
    return referenceChainFrom(reduceLevel(level0, op), op, count);
}

} // namespace vkfx_test
