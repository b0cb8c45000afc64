// vkfx::Sorter against std::stable_sort on the CPU.
//
// The CPU reference orders keys by the rule documented in include/vkfx/sort.hpp, written from the
// key types' meaning (numeric order, -0.0 before +0.0, NaNs by sign and bits), not from the bit
// transform the shader uses. Values are the keys' input indices (or random words), so stability
// and the movement of values are both checked. Keys and values are host-visible storage buffers
// sorted in place; every position of the result is compared.
#include "support/gpu.hpp"
#include "support/vulkan_context.hpp"

#include <vkfx/sort.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace vkfx_test;
using vkfx::SortKey;
using vkfx::SortOrder;
using vkfx::SortPath;
using vkfx::SortValues;

const char *keyName(SortKey k) {
    switch (k) {
    case SortKey::Uint32: return "uint32";
    case SortKey::Int32: return "int32";
    case SortKey::Float32: return "float32";
    case SortKey::Uint64: return "uint64";
    case SortKey::Int64: return "int64";
    case SortKey::Float64: return "float64";
    }
    return "?";
}

bool is64(SortKey k) { return k == SortKey::Uint64 || k == SortKey::Int64 || k == SortKey::Float64; }

// Strict weak order of two floating-point keys' bits, ascending: negative NaNs (larger payload
// first), numbers (-0.0 before +0.0), positive NaNs (by payload).
template <typename F, typename U> bool floatLess(U a, U b) {
    constexpr int top = 8 * sizeof(U) - 1;
    auto cls = [](U u) {
        if (!std::isnan(std::bit_cast<F>(u))) return 1;
        return (u >> top) != 0 ? 0 : 2;
    };
    int ca = cls(a), cb = cls(b);
    if (ca != cb) return ca < cb;
    if (ca == 0) return a > b;
    if (ca == 2) return a < b;
    F fa = std::bit_cast<F>(a), fb = std::bit_cast<F>(b);
    if (fa == fb) return std::signbit(fa) && !std::signbit(fb);
    return fa < fb;
}

// Strict weak order of two keys for `type`, ascending (32-bit keys in the low bits).
bool keyLess(SortKey type, std::uint64_t a, std::uint64_t b) {
    const auto a32 = static_cast<std::uint32_t>(a), b32 = static_cast<std::uint32_t>(b);
    switch (type) {
    case SortKey::Uint32: return a32 < b32;
    case SortKey::Int32: return static_cast<std::int32_t>(a32) < static_cast<std::int32_t>(b32);
    case SortKey::Float32: return floatLess<float>(a32, b32);
    case SortKey::Uint64: return a < b;
    case SortKey::Int64: return static_cast<std::int64_t>(a) < static_cast<std::int64_t>(b);
    case SortKey::Float64: return floatLess<double>(a, b);
    }
    return false;
}

enum class Dist { Random, AllEqual, Sorted, Reversed, FewUnique, TopByte, BottomByte, Specials };

const char *distName(Dist d) {
    switch (d) {
    case Dist::Random: return "random";
    case Dist::AllEqual: return "all-equal";
    case Dist::Sorted: return "sorted";
    case Dist::Reversed: return "reversed";
    case Dist::FewUnique: return "few-unique";
    case Dist::TopByte: return "top-byte";
    case Dist::BottomByte: return "bottom-byte";
    case Dist::Specials: return "specials";
    }
    return "?";
}

std::vector<std::uint64_t> makeKeys(SortKey type, Dist dist, std::uint32_t n, std::mt19937_64 &rng) {
    const bool wide = is64(type);
    const std::uint64_t mask = wide ? ~std::uint64_t{0} : 0xFFFFFFFFu;
    const int bits = wide ? 64 : 32;
    std::vector<std::uint64_t> k(n);
    auto next = [&] { return rng() & mask; };
    const std::uint64_t base = next();
    const std::uint64_t topMask = std::uint64_t{0xFF} << (bits - 8);
    for (std::uint32_t i = 0; i < n; ++i) {
        switch (dist) {
        case Dist::Random:
        case Dist::Sorted:
        case Dist::Reversed: k[i] = next(); break;
        case Dist::AllEqual: k[i] = base; break;
        case Dist::FewUnique: k[i] = base ^ ((next() % 7u) * (0x0101010101010101u & mask)); break;
        case Dist::TopByte: k[i] = (base & ~topMask) | (next() & topMask); break;
        case Dist::BottomByte: k[i] = (base & ~std::uint64_t{0xFF}) | (next() & 0xFFu); break;
        case Dist::Specials: {
            static const std::uint32_t specials32[] = {
                0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
                0x7F800001u, 0xFF800001u, 0x00000001u, 0x80000001u, 0x3F800000u, 0xBF800000u,
                0x7F7FFFFFu, 0xFF7FFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu};
            static const std::uint64_t specials64[] = {
                0x0000000000000000u, 0x8000000000000000u, 0x7FF0000000000000u, 0xFFF0000000000000u,
                0x7FF8000000000000u, 0xFFF8000000000000u, 0x7FF0000000000001u, 0xFFF0000000000001u,
                0x0000000000000001u, 0x8000000000000001u, 0x3FF0000000000000u, 0xBFF0000000000000u,
                0x7FEFFFFFFFFFFFFFu, 0xFFEFFFFFFFFFFFFFu, 0x7FFFFFFFFFFFFFFFu, 0xFFFFFFFFFFFFFFFFu};
            const std::uint64_t r = next();
            k[i] = r % 3u == 0 ? next() : wide ? specials64[r % 16u] : specials32[r % 16u];
            break;
        }
        }
    }
    if (dist == Dist::Sorted || dist == Dist::Reversed) {
        std::stable_sort(k.begin(), k.end(), [&](std::uint64_t a, std::uint64_t b) { return keyLess(type, a, b); });
        if (dist == Dist::Reversed) std::reverse(k.begin(), k.end());
    }
    return k;
}

// What one sort is asked to do (the CPU reference's view of it).
struct SortSpec {
    SortKey key = SortKey::Uint32;
    SortOrder order = SortOrder::Ascending;
    SortValues values = SortValues::Bits32;
    std::uint32_t beginBit = 0, endBit = 0; // endBit 0: the whole key
};

