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
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace vkfx_test;
using vkfx::SortKey;
using vkfx::SortOrder;

const char *keyName(SortKey k) {
    switch (k) {
    case SortKey::Uint32: return "uint32";
    case SortKey::Int32: return "int32";
    case SortKey::Float32: return "float32";
    default: break;
    }
    return "?";
}

// Strict weak order of two keys' bits for `type`, ascending.
bool keyLess(SortKey type, std::uint32_t a, std::uint32_t b) {
    switch (type) {
    case SortKey::Uint32:
        return a < b;
    case SortKey::Int32:
        return static_cast<std::int32_t>(a) < static_cast<std::int32_t>(b);
    case SortKey::Float32: {
        // Class: 0 negative NaN, 1 number, 2 positive NaN.
        auto cls = [](std::uint32_t u) {
            float f = std::bit_cast<float>(u);
            if (!std::isnan(f)) return 1;
            return (u >> 31) != 0 ? 0 : 2;
        };
        int ca = cls(a), cb = cls(b);
        if (ca != cb) return ca < cb;
        if (ca == 0) return a > b; // negative NaNs: larger payload first
        if (ca == 2) return a < b;
        float fa = std::bit_cast<float>(a), fb = std::bit_cast<float>(b);
        if (fa == fb) return std::signbit(fa) && !std::signbit(fb); // -0.0 before +0.0
        return fa < fb;
    }
    default: break;
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

std::vector<std::uint32_t> makeKeys(SortKey type, Dist dist, std::uint32_t n, std::mt19937 &rng) {
    std::vector<std::uint32_t> k(n);
    auto next = [&] { return static_cast<std::uint32_t>(rng()); };
    std::uint32_t base = next();
    for (std::uint32_t i = 0; i < n; ++i) {
        switch (dist) {
        case Dist::Random: k[i] = next(); break;
        case Dist::AllEqual: k[i] = base; break;
        case Dist::Sorted:
        case Dist::Reversed: k[i] = next(); break;
        case Dist::FewUnique: k[i] = base ^ (next() % 7u) * 0x01010101u; break;
        case Dist::TopByte: k[i] = (base & 0x00FFFFFFu) | (next() << 24); break;
        case Dist::BottomByte: k[i] = (base & 0xFFFFFF00u) | (next() & 0xFFu); break;
        case Dist::Specials: {
            static const std::uint32_t specials[] = {
                0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
                0x7F800001u, 0xFF800001u, 0x00000001u, 0x80000001u, 0x3F800000u, 0xBF800000u,
                0x7F7FFFFFu, 0xFF7FFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu};
            k[i] = next() % 3u == 0 ? next() : specials[next() % 16u];
            break;
        }
        }
    }
    if (dist == Dist::Sorted || dist == Dist::Reversed) {
        std::stable_sort(k.begin(), k.end(), [&](std::uint32_t a, std::uint32_t b) { return keyLess(type, a, b); });
        if (dist == Dist::Reversed) std::reverse(k.begin(), k.end());
    }
    return k;
}

// Keys and their input indices (the values) in host-visible storage buffers, and the check of
// what a sort left there.
struct SortJob {
    std::vector<std::uint32_t> keys, order;
    Buffer k, v;

    // Uploads `input` and the indices 0..n-1.
    ::testing::AssertionResult upload(std::vector<std::uint32_t> input) {
        keys = std::move(input);
        order.resize(keys.size());
        std::iota(order.begin(), order.end(), 0u);
        const VkDeviceSize bytes = std::max<VkDeviceSize>(VkDeviceSize{keys.size()} * 4, 4);
        if (k.create(bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) != VK_SUCCESS ||
            v.create(bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) != VK_SUCCESS)
            return ::testing::AssertionFailure() << "creating the key / value buffers failed";
        std::memcpy(k.data(), keys.data(), keys.size() * 4);
        std::memcpy(v.data(), order.data(), order.size() * 4);
        k.flush();
        v.flush();
        return ::testing::AssertionSuccess();
    }

    // Positions that differ from the expected result: the first `sorted` inputs stably sorted by
    // `type` in `dir`, with their indices when `values`, then the other inputs untouched. Reports
    // the first five.
    std::size_t mismatches(SortKey type, SortOrder dir, bool values, std::size_t sorted) {
        std::vector<std::uint32_t> expected(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(sorted));
        std::stable_sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) {
            return dir == SortOrder::Ascending ? keyLess(type, keys[a], keys[b]) : keyLess(type, keys[b], keys[a]);
        });
        expected.insert(expected.end(), order.begin() + static_cast<std::ptrdiff_t>(sorted), order.end());
        k.invalidate();
        v.invalidate();
        const auto *gotKeys = reinterpret_cast<const std::uint32_t *>(k.data());
        const auto *gotValues = reinterpret_cast<const std::uint32_t *>(v.data());
        std::size_t bad = 0;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const std::uint32_t want = keys[expected[i]];
            const bool ok = gotKeys[i] == want && (!values || gotValues[i] == expected[i]);
            if (!ok && bad++ < 5) {
                ADD_FAILURE() << "position " << i << ": key 0x" << std::hex << gotKeys[i] << " value " << std::dec
                              << (values ? gotValues[i] : 0) << ", expected key 0x" << std::hex << want
                              << " value " << std::dec << expected[i];
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

struct Case {
    SortKey key = SortKey::Uint32;
    SortOrder order = SortOrder::Ascending;
    bool values = true;
    std::uint32_t count = 0;
    Dist dist = Dist::Random;
    vkfx::SortPath path = vkfx::SortPath::Auto;

    std::string describe() const {
        return std::string(path == vkfx::SortPath::Onesweep ? "onesweep " : path == vkfx::SortPath::ReduceThenScan ? "reduce-then-scan " : "") + keyName(key) + (order == SortOrder::Descending ? " descending" : " ascending") +
               (values ? " +values" : "") + " n=" + std::to_string(count) + " " + distName(dist);
    }
};

class SortTest : public GpuTest {
  protected:
    // Sorts the case's keys on the GPU (a fresh Sorter with maxCount = count + 3) and compares
    // with std::stable_sort; values are the input indices.
    void check(const Case &c, std::uint32_t seed) {
        SCOPED_TRACE(c.describe());
        std::mt19937 rng(seed);
        SortJob job;
        ASSERT_TRUE(job.upload(makeKeys(c.key, c.dist, c.count, rng)));
        vkfx::Sorter sorter;
        ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx, {.key = c.key, .order = c.order,
                                                    .values = c.values ? vkfx::SortValues::Bits32 : vkfx::SortValues::None,
                                                    .maxCount = c.count + 3, .path = c.path},
                                       &sorter),
                  VK_SUCCESS)
            << vkfx::lastError();
        VkResult recorded = VK_ERROR_UNKNOWN;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                      hostToCompute(cmd);
                      vkfx::SortInfo info{.keys = {job.k.handle(), 0}, .values = {}, .count = c.count};
                      if (c.values) info.values = {job.v.handle(), 0};
                      recorded = sorter.record(cmd, info);
                      computeToHost(cmd);
                  }),
                  VK_SUCCESS);
        ASSERT_EQ(recorded, VK_SUCCESS) << vkfx::lastError();
        EXPECT_EQ(job.mismatches(c.key, c.order, c.values, c.count), 0u) << "of " << c.count << " positions";
    }
};

