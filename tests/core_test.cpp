// vkfx core: Device::create, error reporting; and self-tests of the test support (the CPU
// reference and the format codecs), so that a downsample failure never hides a reference bug.
#include "support/errors.hpp"
#include "support/formats.hpp"
#include "support/reference.hpp"
#include "support/vulkan_context.hpp"

#include <vkfx/core.hpp>
#include <vkfx/downsample.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <thread>

namespace {

using vkfx_test::ctx;
using vkfx_test::isReadableReason;

// ---------------------------------------------------------------------------------------------
// Device::create

struct CallbackLog {
    int calls = 0;
    VkResult result = VK_SUCCESS;
    std::string message;
};

void logCallback(VkResult result, const char *message, void *userData) {
    auto *log = static_cast<CallbackLog *>(userData);
    ++log->calls;
    log->result = result;
    log->message = message ? message : "";
}

vkfx::DeviceCreateInfo validInfo(CallbackLog *log) {
    vkfx::DeviceCreateInfo info;
    info.instance = ctx().instance;
    info.physicalDevice = ctx().physicalDevice;
    info.device = ctx().device;
    info.getInstanceProcAddr = vkGetInstanceProcAddr;
    if (log) {
        info.messageCallback = logCallback;
        info.messageUserData = log;
    }
    return info;
}

class DeviceCreate : public vkfx_test::GpuTest {
  protected:
    // Creates with `info`, which must fail with VK_ERROR_VALIDATION_FAILED_EXT, a readable reason
    // in lastError() and the same reason passed to the callback.
    void expectRejected(const vkfx::DeviceCreateInfo &info, const CallbackLog &log,
                        const char *mentions) {
        vkfx::Device device;
        ASSERT_EQ(vkfx::Device::create(validInfo(nullptr), &device), VK_SUCCESS)
            << vkfx::lastError();
        ASSERT_TRUE(device.valid());
        EXPECT_EQ(vkfx::Device::create(info, &device), VK_ERROR_VALIDATION_FAILED_EXT);
        EXPECT_TRUE(isReadableReason(vkfx::lastError()));
        EXPECT_NE(std::string(vkfx::lastError()).find(mentions), std::string::npos)
            << vkfx::lastError();
        EXPECT_EQ(log.calls, 1);
        EXPECT_EQ(log.result, VK_ERROR_VALIDATION_FAILED_EXT);
        EXPECT_EQ(log.message, vkfx::lastError());
        EXPECT_FALSE(device.valid()) << "a failing create must leave the output empty";
    }
};

TEST_F(DeviceCreate, NullOutputPointerIsRejected) {
    CallbackLog log;
    EXPECT_EQ(vkfx::Device::create(validInfo(&log), nullptr), VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_TRUE(isReadableReason(vkfx::lastError()));
    EXPECT_EQ(log.calls, 1);
    EXPECT_EQ(log.result, VK_ERROR_VALIDATION_FAILED_EXT);
    EXPECT_EQ(log.message, vkfx::lastError());
}

TEST_F(DeviceCreate, NullInstanceIsRejected) {
    CallbackLog log;
    vkfx::DeviceCreateInfo info = validInfo(&log);
    info.instance = VK_NULL_HANDLE;
    expectRejected(info, log, "instance");
}

TEST_F(DeviceCreate, NullPhysicalDeviceIsRejected) {
    CallbackLog log;
    vkfx::DeviceCreateInfo info = validInfo(&log);
    info.physicalDevice = VK_NULL_HANDLE;
    expectRejected(info, log, "physicalDevice");
}

TEST_F(DeviceCreate, NullDeviceIsRejected) {
    CallbackLog log;
    vkfx::DeviceCreateInfo info = validInfo(&log);
    info.device = VK_NULL_HANDLE;
    expectRejected(info, log, "device");
}

TEST_F(DeviceCreate, SuccessFillsTheFunctionTableAndDeviceFacts) {
    CallbackLog log;
    vkfx::Device device;
    ASSERT_EQ(vkfx::Device::create(validInfo(&log), &device), VK_SUCCESS) << vkfx::lastError();
    EXPECT_EQ(log.calls, 0) << "the callback is for failures only";
    EXPECT_TRUE(device.valid());
    EXPECT_EQ(device.handle(), ctx().device);
    EXPECT_EQ(device.physicalDevice(), ctx().physicalDevice);

    // Every entry of the table is loaded.
    const vkfx::DeviceFunctions &fn = device.fn();
    constexpr std::size_t count = sizeof(vkfx::DeviceFunctions) / sizeof(PFN_vkVoidFunction);
    static_assert(sizeof(vkfx::DeviceFunctions) % sizeof(PFN_vkVoidFunction) == 0);
    for (std::size_t i = 0; i < count; ++i) {
        PFN_vkVoidFunction p = nullptr;
        std::memcpy(&p, reinterpret_cast<const unsigned char *>(&fn) + i * sizeof p, sizeof p);
        EXPECT_NE(p, nullptr) << "DeviceFunctions entry " << i << " is null";
    }
    EXPECT_NE(fn.vkCmdPushDescriptorSetKHR, nullptr);
    EXPECT_NE(fn.vkCmdDispatch, nullptr);

    EXPECT_STREQ(device.properties().deviceName, ctx().properties.deviceName);
    EXPECT_EQ(device.properties().limits.maxImageDimension2D, ctx().limits().maxImageDimension2D);
    EXPECT_EQ(device.memoryProperties().memoryTypeCount, ctx().memoryProperties.memoryTypeCount);
    EXPECT_EQ(device.subgroupSize(), ctx().subgroupSize);
    EXPECT_EQ(device.storageWriteWithoutFormat(), ctx().writeWithoutFormat);
    EXPECT_EQ(device.optimalFormatFeatures(VK_FORMAT_R8G8B8A8_UNORM),
              ctx().formatProperties(VK_FORMAT_R8G8B8A8_UNORM).optimalTilingFeatures);

    // The SM count: what VK_NV_shader_sm_builtins reports where the device has it, else 0.
    if (ctx().smBuiltins) {
        EXPECT_GT(ctx().smCount, 0u);
    }
    EXPECT_EQ(device.multiprocessorCount(), ctx().smCount);
}

// DeviceCreateInfo::pipelineCallback hears of every pipeline an operation creates, with the
// creating call and the specialization constants.
struct PipelineLog {
    int calls = 0;
    int withConstants = 0;
    bool handlesValid = true;
    std::string creators;
};

void pipelineLogCallback(VkPipeline pipeline, const char *creator, const VkSpecializationInfo *spec, void *userData) {
    auto *log = static_cast<PipelineLog *>(userData);
    ++log->calls;
    log->handlesValid = log->handlesValid && pipeline != VK_NULL_HANDLE;
    log->creators += std::string(creator ? creator : "(null)") + ";";
    if (spec && spec->mapEntryCount > 0 && spec->pData)
        ++log->withConstants;
}

TEST_F(DeviceCreate, PipelineCallbackHearsOfEveryPipeline) {
    PipelineLog log;
    vkfx::DeviceCreateInfo info = validInfo(nullptr);
    info.pipelineCallback = pipelineLogCallback;
    info.pipelineUserData = &log;
    vkfx::Device device;
    ASSERT_EQ(vkfx::Device::create(info, &device), VK_SUCCESS) << vkfx::lastError();
    EXPECT_EQ(log.calls, 0);
    vkfx::Downsampler ds;
    ASSERT_EQ(vkfx::Downsampler::create(device, {.format = VK_FORMAT_R8G8B8A8_UNORM}, &ds), VK_SUCCESS)
        << vkfx::lastError();
    EXPECT_GE(log.calls, 1);
    EXPECT_EQ(log.withConstants, log.calls) << "the downsampler's pipelines are all specialized";
    EXPECT_TRUE(log.handlesValid);
    EXPECT_NE(log.creators.find("Downsampler::create"), std::string::npos) << log.creators;
}

TEST_F(DeviceCreate, NullGetInstanceProcAddrFallsBackToTheLoader) {
    vkfx::DeviceCreateInfo info = validInfo(nullptr);
    info.getInstanceProcAddr = nullptr; // this file links the loader and has its prototypes
    vkfx::Device device;
    ASSERT_EQ(vkfx::Device::create(info, &device), VK_SUCCESS) << vkfx::lastError();
    EXPECT_NE(device.fn().vkCreateComputePipelines, nullptr);
}

TEST_F(DeviceCreate, LastErrorIsPerThread) {
    vkfx::DeviceCreateInfo bad = validInfo(nullptr);
    bad.instance = VK_NULL_HANDLE;
    vkfx::Device device;
    ASSERT_EQ(vkfx::Device::create(bad, &device), VK_ERROR_VALIDATION_FAILED_EXT);
    const std::string mine = vkfx::lastError();
    std::string theirs;
    std::thread other([&] {
        vkfx::DeviceCreateInfo otherBad = validInfo(nullptr);
        otherBad.device = VK_NULL_HANDLE;
        vkfx::Device d;
        vkfx::Device::create(otherBad, &d);
        theirs = vkfx::lastError();
    });
    other.join();
    EXPECT_NE(theirs, mine);
    EXPECT_EQ(std::string(vkfx::lastError()), mine)
        << "another thread's failure changed this thread's lastError()";
}

// ---------------------------------------------------------------------------------------------
// The CPU reference (tests/support/reference.hpp), checked by hand.

using vkfx_test::Plane;
using vkfx_test::ReduceOp;

Plane row(std::initializer_list<double> values) {
    Plane p(static_cast<std::uint32_t>(values.size()), 1, 1);
    std::uint32_t x = 0;
    for (double v : values)
        p.at(x++, 0, 0) = v;
    return p;
}

TEST(Reference, FootprintFoldsTheOddLastTexel) {
    using vkfx_test::footprint;
    EXPECT_EQ(footprint(1, 0).first, 0u);
    EXPECT_EQ(footprint(1, 0).count, 1u);
    EXPECT_EQ(footprint(4, 1).first, 2u);
    EXPECT_EQ(footprint(4, 1).count, 2u);
    EXPECT_EQ(footprint(5, 0).count, 2u);
    EXPECT_EQ(footprint(5, 1).first, 2u);
    EXPECT_EQ(footprint(5, 1).count, 3u);
    EXPECT_EQ(footprint(3, 0).count, 3u);
    EXPECT_EQ(footprint(2, 0).count, 2u);
}

TEST(Reference, FullChainLengthFollowsVulkanMipExtents) {
    EXPECT_EQ(vkfx_test::fullChainLength(1, 1), 1u);
    EXPECT_EQ(vkfx_test::fullChainLength(2, 1), 2u);
    EXPECT_EQ(vkfx_test::fullChainLength(3, 3), 2u);
    EXPECT_EQ(vkfx_test::fullChainLength(1, 1000), 10u);
    EXPECT_EQ(vkfx_test::fullChainLength(255, 257), 9u);
    EXPECT_EQ(vkfx_test::fullChainLength(4097, 3), 13u);
    EXPECT_EQ(vkfx_test::fullChainLength(16384, 4), 15u);
}

TEST(Reference, FiveByOneAveragesPairsAndFoldsTheLastThree) {
    const double a0 = 1, a1 = 2, a2 = 4, a3 = 8, a4 = 16;
    std::vector<Plane> chain =
        vkfx_test::referenceChain(row({a0, a1, a2, a3, a4}), ReduceOp::Average, 2);
    ASSERT_EQ(chain.size(), 2u);
    ASSERT_EQ(chain[0].width, 2u);
    ASSERT_EQ(chain[0].height, 1u);
    EXPECT_DOUBLE_EQ(chain[0].at(0, 0, 0), (a0 + a1) / 2);
    EXPECT_DOUBLE_EQ(chain[0].at(1, 0, 0), (a2 + a3 + a4) / 3);
    ASSERT_EQ(chain[1].width, 1u);
    EXPECT_DOUBLE_EQ(chain[1].at(0, 0, 0), ((a0 + a1) / 2 + (a2 + a3 + a4) / 3) / 2);
}

TEST(Reference, AverageChainIsNotQuantizedBetweenLevels) {
    // Level 1 = [0, 1/3], level 2 = 1/6: no rounding to any storage format in between.
    std::vector<Plane> chain =
        vkfx_test::referenceChain(row({0, 0, 0, 0, 1}), ReduceOp::Average, 2);
    EXPECT_DOUBLE_EQ(chain[0].at(1, 0, 0), 1.0 / 3.0);
    EXPECT_DOUBLE_EQ(chain[1].at(0, 0, 0), 1.0 / 6.0);
}

TEST(Reference, MinAndMaxPickSourceValues) {
    Plane p = row({5, 3, 9, 7, 1});
    std::vector<Plane> lo = vkfx_test::referenceChain(p, ReduceOp::Min, 2);
    std::vector<Plane> hi = vkfx_test::referenceChain(p, ReduceOp::Max, 2);
    EXPECT_EQ(lo[0].at(0, 0, 0), 3);
    EXPECT_EQ(lo[0].at(1, 0, 0), 1);
    EXPECT_EQ(lo[1].at(0, 0, 0), 1);
    EXPECT_EQ(hi[0].at(0, 0, 0), 5);
    EXPECT_EQ(hi[0].at(1, 0, 0), 9);
    EXPECT_EQ(hi[1].at(0, 0, 0), 9);
}

TEST(Reference, ThreeByThreeReducesAllNineTexelsPerChannel) {
    Plane p(3, 3, 2);
    double sum = 0;
    for (std::uint32_t y = 0; y < 3; ++y) {
        for (std::uint32_t x = 0; x < 3; ++x) {
            p.at(x, y, 0) = x + 3.0 * y;
            p.at(x, y, 1) = (x == 2 && y == 2) ? 100.0 : 1.0; // hot pixel in the folded corner
            sum += x + 3.0 * y;
        }
    }
    Plane avg = vkfx_test::reduceLevel(p, ReduceOp::Average);
    ASSERT_EQ(avg.width, 1u);
    ASSERT_EQ(avg.height, 1u);
    EXPECT_DOUBLE_EQ(avg.at(0, 0, 0), sum / 9);
    EXPECT_DOUBLE_EQ(avg.at(0, 0, 1), (8 + 100.0) / 9);
    EXPECT_EQ(vkfx_test::reduceLevel(p, ReduceOp::Max).at(0, 0, 1), 100.0);
    EXPECT_EQ(vkfx_test::reduceLevel(p, ReduceOp::Min).at(0, 0, 0), 0.0);
}

TEST(Reference, SevenByFourFoldsTheLastColumnOnly) {
    Plane p(7, 4, 1);
    for (std::uint32_t y = 0; y < 4; ++y)
        for (std::uint32_t x = 0; x < 7; ++x)
            p.at(x, y, 0) = x * 10.0 + y;
    Plane l1 = vkfx_test::reduceLevel(p, ReduceOp::Average);
    ASSERT_EQ(l1.width, 3u);
    ASSERT_EQ(l1.height, 2u);
    // Texel (2, 1): x in {4, 5, 6}, y in {2, 3}.
    EXPECT_DOUBLE_EQ(l1.at(2, 1, 0), (40 + 50 + 60) / 3.0 + 2.5);
    EXPECT_DOUBLE_EQ(l1.at(0, 0, 0), 5 + 0.5);
}

TEST(Reference, WidthOneKeepsTheColumnWhileHeightHalves) {
    Plane p(1, 4, 1);
    for (std::uint32_t y = 0; y < 4; ++y)
        p.at(0, y, 0) = y;
    std::vector<Plane> chain = vkfx_test::referenceChain(p, ReduceOp::Average, 2);
    ASSERT_EQ(chain[0].width, 1u);
    ASSERT_EQ(chain[0].height, 2u);
    EXPECT_DOUBLE_EQ(chain[0].at(0, 0, 0), 0.5);
    EXPECT_DOUBLE_EQ(chain[0].at(0, 1, 0), 2.5);
    EXPECT_DOUBLE_EQ(chain[1].at(0, 0, 0), 1.5);
}

// ---------------------------------------------------------------------------------------------
// The format codecs (tests/support/formats.hpp), checked against known encodings.

using vkfx_test::formatInfo;

TEST(Formats, HalfFloatDecodesExactly) {
    const auto &f = formatInfo(VK_FORMAT_R16G16_SFLOAT);
    EXPECT_EQ(vkfx_test::decodeCode(f, 0, 0x3C00), 1.0);
    EXPECT_EQ(vkfx_test::decodeCode(f, 0, 0x7BFF), 65504.0);
    EXPECT_EQ(vkfx_test::decodeCode(f, 0, 0x0001), std::ldexp(1.0, -24));
    EXPECT_EQ(vkfx_test::decodeCode(f, 0, 0x0400), std::ldexp(1.0, -14));
    EXPECT_EQ(vkfx_test::decodeCode(f, 0, 0xC000), -2.0);
    EXPECT_TRUE(std::isinf(vkfx_test::decodeCode(f, 0, 0x7C00)));
    EXPECT_TRUE(std::isnan(vkfx_test::decodeCode(f, 0, 0x7E00)));
}

TEST(Formats, HalfFloatEncodesRoundingToNearestEven) {
    const auto &f = formatInfo(VK_FORMAT_R16G16_SFLOAT);
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, 1.0), 0x3C00u);
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, 1.0 + std::ldexp(1.0, -11)), 0x3C00u);     // tie -> even
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, 1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02u); // tie -> even
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, 1.0 + std::ldexp(1.0, -10) * 0.6), 0x3C01u);
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, 65519.0), 0x7BFFu);
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, 65520.0), 0x7C00u);              // rounds to infinity
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, std::ldexp(1.0, -25)), 0x0000u); // tie -> even (0)
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, 3 * std::ldexp(1.0, -26)), 0x0001u);
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, std::ldexp(1023.5, -24)), 0x0400u); // up into normals
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, -2.0), 0xC000u);
}