// Keys and values in host-visible storage buffers, and the check of what a sort left there.
// Values are the input index (64-bit values: the index in the low word, a word derived from it in
// the high one), so stability and the movement of both value words are checked.
struct SortJob {
    std::vector<std::uint64_t> keys;
    Buffer k, v;
    std::uint32_t keyWords = 1, valueWords = 1;

    static std::uint32_t highWord(std::uint32_t index) { return index * 2654435761u ^ 0xA5A5A5A5u; }

    ::testing::AssertionResult upload(const SortSpec &spec, std::vector<std::uint64_t> input) {
        keys = std::move(input);
        keyWords = is64(spec.key) ? 2 : 1;
        valueWords = std::max<std::uint32_t>(static_cast<std::uint32_t>(spec.values), 1);
        const std::size_t n = keys.size();
        if (k.create(std::max<VkDeviceSize>(VkDeviceSize{n} * 4 * keyWords, 8), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) !=
                VK_SUCCESS ||
            v.create(std::max<VkDeviceSize>(VkDeviceSize{n} * 4 * valueWords, 8), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) !=
                VK_SUCCESS)
            return ::testing::AssertionFailure() << "creating the key / value buffers failed";
        auto *kw = reinterpret_cast<std::uint32_t *>(k.data());
        auto *vw = reinterpret_cast<std::uint32_t *>(v.data());
        for (std::size_t i = 0; i < n; ++i) {
            kw[i * keyWords] = static_cast<std::uint32_t>(keys[i]);
            if (keyWords == 2) kw[i * 2 + 1] = static_cast<std::uint32_t>(keys[i] >> 32);
            vw[i * valueWords] = static_cast<std::uint32_t>(i);
            if (valueWords == 2) vw[i * 2 + 1] = highWord(static_cast<std::uint32_t>(i));
        }
        k.flush();
        v.flush();
        return ::testing::AssertionSuccess();
    }

    // The order-preserving unsigned image of a key, whose bits a bit range selects.
    static std::uint64_t ordered(SortKey type, std::uint64_t key) {
        switch (type) {
        case SortKey::Uint32:
        case SortKey::Uint64: return key;
        case SortKey::Int32: return key ^ 0x80000000u;
        case SortKey::Int64: return key ^ 0x8000000000000000u;
        case SortKey::Float32: return (key & 0x80000000u) ? (~key & 0xFFFFFFFFu) : key ^ 0x80000000u;
        case SortKey::Float64: return (key >> 63) ? ~key : key ^ 0x8000000000000000u;
        }
        return key;
    }

    // Positions that differ from the expected result: the first `sorted` inputs stably sorted
    // (by the whole key, or by the bit range of its ordered image), then the other inputs
    // untouched. Reports the first five.
    std::size_t mismatches(const SortSpec &spec, std::size_t sorted) {
        std::vector<std::uint32_t> expected(keys.size());
        std::iota(expected.begin(), expected.end(), 0u);
        const std::uint32_t width = 32 * keyWords;
        const std::uint32_t end = spec.endBit == 0 ? width : spec.endBit;
        const bool range = spec.beginBit != 0 || end != width;
        auto less = [&](std::uint32_t a, std::uint32_t b) {
            if (range) {
                const std::uint64_t m = (end - spec.beginBit == 64) ? ~std::uint64_t{0}
                                                                   : ((std::uint64_t{1} << (end - spec.beginBit)) - 1);
                const std::uint64_t da = (ordered(spec.key, keys[a]) >> spec.beginBit) & m;
                const std::uint64_t db = (ordered(spec.key, keys[b]) >> spec.beginBit) & m;
                return spec.order == SortOrder::Ascending ? da < db : db < da;
            }
            return spec.order == SortOrder::Ascending ? keyLess(spec.key, keys[a], keys[b])
                                                      : keyLess(spec.key, keys[b], keys[a]);
        };
        std::stable_sort(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(sorted), less);
        k.invalidate();
        v.invalidate();
        const auto *kw = reinterpret_cast<const std::uint32_t *>(k.data());
        const auto *vw = reinterpret_cast<const std::uint32_t *>(v.data());
        const bool values = spec.values != SortValues::None;
        std::size_t bad = 0;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const std::uint32_t from = expected[i];
            std::uint64_t got = kw[i * keyWords];
            if (keyWords == 2) got |= std::uint64_t{kw[i * 2 + 1]} << 32;
            bool ok = got == keys[from];
            if (values) {
                ok = ok && vw[i * valueWords] == from;
                if (valueWords == 2) ok = ok && vw[i * 2 + 1] == highWord(from);
            }
            if (!ok && bad++ < 5) {
                ADD_FAILURE() << "position " << i << ": key 0x" << std::hex << got << " value " << std::dec
                              << (values ? vw[i * valueWords] : 0) << ", expected key 0x" << std::hex << keys[from]
                              << " value " << std::dec << from;
            }
        }
        return bad;
    }
};

// Host writes -> the sort's compute reads and writes; its writes -> host reads.
void hostToCompute(VkCommandBuffer cmd) {
    memoryBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}
void computeToHost(VkCommandBuffer cmd) {
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
}

const char *pathName(SortPath p) {
    return p == SortPath::Onesweep ? "onesweep" : p == SortPath::ReduceThenScan ? "reduce-then-scan" : "auto";
}

struct Case {
    SortSpec spec;
    std::uint32_t count = 0;
    Dist dist = Dist::Random;
    SortPath path = SortPath::Onesweep;
    std::uint32_t maxCount = 0; // 0: kCachedCount, or count + 3 above it

    std::string describe() const {
        return std::string(pathName(path)) + " " + keyName(spec.key) +
               (spec.order == SortOrder::Descending ? " descending" : " ascending") +
               (spec.values == SortValues::Bits32   ? " +values32"
                : spec.values == SortValues::Bits64 ? " +values64"
                                                    : "") +
               (spec.beginBit != 0 || spec.endBit != 0
                    ? " bits " + std::to_string(spec.beginBit) + ".." + std::to_string(spec.endBit)
                    : "") +
               " n=" + std::to_string(count) + " " + distName(dist) +
               (maxCount != 0 ? " maxCount=" + std::to_string(maxCount) : "");
    }
};

