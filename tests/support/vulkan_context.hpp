// One Vulkan device per test process, shared by every test of the executable.
//
// A GoogleTest environment (registered by this library, so every test binary that uses ctx()
// gets it) creates, before the first test:
//   - a VkInstance (Vulkan 1.3 if the loader has it, else 1.2) with VK_LAYER_KHRONOS_validation,
//     synchronization validation and a VK_EXT_debug_utils messenger (WARNING and ERROR, all
//     types) that records and prints every message;
//   - a physical device: the first whose name contains $VKFX_TEST_DEVICE (case-insensitive), else
//     the first discrete or integrated GPU, else the first CPU device (lavapipe);
//   - a VkDevice with one GRAPHICS|COMPUTE (or COMPUTE) queue, VK_KHR_push_descriptor and the
//     features vkfx needs, a vkfx::Device and a command pool.
// Without the validation layer the run fails, unless VKFX_TEST_NO_VALIDATION=1 (which also turns
// validation off where the layer exists).
//
// Tests deriving from GpuTest fail when a validation message arrived while they ran.
#pragma once

#include <vkfx/core.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace vkfx_test {

struct Context {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    std::uint32_t queueFamily = 0;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool commandPool = VK_NULL_HANDLE;

    VkPhysicalDeviceProperties properties{};
    VkPhysicalDeviceMemoryProperties memoryProperties{};
    std::uint32_t subgroupSize = 0;
    bool smBuiltins = false;         // the device has VK_NV_shader_sm_builtins (not enabled)
    std::uint32_t smCount = 0;       // its shaderSMCount (0 without the extension)
    bool validation = false;         // the validation layer is on
    bool writeWithoutFormat = false; // shaderStorageImageWriteWithoutFormat enabled
    std::vector<std::string> enabledDeviceExtensions;
    // With VKFX_TEST_PIPELINE_CACHE_DIR set: the pipeline cache every vkfx pipeline is created
    // through, loaded from and saved back to pipelineCachePath (a file per test executable and
    // device in that folder), so that a later run on the same device and driver skips compiling.
    VkPipelineCache pipelineCache = VK_NULL_HANDLE;
    std::string pipelineCachePath;

    vkfx::Device vkfx; // created from the handles above

    const VkPhysicalDeviceLimits &limits() const { return properties.limits; }
    bool isCpu() const { return properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU; }
    VkFormatProperties formatProperties(VkFormat format) const;

    // Validation messages received so far (text of each; count never decreases).
    std::size_t messageCount() const;
    std::vector<std::string> messagesSince(std::size_t first) const;

    // Runs `fn` when the environment tears down, before the device is destroyed (in reverse
    // order of registration): for objects cached across tests.
    void atShutdown(std::function<void()> fn);

    // For the environment.
    bool init(std::string *error);
    void shutdown();
};

// The process's context. Valid once the environment has set up (i.e. inside any test).
Context &ctx();

// Base fixture for tests that use the device: fails the test if a validation message arrived
// during it.
class GpuTest : public ::testing::Test {
  protected:
    void SetUp() override;
    void TearDown() override;
    // True once the test has failed fatally or skipped: a test running cases in turn stops.
    bool stopped() const { return HasFatalFailure() || IsSkipped(); }

  private:
    std::size_t m_firstMessage = 0;
};

} // namespace vkfx_test