TEST(Formats, PackedUnsignedFloatsDecodeAndEncodeExactly) {
    const auto &f = formatInfo(VK_FORMAT_B10G11R11_UFLOAT_PACK32);
    std::uint8_t texel[4] = {};
    const double rgb[3] = {1.0, 2.0, 0.5};
    vkfx_test::encodeTexel(f, rgb, texel);
    std::uint32_t word;
    std::memcpy(&word, texel, 4);
    EXPECT_EQ(word & 0x7FFu, 15u << 6);         // R: 11 bits at 0
    EXPECT_EQ((word >> 11) & 0x7FFu, 16u << 6); // G: 11 bits at 11
    EXPECT_EQ(word >> 22, 14u << 5);            // B: 10 bits at 22
    for (std::uint32_t c = 0; c < 3; ++c)
        EXPECT_EQ(vkfx_test::decode(f, texel, c), rgb[c]);
    EXPECT_EQ(vkfx_test::decodeCode(f, 0, 0x7BF), 65024.0); // largest 11-bit value
    EXPECT_EQ(vkfx_test::decodeCode(f, 2, 0x3DF), 64512.0); // largest 10-bit value
    EXPECT_EQ(vkfx_test::decodeCode(f, 0, 0x001), std::ldexp(1.0, -20));
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, -1.0), 0u);
    EXPECT_EQ(vkfx_test::encodeValue(f, 0, 1.0 + std::ldexp(1.0, -7)), 15u << 6); // tie -> even
    EXPECT_EQ(vkfx_test::encodeValue(f, 2, 1.0 + 3 * std::ldexp(1.0, -6)),
              (15u << 5) | 2u); // tie -> even
}