const SortPath kPaths[] = {SortPath::Onesweep, SortPath::ReduceThenScan};

// The tile rule as sort.hpp states it ("Tiles"): 64-bit keys 4096; with no multiprocessor count,
// 5376 above 2^21 keys in Sorters of more than 2^21, else 4096; with M multiprocessors, of the
// tiles the Sorter has (Onesweep: 1024; 2048 above maxCount 1024 M; 4096 above 2048 M; 5376 and,
// where the device holds a workgroup of 512, 8192 above 4096 M; ReduceThenScan: 4096, and 5376
// above 4096 M), those of 1024 and 2048 keys only where ceil(count / tile) <= M, the one whose
// rounds per SM, ceil(ceil(count / tile) / M), times the tile, over its rate (1.19 for 5376,
// else 1), is least, ties to the larger tile.
std::uint32_t expectedTileKeys(std::uint32_t sms, SortKey key, SortPath path, std::uint32_t maxCount,
                               std::uint32_t count, bool wideFits) {
    if (is64(key))
        return 4096;
    if (sms == 0)
        return maxCount > (1u << 21) && count > (1u << 21) ? 5376 : 4096;
    const bool onesweep = path == SortPath::Onesweep;
    const double m = sms;
    const struct {
        std::uint32_t tile;
        double rate;
        bool oneRound;
        bool has;
    } shapes[] = {{1024, 1.0, true, onesweep},
                  {2048, 1.0, true, onesweep && maxCount > m * 1024},
                  {4096, 1.0, false, !onesweep || maxCount > m * 2048},
                  {5376, 1.19, false, maxCount > m * 4096},
                  {8192, 1.0, false, onesweep && wideFits && maxCount > m * 4096}};
    std::uint32_t best = 0;
    double bestCost = 0;
    for (const auto &sh : shapes) {
        const double tiles = std::ceil(std::max(count, 1u) / double(sh.tile));
        if (!sh.has || (sh.oneRound && tiles > m))
            continue;
        const double cost = std::ceil(tiles / m) * sh.tile / sh.rate;
        if (best == 0 || cost < bestCost || (cost == bestCost && sh.tile > best)) {
            best = sh.tile;
            bestCost = cost;
        }
    }
    return best;
}

// Tiles a Sorter of 32-bit keys for enough keys may take on `device` (given a multiprocessor
// count): 1024, 2048, 4096, 5376 and, where the device holds a workgroup of 512 and its shared
// memory, 8192 on the Onesweep path; 4096 and 5376 on the ReduceThenScan path. The 512 x 16
// scatter holds 35844 bytes of shared memory: the tile's 8192 keys staged (32 KiB), 128 subgroup
// totals of 8 bytes, 256 digit starts and 256 bases, and the tile index.
bool wideFits(const vkfx::Device &device) {
    const VkPhysicalDeviceLimits &lim = device.properties().limits;
    return lim.maxComputeSharedMemorySize >= 8192 * 4 + 128 * 8 + 512 * 4 + 4 &&
           lim.maxComputeWorkGroupInvocations >= 512 && lim.maxComputeWorkGroupSize[0] >= 512;
}
std::set<std::uint32_t> tilesOfDevice(const vkfx::Device &device, SortPath path) {
    if (path != SortPath::Onesweep)
        return {4096, 5376};
    if (wideFits(device))
        return {1024, 2048, 4096, 5376, 8192};
    return {1024, 2048, 4096, 5376};
}

class SortTest : public GpuTest {
  protected:
    // Sorts the case's keys on the GPU and compares with std::stable_sort.
    void check(const Case &c, std::uint64_t seed) {
        SCOPED_TRACE(c.describe());
        std::mt19937_64 rng(seed);
        SortJob job;
        ASSERT_TRUE(job.upload(c.spec, makeKeys(c.spec.key, c.dist, c.count, rng)));
        // Sorters for up to kCachedCount keys (or c.maxCount) are kept for the test's other cases
        // (creating the pipelines is most of the time on lavapipe); larger ones get maxCount =
        // count + 3.
        const bool cached = c.maxCount != 0 || c.count <= kCachedCount;
        const std::uint32_t maxCount = c.maxCount != 0 ? c.maxCount : cached ? kCachedCount : c.count + 3;
        ASSERT_LE(c.count, maxCount);
        const std::uint32_t sms = vkfx::detail::sortMultiprocessors(ctx().vkfx);
        const auto id = std::make_tuple(c.spec.key, c.spec.order, c.spec.values, c.path, maxCount, sms);
        vkfx::Sorter fresh;
        vkfx::Sorter &sorter = cached ? m_sorters[id] : fresh;
        if (!sorter.valid()) {
            ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx,
                                           {.key = c.spec.key, .order = c.spec.order, .values = c.spec.values,
                                            .maxCount = maxCount, .path = c.path},
                                           &sorter),
                      VK_SUCCESS)
                << vkfx::lastError();
        }
        ASSERT_EQ(sorter.path(), c.path);
        // The documented tile rule (Sorter::tileKeys).
        const std::uint32_t tile = sorter.tileKeys(c.count);
        ASSERT_EQ(tile, expectedTileKeys(sms, c.spec.key, c.path, maxCount, c.count, wideFits(ctx().vkfx)));
        m_tilesSeen.insert(tile);
        VkResult recorded = VK_ERROR_UNKNOWN;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                      hostToCompute(cmd);
                      vkfx::SortInfo info{.keys = {job.k.handle(), 0},
                                          .values = {},
                                          .count = c.count,
                                          .beginBit = c.spec.beginBit,
                                          .endBit = c.spec.endBit};
                      if (c.spec.values != SortValues::None) info.values = {job.v.handle(), 0};
                      recorded = sorter.record(cmd, info);
                      computeToHost(cmd);
                  }),
                  VK_SUCCESS);
        ASSERT_EQ(recorded, VK_SUCCESS) << vkfx::lastError();
        EXPECT_EQ(job.mismatches(c.spec, c.count), 0u) << "of " << c.count << " positions";
    }

    static constexpr std::uint32_t kCachedCount = 70000;
    std::map<std::tuple<SortKey, SortOrder, SortValues, SortPath, std::uint32_t, std::uint32_t>, vkfx::Sorter> m_sorters;
    std::set<std::uint32_t> m_tilesSeen; // tiles of the records check() made
};

