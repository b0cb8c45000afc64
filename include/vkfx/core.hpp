// vkfx core: the per-device function table, device facts and error reporting shared by every
// operation.
//
// Function loading. vkfx never calls a global vk* function. vkfx::Device::create() loads the few
// functions vkfx needs through a vkGetInstanceProcAddr you give it (DeviceCreateInfo::
// getInstanceProcAddr), so vkfx works the same whether your application links the Vulkan loader,
// uses volk, or uses Vulkan-Hpp's dispatcher, and compiles with or without VK_NO_PROTOTYPES.
// When you leave getInstanceProcAddr null, vkfx takes `vkGetInstanceProcAddr` from the
// surrounding code: volk's pointer when <volk.h> is included before vkfx, else the loader's
// prototype (unless VK_NO_PROTOTYPES is defined, in which case you must pass it).
//
// Device requirements (enable them when you create the VkDevice):
//   - Vulkan 1.2 or later;
//   - VK_KHR_push_descriptor (core in Vulkan 1.4): recording is allocation-free;
//   - shaderStorageImageWriteWithoutFormat, only to write B8G8R8A8 formats (GLSL has no format
//     qualifier for them);
//   - shaderStorageImageExtendedFormats, only to write R16_UNORM, R16G16_SFLOAT, R8G8_UNORM,
//     R16_SFLOAT, A2B10G10R10_UNORM_PACK32 (downsample), B10G11R11_UFLOAT_PACK32 and R8_UNORM
//     (downsample, blur).
// vkfx checks that the physical device supports these; it cannot see whether you enabled them
// (the validation layer will say so if you did not).
//
// Errors. Every fallible call returns a VkResult. Bad input also yields a one-line reason,
// available from vkfx::lastError() on the calling thread and passed to
// DeviceCreateInfo::messageCallback when set; a call that fails records nothing.
//   VK_ERROR_VALIDATION_FAILED_EXT  invalid arguments (null handles, extents, counts, usage)
//   VK_ERROR_FORMAT_NOT_SUPPORTED   a format vkfx or the device cannot handle for that operation
//   VK_ERROR_FEATURE_NOT_PRESENT    a device capability vkfx needs is missing
//   VK_ERROR_INITIALIZATION_FAILED  Device::create could not load a Vulkan function
//   VK_ERROR_OUT_OF_*_MEMORY, ...   passed through from Vulkan (OUT_OF_DEVICE_MEMORY also when no
//                                   memory type suits a buffer vkfx allocates)
#pragma once

#if defined(VOLK_HEADER_VERSION)
// volk.h is already included: its declarations stand in for the loader's.
#else
#include <vulkan/vulkan.h>
#endif

#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

// The assertion macro of vkfx's headers; define it before including vkfx to replace <cassert>'s
// assert. (No vkfx header calls it at present: every precondition vkfx checks is reported as a
// VkResult.)
#ifndef VKFX_ASSERT
#include <cassert>
#define VKFX_ASSERT(expr) assert(expr)
#endif

