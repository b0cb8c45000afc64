#include "support/errors.hpp"

#include <vkfx/core.hpp>

namespace vkfx_test {

std::string freshLastError() {
    vkfx::Device::create({}, nullptr);
    return vkfx::lastError();
}

::testing::AssertionResult isFreshReason(const std::string &before) {
    std::string s = vkfx::lastError();
    if (s.empty())
        return ::testing::AssertionFailure() << "lastError() is empty";
    if (s == before)
        return ::testing::AssertionFailure() << "lastError() was not updated: '" << s << "'";
    for (char ch : s) {
        if (ch < 0x20 || ch > 0x7E)
            return ::testing::AssertionFailure() << "unprintable lastError(): '" << s << "'";
    }
    if (s.rfind("vkfx::", 0) != 0)
        return ::testing::AssertionFailure() << "lastError() does not name the call: '" << s << "'";
    return ::testing::AssertionSuccess() << s;
}

} // namespace vkfx_test