const std::uint32_t kSizes[] = {0, 1, 2, 255, 256, 257, 4095, 4096, 4097, 65537};

TEST_F(SortTest, Uint32KeysWithIndicesMatchStableSortForEverySizeAndDistribution) {
    std::uint64_t seed = 1;
    for (SortPath path : kPaths) {
        for (std::uint32_t n : kSizes) {
            for (Dist d : {Dist::Random, Dist::AllEqual, Dist::Sorted, Dist::Reversed, Dist::FewUnique,
                           Dist::TopByte, Dist::BottomByte}) {
                check({.spec = {}, .count = n, .dist = d, .path = path}, seed++);
            }
        }
    }
}

// A Sorter picks its tile shape per record by the count (Sorter::tileKeys; check() asserts the
// rule). With a multiprocessor count pretended through a test hook (4 here, 64 in the next test),
// so that small counts reach every shape: counts that take tiles of 4096 and 5376 keys and, on
// the Onesweep path, 1024, 2048 and (where the device holds a workgroup of 512 and its shared
// memory) 8192, with one Sorter for all.
struct PretendMultiprocessors {
    explicit PretendMultiprocessors(std::uint32_t n) { vkfx::detail::sortMultiprocessorsOverride = n; }
    ~PretendMultiprocessors() { vkfx::detail::sortMultiprocessorsOverride.reset(); }
    PretendMultiprocessors(const PretendMultiprocessors &) = delete;
    PretendMultiprocessors &operator=(const PretendMultiprocessors &) = delete;
};

TEST_F(SortTest, TileShapesByCountMatchStableSort) {
    PretendMultiprocessors m(4);
    std::uint64_t seed = 400;
    for (SortPath path : kPaths) {
        m_tilesSeen.clear();
        for (std::uint32_t n : {2u, 3000u, 4097u, 8192u, 16384u, 16385u, 20000u, 24577u, 32768u, 40000u, 65537u}) {
            for (Dist d : {Dist::Random, Dist::FewUnique, Dist::TopByte, Dist::BottomByte})
                check({.spec = {}, .count = n, .dist = d, .path = path, .maxCount = 70000}, seed++);
        }
        check({.spec = {.key = SortKey::Float32, .order = SortOrder::Descending, .values = SortValues::Bits32},
               .count = 32768,
               .dist = Dist::Random,
               .path = path,
               .maxCount = 70000},
              seed++);
        EXPECT_EQ(m_tilesSeen, tilesOfDevice(ctx().vkfx, path));
    }
}

// The tile rule and the scratch layout at counts around every round boundary of every tile, for
// multiprocessor counts from none to 1000: each record picks a shape its Sorter has (tiles of
// 1024 and 2048 keys only where they fit one round), the scratch of a record of `count` keys
// holds the look-back words the shader zeroes and uses for the shape picked (every pass's, tiles'
// and blocks'), and it is no larger than the scratch for maxCount (the Sorter's own).
TEST(SortLayout, EveryCountPicksAShapeTheSorterHasAndItsScratchHoldsIt) {
    const vkfx::Device &dev = ctx().vkfx;
    const VkDeviceSize align = 256;
    std::mt19937_64 rng(7);
    for (std::uint32_t sms : {0u, 1u, 4u, 132u, 1000u}) {
        for (SortPath path : kPaths) {
            for (SortKey key : {SortKey::Uint32, SortKey::Uint64}) {
                for (std::uint32_t maxCount : {1000u, 65536u, (1u << 20) + 7, 1u << 26}) {
                    SCOPED_TRACE(std::to_string(sms) + " SMs, " + pathName(path) + ", " + keyName(key) +
                                 ", maxCount " + std::to_string(maxCount));
                    const vkfx::SorterCreateInfo info{.key = key, .maxCount = maxCount, .path = path};
                    const vkfx::detail::SortShapes shapes = vkfx::detail::sortShapes(dev, info, path, sms);
                    const VkDeviceSize full =
                        vkfx::detail::sortScratchLayout(info, path, maxCount, shapes, align).size;
                    std::vector<std::uint64_t> counts = {1, 2, maxCount};
                    for (std::uint64_t tile : {1024u, 2048u, 4096u, 5376u, 8192u})
                        for (std::uint64_t r = 1; r <= 3; ++r)
                            for (std::uint64_t c : {r * tile * std::max(sms, 1u) - 1, r * tile * std::max(sms, 1u),
                                                    r * tile * std::max(sms, 1u) + 1})
                                counts.push_back(c);
                    for (int i = 0; i < 20; ++i)
                        counts.push_back(1 + rng() % maxCount);
                    for (std::uint64_t c : counts) {
                        if (c < 1 || c > maxCount)
                            continue;
                        const auto count = static_cast<std::uint32_t>(c);
                        const std::uint32_t i = vkfx::detail::sortPickShape(shapes, count);
                        ASSERT_LT(i, shapes.count) << count;
                        const vkfx::detail::SortShape &sh = shapes.shape[i];
                        const std::uint64_t tiles = (c + sh.tileKeys() - 1) / sh.tileKeys();
                        if (sh.oneRound) {
                            ASSERT_LE(tiles, sms) << count;
                        }
                        const bool onesweep = path == SortPath::Onesweep;
                        const std::uint64_t passes = onesweep ? (is64(key) ? 8 : 4) : 1;
                        const std::uint64_t blocks = onesweep && sh.blockTiles ? (tiles + sh.blockTiles - 1) / sh.blockTiles : 0;
                        const vkfx::detail::SortScratchLayout l =
                            vkfx::detail::sortScratchLayout(info, path, count, shapes, align);
                        EXPECT_GE(l.size - l.tiles, passes * 256 * (tiles + blocks) * 4) << count;
                        EXPECT_GE(l.values - l.keys, c * 4 * (is64(key) ? 2 : 1)) << count;
                        EXPECT_LE(l.size, full) << count;
                    }
                }
            }
        }
    }
}

