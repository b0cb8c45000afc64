#include "support/errors.hpp"

#include <vkfx/core.hpp>

namespace vkfx_test {

std::string freshLastError() {
    vkfx::Device::create({}, nullptr);
    return vkfx::lastError();
}

::testing::AssertionResult isReadableReason(const char *text) {
    std::string s = text ? text : "";
    if (s.size() < 12)
        return ::testing::AssertionFailure() << "reason too short: '" << s << "'";
    for (char ch : s) {
        if (ch < 0x20 || ch > 0x7E)
            return ::testing::AssertionFailure() << "unprintable character in '" << s << "'";
    }
    if (s.rfind("vkfx::", 0) != 0)
        return ::testing::AssertionFailure() << "reason does not name the call: '" << s << "'";
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult isFreshReason(const std::string &before) {
    std::string s = vkfx::lastError();
    if (s == before)
        return ::testing::AssertionFailure() << "lastError() was not updated: '" << s << "'";
    ::testing::AssertionResult readable = isReadableReason(s.c_str());
    if (!readable)
        return readable;
    return ::testing::AssertionSuccess() << s;
}

} // namespace vkfx_test
