// vkfx sort: a stable GPU radix sort of 32- or 64-bit keys, alone or with 32- or 64-bit values,
// in the caller's buffers, recorded onto the caller's command buffer.
//
//   vkfx::Sorter sorter;
//   vkfx::Sorter::create(dev, {.key = vkfx::SortKey::Float32, .values = vkfx::SortValues::Bits32,
//                              .maxCount = 1u << 20}, &sorter);
//   sorter.record(cmd, {.keys = {keyBuffer, 0}, .values = {valueBuffer, 0}, .count = n});
//
// What it does. Sorts `count` keys ascending (or descending), stably: equal keys keep their input
// order, and each value moves with its key. The result lands in the caller's buffers; the
// Sorter's scratch (or the caller's) holds the other half of each pass's ping-pong.
//
// Key order. Unsigned and signed integers: numeric. Floats: numeric, with -0.0 before +0.0, -inf
// first and +inf last among numbers, and NaNs by their bits: NaNs with the sign bit set before
// -inf, the others after +inf (descending reverses all of it). A bit range (SortInfo::beginBit,
// endBit) sorts by those bits of the key's order-preserving unsigned image (for unsigned keys the
// key itself) and needs one pass per 8 bits.
//
// How. One dispatch counts the digits of every pass; then one pass per 8-bit digit (least
// significant first) ranks each tile of 1024 to 8192 keys (below) in shared memory with
// subgroup ballots and writes it out stably. A pass whose digit every key shares (known on the GPU
// from the counts) only copies the keys. Two ways to find where a tile's keys go (SortPath):
//   - Onesweep: a tile takes its index from an atomic ticket, publishes its digit counts and adds
//     up those of earlier tiles while they run (decoupled look-back; but for 64-bit keys and tiles
//     of 5376 keys, over blocks of 8 tiles, which the last tile of each block publishes, where a
//     pass has more than 32 tiles): one dispatch per pass, about 8 bytes of traffic per 32-bit key
//     and pass. Waiting on an earlier tile relies on started workgroups making progress, which
//     Vulkan does not promise; so except on the GPUs below a tile waits a bounded time, then
//     counts the earlier tile's keys itself (correct on any device, slow where it happens often).
//   - ReduceThenScan: per pass, count the digits per tile, scan the counts, then scatter: three
//     dispatches and about 12 bytes per key and pass; no workgroup ever waits on another.
// SortPath::Auto picks Onesweep on GPUs of NVIDIA, AMD and Intel (waiting without bound) and on
// CPU implementations (bounded waits; on lavapipe 1.4-3.7x faster than ReduceThenScan), and
// ReduceThenScan on other GPUs (tile-based mobile GPUs, whose schedulers are not known to run
// waiting workgroups side by side).
// Tiles. Each record picks its tile by its count (recordIndirect: by maxCount), so a Sorter made
// for many keys sorts few as fast as one made for few. 64-bit keys: 4096 (workgroups of 256, 16
// keys per invocation). 32-bit keys on devices that report their multiprocessor count M (NVIDIA):
// the tile of 4096, 5376 (384 x 14) or, on the Onesweep path, 1024 (256 x 4), 2048 (256 x 8) or
// 8192 (512 x 16) whose rounds of tiles per multiprocessor, ceil(ceil(count / tile) / M), times
// the tile, over its rate (1.19 for 5376, else 1: keys per second with every SM busy, measured on
// an H200), is least, ties going to the larger tile; tiles of 1024 and 2048 only where the count
// fits in M of them (one round). A count that would leave some SMs a second round of tiles gets
// tiles that fit it in one, and small counts get small tiles. Other devices: 5376 above 2^21
// keys, else 4096. The Sorter creates the pipelines of each tile its maxCount can pick (Onesweep:
// 1024; 2048 above maxCount 1024 M; 4096 above 2048 M; 5376 and 8192 above 4096 M. ReduceThenScan:
// 4096, and 5376 above 4096 M).
// Needs subgroup basic, ballot, shuffle and arithmetic operations in compute shaders; works at any
// subgroup size from 4 to 128.
#pragma once

#include <vkfx/core.hpp>
#include <vkfx/spirv/sort.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace vkfx {