namespace vkfx {

// Called with the result and the one-line reason of every failing vkfx call, on the thread that
// made the call, before the call returns; `message` is lastError()'s buffer (valid until the next
// failing call on that thread). Calls on an object that was never created (or was destroyed)
// cannot reach the callback and set lastError() only.
using MessageCallback = void (*)(VkResult result, const char* message, void* userData);
// Called after vkfx creates a compute pipeline, on the creating thread: its handle, the name of the
// call that created it (e.g. "vkfx::Blurrer::create") and the specialization constants it was
// created with (null if none; both pointers valid only during the call), so that tools can read
// the driver's statistics of each variant (vkGetPipelineExecutableStatisticsKHR). The pipeline
// belongs to the vkfx object being created: do not destroy it.
using PipelineCallback = void (*)(VkPipeline pipeline, const char* creator, const VkSpecializationInfo* specialization,
                                  void* userData);

namespace detail {
inline thread_local char tlsLastError[512] = "";
} // namespace detail

// The reason for the last failing vkfx call on this thread ("" if none failed yet). Valid until
// the next failing call on the same thread.
inline const char* lastError() noexcept { return detail::tlsLastError; }

// The Vulkan functions vkfx calls; filled by Device::create(). Each member is the Vulkan function
// of its name (null until loaded): the vkGetPhysicalDevice* ones and vkGetDeviceProcAddr through
// DeviceCreateInfo::getInstanceProcAddr, the others through vkGetDeviceProcAddr for the VkDevice;
// vkCmdPushDescriptorSetKHR holds Vulkan 1.4's vkCmdPushDescriptorSet where the extension's name
// does not resolve. Device::fn() gives the table, for calling Vulkan the way vkfx does.
struct DeviceFunctions {
    PFN_vkGetDeviceProcAddr vkGetDeviceProcAddr = nullptr;
    PFN_vkGetPhysicalDeviceProperties2 vkGetPhysicalDeviceProperties2 = nullptr;
    PFN_vkGetPhysicalDeviceFeatures2 vkGetPhysicalDeviceFeatures2 = nullptr;
    PFN_vkGetPhysicalDeviceFormatProperties vkGetPhysicalDeviceFormatProperties = nullptr;
    PFN_vkGetPhysicalDeviceMemoryProperties vkGetPhysicalDeviceMemoryProperties = nullptr;
    PFN_vkCreateShaderModule vkCreateShaderModule = nullptr;
    PFN_vkDestroyShaderModule vkDestroyShaderModule = nullptr;
    PFN_vkCreateComputePipelines vkCreateComputePipelines = nullptr;
    PFN_vkDestroyPipeline vkDestroyPipeline = nullptr;
    PFN_vkCreatePipelineLayout vkCreatePipelineLayout = nullptr;
    PFN_vkDestroyPipelineLayout vkDestroyPipelineLayout = nullptr;
    PFN_vkCreateDescriptorSetLayout vkCreateDescriptorSetLayout = nullptr;
    PFN_vkDestroyDescriptorSetLayout vkDestroyDescriptorSetLayout = nullptr;
    PFN_vkCreateImageView vkCreateImageView = nullptr;
    PFN_vkDestroyImageView vkDestroyImageView = nullptr;
    PFN_vkCreateSampler vkCreateSampler = nullptr;
    PFN_vkDestroySampler vkDestroySampler = nullptr;
    PFN_vkCreateBuffer vkCreateBuffer = nullptr;
    PFN_vkDestroyBuffer vkDestroyBuffer = nullptr;
    PFN_vkGetBufferMemoryRequirements vkGetBufferMemoryRequirements = nullptr;
    PFN_vkAllocateMemory vkAllocateMemory = nullptr;
    PFN_vkFreeMemory vkFreeMemory = nullptr;
    PFN_vkBindBufferMemory vkBindBufferMemory = nullptr;
    PFN_vkMapMemory vkMapMemory = nullptr;
    PFN_vkUnmapMemory vkUnmapMemory = nullptr;
    PFN_vkFlushMappedMemoryRanges vkFlushMappedMemoryRanges = nullptr;
    PFN_vkCmdBindPipeline vkCmdBindPipeline = nullptr;
    PFN_vkCmdPushConstants vkCmdPushConstants = nullptr;
    PFN_vkCmdPushDescriptorSetKHR vkCmdPushDescriptorSetKHR = nullptr;
    PFN_vkCmdDispatch vkCmdDispatch = nullptr;
    PFN_vkCmdDispatchIndirect vkCmdDispatchIndirect = nullptr;
    PFN_vkCmdPipelineBarrier vkCmdPipelineBarrier = nullptr;
};

// The levels of a full mip chain of `extent`: floor(log2(max(width, height))) + 1, what
// VkImageCreateInfo::mipLevels takes for one.
inline std::uint32_t fullMipLevels(VkExtent2D extent)
{
    std::uint32_t levels = 1;
    for (std::uint32_t m = std::max(extent.width, extent.height); m > 1; m >>= 1) ++levels;
    return levels;
}

// Scratch memory an operation needs for a given size of work (like VkMemoryRequirements for a
// buffer the caller creates): at least `size` bytes, at an offset that is a multiple of
// `alignment`, in a buffer created with `usage`.
struct ScratchRequirements {
    // Bytes needed; 0: no scratch is needed, or the query's object or device is not valid. The
    // arguments are not validated (record() checks them): sizes for arguments a record would
    // reject mean nothing.
    VkDeviceSize size = 0;
    // Required alignment of the scratch offset: max(minStorageBufferOffsetAlignment, 4); 0 where
    // the query's object or device is not valid (and for a blur that needs no scratch).
    VkDeviceSize alignment = 0;
    // Usage the buffer must have been created with: STORAGE_BUFFER (the sort adds INDIRECT_BUFFER).
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
};

// What Device::create() needs to know about a VkDevice. vkfx takes ownership of none of the
// handles: the caller destroys them, after every vkfx object made with the Device.
struct DeviceCreateInfo {
    // Required: the instance `physicalDevice` belongs to (its functions are loaded through it).
    VkInstance instance = VK_NULL_HANDLE;
    // Required: the physical device of `device`; it must support Vulkan 1.2 or later.
    VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
    // Required: created from `physicalDevice` with VK_KHR_push_descriptor enabled (or Vulkan 1.4);
    // must outlive the vkfx::Device.
    VkDevice device = VK_NULL_HANDLE;
    // Optional: see "Function loading" above. Null: the surrounding code's vkGetInstanceProcAddr
    // (an error under VK_NO_PROTOTYPES without volk).
    PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
    // Optional: used for every object vkfx creates and destroys. Must outlive the vkfx::Device.
    const VkAllocationCallbacks* allocationCallbacks = nullptr;
    // Optional: pipelines are created through it (VK_NULL_HANDLE: no cache). Must outlive every
    // create() call made with the Device.
    VkPipelineCache pipelineCache = VK_NULL_HANDLE;
    // Optional: told about every failing call made with the Device, and about Device::create's
    // own failures (in addition to lastError()).
    MessageCallback messageCallback = nullptr;
    // Passed unchanged to messageCallback.
    void* messageUserData = nullptr;
    // Optional, for tools: told about every pipeline vkfx creates. With capturePipelineStatistics,
    // pipelines are created with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR (the device must
    // have VK_KHR_pipeline_executable_properties and its pipelineExecutableInfo feature enabled).
    PipelineCallback pipelineCallback = nullptr;
    // Passed unchanged to pipelineCallback.
    void* pipelineUserData = nullptr;
    // Default false. Independent of pipelineCallback (it may be set without one).
    bool capturePipelineStatistics = false;
};

// A VkDevice as vkfx sees it: its function table and the facts vkfx decides by. Create one per
// VkDevice. Cheap to copy, but every vkfx object created with it keeps a pointer to this Device
// object (not a copy): keep that object alive and unchanged (do not create() into it again)
// until all of them are destroyed.
class Device {
public:
    // Loads the function table through info.getInstanceProcAddr and vkGetDeviceProcAddr and reads
    // the physical device's properties, subgroup properties, memory properties and features.
    // Creates no Vulkan object and allocates nothing. `*device` is reset first, so it is not
    // valid() after a failure. Errors (reason in lastError() and info.messageCallback):
    //   VK_ERROR_VALIDATION_FAILED_EXT  `device` null; instance, physicalDevice or device
    //                                   VK_NULL_HANDLE; no getInstanceProcAddr under
    //                                   VK_NO_PROTOTYPES;
    //   VK_ERROR_INITIALIZATION_FAILED  a function could not be loaded (say, an instance created
    //                                   for Vulkan 1.0);
    //   VK_ERROR_FEATURE_NOT_PRESENT    VK_KHR_push_descriptor not enabled (and the device is not
    //                                   Vulkan 1.4), or the physical device below Vulkan 1.2.
    // Format features (shaderStorageImage*) are checked later, by the operations' create().
    static VkResult create(const DeviceCreateInfo& info, Device* device);