const std::uint32_t kSizes[] = {0, 1, 2, 255, 256, 257, 4095, 4096, 4097, 65537};

TEST_F(SortTest, Uint32KeysWithIndicesMatchStableSortForEverySizeAndDistribution) {
    std::uint32_t seed = 1;
    for (vkfx::SortPath path : {vkfx::SortPath::Onesweep, vkfx::SortPath::ReduceThenScan}) {
        for (std::uint32_t n : kSizes) {
            for (Dist d : {Dist::Random, Dist::AllEqual, Dist::Sorted, Dist::Reversed, Dist::FewUnique,
                           Dist::TopByte, Dist::BottomByte}) {
                check({.key = SortKey::Uint32, .values = true, .count = n, .dist = d, .path = path}, seed++);
            }
        }
    }
}

TEST_F(SortTest, OneMillionKeysMatchStableSort) {
    for (Dist d : {Dist::Random, Dist::FewUnique, Dist::Reversed})
        check({.key = SortKey::Uint32, .values = true, .count = 1u << 20, .dist = d}, 100 + static_cast<std::uint32_t>(d));
}

// 2^24 and 2^26 keys: on GPUs only (minutes on lavapipe).
TEST_F(SortTest, LargeCountsMatchStableSortOnGpus) {
    if (ctx().isCpu()) GTEST_SKIP() << "2^24 and 2^26 keys run on GPUs only";
    check({.key = SortKey::Uint32, .values = true, .count = 1u << 24, .dist = Dist::Random}, 200);
    check({.key = SortKey::Float32, .values = true, .count = 1u << 26, .dist = Dist::Specials}, 201);
}