// The type of the keys (their order: "Key order" above). 64-bit keys are stored low word first.
enum class SortKey : std::uint32_t {
    Uint32 = 0,  // 32-bit unsigned integers
    Int32 = 1,   // 32-bit two's-complement integers
    Float32 = 2, // IEEE 754 binary32
    Uint64 = 3,  // 64-bit unsigned integers
    Int64 = 4,   // 64-bit two's-complement integers
    Float64 = 5, // IEEE 754 binary64
};

// What moves with each key: nothing, or one value of 32 or 64 bits (any bits: an index, a handle).
enum class SortValues : std::uint32_t {
    None = 0,   // keys only
    Bits32 = 1, // 4 bytes per key
    Bits64 = 2, // 8 bytes per key
};

// How a pass finds where each tile's keys go (see the top of this file).
enum class SortPath : std::uint32_t {
    Auto = 0,           // Onesweep or ReduceThenScan by the device, as described above
    Onesweep = 1,       // one dispatch per pass, decoupled look-back
    ReduceThenScan = 2, // count, scan and scatter dispatches per pass; no waiting
};

enum class SortOrder : std::uint32_t {
    Ascending = 0,  // smallest key first
    Descending = 1, // largest key first (the key order reversed; still stable)
};

struct SorterCreateInfo {
    // The key type. Default Uint32.
    SortKey key = SortKey::Uint32;
    // Default Ascending.
    SortOrder order = SortOrder::Ascending;
    // What moves with each key. Default None.
    SortValues values = SortValues::None;
    // Most keys one record may sort: 1 .. kMaxCount, and maxCount keys, values and the scratch's
    // per-tile words must each fit maxStorageBufferRange. Required (the default 0 is rejected).
    std::uint32_t maxCount = 0;
    // Default Auto; path() gives the resolved path.
    SortPath path = SortPath::Auto;
    // true (default): the Sorter allocates scratch for maxCount keys (device-local where a memory
    // type allows); false: every record passes SortInfo::scratchBuffer (see
    // scratchRequirements()).
    bool ownScratch = true;
};

// A range of a buffer created with VK_BUFFER_USAGE_STORAGE_BUFFER_BIT; offset a multiple of
// minStorageBufferOffsetAlignment. (Vulkan has no query of a buffer's usage or size, so a missing
// usage bit or a buffer too short for its range are what record() cannot check; the validation
// layer reports the first.)
struct SortBuffer {
    VkBuffer buffer = VK_NULL_HANDLE; // the buffer (VK_NULL_HANDLE: none)
    VkDeviceSize offset = 0;          // bytes from its start; a multiple of the alignment above
};

struct SortInfo {
    // count keys (4 or 8 bytes each, 64-bit ones low word first); sorted in place. Required.
    SortBuffer keys;
    // count values, not overlapping the keys (Sorters created with values only; leave it null
    // otherwise); permuted in place with their keys.
    SortBuffer values;
    // 0 .. maxCount; 0 and 1 record nothing (after the other checks).
    std::uint32_t count = 0;
    // The bits sorted by: beginBit .. endBit - 1; endBit 0 (default) means the key's width (32 or
    // 64); beginBit < endBit <= the width. Passes: ceil((endBit - beginBit) / 8) (64-bit keys:
    // the bits below and above bit 32 counted apart). Bits outside the range do not affect the
    // order (keys equal in the range keep their input order).
    std::uint32_t beginBit = 0;
    std::uint32_t endBit = 0;
    // Optional scratch: usage, offset alignment and at least the size that
    // scratchRequirements(device, createInfo, count) gives, not overlapping keys or values; its
    // contents on entry do not matter. Null (default): the Sorter's own (ownScratch; an error
    // without it). Records sharing a scratch range must not run concurrently (on another queue).
    // scratchSize: the bytes usable from scratchOffset; VK_WHOLE_SIZE (default): not checked.
    VkBuffer scratchBuffer = VK_NULL_HANDLE;
    VkDeviceSize scratchOffset = 0;
    VkDeviceSize scratchSize = VK_WHOLE_SIZE;
};