    // True once create() has succeeded.
    bool valid() const { return m_device != VK_NULL_HANDLE; }
    // DeviceCreateInfo::device (VK_NULL_HANDLE until created).
    VkDevice handle() const { return m_device; }
    // DeviceCreateInfo::physicalDevice.
    VkPhysicalDevice physicalDevice() const { return m_physicalDevice; }
    // The loaded function table.
    const DeviceFunctions& fn() const { return m_fn; }
    // DeviceCreateInfo::allocationCallbacks (null: Vulkan's default).
    const VkAllocationCallbacks* allocator() const { return m_allocator; }
    // DeviceCreateInfo::pipelineCache.
    VkPipelineCache pipelineCache() const { return m_pipelineCache; }
    // Calls DeviceCreateInfo::pipelineCallback, if set, for a pipeline vkfx has just created (for
    // vkfx's own use; public so that every operation reports alike).
    void pipelineCreated(VkPipeline pipeline, const char* creator, const VkSpecializationInfo* specialization) const
    {
        if (m_pipelineCallback) m_pipelineCallback(pipeline, creator, specialization, m_pipelineUserData);
    }
    // DeviceCreateInfo::capturePipelineStatistics: vkfx creates its pipelines with
    // VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR.
    bool capturePipelineStatistics() const { return m_captureStatistics; }
    // The physical device's properties and limits (read once by create()).
    const VkPhysicalDeviceProperties& properties() const { return m_properties; }
    // The physical device's memory types and heaps (read once by create()).
    const VkPhysicalDeviceMemoryProperties& memoryProperties() const { return m_memory; }
    // VkPhysicalDeviceSubgroupProperties::subgroupSize (the default subgroup size).
    std::uint32_t subgroupSize() const { return m_subgroupSize; }
    // Compute shaders may use basic and shuffle subgroup operations.
    bool subgroupShuffle() const { return m_subgroupShuffle; }
    // The streaming multiprocessors of an NVIDIA GPU (VkPhysicalDeviceShaderSMBuiltinsPropertiesNV::
    // shaderSMCount, where the physical device has VK_NV_shader_sm_builtins; the extension need not
    // be enabled); 0 on other devices. Operations size their workgroups by it where waves matter.
    std::uint32_t multiprocessorCount() const { return m_multiprocessors; }
    // The subgroup operations compute shaders may use (0 where compute has none).
    VkSubgroupFeatureFlags subgroupOperations() const { return m_subgroupOperations; }
    // The physical device supports shaderStorageImageWriteWithoutFormat (whether it was enabled
    // cannot be seen).
    bool storageWriteWithoutFormat() const { return m_writeWithoutFormat; }
    // The physical device supports shaderStorageImageExtendedFormats (likewise).
    bool storageExtendedFormats() const { return m_extendedFormats; }
    // The optimal-tiling features of `format` (vkGetPhysicalDeviceFormatProperties, queried on
    // every call). The Device must be valid().
    VkFormatFeatureFlags optimalFormatFeatures(VkFormat format) const;