TEST(Formats, A2B10G10R10StoresRedInTheLowBitsAndAlphaInTheTopTwo) {
    const auto &f = formatInfo(VK_FORMAT_A2B10G10R10_UNORM_PACK32);
    std::uint8_t texel[4] = {};
    const double rgba[4] = {1.0, 0.5, 0.0, 1.0 / 3.0};
    vkfx_test::encodeTexel(f, rgba, texel);
    std::uint32_t word;
    std::memcpy(&word, texel, 4);
    EXPECT_EQ(word & 0x3FFu, 1023u);        // R: 10 bits at 0
    EXPECT_EQ((word >> 10) & 0x3FFu, 512u); // G: 511.5 rounds up
    EXPECT_EQ((word >> 20) & 0x3FFu, 0u);   // B: 10 bits at 20
    EXPECT_EQ(word >> 30, 1u);              // A: 2 bits at 30, 1/3 is code 1 of 3
    EXPECT_EQ(vkfx_test::decode(f, texel, 0), 1.0);
    EXPECT_EQ(vkfx_test::decode(f, texel, 1), 512.0 / 1023.0);
    EXPECT_EQ(vkfx_test::decode(f, texel, 3), 1.0 / 3.0);
    EXPECT_NEAR(vkfx_test::errorInUlps(f, 3, 1, 0.5), 0.5, 1e-12); // alpha's unit is 1/3
}

