// Implementation of vkfx/sort.hpp. Include that header, not this one.
#pragma once

#include <vkfx/sort.hpp>

#include <optional>

namespace vkfx {
namespace detail {

// Whether `aBytes` bytes at aOffset of buffer a and `bBytes` at bOffset of buffer b share a byte.
inline bool rangesOverlap(VkBuffer a, VkDeviceSize aOffset, VkDeviceSize aBytes, VkBuffer b, VkDeviceSize bOffset,
                          VkDeviceSize bBytes)
{
    return a == b && aOffset < bOffset + bBytes && bOffset < aOffset + aBytes;
}

// Bindings of shaders/sort/radix.comp.
inline constexpr std::uint32_t kSortBindings = 7; // keys in/out, values in/out, state, tile words, count
inline constexpr std::uint32_t kSortFlagFirst = 1;
inline constexpr std::uint32_t kSortFlagLast = 2;
inline constexpr std::uint32_t kSortFlagIndirect = 4;
inline constexpr std::uint32_t kSortFlagCopy = 8;
inline constexpr std::uint32_t kSortMaxPasses = 8;
// State words: histograms, tickets, then dispatch sizes (histogram xyz, tiles xyz).
inline constexpr std::uint32_t kSortDispatchWord = kSortMaxPasses * 256 + kSortMaxPasses;
inline constexpr VkDeviceSize kSortStateBytes = (kSortDispatchWord + 6) * 4;

struct SortPush {
    std::uint32_t count;
    std::uint32_t flags;
    std::uint32_t pass;
    std::uint32_t passes;
    std::uint32_t beginBit;
    std::uint32_t endBit;
    std::uint32_t histRows;
};

inline std::uint32_t sortKeyWords(SortKey k) { return k >= SortKey::Uint64 ? 2u : 1u; }
inline std::uint32_t sortValueWords(SortValues v) { return static_cast<std::uint32_t>(v); }

// A tile shape: workgroup size (radix.comp's specialization constant 6), keys per invocation (7)
// and look-back blocks (8); a tile is groupSize x keysPerInvocation keys.
//
// The scatter kernel's chain of steps per tile bounds a pass, so what counts is how many warps an
// SM holds and how many rounds of tiles each SM runs. On an H200 the scatter takes 91 registers at
// 256 x 16 (two workgroups of 8 warps per SM), 80 at 384 x 14 (two of 12), and 512 x 16 runs one
// workgroup of 16 warps per SM. Where every SM is busy for many rounds 384 x 14 is fastest: 2^24
// uint32 keys 654 us against 777 (256 x 16) and 811 (512 x 16); with one to a few rounds, the
// rounds each SM runs decide (sortPickShape; docs/sort-performance.md, v15 and v20). Tiles of
// 2048 and 1024 keys (256 x 8, 256 x 4) shorten the chain where a pass is a single round of
// them, and lose where it is more: 2^19 uint32 keys 58.4 us with 256 x 16, 60.6 with 256 x 8 (two
// rounds), 82.6 with 256 x 4 (four) (v22).
//
// Onesweep's look-back: all but 384 x 14 group tiles in blocks of 8 where a pass has more than 32
// tiles (the last tile of each block adds up earlier blocks for the others). With one wave of
// tiles that publish their counts at about the same time, a walk over the tiles before each took
// the last ones many reads of words that every tile read: blocks made 2^20 uint32 and float32
// keys 3.5% faster (v19). 384 x 14 walks over tiles (with many waves the tile before is nearly
// always inclusive already, and it has no register to spare), as do 64-bit keys (256 x 16, holding
// twice the registers; not timed).
struct SortShape {
    std::uint32_t groupSize = 256;
    std::uint32_t keysPerInvocation = 16;
    std::uint32_t blockTiles = 0;    // 0: no blocks
    std::uint32_t ratePercent = 100; // keys per second with every SM busy, against 256 x 16 (H200)
    bool oneRound = false;           // taken only where its tiles fit in one round (one per SM)
    constexpr std::uint32_t tileKeys() const { return groupSize * keysPerInvocation; }
    // The scatter's shared memory (radix.comp, stage 4: sMem, sTotals, sDigitStart, sBase, sTile).
    constexpr std::uint32_t sharedBytes() const
    {
        return 4 * std::max(16 * 256 + groupSize, tileKeys()) + 8 * (groupSize / 4) + 4 * 512 + 4;
    }
};
inline constexpr SortShape kSortShape4096{256, 16, 8, 100};
inline constexpr SortShape kSortShape5376{384, 14, 0, 119};
inline constexpr SortShape kSortShape8192{512, 16, 8, 100};
inline constexpr SortShape kSortShape2048{256, 8, 8, 100, true};
inline constexpr SortShape kSortShape1024{256, 4, 8, 100, true};
inline constexpr SortShape kSortShape64{256, 16, 0, 100};

// The shapes a Sorter creates pipelines for, and what the rule that picks one per record needs.
struct SortShapes {
    SortShape shape[5];
    std::uint32_t count = 0;
    std::uint32_t multiprocessors = 0; // 0: not known
};

// Test hook: when set, Sorters created after (and scratchRequirements) take it as the device's
// multiprocessor count.
inline std::optional<std::uint32_t> sortMultiprocessorsOverride;
inline std::uint32_t sortMultiprocessors(const Device& device)
{
    return sortMultiprocessorsOverride ? *sortMultiprocessorsOverride : device.multiprocessorCount();
}

// 64-bit keys: 256 x 16 alone. 32-bit keys, where the device reports its multiprocessor count M
// (NVIDIA), the shapes sortPickShape can take for some count up to maxCount: on the Onesweep path
// 256 x 4, then 256 x 8 above 1024 M keys and 256 x 16 above 2048 M, then above 4096 M also
// 384 x 14 and 512 x 16 (if the device's compute limits hold a workgroup of 512 and its 35 KiB of
// shared memory); on the ReduceThenScan path 256 x 16, and 384 x 14 above 4096 M (its scatter
// was 4-5% slower with 512 x 16 where the rule would pick it: H200, 2^20 keys; the small tiles
// were timed on Onesweep only). Other devices: 256 x 16, and 384 x 14 where maxCount is above 2^21.
inline SortShapes sortShapes(const Device& device, const SorterCreateInfo& info, SortPath path,
                             std::uint32_t multiprocessors)
{
    SortShapes s;
    s.multiprocessors = multiprocessors;
    auto add = [&](const SortShape& shape) { s.shape[s.count++] = shape; };
    if (sortKeyWords(info.key) == 2) {
        add(kSortShape64);
        return s;
    }
    const std::uint64_t sms = s.multiprocessors;
    const std::uint64_t n = info.maxCount;
    if (sms == 0) {
        add(kSortShape4096);
        if (n > (1u << 21)) add(kSortShape5376);
        return s;
    }
    const bool onesweep = path == SortPath::Onesweep;
    if (onesweep) {
        add(kSortShape1024);
        if (n > sms * 1024) add(kSortShape2048);
    }
    if (!onesweep || n > sms * 2048) add(kSortShape4096);
    if (n <= sms * 4096) return s;
    add(kSortShape5376);
    const VkPhysicalDeviceLimits& lim = device.properties().limits;
    if (onesweep && kSortShape8192.sharedBytes() <= lim.maxComputeSharedMemorySize &&
        kSortShape8192.groupSize <= lim.maxComputeWorkGroupInvocations &&
        kSortShape8192.groupSize <= lim.maxComputeWorkGroupSize[0]) {
        add(kSortShape8192);
    }
    return s;
}

// The shape a record of `count` keys uses (an index into s.shape). Where the multiprocessor count
// M is known: of the shapes whose tiles may be taken (those marked oneRound only where
// ceil(count / tile) <= M), the one whose rounds of tiles per SM, ceil(ceil(count / tile) / M),
// times its tile, divided by its rate, is least; ties go to the larger tile. So a count that leaves
// 256 x 16 a second round on some SMs goes to the shape that fits it in one (H200, uint32 keys,
// Onesweep, us, 256 x 16 against the one picked: 600000 keys 69.9 / 62.9 with 384 x 14, 2^20
// 78.4 / 75.0 with 512 x 16, 1310720 112.6 / 89.4 with 384 x 14; docs/sort-performance.md, v20),
// and small counts take small tiles (2^16 46.0 / 40.0 with 256 x 4, 2^18 53.5 / 48.0 with
// 256 x 8; v22). Elsewhere: 384 x 14 above 2^21 keys, where the Sorter has it.
inline std::uint32_t sortPickShape(const SortShapes& s, std::uint32_t count)
{
    if (s.count == 1) return 0;
    if (s.multiprocessors == 0) return count > (1u << 21) ? 1u : 0u;
    const std::uint64_t n = std::max<std::uint32_t>(count, 1);
    std::uint32_t best = s.count;
    std::uint64_t bestKeys = 0; // keys per SM of the best shape: its rounds times its tile
    for (std::uint32_t i = 0; i < s.count; ++i) {
        const SortShape& sh = s.shape[i];
        const std::uint64_t tiles = (n + sh.tileKeys() - 1) / sh.tileKeys();
        if (sh.oneRound && tiles > s.multiprocessors) continue;
        const std::uint64_t keys = (tiles + s.multiprocessors - 1) / s.multiprocessors * sh.tileKeys();
        if (best == s.count) {
            best = i;
            bestKeys = keys;
            continue;
        }
        // keys / rate against bestKeys / bestRate, cross-multiplied.
        const std::uint64_t a = keys * s.shape[best].ratePercent;
        const std::uint64_t b = bestKeys * sh.ratePercent;
        if (a < b || (a == b && sh.tileKeys() > s.shape[best].tileKeys())) {
            best = i;
            bestKeys = keys;
        }
    }
    return best == s.count ? s.count - 1 : best; // none: the largest count's shape (not reached)
}

// Rows of groupSize keys per histogram workgroup (SortPush::histRows). Each workgroup counts into
// shared memory, then adds its counts to the global histograms with one atomic per digit and
// pass, so more workgroups wait less on their own chain of shared atomics but send more global
// atomics. 1024 keys a workgroup up to 2^16 keys, 2048 up to 2^18, a tile up to 512 tiles, else
// four tiles, but (where the multiprocessor count M is known) no fewer than 2M workgroups. H200,
// uint32 keys in tiles of 4096, Onesweep, us, 4096 / 2048 / 1024 keys per workgroup: 65536 keys
// 47.6 / 46.4 / 46.0, 2^18 54.0 / 53.3 / 54.9; in tiles of 8192, 8192 / 4096 / 2048: 786432
// 71.4 / 72.7 / 76.1, 2^20 75.2 / 77.1 / 84.5 (docs/sort-performance.md, v21); 2^22 keys in tiles
// of 5376, 195 workgroups of four tiles 200.6 against 2M = 264 of about three 197.8 (v23).
inline std::uint32_t sortHistRows(const SortShape& shape, std::uint32_t count, std::uint32_t multiprocessors)
{
    const std::uint32_t tiles = (count + shape.tileKeys() - 1) / shape.tileKeys();
    std::uint32_t keys = count <= (1u << 16)   ? 1024u
                         : count <= (1u << 18) ? 2048u
                         : tiles <= 512        ? shape.tileKeys()
                                               : 4 * shape.tileKeys();
    const std::uint64_t minGroups = 2ull * multiprocessors;
    if (tiles > 512 && (count + std::uint64_t{keys} - 1) / keys < minGroups)
        keys = static_cast<std::uint32_t>((count + minGroups - 1) / minGroups);
    return std::max<std::uint32_t>((keys + shape.groupSize - 1) / shape.groupSize, 1);
}

// Passes of a sort of bits begin .. end - 1 (the shader's passShift() rule: digits of 64-bit keys
// never straddle bit 32).
inline std::uint32_t sortPassCount(std::uint32_t keyWords, std::uint32_t begin, std::uint32_t end)
{
    if (keyWords == 2 && begin < 32 && end > 32) return (32 - begin + 7) / 8 + (end - 32 + 7) / 8;
    return (end - begin + 7) / 8;
}

// Scratch of a record of `count` keys: [state | keys | values | tile and block words], each part
// aligned.
struct SortScratchLayout {
    VkDeviceSize keys = 0;
    VkDeviceSize values = 0;
    VkDeviceSize tiles = 0;
    VkDeviceSize size = 0;
};

inline VkDeviceSize alignUp(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

inline SortScratchLayout sortScratchLayout(const SorterCreateInfo& info, SortPath path, std::uint32_t count,
                                           const SortShapes& shapes, VkDeviceSize align)
{
    const VkDeviceSize n = std::max<std::uint32_t>(count, 1);
    const std::uint32_t keyWords = sortKeyWords(info.key);
    SortScratchLayout l;
    l.keys = alignUp(kSortStateBytes, align);
    l.values = alignUp(l.keys + n * 4 * keyWords, align);
    l.tiles = alignUp(l.values + n * 4 * sortValueWords(info.values), align);
    // Onesweep: look-back words of every pass (of the most a record can need: every bit), the
    // tiles' then the blocks'; ReduceThenScan: one pass's counts. As many as the shape needing
    // most asks for, whichever a record of `count` keys (or fewer) picks.
    const bool onesweep = path == SortPath::Onesweep;
    const VkDeviceSize passes = onesweep ? sortPassCount(keyWords, 0, 32 * keyWords) : 1;
    VkDeviceSize tileWords = 0;
    for (std::uint32_t i = 0; i < shapes.count; ++i) {
        const SortShape& shape = shapes.shape[i];
        VkDeviceSize tiles = (n + shape.tileKeys() - 1) / shape.tileKeys();
        if (shape.oneRound) tiles = std::min<VkDeviceSize>(tiles, shapes.multiprocessors);
        const VkDeviceSize blocks =
            onesweep && shape.blockTiles ? (tiles + shape.blockTiles - 1) / shape.blockTiles : 0;
        tileWords = std::max(tileWords, passes * 256 * (tiles + blocks));
    }
    l.size = l.tiles + tileWords * 4;
    return l;
}

// Desktop GPUs of NVIDIA, AMD and Intel: workgroups that have started keep running beside one
// that waits on them, so a look-back may wait without bound.
inline bool sortWaitIsSafe(const Device& device)
{
    const VkPhysicalDeviceProperties& p = device.properties();
    if (p.deviceType != VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU && p.deviceType != VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU)
        return false;
    return p.vendorID == 0x10DE || p.vendorID == 0x1002 || p.vendorID == 0x8086; // NVIDIA, AMD, Intel
}

// SortPath::Auto: Onesweep on the GPUs above (unbounded waits) and on CPU implementations
// (bounded waits; on lavapipe 1.4-3.7x faster than ReduceThenScan, loaded CPU or not);
// ReduceThenScan on other GPUs, whose schedulers are not known to run waiting workgroups side by
// side and where a bounded wait's fallback might often be taken.
inline SortPath resolveSortPath(const Device& device, SortPath path)
{
    if (path != SortPath::Auto) return path;
    if (sortWaitIsSafe(device) || device.properties().deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
        return SortPath::Onesweep;
    return SortPath::ReduceThenScan;
}

// Onesweep: polls of unpublished look-back words a scatter invocation makes in all before it
// counts an earlier tile's keys itself instead of waiting (kLookBackPolls in radix.comp).
// Unbounded where waiting is safe (the counting code compiles away; bounding it costs 2-3% on an
// H200), else 1024.
inline constexpr std::uint32_t kSortLookBackUnbounded = 0xFFFFFFFFu;
// Test hook: when set, every Sorter created after uses it (0: count whenever a word is unpublished).
inline std::optional<std::uint32_t> sortLookBackPollsOverride;
inline std::uint32_t sortLookBackPolls(const Device& device)
{
    if (sortLookBackPollsOverride) return *sortLookBackPollsOverride;
    return sortWaitIsSafe(device) ? kSortLookBackUnbounded : 1024u;
}

// Dispatch sizes for `groups` workgroups: at most 65535 along x.
inline void sortGroups(std::uint32_t groups, std::uint32_t* x, std::uint32_t* y)
{
    *x = std::min<std::uint32_t>(groups, 65535);
    *y = groups <= 65535 ? 1 : (groups + 65534) / 65535;
}

} // namespace detail

inline void Sorter::swap(Sorter& other) noexcept
{
    std::swap(m_device, other.m_device);
    std::swap(m_info, other.m_info);
    std::swap(m_path, other.m_path);
    std::swap(m_multiprocessors, other.m_multiprocessors);
    std::swap(m_setLayout, other.m_setLayout);
    std::swap(m_pipelineLayout, other.m_pipelineLayout);
    std::swap(m_shapes, other.m_shapes);
    std::swap(m_scratch, other.m_scratch);
    std::swap(m_scratchMemory, other.m_scratchMemory);
    std::swap(m_scratchSize, other.m_scratchSize);
}

inline void Sorter::destroy()
{
    if (!m_device) return;
    const DeviceFunctions& f = m_device->fn();
    VkDevice d = m_device->handle();
    const VkAllocationCallbacks* a = m_device->allocator();
    for (Pipelines& p : m_shapes) {
        for (VkPipeline* q : {&p.setup, &p.histogram, &p.count, &p.scan, &p.scatter}) {
            if (*q) f.vkDestroyPipeline(d, *q, a);
            *q = VK_NULL_HANDLE;
        }
    }
    if (m_pipelineLayout) f.vkDestroyPipelineLayout(d, m_pipelineLayout, a);
    if (m_setLayout) f.vkDestroyDescriptorSetLayout(d, m_setLayout, a);
    if (m_scratch) f.vkDestroyBuffer(d, m_scratch, a);
    if (m_scratchMemory) f.vkFreeMemory(d, m_scratchMemory, a);
    m_pipelineLayout = VK_NULL_HANDLE;
    m_setLayout = VK_NULL_HANDLE;
    m_scratch = VK_NULL_HANDLE;
    m_scratchMemory = VK_NULL_HANDLE;
    m_scratchSize = 0;
    m_path = SortPath::Auto;
    m_multiprocessors = 0;
    m_device = nullptr;
}

inline ScratchRequirements Sorter::scratchRequirements(const Device& device, const SorterCreateInfo& info,
                                                       std::uint32_t count)
{
    ScratchRequirements req;
    if (!device.valid()) return req;
    req.alignment = detail::storageBufferAlignment(device);
    const SortPath path = detail::resolveSortPath(device, info.path);
    req.size = detail::sortScratchLayout(info, path, count,
                                         detail::sortShapes(device, info, path, detail::sortMultiprocessors(device)),
                                         req.alignment)
                   .size;
    req.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
    return req;
}

inline VkResult Sorter::create(const Device& device, const SorterCreateInfo& info, Sorter* sorter)
{
    const char* fn = "vkfx::Sorter::create";
    if (!sorter) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: sorter is null", fn);
    sorter->destroy();
    if (!device.valid()) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: device is not created", fn);
    const struct {
        std::uint32_t value, last;
        const char* what;
    } enums[] = {{static_cast<std::uint32_t>(info.key), static_cast<std::uint32_t>(SortKey::Float64), "key type"},
                 {static_cast<std::uint32_t>(info.values), static_cast<std::uint32_t>(SortValues::Bits64), "values"},
                 {static_cast<std::uint32_t>(info.order), static_cast<std::uint32_t>(SortOrder::Descending), "order"},
                 {static_cast<std::uint32_t>(info.path), static_cast<std::uint32_t>(SortPath::ReduceThenScan), "path"}};
    for (const auto& e : enums) {
        if (e.value > e.last) return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: unknown %s %u", fn, e.what, e.value);
    }
    if (info.maxCount == 0 || info.maxCount > kMaxCount) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: maxCount %u is outside 1..%u", fn,
                           info.maxCount, kMaxCount);
    }
    const SortPath path = detail::resolveSortPath(device, info.path);
    const std::uint32_t keyWords = detail::sortKeyWords(info.key);
    const std::uint32_t valueWords = detail::sortValueWords(info.values);
    const VkDeviceSize range = device.properties().limits.maxStorageBufferRange;
    const detail::SortShapes shapes = detail::sortShapes(device, info, path, detail::sortMultiprocessors(device));
    const detail::SortScratchLayout layout =
        detail::sortScratchLayout(info, path, info.maxCount, shapes, detail::storageBufferAlignment(device));
    if (VkDeviceSize{info.maxCount} * 4 * std::max(keyWords, valueWords) > range || layout.size - layout.tiles > range) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                           "%s: maxCount %u needs storage buffer ranges above the device's maxStorageBufferRange %llu",
                           fn, info.maxCount, static_cast<unsigned long long>(range));
    }
    const VkSubgroupFeatureFlags ops = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                       VK_SUBGROUP_FEATURE_SHUFFLE_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
    if ((device.subgroupOperations() & ops) != ops || device.subgroupSize() < 4 || device.subgroupSize() > 128) {
        return device.fail(VK_ERROR_FEATURE_NOT_PRESENT,
                           "%s: the device's compute shaders lack subgroup ballot, shuffle or arithmetic operations "
                           "(or the subgroup size %u is outside 4..128)",
                           fn, device.subgroupSize());
    }
    Sorter s;
    s.m_device = &device;
    s.m_info = info;
    s.m_path = path;
    s.m_multiprocessors = shapes.multiprocessors;

    VkDescriptorSetLayoutBinding bindings[detail::kSortBindings];
    for (std::uint32_t i = 0; i < detail::kSortBindings; ++i) {
        bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    }
    VkResult r = detail::createPushLayouts(device, fn, bindings, detail::kSortBindings, sizeof(detail::SortPush),
                                           &s.m_setLayout, &s.m_pipelineLayout);
    if (r != VK_SUCCESS) return r;

    struct Spec {
        std::uint32_t key;
        VkBool32 descending;
        std::uint32_t valueWords;
        VkBool32 lookBack;
        std::uint32_t ballotWords;
        std::uint32_t lookBackPolls;
        std::uint32_t groupSize;
        std::uint32_t keysPerInvocation;
        std::uint32_t blockTiles;
    };
    const VkSpecializationMapEntry entries[9] = {{0, offsetof(Spec, key), sizeof(std::uint32_t)},
                                                 {1, offsetof(Spec, descending), sizeof(VkBool32)},
                                                 {2, offsetof(Spec, valueWords), sizeof(std::uint32_t)},
                                                 {3, offsetof(Spec, lookBack), sizeof(VkBool32)},
                                                 {4, offsetof(Spec, ballotWords), sizeof(std::uint32_t)},
                                                 {5, offsetof(Spec, lookBackPolls), sizeof(std::uint32_t)},
                                                 {6, offsetof(Spec, groupSize), sizeof(std::uint32_t)},
                                                 {7, offsetof(Spec, keysPerInvocation), sizeof(std::uint32_t)},
                                                 {8, offsetof(Spec, blockTiles), sizeof(std::uint32_t)}};
    for (std::uint32_t i = 0; i < shapes.count; ++i) {
        const detail::SortShape& shape = shapes.shape[i];
        const Spec spec{static_cast<std::uint32_t>(info.key),
                        info.order == SortOrder::Descending,
                        valueWords,
                        path == SortPath::Onesweep,
                        (device.subgroupSize() + 31) / 32,
                        detail::sortLookBackPolls(device),
                        shape.groupSize,
                        shape.keysPerInvocation,
                        shape.blockTiles};
        const VkSpecializationInfo specInfo{9, entries, sizeof(Spec), &spec};
        Pipelines& p = s.m_shapes[i];
        const struct Stage {
            const std::uint32_t* code;
            std::size_t bytes;
            VkPipeline* out;
            const char* what;
        } stages[5] = {
            {spirv::sort_setup, sizeof(spirv::sort_setup), &p.setup, "vkfx::Sorter::create (setup)"},
            {spirv::sort_histogram, sizeof(spirv::sort_histogram), &p.histogram, "vkfx::Sorter::create (histogram)"},
            {spirv::sort_scatter, sizeof(spirv::sort_scatter), &p.scatter, "vkfx::Sorter::create (scatter)"},
            {spirv::sort_count, sizeof(spirv::sort_count), &p.count, "vkfx::Sorter::create (count)"},
            {spirv::sort_scan, sizeof(spirv::sort_scan), &p.scan, "vkfx::Sorter::create (scan)"}};
        const std::size_t stageCount = path == SortPath::Onesweep ? 3 : 5;
        for (std::size_t j = 0; j < stageCount; ++j) {
            const Stage& st = stages[j];
            r = detail::createComputePipeline(device, st.what, st.code, st.bytes, &specInfo, s.m_pipelineLayout, st.out);
            if (r != VK_SUCCESS) return r;
        }
    }

    if (info.ownScratch) {
        const ScratchRequirements req = scratchRequirements(device, info, info.maxCount);
        s.m_scratchSize = req.size;
        VkDeviceSize allocated = 0;
        r = detail::createBoundBuffer(device, "vkfx::Sorter::create: scratch", s.m_scratchSize, req.usage, 0,
                                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &s.m_scratch, &s.m_scratchMemory, &allocated);
        if (r != VK_SUCCESS) return r;
    }
    *sorter = std::move(s);
    return VK_SUCCESS;
}