// Tile shapes with Onesweep's look-back blocks (more than 32 tiles): 64 pretended multiprocessors,
// counts of 33 to 123 tiles of each shape.
TEST_F(SortTest, TileShapesWithBlocksMatchStableSort) {
    PretendMultiprocessors m(64);
    std::uint64_t seed = 450;
    m_tilesSeen.clear();
    for (std::uint32_t n : {40000u, 100000u, 131073u, 262145u, 393216u, 500000u})
        check({.spec = {}, .count = n, .dist = Dist::Random, .path = SortPath::Onesweep, .maxCount = 600000}, seed++);
    check({.spec = {.key = SortKey::Float32, .order = SortOrder::Descending, .values = SortValues::Bits32},
           .count = 393216,
           .dist = Dist::TopByte,
           .path = SortPath::Onesweep,
           .maxCount = 600000},
          seed++);
    EXPECT_EQ(m_tilesSeen, tilesOfDevice(ctx().vkfx, SortPath::Onesweep));
}

// Histogram workgroups count pc.histRows rows of keys, a tile's worth per round, the next round's
// loads issued before this round's atomics (and, for odd pass counts, copies). Pretending 300
// multiprocessors makes tiles of 1024 keys the Sorter's only shape up to 307200 keys, so that
// counts up to 2^18 give each histogram workgroup 2048 keys: two rounds, the last one partial
// where the count ends in it. Pretending 2000 makes 600000 keys 586 tiles, more than 512, where
// the rule asks for at least two workgroups per multiprocessor: fewer keys each than a tile.
TEST_F(SortTest, HistogramWorkgroupsOfSeveralRoundsOrPartOfOneMatchStableSort) {
    std::uint64_t seed = 470;
    // Keys per histogram workgroup and per tile of a record of `count` keys, as the Sorter takes them.
    auto histogramAndTileKeys = [&](std::uint32_t count, std::uint32_t maxCount) {
        const vkfx::SorterCreateInfo info{.maxCount = maxCount, .path = SortPath::Onesweep};
        const std::uint32_t sms = vkfx::detail::sortMultiprocessors(ctx().vkfx);
        const vkfx::detail::SortShapes shapes = vkfx::detail::sortShapes(ctx().vkfx, info, SortPath::Onesweep, sms);
        const vkfx::detail::SortShape &shape = shapes.shape[vkfx::detail::sortPickShape(shapes, count)];
        return std::make_pair(vkfx::detail::sortHistRows(shape, count, sms) * shape.groupSize, shape.tileKeys());
    };
    {
        PretendMultiprocessors m(300);
        for (std::uint32_t n : {70000u, 200000u, 262144u}) {
            const auto [histogram, tile] = histogramAndTileKeys(n, 300000);
            EXPECT_GT(histogram, tile) << n << " keys";
            for (Dist d : {Dist::Random, Dist::FewUnique})
                check({.spec = {}, .count = n, .dist = d, .path = SortPath::Onesweep, .maxCount = 300000}, seed++);
        }
        // Three passes: the histogram also copies keys and values to the scratch, round by round.
        check({.spec = {.endBit = 24}, .count = 200001, .dist = Dist::Random, .path = SortPath::Onesweep, .maxCount = 300000},
              seed++);
        check({.spec = {.key = SortKey::Float32, .order = SortOrder::Descending, .values = SortValues::Bits32},
               .count = 262144,
               .dist = Dist::Specials,
               .path = SortPath::Onesweep,
               .maxCount = 300000},
              seed++);
    }
    {
        PretendMultiprocessors m(2000);
        const auto [histogram, tile] = histogramAndTileKeys(600000, 600000);
        EXPECT_LT(histogram, tile);
        check({.spec = {}, .count = 600000, .dist = Dist::Random, .path = SortPath::Onesweep, .maxCount = 600000}, seed++);
        check({.spec = {.endBit = 24}, .count = 599999, .dist = Dist::TopByte, .path = SortPath::Onesweep, .maxCount = 600000},
              seed++);
    }
}

// Onesweep Sorters of up to 2^21 32-bit keys look back over blocks of 8 tiles where a pass has
// more than 32 tiles of 4096 keys (the block's last tile adds up earlier blocks for the others):
// counts just past that, with a partial last block, sizes that a block boundary cuts, and one
// Sorter for counts with and without blocks.
TEST_F(SortTest, OnesweepBlocksOfTilesMatchStableSort) {
    std::uint64_t seed = 500;
    const std::uint32_t maxCount = 300000;
    for (std::uint32_t n : {131072u, 131073u, 151557u, 163840u, 262145u, 300000u})
        for (Dist d : {Dist::Random, Dist::FewUnique, Dist::AllEqual, Dist::TopByte})
            check({.spec = {}, .count = n, .dist = d, .path = SortPath::Onesweep, .maxCount = maxCount}, seed++);
    for (std::uint32_t n : {4097u, 151557u})
        check({.spec = {.key = SortKey::Float32, .order = SortOrder::Descending, .values = SortValues::Bits32},
               .count = n,
               .dist = Dist::Random,
               .path = SortPath::Onesweep,
               .maxCount = maxCount},
              seed++);
}

TEST_F(SortTest, OneMillionKeysMatchStableSort) {
    for (Dist d : {Dist::Random, Dist::FewUnique, Dist::Reversed})
        check({.spec = {}, .count = 1u << 20, .dist = d, .path = SortPath::Onesweep}, 100 + static_cast<std::uint64_t>(d));
    check({.spec = {}, .count = 1u << 20, .dist = Dist::Random, .path = SortPath::ReduceThenScan}, 110);
}

// 2^24 and 2^26 keys: on GPUs only (minutes on lavapipe).
TEST_F(SortTest, LargeCountsMatchStableSortOnGpus) {
    if (ctx().isCpu()) GTEST_SKIP() << "2^24 and 2^26 keys run on GPUs only";
    for (SortPath path : kPaths) {
        check({.spec = {}, .count = 1u << 24, .dist = Dist::Random, .path = path}, 200);
        check({.spec = {.key = SortKey::Float32}, .count = 1u << 26, .dist = Dist::Specials, .path = path}, 201);
    }
    check({.spec = {.key = SortKey::Uint64, .values = SortValues::Bits64}, .count = 1u << 24, .dist = Dist::Random}, 202);
}