TEST(Formats, SrgbUsesTheExactTransferFunctionAndRoundTrips) {
    const auto &f = formatInfo(VK_FORMAT_R8G8B8A8_SRGB);
    EXPECT_EQ(vkfx_test::decodeCode(f, 0, 0), 0.0);
    EXPECT_DOUBLE_EQ(vkfx_test::decodeCode(f, 0, 255), 1.0);
    EXPECT_DOUBLE_EQ(vkfx_test::decodeCode(f, 0, 10), 10.0 / 255.0 / 12.92); // linear segment
    EXPECT_DOUBLE_EQ(vkfx_test::decodeCode(f, 0, 128),
                     std::pow((128.0 / 255.0 + 0.055) / 1.055, 2.4));
    EXPECT_DOUBLE_EQ(vkfx_test::decodeCode(f, 3, 128), 128.0 / 255.0); // alpha is linear
    for (std::uint32_t code = 0; code < 256; ++code) {
        EXPECT_EQ(vkfx_test::encodeValue(f, 0, vkfx_test::decodeCode(f, 0, code)), code);
    }
    // Error in code units: the linear reference is encoded first.
    EXPECT_NEAR(vkfx_test::errorInUlps(f, 0, 128, vkfx_test::srgbToLinear(128.25 / 255.0)), 0.25,
                1e-9);
}