inline std::uint32_t Sorter::tileKeys(std::uint32_t count) const
{
    if (!m_device) return 0;
    const detail::SortShapes shapes = detail::sortShapes(*m_device, m_info, m_path, m_multiprocessors);
    return shapes.shape[detail::sortPickShape(shapes, count)].tileKeys();
}

inline VkResult Sorter::record(VkCommandBuffer cmd, const SortInfo& info) const
{
    return recordPasses(cmd, info, nullptr);
}

inline VkResult Sorter::recordIndirect(VkCommandBuffer cmd, const SortIndirectInfo& info) const
{
    if (m_device) {
        const VkDeviceSize align = detail::storageBufferAlignment(*m_device);
        if (!info.countBuffer.buffer) {
            return m_device->fail(VK_ERROR_VALIDATION_FAILED_EXT,
                                  "vkfx::Sorter::recordIndirect: countBuffer.buffer is VK_NULL_HANDLE");
        }
        if (info.countBuffer.offset % align != 0) {
            return m_device->fail(VK_ERROR_VALIDATION_FAILED_EXT,
                                  "vkfx::Sorter::recordIndirect: countBuffer.offset must be a multiple of %llu",
                                  static_cast<unsigned long long>(align));
        }
    }
    SortInfo direct{.keys = info.keys,
                    .values = info.values,
                    .count = m_info.maxCount,
                    .beginBit = info.beginBit,
                    .endBit = info.endBit,
                    .scratchBuffer = info.scratchBuffer,
                    .scratchOffset = info.scratchOffset,
                    .scratchSize = info.scratchSize};
    return recordPasses(cmd, direct, &info.countBuffer);
}