TEST_F(SortTest, EveryKeyTypeAndOrderWithAndWithoutValues) {
    std::uint32_t seed = 1000;
    for (SortKey k : {SortKey::Uint32, SortKey::Int32, SortKey::Float32}) {
        for (SortOrder o : {SortOrder::Ascending, SortOrder::Descending}) {
            for (bool values : {true, false}) {
                for (std::uint32_t n : {257u, 4097u, 20000u}) {
                    for (Dist d : {Dist::Random, Dist::FewUnique, Dist::Specials})
                        check({.key = k, .order = o, .values = values, .count = n, .dist = d}, seed++);
                }
            }
        }
    }
}

TEST_F(SortTest, TwoSortsInOneCommandBufferWithCallerScratchOfGarbage) {
    const std::uint32_t n = 10000;
    vkfx::SorterCreateInfo ci{.key = SortKey::Float32, .values = vkfx::SortValues::Bits32, .maxCount = n, .ownScratch = false};
    vkfx::Sorter sorter;
    ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx, ci, &sorter), VK_SUCCESS) << vkfx::lastError();
    vkfx::ScratchRequirements req = vkfx::Sorter::scratchRequirements(ctx().vkfx, ci, n);
    ASSERT_GT(req.size, VkDeviceSize{n} * 8);
    Buffer scratch;
    ASSERT_EQ(scratch.create(req.size + req.alignment, req.usage), VK_SUCCESS);
    std::mt19937 rng(7);
    for (VkDeviceSize i = 0; i < scratch.size(); ++i) scratch.data()[i] = static_cast<std::uint8_t>(rng());
    scratch.flush();
    SortJob jobs[2];
    for (SortJob &j : jobs) ASSERT_TRUE(j.upload(makeKeys(SortKey::Float32, Dist::Specials, n, rng)));
    VkResult r[2] = {VK_ERROR_UNKNOWN, VK_ERROR_UNKNOWN};
    ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                  hostToCompute(cmd);
                  for (int i = 0; i < 2; ++i) {
                      r[i] = sorter.record(cmd, {.keys = {jobs[i].k.handle(), 0}, .values = {jobs[i].v.handle(), 0},
                                                 .count = n, .scratchBuffer = scratch.handle(),
                                                 .scratchOffset = req.alignment, .scratchSize = req.size});
                  }
                  computeToHost(cmd);
              }),
              VK_SUCCESS);
    for (int i = 0; i < 2; ++i) {
        ASSERT_EQ(r[i], VK_SUCCESS) << vkfx::lastError();
        EXPECT_EQ(jobs[i].mismatches(SortKey::Float32, SortOrder::Ascending, true, n), 0u) << "sort " << i;
    }
}