// Each key type (a test of its own, so that ctest can run a subset: the "test-sg4" preset takes
// one of each key width), with every order and value width.
class SortKeyTypes : public SortTest, public ::testing::WithParamInterface<SortKey> {};

TEST_P(SortKeyTypes, EveryOrderAndValueWidth) {
    const SortKey k = GetParam();
    std::uint64_t seed = 1000 + 100 * static_cast<std::uint64_t>(k);
    for (SortOrder o : {SortOrder::Ascending, SortOrder::Descending}) {
        for (SortValues v : {SortValues::None, SortValues::Bits32, SortValues::Bits64}) {
            // One path per combination, alternating along each of the three axes: every key
            // type, order and value width runs on both paths, and so does every pair of them
            // (each combination is a pipeline to compile: seconds on lavapipe).
            const auto axes =
                static_cast<unsigned>(k) + static_cast<unsigned>(o) + static_cast<unsigned>(v);
            const SortPath path = kPaths[axes % 2];
            for (std::uint32_t n : {257u, 9000u}) {
                // Top byte, bottom byte, all equal: passes whose digit every key shares only
                // copy, with the key transforms of a first or last pass.
                for (Dist d : {Dist::Random, Dist::FewUnique, Dist::Specials, Dist::TopByte,
                               Dist::BottomByte, Dist::AllEqual}) {
                    if (n == 257u &&
                        (d == Dist::TopByte || d == Dist::BottomByte || d == Dist::AllEqual))
                        continue;
                    check({.spec = {.key = k, .order = o, .values = v},
                           .count = n,
                           .dist = d,
                           .path = path},
                          seed);
                    ++seed;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(, SortKeyTypes,
                         ::testing::Values(SortKey::Uint32, SortKey::Int32, SortKey::Float32,
                                           SortKey::Uint64, SortKey::Int64, SortKey::Float64),
                         [](const ::testing::TestParamInfo<SortKey> &p) {
                             return std::string(keyName(p.param));
                         });

// Bit ranges sort by the selected bits only (stably: equal selected bits keep input order), with
// one pass per 8 bits; odd pass counts end in the caller's buffers too.
TEST_F(SortTest, BitRangesSortBySelectedBitsOnly) {
    struct Range {
        SortKey key;
        std::uint32_t begin, end;
    } ranges[] = {{SortKey::Uint32, 0, 24}, {SortKey::Uint32, 8, 16}, {SortKey::Uint32, 4, 13},
                  {SortKey::Uint32, 31, 32}, {SortKey::Uint32, 0, 1},   {SortKey::Float32, 16, 32},
                  {SortKey::Uint64, 0, 40},  {SortKey::Uint64, 20, 44}, {SortKey::Uint64, 32, 64},
                  {SortKey::Uint64, 60, 64}, {SortKey::Int64, 3, 61}};
    std::uint64_t seed = 3000;
    for (SortPath path : kPaths) {
        for (const Range &r : ranges) {
            for (SortOrder o : {SortOrder::Ascending, SortOrder::Descending}) {
                check({.spec = {.key = r.key, .order = o, .values = SortValues::Bits32, .beginBit = r.begin,
                                .endBit = r.end},
                       .count = 9001,
                       .dist = Dist::Random,
                       .path = path},
                      seed++);
            }
        }
    }
}

TEST_F(SortTest, AutoPathFollowsTheDocumentedRule) {
    vkfx::Sorter sorter;
    ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx, {.maxCount = 100}, &sorter), VK_SUCCESS) << vkfx::lastError();
    const VkPhysicalDeviceProperties &p = ctx().vkfx.properties();
    const bool gpu = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
                     p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
    const bool onesweep = (gpu && (p.vendorID == 0x10DE || p.vendorID == 0x1002 || p.vendorID == 0x8086)) ||
                          p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    EXPECT_EQ(sorter.path(), onesweep ? SortPath::Onesweep : SortPath::ReduceThenScan);
}

TEST_F(SortTest, TwoSortsInOneCommandBufferWithCallerScratchOfGarbage) {
    const std::uint32_t n = 10000;
    for (SortPath path : kPaths) {
        SCOPED_TRACE(pathName(path));
        vkfx::SorterCreateInfo ci{.key = SortKey::Float32, .values = SortValues::Bits32, .maxCount = n, .path = path,
                                  .ownScratch = false};
        vkfx::Sorter sorter;
        ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx, ci, &sorter), VK_SUCCESS) << vkfx::lastError();
        vkfx::ScratchRequirements req = vkfx::Sorter::scratchRequirements(ctx().vkfx, ci, n);
        ASSERT_GT(req.size, VkDeviceSize{n} * 8);
        Buffer scratch;
        ASSERT_EQ(scratch.create(req.size + req.alignment, req.usage), VK_SUCCESS);
        std::mt19937_64 rng(7);
        for (VkDeviceSize i = 0; i < scratch.size(); ++i) scratch.data()[i] = static_cast<std::uint8_t>(rng());
        scratch.flush();
        const SortSpec spec{.key = SortKey::Float32};
        SortJob jobs[2];
        for (SortJob &j : jobs) ASSERT_TRUE(j.upload(spec, makeKeys(SortKey::Float32, Dist::Specials, n, rng)));
        VkResult r[2] = {VK_ERROR_UNKNOWN, VK_ERROR_UNKNOWN};
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                      hostToCompute(cmd);
                      for (int i = 0; i < 2; ++i) {
                          r[i] = sorter.record(cmd, {.keys = {jobs[i].k.handle(), 0},
                                                     .values = {jobs[i].v.handle(), 0},
                                                     .count = n,
                                                     .scratchBuffer = scratch.handle(),
                                                     .scratchOffset = req.alignment,
                                                     .scratchSize = req.size});
                      }
                      computeToHost(cmd);
                  }),
                  VK_SUCCESS);
        for (int i = 0; i < 2; ++i) {
            ASSERT_EQ(r[i], VK_SUCCESS) << vkfx::lastError();
            EXPECT_EQ(jobs[i].mismatches(spec, n), 0u) << "sort " << i;
        }
    }
}