inline VkResult Sorter::recordPasses(VkCommandBuffer cmd, const SortInfo& info, const SortBuffer* countBuffer) const
{
    const char* fn = countBuffer ? "vkfx::Sorter::recordIndirect" : "vkfx::Sorter::record";
    if (!m_device) {
        return detail::fail(nullptr, nullptr, VK_ERROR_VALIDATION_FAILED_EXT, "%s: the Sorter is not created", fn);
    }
    const Device& dev = *m_device;
    if (!cmd) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: cmd is VK_NULL_HANDLE", fn);
    if (info.count > m_info.maxCount) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: count %u is above the Sorter's maxCount %u", fn,
                        info.count, m_info.maxCount);
    }
    const std::uint32_t keyWords = detail::sortKeyWords(m_info.key);
    const std::uint32_t valueWords = detail::sortValueWords(m_info.values);
    const bool values = valueWords != 0;
    const std::uint32_t keyBits = 32 * keyWords;
    const std::uint32_t endBit = info.endBit == 0 ? keyBits : info.endBit;
    if (info.beginBit >= endBit || endBit > keyBits) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: bit range %u..%u is empty or outside the key's %u bits",
                        fn, info.beginBit, endBit, keyBits);
    }
    if (!info.keys.buffer) return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: keys.buffer is VK_NULL_HANDLE", fn);
    if (values && !info.values.buffer) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                        "%s: the Sorter was created with values and values.buffer is VK_NULL_HANDLE", fn);
    }
    if (!values && info.values.buffer) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                        "%s: values.buffer is set but the Sorter was created without values", fn);
    }
    const VkDeviceSize align = detail::storageBufferAlignment(dev);
    // The tile shape (recordIndirect: for maxCount keys, as info.count is then).
    const detail::SortShapes shapes = detail::sortShapes(dev, m_info, m_path, m_multiprocessors);
    const std::uint32_t shapeIndex = detail::sortPickShape(shapes, info.count);
    if (info.keys.offset % align != 0 || (values && info.values.offset % align != 0)) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: keys and values offsets must be multiples of %llu", fn,
                        static_cast<unsigned long long>(align));
    }
    const VkDeviceSize keyBytes = VkDeviceSize{info.count} * 4 * keyWords;
    const VkDeviceSize valueBytes = VkDeviceSize{info.count} * 4 * valueWords;
    const detail::SortScratchLayout layout =
        detail::sortScratchLayout(m_info, m_path, info.count, shapes, align);
    VkBuffer scratch = m_scratch;
    VkDeviceSize scratchOffset = 0;
    if (info.scratchBuffer) {
        if (info.scratchOffset % align != 0) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: scratchOffset %llu is not a multiple of %llu", fn,
                            static_cast<unsigned long long>(info.scratchOffset), static_cast<unsigned long long>(align));
        }
        if (info.scratchSize != VK_WHOLE_SIZE && info.scratchSize < layout.size) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: scratch of %llu bytes is too small; %u keys need %llu", fn,
                            static_cast<unsigned long long>(info.scratchSize), info.count,
                            static_cast<unsigned long long>(layout.size));
        }
        auto overlaps = [&](const SortBuffer& b, VkDeviceSize bytes) {
            return detail::rangesOverlap(b.buffer, b.offset, bytes, info.scratchBuffer, info.scratchOffset, layout.size);
        };
        if (overlaps(info.keys, keyBytes) || (values && overlaps(info.values, valueBytes))) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the scratch range overlaps the keys or values", fn);
        }
        scratch = info.scratchBuffer;
        scratchOffset = info.scratchOffset;
    } else if (!scratch) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT,
                        "%s: the Sorter has no scratch of its own (ownScratch = false): pass scratchBuffer", fn);
    }
    if (values &&
        detail::rangesOverlap(info.values.buffer, info.values.offset, valueBytes, info.keys.buffer, info.keys.offset, keyBytes)) {
        return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: the keys and values ranges overlap", fn);
    }
    if (countBuffer) {
        // Every pass reads the count again while the keys, values and scratch are written.
        auto holdsCount = [&](VkBuffer buffer, VkDeviceSize offset, VkDeviceSize bytes) {
            return detail::rangesOverlap(buffer, offset, bytes, countBuffer->buffer, countBuffer->offset, 4);
        };
        if (holdsCount(info.keys.buffer, info.keys.offset, keyBytes) ||
            (values && holdsCount(info.values.buffer, info.values.offset, valueBytes)) ||
            (info.scratchBuffer && holdsCount(scratch, scratchOffset, layout.size))) {
            return dev.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: countBuffer's word lies in the keys, values or scratch", fn);
        }
    }
    if (info.count < 2) return VK_SUCCESS;

    const DeviceFunctions& f = dev.fn();
    const std::uint32_t passes = detail::sortPassCount(keyWords, info.beginBit, endBit);
    const bool odd = passes % 2 == 1;
    const Pipelines& pipe = m_shapes[shapeIndex];
    const detail::SortShape& shape = shapes.shape[shapeIndex];
    const std::uint32_t tiles = (info.count + shape.tileKeys() - 1) / shape.tileKeys();
    const bool onesweep = m_path == SortPath::Onesweep;
    // Indirect: the caller's ranges run to the end of their buffers (the count is not known here).
    VkDescriptorBufferInfo userKeys{info.keys.buffer, info.keys.offset, countBuffer ? VK_WHOLE_SIZE : keyBytes};
    VkDescriptorBufferInfo userValues{info.values.buffer, info.values.offset, countBuffer ? VK_WHOLE_SIZE : valueBytes};
    VkDescriptorBufferInfo tmpKeys{scratch, scratchOffset + layout.keys, keyBytes};
    VkDescriptorBufferInfo tmpValues{scratch, scratchOffset + layout.values, std::max<VkDeviceSize>(valueBytes, 4)};
    VkDescriptorBufferInfo state{scratch, scratchOffset, detail::kSortStateBytes};
    VkDescriptorBufferInfo tileWords{scratch, scratchOffset + layout.tiles, layout.size - layout.tiles};
    // Not read without kSortFlagIndirect; bound to something valid all the same.
    VkDescriptorBufferInfo indirect = state;
    if (countBuffer) indirect = {countBuffer->buffer, countBuffer->offset, 4};
    if (!values) userValues = tmpValues; // bound, never accessed (the values code is specialized away)

    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    auto compute = [&] {
        f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                               1, &barrier, 0, nullptr, 0, nullptr);
    };
    // One dispatch: `in` / `out` are the key and value sides read and written.
    auto dispatch = [&](VkPipeline pipeline, bool inScratch, bool outScratch, const detail::SortPush& push,
                        std::uint32_t groups, VkDeviceSize indirectWord) {
        const VkDescriptorBufferInfo* infos[detail::kSortBindings] = {
            inScratch ? &tmpKeys : &userKeys,     outScratch ? &tmpKeys : &userKeys,
            inScratch ? &tmpValues : &userValues, outScratch ? &tmpValues : &userValues,
            &state,                               &tileWords,
            &indirect};
        VkWriteDescriptorSet writes[detail::kSortBindings] = {};
        for (std::uint32_t i = 0; i < detail::kSortBindings; ++i) {
            writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
            writes[i].dstBinding = i;
            writes[i].descriptorCount = 1;
            writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[i].pBufferInfo = infos[i];
        }
        f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        f.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m_pipelineLayout, 0, detail::kSortBindings,
                                    writes);
        f.vkCmdPushConstants(cmd, m_pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
        if (countBuffer && indirectWord != 0) {
            f.vkCmdDispatchIndirect(cmd, scratch, scratchOffset + indirectWord * 4);
        } else {
            std::uint32_t x = 0, y = 0;
            detail::sortGroups(groups, &x, &y);
            f.vkCmdDispatch(cmd, x, y, 1);
        }
    };

    const std::uint32_t indirectFlag = countBuffer ? detail::kSortFlagIndirect : 0u;
    const std::uint32_t histRows = detail::sortHistRows(shape, info.count, shapes.multiprocessors);
    const std::uint32_t histKeys = histRows * shape.groupSize;
    detail::SortPush push{info.count, indirectFlag, 0, passes, info.beginBit, endBit, histRows};
    compute(); // an earlier record's use of the same scratch is done
    dispatch(pipe.setup, false, true, push, 1, 0);
    if (countBuffer) {
        VkMemoryBarrier b = barrier;
        b.dstAccessMask |= VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
        f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, 0, 1, &b, 0,
                               nullptr, 0, nullptr);
    } else {
        compute();
    }
    // Odd pass counts: the histogram copies the keys to scratch, so the last pass ends in the
    // caller's buffers.
    push.flags = indirectFlag | (odd ? detail::kSortFlagCopy : 0u);
    dispatch(pipe.histogram, false, true, push, (info.count + histKeys - 1) / histKeys,
             detail::kSortDispatchWord);
    compute();
    const VkDeviceSize tilesWord = detail::kSortDispatchWord + 3;
    for (std::uint32_t pass = 0; pass < passes; ++pass) {
        const bool inScratch = (pass % 2 == 0) == odd;
        push.pass = pass;
        push.flags = indirectFlag | (pass == 0 ? detail::kSortFlagFirst : 0u) |
                     (pass + 1 == passes ? detail::kSortFlagLast : 0u);
        if (!onesweep) {
            dispatch(pipe.count, inScratch, !inScratch, push, tiles, tilesWord);
            compute();
            dispatch(pipe.scan, inScratch, !inScratch, push, 256, 0);
            compute();
        }
        dispatch(pipe.scatter, inScratch, !inScratch, push, tiles, tilesWord);
        if (pass + 1 < passes) compute();
    }
    return VK_SUCCESS;
}

} // namespace vkfx
