#include "support/vulkan_context.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>

#include <unistd.h>

namespace vkfx_test {
namespace {

constexpr const char *kValidationLayer = "VK_LAYER_KHRONOS_validation";

struct Messages {
    mutable std::mutex mutex;
    std::vector<std::string> texts;
};

Messages &messages() {
    static Messages m;
    return m;
}

std::vector<std::function<void()>> &shutdownHooks() {
    static std::vector<std::function<void()>> hooks;
    return hooks;
}

VKAPI_ATTR VkBool32 VKAPI_CALL debugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                             VkDebugUtilsMessageTypeFlagsEXT,
                                             const VkDebugUtilsMessengerCallbackDataEXT *data,
                                             void *) {
    std::string text =
        (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "ERROR" : "WARNING";
    if (data && data->pMessageIdName)
        text += std::string(" [") + data->pMessageIdName + "]";
    text += ": ";
    text += (data && data->pMessage) ? data->pMessage : "(no message)";
    std::fprintf(stderr, "vkfx_test: validation %s\n", text.c_str());
    std::fflush(stderr);
    Messages &m = messages();
    std::lock_guard<std::mutex> lock(m.mutex);
    m.texts.push_back(std::move(text));
    return VK_FALSE;
}

bool envFlag(const char *name) {
    const char *v = std::getenv(name);
    return v && std::strcmp(v, "1") == 0;
}

// The running executable's file name ("vkfx_test" where it cannot be read).
std::string executableName() {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0)
        return "vkfx_test";
    const std::string path(buf, static_cast<std::size_t>(n));
    return path.substr(path.find_last_of('/') + 1);
}

// The bytes of `path`, empty where it cannot be read.
std::vector<char> readFile(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Whether `data` begins with a pipeline cache header (version one) of this device.
bool pipelineCacheFits(const std::vector<char> &data, const VkPhysicalDeviceProperties &p) {
    struct Header {
        std::uint32_t size, version, vendorID, deviceID;
        std::uint8_t uuid[VK_UUID_SIZE];
    } h;
    if (data.size() < sizeof(h))
        return false;
    std::memcpy(&h, data.data(), sizeof(h));
    return h.size >= sizeof(h) && h.version == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
           h.vendorID == p.vendorID && h.deviceID == p.deviceID &&
           std::memcmp(h.uuid, p.pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return s;
}

std::string versionText(std::uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
           "." + std::to_string(VK_API_VERSION_PATCH(v));
}

std::string driverVersionText(const VkPhysicalDeviceProperties &p) {
    std::uint32_t v = p.driverVersion;
    if (p.vendorID == 0x10DE) { // NVIDIA: 10.8.8.6 bits
        return std::to_string(v >> 22) + "." + std::to_string((v >> 14) & 0xFF) + "." +
               std::to_string((v >> 6) & 0xFF) + "." + std::to_string(v & 0x3F);
    }
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
           "." + std::to_string(VK_API_VERSION_PATCH(v));
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

class VulkanEnvironment : public ::testing::Environment {
  public:
    void SetUp() override {
        std::string error;
        if (!ctx().init(&error)) {
            ctx().shutdown();
            FAIL() << "vkfx_test: cannot set up the Vulkan test device: " << error;
        }
    }
    void TearDown() override {
        std::size_t first = ctx().messageCount();
        ctx().shutdown();
        // Messages at teardown (e.g. objects a test leaked, reported by vkDestroyDevice).
        std::vector<std::string> late = ctx().messagesSince(first);
        if (!late.empty()) {
            std::string all;
            for (const std::string &m : late)
                all += "\n  " + m;
            ADD_FAILURE() << late.size()
                          << " validation message(s) while destroying the device:" << all;
        }
    }
};

// Registered at static initialization: every executable linking this file (it does, through
// ctx()) gets the environment, also with gtest_main.
[[maybe_unused]] const ::testing::Environment *const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new VulkanEnvironment);

} // namespace

Context &ctx() {
    static Context context;
    return context;
}

VkFormatProperties Context::formatProperties(VkFormat format) const {
    VkFormatProperties p{};
    vkGetPhysicalDeviceFormatProperties(physicalDevice, format, &p);
    return p;
}

std::size_t Context::messageCount() const {
    Messages &m = messages();
    std::lock_guard<std::mutex> lock(m.mutex);
    return m.texts.size();
}

std::vector<std::string> Context::messagesSince(std::size_t first) const {
    Messages &m = messages();
    std::lock_guard<std::mutex> lock(m.mutex);
    if (first >= m.texts.size())
        return {};
    return {m.texts.begin() + static_cast<std::ptrdiff_t>(first), m.texts.end()};
}

void Context::atShutdown(std::function<void()> fn) { shutdownHooks().push_back(std::move(fn)); }

bool Context::init(std::string *error) {
    auto fail = [&](const std::string &why) {
        *error = why;
        return false;
    };

    // --- instance -----------------------------------------------------------------------------
    std::uint32_t loaderVersion = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion(&loaderVersion) != VK_SUCCESS)
        loaderVersion = VK_API_VERSION_1_0;
    if (loaderVersion < VK_API_VERSION_1_2) {
        return fail("the Vulkan loader supports only " + versionText(loaderVersion) +
                    "; vkfx needs 1.2");
    }
    const std::uint32_t apiVersion =
        loaderVersion >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;

    const bool noValidation = envFlag("VKFX_TEST_NO_VALIDATION");
    std::uint32_t layerCount = 0;
    vkEnumerateInstanceLayerProperties(&layerCount, nullptr);
    std::vector<VkLayerProperties> layers(layerCount);
    vkEnumerateInstanceLayerProperties(&layerCount, layers.data());
    const bool haveLayer =
        std::any_of(layers.begin(), layers.end(), [](const VkLayerProperties &l) {
            return std::strcmp(l.layerName, kValidationLayer) == 0;
        });
    if (!haveLayer && !noValidation) {
        return fail(
            std::string(kValidationLayer) +
            " is not installed. The tests check that vkfx's commands pass validation "
            "(Debian: apt-get install vulkan-validationlayers). Set VKFX_TEST_NO_VALIDATION=1 "
            "to run without it.");
    }
    validation = haveLayer && !noValidation;

    std::vector<const char *> extensions;
    bool validationFeatures = false;
    bool debugUtils = false;
    if (validation) {
        std::vector<VkExtensionProperties> global = instanceExtensions(nullptr);
        std::vector<VkExtensionProperties> fromLayer = instanceExtensions(kValidationLayer);
        debugUtils = hasExtension(global, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
                     hasExtension(fromLayer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        if (!debugUtils)
            return fail("VK_EXT_debug_utils is not available with the validation layer");
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        validationFeatures = hasExtension(fromLayer, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        if (validationFeatures)
            extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    }

    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "vkfx tests";
    app.apiVersion = apiVersion;

    VkDebugUtilsMessengerCreateInfoEXT messengerInfo{};
    messengerInfo.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    messengerInfo.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                    VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messengerInfo.pfnUserCallback = debugCallback;

    const VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{};
    features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;

    VkInstanceCreateInfo instanceInfo{};
    instanceInfo.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    instanceInfo.pApplicationInfo = &app;
    if (validation) {
        instanceInfo.enabledLayerCount = 1;
        instanceInfo.ppEnabledLayerNames = &kValidationLayer;
        // Messages of vkCreateInstance / vkDestroyInstance too.
        instanceInfo.pNext = &messengerInfo;
        if (validationFeatures)
            messengerInfo.pNext = &features;
    }
    instanceInfo.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
    instanceInfo.ppEnabledExtensionNames = extensions.data();
    VkResult r = vkCreateInstance(&instanceInfo, nullptr, &instance);
    if (r != VK_SUCCESS)
        return fail("vkCreateInstance failed (" + std::to_string(r) + ")");
    if (validation) {
        messengerInfo.pNext = nullptr;
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
        if (!create || create(instance, &messengerInfo, nullptr, &messenger) != VK_SUCCESS) {
            return fail("vkCreateDebugUtilsMessengerEXT failed");
        }
        if (!validationFeatures) {
            std::fprintf(stderr,
                         "vkfx_test: the validation layer lacks VK_EXT_validation_features: "
                         "synchronization validation is off\n");
        }
    }

    // --- physical device ----------------------------------------------------------------------
    std::uint32_t deviceCount = 0;
    vkEnumeratePhysicalDevices(instance, &deviceCount, nullptr);
    std::vector<VkPhysicalDevice> devices(deviceCount);
    vkEnumeratePhysicalDevices(instance, &deviceCount, devices.data());
    devices.resize(deviceCount);
    if (devices.empty())
        return fail("no Vulkan physical device");
    std::vector<VkPhysicalDeviceProperties> props(devices.size());
    for (std::size_t i = 0; i < devices.size(); ++i)
        vkGetPhysicalDeviceProperties(devices[i], &props[i]);
    std::size_t chosen = devices.size();
    if (const char *want = std::getenv("VKFX_TEST_DEVICE"); want && *want) {
        for (std::size_t i = 0; i < devices.size() && chosen == devices.size(); ++i) {
            if (lower(props[i].deviceName).find(lower(want)) != std::string::npos)
                chosen = i;
        }
        if (chosen == devices.size()) {
            std::string names;
            for (const VkPhysicalDeviceProperties &p : props)
                names += std::string(" '") + p.deviceName + "'";
            return fail(std::string("VKFX_TEST_DEVICE='") + want + "' matches none of:" + names);
        }
    }
    for (std::size_t i = 0; i < devices.size() && chosen == devices.size(); ++i) {
        if (props[i].deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
            props[i].deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU) {
            chosen = i;
        }
    }
    for (std::size_t i = 0; i < devices.size() && chosen == devices.size(); ++i) {
        if (props[i].deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
            chosen = i;
    }
    if (chosen == devices.size())
        chosen = 0;
    physicalDevice = devices[chosen];
    properties = props[chosen];
    if (properties.apiVersion < VK_API_VERSION_1_2) {
        return fail(std::string(properties.deviceName) + " supports Vulkan " +
                    versionText(properties.apiVersion) + "; vkfx needs 1.2");
    }
    vkGetPhysicalDeviceMemoryProperties(physicalDevice, &memoryProperties);

    std::uint32_t extCount = 0;
    vkEnumerateDeviceExtensionProperties(physicalDevice, nullptr, &extCount, nullptr);
    std::vector<VkExtensionProperties> deviceExts(extCount);
    vkEnumerateDeviceExtensionProperties(physicalDevice, nullptr, &extCount, deviceExts.data());
    deviceExts.resize(extCount);
    smBuiltins = hasExtension(deviceExts, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);

    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{};
    sm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
    VkPhysicalDeviceDriverProperties driver{};
    driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    driver.pNext = smBuiltins ? &sm : nullptr;
    VkPhysicalDeviceSubgroupProperties subgroup{};
    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    subgroup.pNext = &driver;
    VkPhysicalDeviceProperties2 props2{};
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props2.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(physicalDevice, &props2);
    subgroupSize = subgroup.subgroupSize;
    smCount = sm.shaderSMCount;

    // --- device -------------------------------------------------------------------------------
    std::uint32_t familyCount = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &familyCount, nullptr);
    std::vector<VkQueueFamilyProperties> families(familyCount);
    vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &familyCount, families.data());
    std::uint32_t family = familyCount;
    const VkQueueFlags both = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    for (std::uint32_t i = 0; i < familyCount && family == familyCount; ++i) {
        if ((families[i].queueFlags & both) == both)
            family = i;
    }
    for (std::uint32_t i = 0; i < familyCount && family == familyCount; ++i) {
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
            family = i;
    }
    if (family == familyCount)
        return fail("the device has no compute queue");
    queueFamily = family;

    enabledDeviceExtensions.clear();
    const bool api14 = VK_API_VERSION_MAJOR(properties.apiVersion) > 1 ||
                       VK_API_VERSION_MINOR(properties.apiVersion) >= 4;
    if (hasExtension(deviceExts, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) {
        enabledDeviceExtensions.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    } else if (!api14) {
        return fail(std::string(properties.deviceName) + " lacks VK_KHR_push_descriptor");
    }
    if (hasExtension(deviceExts, "VK_KHR_portability_subset")) {
        enabledDeviceExtensions.push_back("VK_KHR_portability_subset");
    }
    std::vector<const char *> extNames;
    for (const std::string &e : enabledDeviceExtensions)
        extNames.push_back(e.c_str());

    VkPhysicalDeviceVulkan12Features have12{};
    have12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    VkPhysicalDeviceFeatures2 have{};
    have.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    have.pNext = &have12;
    vkGetPhysicalDeviceFeatures2(physicalDevice, &have);
    VkPhysicalDeviceVulkan12Features enable12{};
    enable12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    enable12.vulkanMemoryModel = have12.vulkanMemoryModel;
    enable12.vulkanMemoryModelDeviceScope = have12.vulkanMemoryModelDeviceScope;
    VkPhysicalDeviceFeatures2 enable{};
    enable.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    enable.pNext = &enable12;
    enable.features.shaderStorageImageWriteWithoutFormat =
        have.features.shaderStorageImageWriteWithoutFormat;
    // The r16 / rg16f / r11g11b10f kernels declare StorageImageExtendedFormats.
    enable.features.shaderStorageImageExtendedFormats =
        have.features.shaderStorageImageExtendedFormats;
    writeWithoutFormat = have.features.shaderStorageImageWriteWithoutFormat == VK_TRUE;

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{};
    queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queueInfo.queueFamilyIndex = family;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;
    VkDeviceCreateInfo deviceInfo{};
    deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    deviceInfo.pNext = &enable;
    deviceInfo.queueCreateInfoCount = 1;
    deviceInfo.pQueueCreateInfos = &queueInfo;
    deviceInfo.enabledExtensionCount = static_cast<std::uint32_t>(extNames.size());
    deviceInfo.ppEnabledExtensionNames = extNames.data();
    r = vkCreateDevice(physicalDevice, &deviceInfo, nullptr, &device);
    if (r != VK_SUCCESS)
        return fail("vkCreateDevice failed (" + std::to_string(r) + ")");
    vkGetDeviceQueue(device, family, 0, &queue);

    std::size_t cacheBytesLoaded = 0;
    if (const char *dir = std::getenv("VKFX_TEST_PIPELINE_CACHE_DIR"); dir && *dir) {
        char id[32];
        std::snprintf(id, sizeof(id), "-%04x-%04x.cache", properties.vendorID, properties.deviceID);
        pipelineCachePath = std::string(dir) + "/" + executableName() + id;
        std::vector<char> data = readFile(pipelineCachePath);
        if (!pipelineCacheFits(data, properties))
            data.clear(); // another device or driver: start empty
        VkPipelineCacheCreateInfo cacheInfo{};
        cacheInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
        cacheInfo.initialDataSize = data.size();
        cacheInfo.pInitialData = data.empty() ? nullptr : data.data();
        r = vkCreatePipelineCache(device, &cacheInfo, nullptr, &pipelineCache);
        if (r != VK_SUCCESS)
            return fail("vkCreatePipelineCache failed (" + std::to_string(r) + ")");
        cacheBytesLoaded = data.size();
    }

    vkfx::DeviceCreateInfo vkfxInfo;
    vkfxInfo.pipelineCache = pipelineCache;
    vkfxInfo.instance = instance;
    vkfxInfo.physicalDevice = physicalDevice;
    vkfxInfo.device = device;
    vkfxInfo.getInstanceProcAddr = vkGetInstanceProcAddr;
    r = vkfx::Device::create(vkfxInfo, &vkfx);
    if (r != VK_SUCCESS) {
        return fail("vkfx::Device::create failed (" + std::to_string(r) +
                    "): " + vkfx::lastError());
    }

    VkCommandPoolCreateInfo poolInfo{};
    poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    poolInfo.queueFamilyIndex = family;
    r = vkCreateCommandPool(device, &poolInfo, nullptr, &commandPool);
    if (r != VK_SUCCESS)
        return fail("vkCreateCommandPool failed (" + std::to_string(r) + ")");

    std::printf(
        "vkfx_test: device '%s' (%s %s), driver %s, API %s, subgroup size %u, validation %s\n",
        properties.deviceName, driver.driverName, driver.driverInfo,
        driverVersionText(properties).c_str(), versionText(properties.apiVersion).c_str(),
        subgroupSize,
        validation ? (validationFeatures ? "on (with synchronization validation)" : "on") : "OFF");
    if (pipelineCache) {
        std::printf("vkfx_test: pipeline cache %s (%zu bytes loaded)\n", pipelineCachePath.c_str(),
                    cacheBytesLoaded);
    }
    std::fflush(stdout);
    return true;
}

void Context::shutdown() {
    std::vector<std::function<void()>> &hooks = shutdownHooks();
    if (device)
        vkDeviceWaitIdle(device);
    while (!hooks.empty()) {
        std::function<void()> fn = std::move(hooks.back());
        hooks.pop_back();
        fn();
    }
    vkfx = vkfx::Device{};
    if (pipelineCache) {
        // Written to a temporary file of this process and renamed: a reader never sees a partial
        // cache, and processes saving at once do not write into one file.
        std::size_t size = 0;
        std::vector<char> data;
        if (vkGetPipelineCacheData(device, pipelineCache, &size, nullptr) == VK_SUCCESS) {
            data.resize(size);
            if (vkGetPipelineCacheData(device, pipelineCache, &size, data.data()) != VK_SUCCESS)
                data.clear();
            data.resize(std::min(size, data.size()));
        }
        const std::string tmp = pipelineCachePath + "." + std::to_string(getpid()) + ".tmp";
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(data.data(), static_cast<std::streamsize>(data.size()));
        out.close();
        if (!data.empty() && out)
            std::rename(tmp.c_str(), pipelineCachePath.c_str());
        else
            std::remove(tmp.c_str());
        vkDestroyPipelineCache(device, pipelineCache, nullptr);
    }
    pipelineCache = VK_NULL_HANDLE;
    if (commandPool)
        vkDestroyCommandPool(device, commandPool, nullptr);
    commandPool = VK_NULL_HANDLE;
    if (device)
        vkDestroyDevice(device, nullptr);
    device = VK_NULL_HANDLE;
    queue = VK_NULL_HANDLE;
    if (messenger) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy)
            destroy(instance, messenger, nullptr);
    }
    messenger = VK_NULL_HANDLE;
    if (instance)
        vkDestroyInstance(instance, nullptr);
    instance = VK_NULL_HANDLE;
    physicalDevice = VK_NULL_HANDLE;
}

void GpuTest::SetUp() {
    m_firstMessage = ctx().messageCount();
    ASSERT_NE(ctx().device, VK_NULL_HANDLE) << "the Vulkan test environment did not set up";
}

void GpuTest::TearDown() {
    std::vector<std::string> got = ctx().messagesSince(m_firstMessage);
    if (!got.empty()) {
        std::string all;
        for (const std::string &m : got)
            all += "\n  " + m;
        ADD_FAILURE() << got.size() << " validation message(s) during the test:" << all;
    }
}

} // namespace vkfx_test