// The count comes from a buffer filled by an earlier command (never read back): smaller than the
// capacity, 0, 1, the capacity, and above it (clamped to maxCount).
TEST_F(SortTest, IndirectCountsSortExactlyThatManyKeys) {
    const std::uint32_t capacity = 9000;
    const SortSpec spec{.key = SortKey::Int32};
    for (SortPath path : kPaths) {
        vkfx::Sorter sorter;
        ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx,
                                       {.key = SortKey::Int32, .values = SortValues::Bits32, .maxCount = capacity,
                                        .path = path},
                                       &sorter),
                  VK_SUCCESS)
            << vkfx::lastError();
        std::mt19937_64 rng(11);
        for (std::uint32_t n : {0u, 1u, 2u, 777u, 4097u, capacity, capacity + 100}) {
            SCOPED_TRACE(std::string(pathName(path)) + " indirect count " + std::to_string(n));
            SortJob job;
            ASSERT_TRUE(job.upload(spec, makeKeys(SortKey::Int32, Dist::FewUnique, capacity + 100, rng)));
            Buffer count;
            ASSERT_EQ(count.create(4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT),
                      VK_SUCCESS);
            VkResult recorded = VK_ERROR_UNKNOWN;
            ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                          vkCmdFillBuffer(cmd, count.handle(), 0, 4, n);
                          memoryBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                        VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
                          recorded = sorter.recordIndirect(cmd, {.keys = {job.k.handle(), 0},
                                                                 .values = {job.v.handle(), 0},
                                                                 .countBuffer = {count.handle(), 0}});
                          computeToHost(cmd);
                      }),
                      VK_SUCCESS);
            ASSERT_EQ(recorded, VK_SUCCESS) << vkfx::lastError();
            // The first min(n, capacity) keys sorted, the rest untouched.
            EXPECT_EQ(job.mismatches(spec, std::min(n, capacity)), 0u);
        }
    }
}

// --- bad input: a VkResult and a reason, nothing recorded ------------------------------------

class SortBadInput : public GpuTest {
  protected:
    void SetUp() override {
        GpuTest::SetUp();
        ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx, {.values = SortValues::Bits32, .maxCount = 1000}, &sorter), VK_SUCCESS);
        ASSERT_EQ(keys.create(4096 * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), VK_SUCCESS);
        ASSERT_EQ(values.create(4096 * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), VK_SUCCESS);
    }
    // Records `info` into a fresh command buffer, submits it and expects a failure whose reason
    // mentions `what`, with the keys and values as they were (nothing recorded).
    void expectRejected(const vkfx::SortInfo &info, const char *what, const vkfx::Sorter *s = nullptr) {
        expectNothingRecorded(what, [&](VkCommandBuffer cmd) { return (s ? s : &sorter)->record(cmd, info); });
    }
    void expectNothingRecorded(const char *what, const std::function<VkResult(VkCommandBuffer)> &record) {
        // Descending words: any sort of them, or any pass over them, changes them.
        for (Buffer *b : {&keys, &values}) {
            auto *w = reinterpret_cast<std::uint32_t *>(b->data());
            for (std::size_t i = 0; i < b->size() / 4; ++i)
                w[i] = 0xF0000000u - static_cast<std::uint32_t>(i) * 7919u;
            b->flush();
        }
        VkResult result = VK_SUCCESS;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) { result = record(cmd); }), VK_SUCCESS);
        EXPECT_EQ(result, VK_ERROR_VALIDATION_FAILED_EXT);
        EXPECT_NE(std::string(vkfx::lastError()).find(what), std::string::npos) << vkfx::lastError();
        for (Buffer *b : {&keys, &values}) {
            b->invalidate();
            const auto *w = reinterpret_cast<const std::uint32_t *>(b->data());
            std::size_t changed = 0;
            for (std::size_t i = 0; i < b->size() / 4; ++i)
                changed += w[i] != 0xF0000000u - static_cast<std::uint32_t>(i) * 7919u ? 1u : 0u;
            EXPECT_EQ(changed, 0u) << "a failed record wrote " << changed << " words";
        }
    }
    vkfx::SortInfo good() const { return {.keys = {keys.handle(), 0}, .values = {values.handle(), 0}, .count = 1000}; }

    vkfx::Sorter sorter;
    Buffer keys, values;
};

TEST_F(SortBadInput, MaxCountZeroOrTooLargeIsRejected) {
    vkfx::Sorter s;
    EXPECT_EQ(vkfx::Sorter::create(ctx().vkfx, {.maxCount = 0}, &s), VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_NE(std::string(vkfx::lastError()).find("maxCount"), std::string::npos);
    EXPECT_EQ(vkfx::Sorter::create(ctx().vkfx, {.maxCount = vkfx::Sorter::kMaxCount + 1}, &s),
              VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_FALSE(s.valid());
}

TEST_F(SortBadInput, CountAboveCapacityIsRejected) {
    vkfx::SortInfo info = good();
    info.count = 1001;
    expectRejected(info, "maxCount");
}

TEST_F(SortBadInput, NullKeysIsRejected) {
    vkfx::SortInfo info = good();
    info.keys.buffer = VK_NULL_HANDLE;
    expectRejected(info, "keys.buffer");
}

TEST_F(SortBadInput, MissingValuesIsRejected) {
    vkfx::SortInfo info = good();
    info.values = {};
    expectRejected(info, "values");
}

TEST_F(SortBadInput, MisalignedOffsetIsRejected) {
    vkfx::SortInfo info = good();
    info.keys.offset = 2;
    expectRejected(info, "multiples");
}

TEST_F(SortBadInput, OverlappingKeysAndValuesAreRejected) {
    vkfx::SortInfo info = good();
    info.values = {keys.handle(), 0};
    expectRejected(info, "overlap");
}

TEST_F(SortBadInput, TooSmallOrOverlappingScratchIsRejected) {
    vkfx::SortInfo info = good();
    info.scratchBuffer = values.handle();
    info.scratchSize = 64;
    expectRejected(info, "too small");
    info.scratchBuffer = keys.handle();
    info.scratchSize = VK_WHOLE_SIZE;
    expectRejected(info, "overlaps");
}

TEST_F(SortBadInput, MisalignedScratchIsRejected) {
    vkfx::SortInfo info = good();
    info.scratchBuffer = values.handle();
    info.scratchOffset = 2;
    expectRejected(info, "scratchOffset");
}

TEST_F(SortBadInput, NoScratchIsRejected) {
    vkfx::Sorter s;
    ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx, {.maxCount = 1000, .ownScratch = false}, &s), VK_SUCCESS);
    expectRejected({.keys = {keys.handle(), 0}, .values = {}, .count = 1000}, "scratch", &s);
}

