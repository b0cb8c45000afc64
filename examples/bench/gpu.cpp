#include "bench/gpu.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace bench {
namespace {

constexpr const char *kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::atomic<std::size_t> g_messages{0};

VKAPI_ATTR VkBool32 VKAPI_CALL onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                   void *) {
    ++g_messages;
    std::fprintf(stderr, "vkfx-bench: validation %s [%s]: %s\n",
                 (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning",
                 data && data->pMessageIdName ? data->pMessageIdName : "-",
                 data && data->pMessage ? data->pMessage : "(no message)");
    std::fflush(stderr);
    return VK_FALSE;
}

bool hasExtension(const std::vector<VkExtensionProperties> &list, const char *name) {
    return std::any_of(list.begin(), list.end(), [&](const VkExtensionProperties &e) {
        return std::strcmp(e.extensionName, name) == 0;
    });
}

std::vector<VkExtensionProperties> instanceExtensions(const char *layer) {
    std::uint32_t n = 0;
    if (vkEnumerateInstanceExtensionProperties(layer, &n, nullptr) != VK_SUCCESS)
        return {};
    std::vector<VkExtensionProperties> list(n);
    if (vkEnumerateInstanceExtensionProperties(layer, &n, list.data()) != VK_SUCCESS)
        return {};
    list.resize(n);
    return list;
}

} // namespace

void die(const std::string &why) {
    std::fflush(stdout);
    std::fprintf(stderr, "vkfx-bench: %s\n", why.c_str());
    std::exit(1);
}

void check(VkResult r, const char *what) {
    if (r == VK_SUCCESS)
        return;
    std::string reason = vkfx::lastError();
    die(std::string(what) + " failed (VkResult " + std::to_string(r) + ")" +
        (reason.empty() ? "" : ": " + reason));
}

std::size_t validationMessages() { return g_messages.load(); }

std::string lowerCase(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return s;
}

std::string versionText(std::uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
           "." + std::to_string(VK_API_VERSION_PATCH(v));
}

std::string driverVersionText(const Gpu &gpu) {
    const std::uint32_t v = gpu.props.driverVersion;
    std::string number;
    if (gpu.props.vendorID == 0x10DE) { // NVIDIA packs 10.8.8.6 bits
        number = std::to_string(v >> 22) + "." + std::to_string((v >> 14) & 0xFFu) + "." +
                 std::to_string((v >> 6) & 0xFFu) + "." + std::to_string(v & 0x3Fu);
    } else {
        number = versionText(v);
    }
    std::string text = gpu.driverName.empty() ? number : gpu.driverName + " " + number;
    if (!gpu.driverInfo.empty())
        text += " (" + gpu.driverInfo + ")";
    return text;
}

const char *deviceTypeText(VkPhysicalDeviceType type) {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return "CPU";
    default:
        return "other";
    }
}

namespace {

// --pipeline-stats: the statistics of each pipeline vkfx creates, a line each, as
// "pipeline <creator> c<constant id>=<value> ...: <statistic>=<value>, ...".
VkDevice statsDevice = VK_NULL_HANDLE;
PFN_vkGetPipelineExecutablePropertiesKHR getExecutables = nullptr;
PFN_vkGetPipelineExecutableStatisticsKHR getStatistics = nullptr;

void printPipelineStatistics(VkPipeline pipeline, const char *creator, const VkSpecializationInfo *spec, void *) {
    std::string line = std::string("pipeline ") + creator;
    for (std::uint32_t i = 0; spec && i < spec->mapEntryCount; ++i) {
        const VkSpecializationMapEntry &e = spec->pMapEntries[i];
        std::uint32_t v = 0;
        std::memcpy(&v, static_cast<const char *>(spec->pData) + e.offset, std::min<std::size_t>(e.size, 4));
        line += " c" + std::to_string(e.constantID) + "=" + std::to_string(v);
    }
    VkPipelineInfoKHR info{};
    info.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
    info.pipeline = pipeline;
    std::uint32_t executables = 0;
    if (!getExecutables || !getStatistics ||
        getExecutables(statsDevice, &info, &executables, nullptr) != VK_SUCCESS) {
        std::printf("%s: no statistics\n", line.c_str());
        return;
    }
    for (std::uint32_t x = 0; x < executables; ++x) {
        VkPipelineExecutableInfoKHR ei{};
        ei.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
        ei.pipeline = pipeline;
        ei.executableIndex = x;
        std::uint32_t count = 0;
        getStatistics(statsDevice, &ei, &count, nullptr);
        std::vector<VkPipelineExecutableStatisticKHR> stats(count);
        for (auto &st : stats)
            st.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
        getStatistics(statsDevice, &ei, &count, stats.data());
        std::string text = line + ":";
        for (std::uint32_t k = 0; k < count; ++k) {
            const VkPipelineExecutableStatisticKHR &st = stats[k];
            text += std::string(k ? ", " : " ") + st.name + "=";
            switch (st.format) {
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
                text += st.value.b32 ? "true" : "false";
                break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
                text += std::to_string(st.value.i64);
                break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
                text += std::to_string(st.value.u64);
                break;
            default:
                text += std::to_string(st.value.f64);
                break;
            }
        }
        std::printf("%s\n", text.c_str());
    }
}

} // namespace