// recordIndirect(): as SortInfo, with the count read by the GPU from countBuffer.
// The keys and values are bound from their offsets to the ends of their buffers; the overlap
// checks of record() apply to ranges of maxCount keys and values.
struct SortIndirectInfo {
    SortBuffer keys;            // room for the counted keys (at most maxCount are sorted)
    SortBuffer values;          // (Sorters created with values only)
    // One uint32: the number of keys, written by earlier commands. Required; STORAGE_BUFFER
    // usage, offset aligned like the others, outside the keys, values and scratch.
    SortBuffer countBuffer;
    std::uint32_t beginBit = 0; // as SortInfo
    std::uint32_t endBit = 0;   // as SortInfo
    // As SortInfo, sized for maxCount keys (scratchRequirements(..., maxCount)); its usage must
    // include INDIRECT_BUFFER.
    VkBuffer scratchBuffer = VK_NULL_HANDLE;
    VkDeviceSize scratchOffset = 0;
    VkDeviceSize scratchSize = VK_WHOLE_SIZE;
};

// Sorts keys (and values) of one key type, order and value size. Move-only; moving leaves the
// source empty. record() and recordIndirect() are const and change nothing in the object, so
// several threads may record with one Sorter at once (records without scratchBuffer share the
// owned scratch: see SortInfo::scratchBuffer).
class Sorter {
public:
    // 2^28 keys: up to 65536 tiles (dispatched as a 2D grid). Also bounded by
    // maxStorageBufferRange, which must hold maxCount keys, maxCount values and the scratch's
    // per-tile words.
    static constexpr std::uint32_t kMaxCount = 1u << 28;

    Sorter() = default;
    Sorter(const Sorter&) = delete;
    Sorter& operator=(const Sorter&) = delete;
    Sorter(Sorter&& other) noexcept { swap(other); }
    Sorter& operator=(Sorter&& other) noexcept
    {
        if (this != &other) {
            destroy();
            swap(other);
        }
        return *this;
    }
    ~Sorter() { destroy(); }

    // Creates the pipelines (setup, histogram and scatter; ReduceThenScan also count and scan) of
    // each tile shape a record may pick ("Tiles" above: one to five sets) and, with ownScratch,
    // the scratch for maxCount keys (not initialized: records need none).
    // `*sorter` is destroyed first. `device` must outlive the Sorter (it keeps a pointer).
    // Errors: VK_ERROR_VALIDATION_FAILED_EXT (null output, device not created, maxCount 0 or
    // above kMaxCount or beyond maxStorageBufferRange, unknown key type, values, order or path),
    // VK_ERROR_FEATURE_NOT_PRESENT (compute shaders lack subgroup basic, ballot, shuffle or
    // arithmetic operations, or the subgroup size is outside 4 .. 128), or the Vulkan error of a
    // failing call; the reason is in lastError().
    static VkResult create(const Device& device, const SorterCreateInfo& info, Sorter* sorter);

    // Scratch a record of `count` keys needs when the caller supplies it: ping-pong space for the
    // keys (and values), the digit histograms, dispatch sizes and per-tile words (Onesweep: for
    // every pass a key could need, and per block of 8 tiles, so more than ReduceThenScan; as many
    // as the tile needing most of those the Sorter has asks for). `info` is the Sorter's creation
    // info (key, values, path and maxCount count: maxCount sets which tiles the Sorter has; it is
    // not validated) and `count` 0 counts as 1.
    // Its usage includes INDIRECT_BUFFER (recordIndirect sizes its dispatches from it). All zero
    // (usage aside) when `device` is not created. Pure arithmetic: it calls no Vulkan function.
    static ScratchRequirements scratchRequirements(const Device& device, const SorterCreateInfo& info,
                                                   std::uint32_t count);

    // The path the Sorter's passes take (SortPath::Auto resolved; Auto when not created).
    SortPath path() const { return m_path; }
    // Keys per tile of a record of `count` keys (recordIndirect: of maxCount keys): what one
    // workgroup ranks in shared memory per pass. 1024, 2048 or 4096 (workgroups of 256, 4, 8 or 16
    // keys per invocation), 5376 (384 x 14) or 8192 (512 x 16), by the rule in "Tiles" at the top
    // of this file; 0 when not created.
    std::uint32_t tileKeys(std::uint32_t count) const;