TEST_F(SortBadInput, IndirectWithoutCountBufferOrMisalignedIsRejected) {
    expectNothingRecorded("countBuffer", [&](VkCommandBuffer cmd) {
        return sorter.recordIndirect(cmd, {.keys = {keys.handle(), 0}, .values = {values.handle(), 0}, .countBuffer = {}});
    });
    Buffer count;
    ASSERT_EQ(count.create(256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), VK_SUCCESS);
    expectNothingRecorded("countBuffer.offset", [&](VkCommandBuffer cmd) {
        return sorter.recordIndirect(cmd, {.keys = {keys.handle(), 0}, .values = {values.handle(), 0},
                                           .countBuffer = {count.handle(), 2}});
    });
}

TEST_F(SortBadInput, ValuesForASorterWithoutValuesAreRejected) {
    vkfx::Sorter s;
    ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx, {.maxCount = 1000}, &s), VK_SUCCESS);
    expectRejected(good(), "created without values", &s);
}

TEST_F(SortBadInput, UnknownKeyOrOrderAndNullOutputAreRejected) {
    vkfx::Sorter s;
    EXPECT_EQ(vkfx::Sorter::create(ctx().vkfx, {.key = static_cast<vkfx::SortKey>(9), .maxCount = 10}, &s),
              VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_NE(std::string(vkfx::lastError()).find("key"), std::string::npos) << vkfx::lastError();
    EXPECT_EQ(vkfx::Sorter::create(ctx().vkfx, {.order = static_cast<vkfx::SortOrder>(9), .maxCount = 10}, &s),
              VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_NE(std::string(vkfx::lastError()).find("order"), std::string::npos) << vkfx::lastError();
    EXPECT_FALSE(s.valid());
    EXPECT_EQ(vkfx::Sorter::create(ctx().vkfx, {.maxCount = 10}, nullptr), VK_ERROR_VALIDATION_FAILED_EXT);
}

TEST_F(SortBadInput, RecordOnASorterNeverCreatedIsRejected) {
    const vkfx::Sorter never;
    expectRejected(good(), "not created", &never);
}

// Every pass reads the count again while the keys, values and scratch are written: a count word
// inside their ranges (of maxCount keys) is rejected.
TEST_F(SortBadInput, IndirectCountInsideKeysValuesOrScratchIsRejected) {
    const vkfx::ScratchRequirements req =
        vkfx::Sorter::scratchRequirements(ctx().vkfx, {.values = SortValues::Bits32, .maxCount = 1000}, 1000);
    Buffer scratch;
    ASSERT_EQ(scratch.create(req.size + 4096, req.usage), VK_SUCCESS);
    const vkfx::SortBuffer counts[] = {{keys.handle(), 256}, {values.handle(), 256}, {scratch.handle(), 0}};
    for (const vkfx::SortBuffer &count : counts) {
        expectNothingRecorded("countBuffer's word", [&](VkCommandBuffer cmd) {
            return sorter.recordIndirect(cmd, {.keys = {keys.handle(), 0},
                                               .values = {values.handle(), 0},
                                               .countBuffer = count,
                                               .scratchBuffer = scratch.handle()});
        });
    }
}

TEST_F(SortBadInput, EmptyOrOutOfRangeBitRangeIsRejected) {
    vkfx::SortInfo info = good();
    info.beginBit = 8;
    info.endBit = 8;
    expectRejected(info, "bit range");
    info.beginBit = 0;
    info.endBit = 33;
    expectRejected(info, "bit range");
}

TEST_F(SortBadInput, UnknownValuesOrPathIsRejected) {
    vkfx::Sorter s;
    EXPECT_EQ(vkfx::Sorter::create(ctx().vkfx, {.values = static_cast<SortValues>(3), .maxCount = 10}, &s),
              VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_NE(std::string(vkfx::lastError()).find("values"), std::string::npos);
    EXPECT_EQ(vkfx::Sorter::create(ctx().vkfx, {.maxCount = 10, .path = static_cast<SortPath>(7)}, &s),
              VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_NE(std::string(vkfx::lastError()).find("path"), std::string::npos);
    EXPECT_FALSE(s.valid());
}

TEST_F(SortBadInput, NullCommandBufferIsRejected) {
    EXPECT_EQ(sorter.record(VK_NULL_HANDLE, good()), VK_ERROR_VALIDATION_FAILED_EXT);
}

// A look-back that stops waiting counts the earlier tile's keys itself. With no polls allowed
// that happens whenever a tile looks back at one that has not published yet.
TEST_F(SortTest, OnesweepLookBackThatStopsWaitingCountsTheKeysItself) {
    struct NoPolls {
        NoPolls() { vkfx::detail::sortLookBackPollsOverride = 0u; }
        ~NoPolls() { vkfx::detail::sortLookBackPollsOverride.reset(); }
    } noPolls; // the Sorters below are created with it
    std::uint64_t seed = 300;
    const std::uint32_t large = ctx().isCpu() ? 1u << 20 : 1u << 24;
    for (SortValues values : {SortValues::None, SortValues::Bits32}) {
        for (Dist d : {Dist::Random, Dist::FewUnique, Dist::Sorted})
            check({.spec = {.values = values}, .count = 65537, .dist = d, .path = SortPath::Onesweep}, seed++);
        // Blocks of tiles (more than 32 tiles of 4096 keys): the wait for a block's word stops too.
        check({.spec = {.values = values}, .count = 151557, .dist = Dist::Random, .path = SortPath::Onesweep}, seed++);
        check({.spec = {.key = SortKey::Float32, .order = SortOrder::Descending, .values = values},
               .count = large,
               .dist = Dist::Random,
               .path = SortPath::Onesweep},
              seed++);
    }
}

} // namespace