// The count comes from a buffer filled by an earlier command (never read back): smaller than the
// capacity, 0, 1, the capacity, and above it (clamped to maxCount).
TEST_F(SortTest, IndirectCountsSortExactlyThatManyKeys) {
    const std::uint32_t capacity = 5000;
    vkfx::Sorter sorter;
    ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx, {.key = SortKey::Int32, .values = vkfx::SortValues::Bits32, .maxCount = capacity}, &sorter),
              VK_SUCCESS)
        << vkfx::lastError();
    std::mt19937 rng(11);
    for (std::uint32_t n : {0u, 1u, 2u, 777u, 2049u, capacity, capacity + 100}) {
        SCOPED_TRACE("indirect count " + std::to_string(n));
        SortJob job;
        ASSERT_TRUE(job.upload(makeKeys(SortKey::Int32, Dist::FewUnique, capacity + 100, rng)));
        Buffer count;
        ASSERT_EQ(count.create(4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT), VK_SUCCESS);
        VkResult recorded = VK_ERROR_UNKNOWN;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                      vkCmdFillBuffer(cmd, count.handle(), 0, 4, n);
                      memoryBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                    VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
                      recorded = sorter.recordIndirect(cmd, {.keys = {job.k.handle(), 0}, .values = {job.v.handle(), 0},
                                                             .countBuffer = {count.handle(), 0}});
                      computeToHost(cmd);
                  }),
                  VK_SUCCESS);
        ASSERT_EQ(recorded, VK_SUCCESS) << vkfx::lastError();
        // The first min(n, capacity) keys sorted, the rest untouched.
        EXPECT_EQ(job.mismatches(SortKey::Int32, SortOrder::Ascending, true, std::min(n, capacity)), 0u);
    }
}

// --- bad input: a VkResult and a reason, nothing recorded ------------------------------------

class SortBadInput : public GpuTest {
  protected:
    void SetUp() override {
        GpuTest::SetUp();
        ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx, {.values = vkfx::SortValues::Bits32, .maxCount = 1000}, &sorter), VK_SUCCESS);
        ASSERT_EQ(keys.create(4096 * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), VK_SUCCESS);
        ASSERT_EQ(values.create(4096 * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), VK_SUCCESS);
    }
    // Records `info` into a fresh command buffer (never submitted) and expects a failure whose
    // reason mentions `what`.
    void expectRejected(const vkfx::SortInfo &info, const char *what, const vkfx::Sorter *s = nullptr) {
        VkResult result = VK_SUCCESS;
        ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) { result = (s ? s : &sorter)->record(cmd, info); }), VK_SUCCESS);
        EXPECT_EQ(result, VK_ERROR_VALIDATION_FAILED_EXT);
        EXPECT_NE(std::string(vkfx::lastError()).find(what), std::string::npos) << vkfx::lastError();
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

TEST_F(SortBadInput, NoScratchIsRejected) {
    vkfx::Sorter s;
    ASSERT_EQ(vkfx::Sorter::create(ctx().vkfx, {.maxCount = 1000, .ownScratch = false}, &s), VK_SUCCESS);
    expectRejected({.keys = {keys.handle(), 0}, .values = {}, .count = 1000}, "scratch", &s);
}

TEST_F(SortBadInput, IndirectWithoutCountBufferIsRejected) {
    VkResult result = VK_SUCCESS;
    ASSERT_EQ(submitAndWait([&](VkCommandBuffer cmd) {
                  result = sorter.recordIndirect(cmd, {.keys = {keys.handle(), 0}, .values = {values.handle(), 0},
                                                       .countBuffer = {}});
              }),
              VK_SUCCESS);
    EXPECT_EQ(result, VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_NE(std::string(vkfx::lastError()).find("countBuffer"), std::string::npos) << vkfx::lastError();
}

TEST_F(SortBadInput, NullCommandBufferIsRejected) {
    EXPECT_EQ(sorter.record(VK_NULL_HANDLE, good()), VK_ERROR_VALIDATION_FAILED_EXT);
}

} // namespace