    // Records the reason for a failure (printf-style `format`, cut to 511 bytes) in lastError(),
    // passes it to DeviceCreateInfo::messageCallback and returns `result` (for vkfx's own use;
    // public so that every operation reports alike).
    VkResult fail(VkResult result, const char* format, ...) const
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

private:
    VkDevice m_device = VK_NULL_HANDLE;
    VkPhysicalDevice m_physicalDevice = VK_NULL_HANDLE;
    DeviceFunctions m_fn{};
    const VkAllocationCallbacks* m_allocator = nullptr;
    VkPipelineCache m_pipelineCache = VK_NULL_HANDLE;
    MessageCallback m_callback = nullptr;
    void* m_callbackUserData = nullptr;
    PipelineCallback m_pipelineCallback = nullptr;
    void* m_pipelineUserData = nullptr;
    bool m_captureStatistics = false;
    VkPhysicalDeviceProperties m_properties{};
    VkPhysicalDeviceMemoryProperties m_memory{};
    std::uint32_t m_subgroupSize = 0;
    std::uint32_t m_multiprocessors = 0;
    VkSubgroupFeatureFlags m_subgroupOperations = 0;
    bool m_subgroupShuffle = false;
    bool m_writeWithoutFormat = false;
    bool m_extendedFormats = false;
};

namespace detail {

inline VkResult report(MessageCallback callback, void* userData, VkResult result,
                       const char* format, va_list args)
{
    std::vsnprintf(tlsLastError, sizeof(tlsLastError), format, args);
    if (callback) callback(result, tlsLastError, userData);
    return result;
}

// For failures before a Device exists.
inline VkResult fail(MessageCallback callback, void* userData, VkResult result, const char* format,
                     ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

inline VkResult fail(MessageCallback callback, void* userData, VkResult result, const char* format,
                     ...)
{
    va_list args;
    va_start(args, format);
    report(callback, userData, result, format, args);
    va_end(args);
    return result;
}

inline PFN_vkGetInstanceProcAddr defaultGetInstanceProcAddr()
{
#if defined(VOLK_HEADER_VERSION) || !defined(VK_NO_PROTOTYPES)
    return vkGetInstanceProcAddr;
#else
    return nullptr;
#endif
}

// Whether `physicalDevice` has the device extension `name` (false where it cannot be asked).
inline bool hasDeviceExtension(PFN_vkGetInstanceProcAddr gipa, VkInstance instance, VkPhysicalDevice physicalDevice,
                               const char* name)
{
    auto enumerate = reinterpret_cast<PFN_vkEnumerateDeviceExtensionProperties>(
        gipa(instance, "vkEnumerateDeviceExtensionProperties"));
    std::uint32_t count = 0;
    if (!enumerate || enumerate(physicalDevice, nullptr, &count, nullptr) != VK_SUCCESS || count == 0) return false;
    VkExtensionProperties* props = new (std::nothrow) VkExtensionProperties[count];
    if (!props) return false;
    bool found = false;
    if (enumerate(physicalDevice, nullptr, &count, props) >= VK_SUCCESS) { // VK_INCOMPLETE: the first `count`
        for (std::uint32_t i = 0; i < count && !found; ++i) found = std::strcmp(props[i].extensionName, name) == 0;
    }
    delete[] props;
    return found;
}

// Index of a memory type allowed by `typeBits` that has all of `required` (and preferably
// `preferred`), or UINT32_MAX.
inline std::uint32_t findMemoryType(const VkPhysicalDeviceMemoryProperties& props,
                                    std::uint32_t typeBits, VkMemoryPropertyFlags required,
                                    VkMemoryPropertyFlags preferred)
{
    std::uint32_t fallback = UINT32_MAX;
    for (std::uint32_t i = 0; i < props.memoryTypeCount; ++i) {
        if (!(typeBits & (1u << i))) continue;
        VkMemoryPropertyFlags flags = props.memoryTypes[i].propertyFlags;
        if ((flags & required) != required) continue;
        if ((flags & preferred) == preferred) return i;
        if (fallback == UINT32_MAX) fallback = i;
    }
    return fallback;
}

// The alignment of storage-buffer descriptor offsets (scratch and caller buffers).
inline VkDeviceSize storageBufferAlignment(const Device& device);

// A target's layers: layerCount 1 .. min(maxImageArrayLayers, maxComputeWorkGroupCount[2]) (one
// layer of workgroups per layer) and baseArrayLayer + layerCount at most
// maxImageArrayLayers (no image has more; vkfx does not know the image's arrayLayers).
inline VkResult checkLayers(const Device& device, const char* fn, std::uint32_t base, std::uint32_t count)
{
    const VkPhysicalDeviceLimits& limits = device.properties().limits;
    const std::uint32_t most = std::min(limits.maxImageArrayLayers, limits.maxComputeWorkGroupCount[2]);
    if (count == 0 || count > most) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: layerCount %u is outside 1..%u", fn, count, most);
    }
    if (std::uint64_t{base} + count > limits.maxImageArrayLayers) {
        return device.fail(VK_ERROR_VALIDATION_FAILED_EXT, "%s: layers %u..%llu lie past the device's maxImageArrayLayers %u",
                           fn, base, static_cast<unsigned long long>(std::uint64_t{base} + count - 1),
                           limits.maxImageArrayLayers);
    }
    return VK_SUCCESS;
}

// Creates a compute pipeline from SPIR-V; the shader module lives only for the call. `what`
// prefixes the reason reported through device.fail() on failure.
inline VkResult createComputePipeline(const Device& device, const char* what, const std::uint32_t* code,
                                      std::size_t bytes, const VkSpecializationInfo* spec,
                                      VkPipelineLayout layout, VkPipeline* pipeline);

// Creates the push-descriptor set layout of `bindings` (set 0) and a pipeline layout with it and
// `pushBytes` of compute push constants. `what` prefixes the reason reported through
// device.fail() on failure; the caller destroys what it received either way.
inline VkResult createPushLayouts(const Device& device, const char* what, const VkDescriptorSetLayoutBinding* bindings,
                                  std::uint32_t bindingCount, std::uint32_t pushBytes,
                                  VkDescriptorSetLayout* setLayout, VkPipelineLayout* pipelineLayout);

// Creates a sampler with `filter`, nearest mip selection and clamp-to-edge addressing (the
// immutable sampler of a kernel's source). `what` as above.
inline VkResult createClampSampler(const Device& device, const char* what, VkFilter filter, VkSampler* sampler);

// Creates a 2D-array view of one level and `layerCount` layers of `image`, restricted to `usage`
// (VkImageViewUsageCreateInfo). Reports nothing: the caller names what failed.
inline VkResult createLevelView(const Device& device, VkImage image, VkFormat format, VkImageAspectFlags aspect,
                                VkImageUsageFlags usage, std::uint32_t level, std::uint32_t baseLayer,
                                std::uint32_t layerCount, VkImageView* view);

// Checks that the device can sample `sampled` and store `storage` (optimal tiling), and has the
// features writing `storage` needs: shaderStorageImageWriteWithoutFormat for formats without a
// GLSL qualifier (`withoutFormat`), shaderStorageImageExtendedFormats for `extended` ones.
// FORMAT_NOT_SUPPORTED or FEATURE_NOT_PRESENT with a reason prefixed by `what`.
inline VkResult checkSampleAndStore(const Device& device, const char* what, VkFormat sampled, VkFormat storage,
                                    bool withoutFormat, bool extended);

// Creates a buffer of `size` bytes with `usage`, bound at offset 0 to memory of its own, of a type
// with `required` properties and, where one has them, `preferred` ones (when that allocation is out
// of memory, any type with `required`). `allocated` receives the allocation's size. `what`
// prefixes the reason reported through device.fail() on failure; the caller destroys what it
// received either way.
inline VkResult createBoundBuffer(const Device& device, const char* what, VkDeviceSize size,
                                  VkBufferUsageFlags usage, VkMemoryPropertyFlags required,
                                  VkMemoryPropertyFlags preferred, VkBuffer* buffer,
                                  VkDeviceMemory* memory, VkDeviceSize* allocated);

} // namespace detail

inline VkResult Device::fail(VkResult result, const char* format, ...) const
{
    va_list args;
    va_start(args, format);
    detail::report(m_callback, m_callbackUserData, result, format, args);
    va_end(args);
    return result;
}

inline VkFormatFeatureFlags Device::optimalFormatFeatures(VkFormat format) const
{
    VkFormatProperties props{};
    m_fn.vkGetPhysicalDeviceFormatProperties(m_physicalDevice, format, &props);
    return props.optimalTilingFeatures;
}

inline VkResult Device::create(const DeviceCreateInfo& info, Device* device)
{
    if (!device) {
        return detail::fail(info.messageCallback, info.messageUserData,
                            VK_ERROR_VALIDATION_FAILED_EXT, "vkfx::Device::create: device is null");
    }
    *device = Device{};
    auto fail = [&](VkResult r, const char* what) {
        return detail::fail(info.messageCallback, info.messageUserData, r,
                            "vkfx::Device::create: %s", what);
    };
    if (!info.instance) return fail(VK_ERROR_VALIDATION_FAILED_EXT, "instance is VK_NULL_HANDLE");
    if (!info.physicalDevice) {
        return fail(VK_ERROR_VALIDATION_FAILED_EXT, "physicalDevice is VK_NULL_HANDLE");
    }
    if (!info.device) return fail(VK_ERROR_VALIDATION_FAILED_EXT, "device is VK_NULL_HANDLE");
    PFN_vkGetInstanceProcAddr gipa =
        info.getInstanceProcAddr ? info.getInstanceProcAddr : detail::defaultGetInstanceProcAddr();
    if (!gipa) {
        return fail(VK_ERROR_VALIDATION_FAILED_EXT,
                    "getInstanceProcAddr is null and VK_NO_PROTOTYPES hides the loader's");
    }

    Device d;
    d.m_device = info.device;
    d.m_physicalDevice = info.physicalDevice;
    d.m_allocator = info.allocationCallbacks;
    d.m_pipelineCache = info.pipelineCache;
    d.m_callback = info.messageCallback;
    d.m_callbackUserData = info.messageUserData;
    d.m_pipelineCallback = info.pipelineCallback;
    d.m_pipelineUserData = info.pipelineUserData;
    d.m_captureStatistics = info.capturePipelineStatistics;

    DeviceFunctions& f = d.m_fn;
#define VKFX_LOAD_INSTANCE(name) f.name = reinterpret_cast<PFN_##name>(gipa(info.instance, #name))
    VKFX_LOAD_INSTANCE(vkGetDeviceProcAddr);
    VKFX_LOAD_INSTANCE(vkGetPhysicalDeviceProperties2);
    VKFX_LOAD_INSTANCE(vkGetPhysicalDeviceFeatures2);
    VKFX_LOAD_INSTANCE(vkGetPhysicalDeviceFormatProperties);
    VKFX_LOAD_INSTANCE(vkGetPhysicalDeviceMemoryProperties);
#undef VKFX_LOAD_INSTANCE
    if (!f.vkGetDeviceProcAddr || !f.vkGetPhysicalDeviceProperties2 ||
        !f.vkGetPhysicalDeviceFeatures2 || !f.vkGetPhysicalDeviceFormatProperties ||
        !f.vkGetPhysicalDeviceMemoryProperties) {
        return fail(VK_ERROR_INITIALIZATION_FAILED,
                    "getInstanceProcAddr returned null for a Vulkan 1.1 instance function "
                    "(is the instance created with apiVersion >= 1.2?)");
    }
    PFN_vkGetDeviceProcAddr gdpa = f.vkGetDeviceProcAddr;
#define VKFX_LOAD_DEVICE(name) f.name = reinterpret_cast<PFN_##name>(gdpa(info.device, #name))
    VKFX_LOAD_DEVICE(vkCreateShaderModule);
    VKFX_LOAD_DEVICE(vkDestroyShaderModule);
    VKFX_LOAD_DEVICE(vkCreateComputePipelines);
    VKFX_LOAD_DEVICE(vkDestroyPipeline);
    VKFX_LOAD_DEVICE(vkCreatePipelineLayout);
    VKFX_LOAD_DEVICE(vkDestroyPipelineLayout);
    VKFX_LOAD_DEVICE(vkCreateDescriptorSetLayout);
    VKFX_LOAD_DEVICE(vkDestroyDescriptorSetLayout);
    VKFX_LOAD_DEVICE(vkCreateImageView);
    VKFX_LOAD_DEVICE(vkDestroyImageView);
    VKFX_LOAD_DEVICE(vkCreateSampler);
    VKFX_LOAD_DEVICE(vkDestroySampler);
    VKFX_LOAD_DEVICE(vkCreateBuffer);
    VKFX_LOAD_DEVICE(vkDestroyBuffer);
    VKFX_LOAD_DEVICE(vkGetBufferMemoryRequirements);
    VKFX_LOAD_DEVICE(vkAllocateMemory);
    VKFX_LOAD_DEVICE(vkFreeMemory);
    VKFX_LOAD_DEVICE(vkBindBufferMemory);
    VKFX_LOAD_DEVICE(vkMapMemory);
    VKFX_LOAD_DEVICE(vkUnmapMemory);
    VKFX_LOAD_DEVICE(vkFlushMappedMemoryRanges);
    VKFX_LOAD_DEVICE(vkCmdBindPipeline);
    VKFX_LOAD_DEVICE(vkCmdPushConstants);
    VKFX_LOAD_DEVICE(vkCmdDispatch);
    VKFX_LOAD_DEVICE(vkCmdDispatchIndirect);
    VKFX_LOAD_DEVICE(vkCmdPipelineBarrier);
    VKFX_LOAD_DEVICE(vkCmdPushDescriptorSetKHR);
#undef VKFX_LOAD_DEVICE
    if (!f.vkCmdPushDescriptorSetKHR) {
        // Vulkan 1.4 core name.
        f.vkCmdPushDescriptorSetKHR =
            reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(gdpa(info.device, "vkCmdPushDescriptorSet"));
    }
    const void* const* all = reinterpret_cast<const void* const*>(&f);
    for (std::size_t i = 0; i < sizeof(DeviceFunctions) / sizeof(void*); ++i) {
        if (!all[i] && &all[i] != reinterpret_cast<const void* const*>(&f.vkCmdPushDescriptorSetKHR)) {
            return fail(VK_ERROR_INITIALIZATION_FAILED,
                        "a core Vulkan function could not be loaded from the device");
        }
    }
    if (!f.vkCmdPushDescriptorSetKHR) {
        return fail(VK_ERROR_FEATURE_NOT_PRESENT,
                    "VK_KHR_push_descriptor is not enabled on the device (vkfx records with push "
                    "descriptors; enable the extension, or use Vulkan 1.4)");
    }

    VkPhysicalDeviceSubgroupProperties subgroup{};

    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    VkPhysicalDeviceProperties2 props2{};
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props2.pNext = &subgroup;
    // The SM count, where the physical device reports it (its properties may be queried without
    // enabling the extension).
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{};
    sm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
    if (detail::hasDeviceExtension(gipa, info.instance, info.physicalDevice, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) {
        subgroup.pNext = &sm;
    }
    f.vkGetPhysicalDeviceProperties2(info.physicalDevice, &props2);
    d.m_multiprocessors = sm.shaderSMCount;
    d.m_properties = props2.properties;
    f.vkGetPhysicalDeviceMemoryProperties(info.physicalDevice, &d.m_memory);
    if (VK_API_VERSION_MAJOR(d.m_properties.apiVersion) == 1 &&
        VK_API_VERSION_MINOR(d.m_properties.apiVersion) < 2) {
        return fail(VK_ERROR_FEATURE_NOT_PRESENT, "the device supports Vulkan 1.1 or less; vkfx needs 1.2");
    }
    d.m_subgroupSize = subgroup.subgroupSize;
    d.m_subgroupOperations =
        (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ? subgroup.supportedOperations : 0;
    const VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
    d.m_subgroupShuffle = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                          (subgroup.supportedOperations & needed) == needed;

    VkPhysicalDeviceFeatures2 features{};

    features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f.vkGetPhysicalDeviceFeatures2(info.physicalDevice, &features);
    d.m_writeWithoutFormat = features.features.shaderStorageImageWriteWithoutFormat == VK_TRUE;
    d.m_extendedFormats = features.features.shaderStorageImageExtendedFormats == VK_TRUE;
    *device = d;
    return VK_SUCCESS;
}

namespace detail {

inline VkDeviceSize storageBufferAlignment(const Device& device)
{
    return std::max<VkDeviceSize>(device.properties().limits.minStorageBufferOffsetAlignment, 4);
}

inline VkResult createComputePipeline(const Device& device, const char* what, const std::uint32_t* code,
                                      std::size_t bytes, const VkSpecializationInfo* spec,
                                      VkPipelineLayout layout, VkPipeline* pipeline)
{
    const DeviceFunctions& f = device.fn();
    VkShaderModuleCreateInfo moduleInfo{};
    moduleInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    moduleInfo.codeSize = bytes;
    moduleInfo.pCode = code;
    VkShaderModule module = VK_NULL_HANDLE;
    VkResult r = f.vkCreateShaderModule(device.handle(), &moduleInfo, device.allocator(), &module);
    if (r != VK_SUCCESS) return device.fail(r, "%s: vkCreateShaderModule failed (%d)", what, static_cast<int>(r));
    VkComputePipelineCreateInfo pipelineInfo{};
    pipelineInfo.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    pipelineInfo.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipelineInfo.stage.module = module;
    pipelineInfo.stage.pName = "main";
    pipelineInfo.stage.pSpecializationInfo = spec;
    pipelineInfo.layout = layout;
    if (device.capturePipelineStatistics()) pipelineInfo.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    r = f.vkCreateComputePipelines(device.handle(), device.pipelineCache(), 1, &pipelineInfo, device.allocator(),
                                   pipeline);
    f.vkDestroyShaderModule(device.handle(), module, device.allocator());
    if (r != VK_SUCCESS) return device.fail(r, "%s: vkCreateComputePipelines failed (%d)", what, static_cast<int>(r));
    device.pipelineCreated(*pipeline, what, spec);
    return VK_SUCCESS;
}

inline VkResult createPushLayouts(const Device& device, const char* what, const VkDescriptorSetLayoutBinding* bindings,
                                  std::uint32_t bindingCount, std::uint32_t pushBytes,
                                  VkDescriptorSetLayout* setLayout, VkPipelineLayout* pipelineLayout)
{
    const DeviceFunctions& f = device.fn();
    VkDescriptorSetLayoutCreateInfo setInfo{};
    setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    setInfo.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    setInfo.bindingCount = bindingCount;
    setInfo.pBindings = bindings;
    VkResult r = f.vkCreateDescriptorSetLayout(device.handle(), &setInfo, device.allocator(), setLayout);
    if (r != VK_SUCCESS) return device.fail(r, "%s: vkCreateDescriptorSetLayout failed (%d)", what, static_cast<int>(r));
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes};
    VkPipelineLayoutCreateInfo layoutInfo{};
    layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = setLayout;
    layoutInfo.pushConstantRangeCount = 1;
    layoutInfo.pPushConstantRanges = &range;
    r = f.vkCreatePipelineLayout(device.handle(), &layoutInfo, device.allocator(), pipelineLayout);
    if (r != VK_SUCCESS) return device.fail(r, "%s: vkCreatePipelineLayout failed (%d)", what, static_cast<int>(r));
    return VK_SUCCESS;
}

inline VkResult createClampSampler(const Device& device, const char* what, VkFilter filter, VkSampler* sampler)
{
    VkSamplerCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO;
    info.magFilter = info.minFilter = filter;
    info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    VkResult r = device.fn().vkCreateSampler(device.handle(), &info, device.allocator(), sampler);
    if (r != VK_SUCCESS) return device.fail(r, "%s: vkCreateSampler failed (%d)", what, static_cast<int>(r));
    return VK_SUCCESS;
}

inline VkResult createLevelView(const Device& device, VkImage image, VkFormat format, VkImageAspectFlags aspect,
                                VkImageUsageFlags usage, std::uint32_t level, std::uint32_t baseLayer,
                                std::uint32_t layerCount, VkImageView* view)
{
    VkImageViewUsageCreateInfo usageInfo{};
    usageInfo.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO;
    usageInfo.usage = usage;
    VkImageViewCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
    ci.pNext = &usageInfo;
    ci.image = image;
    ci.viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY;
    ci.format = format;
    ci.subresourceRange = {aspect, level, 1, baseLayer, layerCount};
    return device.fn().vkCreateImageView(device.handle(), &ci, device.allocator(), view);
}

inline VkResult checkSampleAndStore(const Device& device, const char* what, VkFormat sampled, VkFormat storage,
                                    bool withoutFormat, bool extended)
{
    if (!(device.optimalFormatFeatures(sampled) & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)) {
        return device.fail(VK_ERROR_FORMAT_NOT_SUPPORTED, "%s: the device cannot sample format %d", what,
                           static_cast<int>(sampled));
    }
    if (!(device.optimalFormatFeatures(storage) & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)) {
        return device.fail(VK_ERROR_FORMAT_NOT_SUPPORTED, "%s: the device cannot write format %d as a storage image",
                           what, static_cast<int>(storage));
    }
    if (withoutFormat && !device.storageWriteWithoutFormat()) {
        return device.fail(VK_ERROR_FEATURE_NOT_PRESENT, "%s: B8G8R8A8 formats need shaderStorageImageWriteWithoutFormat",
                           what);
    }
    if (extended && !device.storageExtendedFormats()) {
        return device.fail(VK_ERROR_FEATURE_NOT_PRESENT, "%s: format %d needs shaderStorageImageExtendedFormats", what,
                           static_cast<int>(storage));
    }
    return VK_SUCCESS;
}

inline VkResult createBoundBuffer(const Device& device, const char* what, VkDeviceSize size,
                                  VkBufferUsageFlags usage, VkMemoryPropertyFlags required,
                                  VkMemoryPropertyFlags preferred, VkBuffer* buffer,
                                  VkDeviceMemory* memory, VkDeviceSize* allocated)
{
    const DeviceFunctions& f = device.fn();
    VkDevice d = device.handle();
    const VkAllocationCallbacks* a = device.allocator();
    VkBufferCreateInfo bufferInfo{};
    bufferInfo.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bufferInfo.size = size;
    bufferInfo.usage = usage;
    bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult r = f.vkCreateBuffer(d, &bufferInfo, a, buffer);
    if (r != VK_SUCCESS) return device.fail(r, "%s: vkCreateBuffer failed (%d)", what, static_cast<int>(r));
    VkMemoryRequirements req{};
    f.vkGetBufferMemoryRequirements(d, *buffer, &req);
    std::uint32_t type = findMemoryType(device.memoryProperties(), req.memoryTypeBits, required, preferred);
    if (type == UINT32_MAX) {
        return device.fail(VK_ERROR_OUT_OF_DEVICE_MEMORY, "%s: no memory type with properties 0x%x", what,
                           static_cast<unsigned>(required));
    }
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    r = f.vkAllocateMemory(d, &alloc, a, memory);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY && preferred) {
        // A small heap with the preferred properties (say device-local and host-visible) may be
        // full: any type with the required ones.
        alloc.memoryTypeIndex = findMemoryType(device.memoryProperties(), req.memoryTypeBits, required, 0);
        r = f.vkAllocateMemory(d, &alloc, a, memory);
    }
    if (r != VK_SUCCESS) {
        return device.fail(r, "%s: allocating %llu bytes failed (%d)", what,
                           static_cast<unsigned long long>(req.size), static_cast<int>(r));
    }
    r = f.vkBindBufferMemory(d, *buffer, *memory, 0);
    if (r != VK_SUCCESS) return device.fail(r, "%s: vkBindBufferMemory failed (%d)", what, static_cast<int>(r));
    *allocated = req.size;
    return VK_SUCCESS;
}

} // namespace detail

} // namespace vkfx