TEST(Formats, BgraStoresRedInTheThirdByte) {
    const auto &f = formatInfo(VK_FORMAT_B8G8R8A8_UNORM);
    const std::uint8_t texel[4] = {0x10, 0x20, 0x30, 0x40};
    EXPECT_EQ(vkfx_test::readCode(f, texel, 0), 0x30u);
    EXPECT_EQ(vkfx_test::readCode(f, texel, 1), 0x20u);
    EXPECT_EQ(vkfx_test::readCode(f, texel, 2), 0x10u);
    EXPECT_EQ(vkfx_test::readCode(f, texel, 3), 0x40u);
}

TEST(Formats, UnormRoundsToNearestAndDepth16DecodesLikeTheSampler) {
    const auto &r16 = formatInfo(VK_FORMAT_R16_UNORM);
    EXPECT_EQ(vkfx_test::encodeValue(r16, 0, 0.5), 32768u); // 32767.5 rounds up
    EXPECT_EQ(vkfx_test::encodeValue(r16, 0, 1.5), 65535u); // clamped
    EXPECT_NEAR(vkfx_test::errorInUlps(r16, 0, 100, 100.75 / 65535.0), 0.75, 1e-6);
    const auto &d16 = formatInfo(VK_FORMAT_D16_UNORM);
    for (std::uint32_t code : {0u, 1u, 12345u, 65534u, 65535u}) {
        EXPECT_EQ(vkfx_test::decodeCode(d16, 0, code),
                  static_cast<double>(static_cast<float>(code) / 65535.0f));
        EXPECT_EQ(vkfx_test::encodeValue(d16, 0, vkfx_test::decodeCode(d16, 0, code)), code);
    }
}

