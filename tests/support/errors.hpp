// Checks of vkfx's error reporting shared by the operation tests: a failing call must leave a
// fresh, readable, one-line reason in vkfx::lastError() that names the call.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace vkfx_test {

// Sets lastError() to a known, unrelated reason (a failing vkfx::Device::create) and returns it,
// so that a test can tell that the next failing call wrote its own.
std::string freshLastError();

// Success when `text` is one readable line naming the function that failed: at least 12
// printable ASCII characters, starting with "vkfx::".
::testing::AssertionResult isReadableReason(const char *text);

// Success when lastError() is a readable reason (above) that differs from `before` (from
// freshLastError()); the message carries the reason either way.
::testing::AssertionResult isFreshReason(const std::string &before);

} // namespace vkfx_test
