// vkfx sort: a stable GPU radix sort of 32-bit keys, or keys with 32-bit values, in the caller's
// buffers, recorded onto the caller's command buffer.
//
//   vkfx::Sorter sorter;
//   vkfx::Sorter::create(dev, {.key = vkfx::SortKey::Float32, .values = true,
//                              .maxCount = 1u << 20}, &sorter);
//   sorter.record(cmd, {.keys = {keyBuffer, 0}, .values = {valueBuffer, 0}, .count = n});
//
// What it does. Sorts `count` keys ascending (or descending), stably: equal keys keep their input
// order, and each value moves with its key. The result lands in the caller's buffers; the
// Sorter's scratch (or the caller's) holds the other half of each pass's ping-pong.
//
// Key order. Uint32 and Int32: numeric. Float32: numeric, with -0.0 before +0.0, -inf first and
// +inf last among numbers, and NaNs by their bits: NaNs with the sign bit set before -inf, the
// others after +inf (descending reverses all of it).
//
// How. Four passes of 8-bit digits (least significant first); each pass counts the digits per
// tile of 2048 keys, scans the counts in one workgroup, and scatters the keys stably (each round
// of 256 keys sorted by digit in shared memory). Nothing depends on the subgroup size. This is
// the portable reduce-then-scan path; it is correct everywhere and not yet fast.
#pragma once

#include <vkfx/core.hpp>
#include <vkfx/spirv/sort.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace vkfx {

enum class SortKey : std::uint32_t {
    Uint32 = 0,
    Int32 = 1,
    Float32 = 2,
};

enum class SortOrder : std::uint32_t {
    Ascending = 0,
    Descending = 1,
};

struct SorterCreateInfo {
    SortKey key = SortKey::Uint32;
    SortOrder order = SortOrder::Ascending;
    bool values = false;         // true: every key has one 32-bit value that moves with it
    std::uint32_t maxCount = 0;  // most keys one record may sort (1 .. kMaxCount)
    // true: the Sorter allocates scratch for maxCount keys (device-local); false: every record
    // passes SortInfo::scratchBuffer (see scratchRequirements()).
    bool ownScratch = true;
};

// A range of a buffer created with VK_BUFFER_USAGE_STORAGE_BUFFER_BIT; offset a multiple of
// minStorageBufferOffsetAlignment.
struct SortBuffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
};

struct SortInfo {
    SortBuffer keys;            // count 32-bit keys; sorted in place
    SortBuffer values;          // count 32-bit values (Sorters created with values only)
    std::uint32_t count = 0;    // 0 .. maxCount; 0 and 1 record nothing
    // Optional scratch, at least scratchRequirements().size bytes, not overlapping keys or
    // values. Null: the Sorter's own (ownScratch).
    VkBuffer scratchBuffer = VK_NULL_HANDLE;
    VkDeviceSize scratchOffset = 0;
    VkDeviceSize scratchSize = VK_WHOLE_SIZE;
};

// recordIndirect(): as SortInfo, with the count read by the GPU from countBuffer.
struct SortIndirectInfo {
    SortBuffer keys;            // room for the counted keys (at most maxCount are sorted)
    SortBuffer values;          // (Sorters created with values only)
    SortBuffer countBuffer;     // one uint32: the number of keys, written by earlier commands
    VkBuffer scratchBuffer = VK_NULL_HANDLE; // as SortInfo; sized for maxCount keys
    VkDeviceSize scratchOffset = 0;
    VkDeviceSize scratchSize = VK_WHOLE_SIZE;
};

class Sorter {
public:
    static constexpr std::uint32_t kTileKeys = 2048;
    // One dispatch of count tiles per pass: at most 65535 tiles (maxComputeWorkGroupCount[0] is
    // at least that everywhere).
    static constexpr std::uint32_t kMaxCount = 65535u * kTileKeys;

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

    // Creates the pipelines (and, with ownScratch, the scratch for maxCount keys).
    // Errors: VK_ERROR_VALIDATION_FAILED_EXT (null output, device not created, maxCount 0 or
    // above kMaxCount, unknown key type or order), or the Vulkan error of a failing call; the
    // reason is in lastError().
    static VkResult create(const Device& device, const SorterCreateInfo& info, Sorter* sorter);

    // Scratch a record of `count` keys needs when the caller supplies it: ping-pong space for the
    // keys (and values) and the per-tile digit counts.
    static ScratchRequirements scratchRequirements(const Device& device, const SorterCreateInfo& info,
                                                   std::uint32_t count);

    // Records the sort of info.count keys (and values).
    // Inputs: the keys (and values) as written by earlier commands, which the caller makes
    // visible to COMPUTE_SHADER reads (SHADER_READ|SHADER_WRITE access); the result is written
    // by COMPUTE_SHADER stage shader writes, which the caller makes visible to what reads it.
    // Records 12 dispatches (3 per pass) with a COMPUTE -> COMPUTE memory barrier between each,
    // and one such barrier first (so that records sharing scratch follow each other).
    // Disturbs the bound compute pipeline, push descriptors of set 0 and push constants.
    // Errors (nothing recorded): count above maxCount, null keys buffer, values missing or
    // given against the Sorter's creation, a misaligned offset, scratch missing, too small or
    // misaligned: VK_ERROR_VALIDATION_FAILED_EXT with the reason in lastError().
    // Cost: about 4 * (count * (12 or 20) bytes) of memory traffic plus a one-group scan of
    // 256 * ceil(count / 2048) counts per pass.
    VkResult record(VkCommandBuffer cmd, const SortInfo& info) const;

    // Records the sort of as many keys as the uint32 at info.countBuffer says when the commands
    // run (counts above maxCount sort maxCount keys); the count is never read back to the host.
    // The count must be visible to COMPUTE_SHADER reads, like the keys. Same contract, errors and
    // cost as record(), for maxCount keys of scratch, with workgroups for maxCount keys
    // dispatched (those past the count return at once).
    VkResult recordIndirect(VkCommandBuffer cmd, const SortIndirectInfo& info) const;

    void destroy();
    bool valid() const { return m_device != nullptr; }

private:
    void swap(Sorter& other) noexcept;
    VkResult recordPasses(VkCommandBuffer cmd, const SortInfo& info, const SortBuffer* countBuffer) const;

    const Device* m_device = nullptr;
    SorterCreateInfo m_info{};
    VkDescriptorSetLayout m_setLayout = VK_NULL_HANDLE;
    VkPipelineLayout m_pipelineLayout = VK_NULL_HANDLE;
    VkPipeline m_count = VK_NULL_HANDLE;
    VkPipeline m_scan = VK_NULL_HANDLE;
    VkPipeline m_scatter = VK_NULL_HANDLE;
    VkBuffer m_scratch = VK_NULL_HANDLE;
    VkDeviceMemory m_scratchMemory = VK_NULL_HANDLE;
    VkDeviceSize m_scratchSize = 0;
};

} // namespace vkfx

#include <vkfx/detail/sort_impl.hpp>