TEST(Formats, UlpErrorsUseTheReferencesMagnitude) {
    const auto &h = formatInfo(VK_FORMAT_R16G16B16A16_SFLOAT);
    // ulp(1.5) = 2^-10 in fp16.
    EXPECT_DOUBLE_EQ(vkfx_test::errorInUlps(h, 0, 0x3E00, 1.5 + std::ldexp(1.0, -11)), 0.5);
    const auto &f = formatInfo(VK_FORMAT_R32_SFLOAT);
    EXPECT_NEAR(vkfx_test::errorInUlps(f, 0, vkfx_test::encodeValue(f, 0, 2.0), 2.0 * (1 + 1e-6)),
                1e-6, 1e-9);
}

TEST(Formats, RandomContentStaysInTheDocumentedRanges) {
    std::mt19937_64 rng(7);
    for (VkFormat format : vkfx_test::downsampleFormats()) {
        const auto &f = formatInfo(format);
        std::vector<std::uint8_t> bytes = vkfx_test::randomTexels(f, 1000, rng);
        ASSERT_EQ(bytes.size(), 1000u * f.bytesPerTexel);
        for (std::size_t i = 0; i < 1000; ++i) {
            for (std::uint32_t c = 0; c < f.channels; ++c) {
                double v = vkfx_test::decode(f, bytes.data() + i * f.bytesPerTexel, c);
                ASSERT_GE(v, 0.0) << f.name;
                ASSERT_LE(v, f.isFloat(c) ? 8.0 : 1.0) << f.name;
            }
        }
    }
}

} // namespace
