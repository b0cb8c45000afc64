// Checks of vkfx's error reporting shared by the operation tests: a failing call must leave a
// fresh, readable, one-line reason in vkfx::lastError() that names the call.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace vkfx_test {

// Sets lastError() to a known, unrelated reason (a failing vkfx::Device::create) and returns it,
// so that a test can tell that the next failing call wrote its own.
std::string freshLastError();

// Success when lastError() is non-empty, differs from `before` (from freshLastError()), is
// printable ASCII and starts with "vkfx::"; the message carries the reason either way.
::testing::AssertionResult isFreshReason(const std::string &before);

} // namespace vkfx_test