void openGpu(const GpuOptions &options, Gpu *out) {
    Gpu &g = *out;
    g = Gpu{};

    // --- instance -----------------------------------------------------------------------------
    std::uint32_t loaderVersion = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion(&loaderVersion) != VK_SUCCESS)
        loaderVersion = VK_API_VERSION_1_0;
    if (loaderVersion < VK_API_VERSION_1_2) {
        die("the Vulkan loader supports only " + versionText(loaderVersion) + "; vkfx needs 1.2");
    }
    g.instanceVersion = loaderVersion;

    std::vector<const char *> extensions;
    bool validationFeatures = false;
    if (options.validation) {
        std::uint32_t n = 0;
        vkEnumerateInstanceLayerProperties(&n, nullptr);
        std::vector<VkLayerProperties> layers(n);
        vkEnumerateInstanceLayerProperties(&n, layers.data());
        bool have = std::any_of(layers.begin(), layers.end(), [](const VkLayerProperties &l) {
            return std::strcmp(l.layerName, kValidationLayer) == 0;
        });
        if (!have) {
            std::fprintf(stderr,
                         "vkfx-bench: VKFX_BENCH_VALIDATION=1 but %s is not installed "
                         "(Debian: vulkan-validationlayers)\n",
                         kValidationLayer);
            std::exit(kExitNoValidationLayer);
        }
        std::vector<VkExtensionProperties> global = instanceExtensions(nullptr);
        std::vector<VkExtensionProperties> fromLayer = instanceExtensions(kValidationLayer);
        if (!hasExtension(global, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) &&
            !hasExtension(fromLayer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
            die("VK_EXT_debug_utils is not available with the validation layer");
        }
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        validationFeatures = hasExtension(fromLayer, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        if (validationFeatures)
            extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    }
    g.validation = options.validation;

    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "vkfx-bench";
    app.apiVersion = loaderVersion >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;

    VkDebugUtilsMessengerCreateInfoEXT messengerInfo{};
    messengerInfo.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    messengerInfo.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                    VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messengerInfo.pfnUserCallback = onValidationMessage;
    const VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{};
    features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;

    VkInstanceCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pApplicationInfo = &app;
    if (options.validation) {
        ici.enabledLayerCount = 1;
        ici.ppEnabledLayerNames = &kValidationLayer;
        ici.pNext = &messengerInfo; // messages of vkCreateInstance / vkDestroyInstance too
        if (validationFeatures)
            messengerInfo.pNext = &features;
    }
    ici.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
    ici.ppEnabledExtensionNames = extensions.data();
    if (vkCreateInstance(&ici, nullptr, &g.instance) != VK_SUCCESS) {
        die("no Vulkan driver: install a GPU driver, or mesa-vulkan-drivers for lavapipe");
    }
    if (options.validation) {
        messengerInfo.pNext = nullptr;
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(g.instance, "vkCreateDebugUtilsMessengerEXT"));
        if (!create || create(g.instance, &messengerInfo, nullptr, &g.messenger) != VK_SUCCESS) {
            die("vkCreateDebugUtilsMessengerEXT failed");
        }
        if (!validationFeatures) {
            std::fprintf(stderr,
                         "vkfx-bench: the validation layer lacks VK_EXT_validation_features: "
                         "synchronization validation is off\n");
        }
    }

    // --- physical device ----------------------------------------------------------------------
    std::uint32_t count = 0;
    vkEnumeratePhysicalDevices(g.instance, &count, nullptr);
    std::vector<VkPhysicalDevice> all(count);
    vkEnumeratePhysicalDevices(g.instance, &count, all.data());
    all.resize(count);
    if (all.empty())
        die("no Vulkan device found");
    std::vector<VkPhysicalDeviceProperties> props(all.size());
    for (std::size_t i = 0; i < all.size(); ++i)
        vkGetPhysicalDeviceProperties(all[i], &props[i]);
    std::size_t chosen = all.size();
    if (!options.deviceName.empty()) {
        const std::string want = lowerCase(options.deviceName);
        for (std::size_t i = 0; i < all.size() && chosen == all.size(); ++i) {
            if (lowerCase(props[i].deviceName).find(want) != std::string::npos)
                chosen = i;
        }
        if (chosen == all.size()) {
            std::string names;
            for (const VkPhysicalDeviceProperties &p : props)
                names += std::string(" '") + p.deviceName + "'";
            die("--device '" + options.deviceName + "' matches none of:" + names);
        }
    }
    for (std::size_t i = 0; i < all.size() && chosen == all.size(); ++i) {
        if (props[i].deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
            props[i].deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
            props[i].deviceType == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU) {
            chosen = i;
        }
    }
    for (std::size_t i = 0; i < all.size() && chosen == all.size(); ++i) {
        if (props[i].deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
            chosen = i;
    }
    if (chosen == all.size())
        chosen = 0;
    g.physical = all[chosen];
    if (props[chosen].apiVersion < VK_API_VERSION_1_2) {
        die(std::string(props[chosen].deviceName) + " supports Vulkan " +
            versionText(props[chosen].apiVersion) + "; vkfx needs 1.2");
    }

    VkPhysicalDeviceDriverProperties driver{};
    driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    VkPhysicalDeviceMaintenance3Properties maintenance3{};
    maintenance3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
    maintenance3.pNext = &driver;
    VkPhysicalDeviceProperties2 props2{};
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props2.pNext = &maintenance3;
    vkGetPhysicalDeviceProperties2(g.physical, &props2);
    g.props = props2.properties;
    g.driverName = driver.driverName;
    g.driverInfo = driver.driverInfo;
    g.maxAllocation = maintenance3.maxMemoryAllocationSize;
    vkGetPhysicalDeviceMemoryProperties(g.physical, &g.memory);

    // --- queue: graphics + compute where there is one (blits need graphics), else compute ------
    std::uint32_t familyCount = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(g.physical, &familyCount, nullptr);
    std::vector<VkQueueFamilyProperties> families(familyCount);
    vkGetPhysicalDeviceQueueFamilyProperties(g.physical, &familyCount, families.data());
    std::uint32_t family = familyCount;
    const VkQueueFlags both = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    for (std::uint32_t i = 0; i < familyCount && family == familyCount; ++i) {
        if ((families[i].queueFlags & both) == both && families[i].timestampValidBits > 0)
            family = i;
    }
    for (std::uint32_t i = 0; i < familyCount && family == familyCount; ++i) {
        if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].timestampValidBits > 0)
            family = i;
    }
    if (family == familyCount)
        die("the device has no compute queue with timestamps");
    g.family = family;
    g.graphicsQueue = (families[family].queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0;
    g.timestampValidBits = families[family].timestampValidBits;

    // --- device -------------------------------------------------------------------------------
    std::uint32_t extCount = 0;
    vkEnumerateDeviceExtensionProperties(g.physical, nullptr, &extCount, nullptr);
    std::vector<VkExtensionProperties> deviceExts(extCount);
    vkEnumerateDeviceExtensionProperties(g.physical, nullptr, &extCount, deviceExts.data());
    deviceExts.resize(extCount);
    std::vector<const char *> enabled;
    const bool api14 = g.props.apiVersion >= VK_MAKE_API_VERSION(0, 1, 4, 0);
    if (hasExtension(deviceExts, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) {
        enabled.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    } else if (!api14) {
        die(std::string(g.props.deviceName) + " lacks VK_KHR_push_descriptor, which vkfx needs");
    }
    if (hasExtension(deviceExts, "VK_KHR_portability_subset"))
        enabled.push_back("VK_KHR_portability_subset");
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableInfo{};
    executableInfo.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
    bool pipelineStats = false;
    if (options.pipelineStats) {
        if (hasExtension(deviceExts, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
            enabled.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
            executableInfo.pipelineExecutableInfo = VK_TRUE;
            pipelineStats = true;
        } else {
            std::printf("pipeline statistics: the device has no VK_KHR_pipeline_executable_properties\n");
        }
    }

    VkPhysicalDeviceFeatures2 have{};
    have.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    vkGetPhysicalDeviceFeatures2(g.physical, &have);
    VkPhysicalDeviceFeatures2 enable{};
    enable.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    // vkfx writes B8G8R8A8 without a format qualifier and R16 / RG16F / B10G11R11 with extended
    // formats; the bench uses neither, but enables what vkfx documents, as an engine would.
    enable.features.shaderStorageImageWriteWithoutFormat =
        have.features.shaderStorageImageWriteWithoutFormat;
    enable.features.shaderStorageImageExtendedFormats =
        have.features.shaderStorageImageExtendedFormats;

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{};
    qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci.queueFamilyIndex = family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    if (pipelineStats)
        enable.pNext = &executableInfo;
    VkDeviceCreateInfo dci{};
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.pNext = &enable;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = static_cast<std::uint32_t>(enabled.size());
    dci.ppEnabledExtensionNames = enabled.data();
    check(vkCreateDevice(g.physical, &dci, nullptr, &g.device), "vkCreateDevice");
    vkGetDeviceQueue(g.device, family, 0, &g.queue);

    vkfx::DeviceCreateInfo vi;
    vi.instance = g.instance;
    vi.physicalDevice = g.physical;
    vi.device = g.device;
    vi.getInstanceProcAddr = vkGetInstanceProcAddr;
    if (pipelineStats) {
        statsDevice = g.device;
        getExecutables = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
            vkGetDeviceProcAddr(g.device, "vkGetPipelineExecutablePropertiesKHR"));
        getStatistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
            vkGetDeviceProcAddr(g.device, "vkGetPipelineExecutableStatisticsKHR"));
        vi.pipelineCallback = printPipelineStatistics;
        vi.capturePipelineStatistics = true;
    }
    check(vkfx::Device::create(vi, &g.vkfx), "vkfx::Device::create");

    VkCommandPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = family;
    check(vkCreateCommandPool(g.device, &pci, nullptr, &g.pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo cai{};
    cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cai.commandPool = g.pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    check(vkAllocateCommandBuffers(g.device, &cai, &g.cmd), "vkAllocateCommandBuffers");
    VkFenceCreateInfo fci{};
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    check(vkCreateFence(g.device, &fci, nullptr, &g.fence), "vkCreateFence");
}

void closeGpu(Gpu &g) {
    if (g.device) {
        vkDeviceWaitIdle(g.device);
        vkDestroyFence(g.device, g.fence, nullptr);
        vkDestroyCommandPool(g.device, g.pool, nullptr);
        vkDestroyDevice(g.device, nullptr);
    }
    if (g.messenger) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(g.instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy)
            destroy(g.instance, g.messenger, nullptr);
    }
    if (g.instance)
        vkDestroyInstance(g.instance, nullptr);
    g = Gpu{};
}

std::uint32_t findMemoryType(const Gpu &gpu, std::uint32_t typeBits, VkMemoryPropertyFlags flags) {
    for (std::uint32_t i = 0; i < gpu.memory.memoryTypeCount; ++i) {
        if ((typeBits & (1u << i)) && (gpu.memory.memoryTypes[i].propertyFlags & flags) == flags)
            return i;
    }
    return UINT32_MAX;
}

VkResult createBuffer(const Gpu &gpu, VkDeviceSize size, VkBufferUsageFlags usage, Buffer *out) {
    *out = Buffer{};
    VkBufferCreateInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = size;
    bi.usage = usage;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult r = vkCreateBuffer(gpu.device, &bi, nullptr, &out->buffer);
    if (r != VK_SUCCESS)
        return r;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(gpu.device, out->buffer, &req);
    VkMemoryAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex =
        findMemoryType(gpu, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (ai.memoryTypeIndex == UINT32_MAX)
        ai.memoryTypeIndex = findMemoryType(gpu, req.memoryTypeBits, 0);
    r = vkAllocateMemory(gpu.device, &ai, nullptr, &out->memory);
    if (r == VK_SUCCESS)
        r = vkBindBufferMemory(gpu.device, out->buffer, out->memory, 0);
    if (r != VK_SUCCESS) {
        destroyBuffer(gpu, *out);
        return r;
    }
    out->size = size;
    return VK_SUCCESS;
}

void destroyBuffer(const Gpu &gpu, Buffer &buffer) {
    if (buffer.buffer)
        vkDestroyBuffer(gpu.device, buffer.buffer, nullptr);
    if (buffer.memory)
        vkFreeMemory(gpu.device, buffer.memory, nullptr);
    buffer = Buffer{};
}

Kernel createKernel(const Gpu &gpu, const std::uint32_t *code, std::size_t codeBytes,
                    std::initializer_list<VkDescriptorType> bindings, std::uint32_t pushBytes,
                    const char *name) {
    Kernel k;
    std::vector<VkDescriptorSetLayoutBinding> list;
    for (VkDescriptorType type : bindings) {
        VkDescriptorSetLayoutBinding b{};
        b.binding = static_cast<std::uint32_t>(list.size());
        b.descriptorType = type;
        b.descriptorCount = 1;
        b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        list.push_back(b);
    }
    const std::string what = std::string("creating the ") + name + " kernel: ";
    VkDescriptorSetLayoutCreateInfo sli{};
    sli.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    sli.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    sli.bindingCount = static_cast<std::uint32_t>(list.size());
    sli.pBindings = list.data();
    check(vkCreateDescriptorSetLayout(gpu.device, &sli, nullptr, &k.setLayout),
          (what + "vkCreateDescriptorSetLayout").c_str());
    VkPushConstantRange range{};
    range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    range.size = pushBytes;
    VkPipelineLayoutCreateInfo pli{};
    pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &k.setLayout;
    pli.pushConstantRangeCount = pushBytes ? 1u : 0u;
    pli.pPushConstantRanges = &range;
    check(vkCreatePipelineLayout(gpu.device, &pli, nullptr, &k.layout),
          (what + "vkCreatePipelineLayout").c_str());
    VkShaderModuleCreateInfo smi{};
    smi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    smi.codeSize = codeBytes;
    smi.pCode = code;
    VkShaderModule module;
    check(vkCreateShaderModule(gpu.device, &smi, nullptr, &module),
          (what + "vkCreateShaderModule").c_str());
    VkComputePipelineCreateInfo cpi{};
    cpi.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpi.stage.module = module;
    cpi.stage.pName = "main";
    cpi.layout = k.layout;
    VkResult r =
        vkCreateComputePipelines(gpu.device, VK_NULL_HANDLE, 1, &cpi, nullptr, &k.pipeline);
    vkDestroyShaderModule(gpu.device, module, nullptr);
    check(r, (what + "vkCreateComputePipelines").c_str());
    return k;
}

void destroyKernel(const Gpu &gpu, Kernel &k) {
    if (k.pipeline)
        vkDestroyPipeline(gpu.device, k.pipeline, nullptr);
    if (k.layout)
        vkDestroyPipelineLayout(gpu.device, k.layout, nullptr);
    if (k.setLayout)
        vkDestroyDescriptorSetLayout(gpu.device, k.setLayout, nullptr);
    k = Kernel{};
}

void bindKernel(const Gpu &gpu, VkCommandBuffer cmd, const Kernel &k,
                std::initializer_list<VkWriteDescriptorSet> writes, const void *push,
                std::uint32_t pushBytes) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
    gpu.vkfx.fn().vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0,
                                            static_cast<std::uint32_t>(writes.size()),
                                            writes.begin());
    if (pushBytes)
        vkCmdPushConstants(cmd, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes, push);
}