    // Records the sort of info.count keys (and values).
    // Inputs: the keys (and values) as written by earlier commands, which the caller makes
    // visible to COMPUTE_SHADER reads (SHADER_READ|SHADER_WRITE access); the result is written
    // by COMPUTE_SHADER stage shader writes, which the caller makes visible to what reads it.
    // Records a setup and a histogram dispatch, then per pass one dispatch (Onesweep) or three
    // (ReduceThenScan), with a COMPUTE -> COMPUTE memory barrier (SHADER_READ|WRITE to
    // SHADER_READ|WRITE) between each, and one such barrier first (so that records sharing
    // scratch follow each other); no barrier after the last dispatch.
    // Disturbs the bound compute pipeline, push descriptors of set 0 and push constants.
    // Errors (nothing recorded): Sorter not created, null command buffer, count above maxCount,
    // null keys buffer, values missing or given against the Sorter's creation, a misaligned
    // offset, keys and values overlapping, a bad bit range, scratch missing, too small,
    // misaligned or overlapping the keys or values: VK_ERROR_VALIDATION_FAILED_EXT with the reason
    // in lastError().
    // Cost per 32-bit key: 4 bytes read by the histogram, then per pass 8 bytes (Onesweep) or 12
    // (ReduceThenScan), plus 8 per pass for a 32-bit value; 64-bit words twice that; an odd
    // number of passes adds one copy of the keys and values.
    VkResult record(VkCommandBuffer cmd, const SortInfo& info) const;

    // Records the sort of as many keys as the uint32 at info.countBuffer says when the commands
    // run (counts above maxCount sort maxCount keys); the count is never read back to the host.
    // The count must be visible to COMPUTE_SHADER reads, like the keys. The dispatches are sized
    // on the GPU (vkCmdDispatchIndirect from the scratch; the barrier after the setup dispatch
    // also makes its writes visible to DRAW_INDIRECT / INDIRECT_COMMAND_READ). Same contract,
    // errors and cost as record() with count = maxCount (scratch for maxCount keys; the count is
    // known only on the GPU, so the commands are recorded whenever maxCount >= 2), plus
    // VK_ERROR_VALIDATION_FAILED_EXT for a null countBuffer, a misaligned countBuffer.offset, or
    // a count word inside the keys, values or scratch ranges (of maxCount keys).
    VkResult recordIndirect(VkCommandBuffer cmd, const SortIndirectInfo& info) const;

    // Destroys the pipelines, layouts and the owned scratch (null-safe; also run by the
    // destructor). No command buffer that uses the Sorter may be pending.
    void destroy();
    // True between a successful create() and destroy().
    bool valid() const { return m_device != nullptr; }

private:
    void swap(Sorter& other) noexcept;
    VkResult recordPasses(VkCommandBuffer cmd, const SortInfo& info, const SortBuffer* countBuffer) const;

    // The pipelines of one tile shape.
    struct Pipelines {
        VkPipeline setup = VK_NULL_HANDLE;
        VkPipeline histogram = VK_NULL_HANDLE;
        VkPipeline count = VK_NULL_HANDLE; // ReduceThenScan only
        VkPipeline scan = VK_NULL_HANDLE;  // ReduceThenScan only
        VkPipeline scatter = VK_NULL_HANDLE;
    };
    static constexpr std::uint32_t kMaxShapes = 5;

    const Device* m_device = nullptr;
    SorterCreateInfo m_info{};
    SortPath m_path = SortPath::Auto;
    std::uint32_t m_multiprocessors = 0; // what the shape rule was given at creation
    VkDescriptorSetLayout m_setLayout = VK_NULL_HANDLE;
    VkPipelineLayout m_pipelineLayout = VK_NULL_HANDLE;
    Pipelines m_shapes[kMaxShapes]; // in the order of detail::sortShapes()
    VkBuffer m_scratch = VK_NULL_HANDLE;
    VkDeviceMemory m_scratchMemory = VK_NULL_HANDLE;
    VkDeviceSize m_scratchSize = 0;
};

} // namespace vkfx

#include <vkfx/detail/sort_impl.hpp>