VkWriteDescriptorSet bufferWrite(std::uint32_t binding, const VkDescriptorBufferInfo *info) {
    VkWriteDescriptorSet w{};
    w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    w.dstBinding = binding;
    w.descriptorCount = 1;
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = info;
    return w;
}

VkWriteDescriptorSet imageWrite(std::uint32_t binding, VkDescriptorType type,
                                const VkDescriptorImageInfo *info) {
    VkWriteDescriptorSet w{};
    w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    w.dstBinding = binding;
    w.descriptorCount = 1;
    w.descriptorType = type;
    w.pImageInfo = info;
    return w;
}

VkCommandBuffer beginCommands(Gpu &gpu) {
    check(vkResetCommandBuffer(gpu.cmd, 0), "vkResetCommandBuffer");
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(gpu.cmd, &begin), "vkBeginCommandBuffer");
    return gpu.cmd;
}

void submitAndWait(Gpu &gpu) {
    check(vkEndCommandBuffer(gpu.cmd), "vkEndCommandBuffer");
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &gpu.cmd;
    check(vkResetFences(gpu.device, 1, &gpu.fence), "vkResetFences");
    check(vkQueueSubmit(gpu.queue, 1, &submit, gpu.fence), "vkQueueSubmit");
    check(vkWaitForFences(gpu.device, 1, &gpu.fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

void fullBarrier(VkCommandBuffer cmd) {
    VkMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    const VkPipelineStageFlags stages =
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &b, 0, nullptr, 0, nullptr);
}

VkImageMemoryBarrier imageBarrier(VkImage image, std::uint32_t baseLevel, std::uint32_t levelCount,
                                  std::uint32_t layers, VkImageLayout from, VkImageLayout to,
                                  VkAccessFlags srcAccess, VkAccessFlags dstAccess) {
    VkImageMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    b.srcAccessMask = srcAccess;
    b.dstAccessMask = dstAccess;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, baseLevel, levelCount, 0, layers};
    return b;
}

} // namespace bench
