// The canonical writer's counting fast paths against the plain code they
// replace: the estimate must never differ from the UTF-16 length of the
// printed line. (decisions §4, §5; the string kernels' own tests are in
// utf8_test.cpp)
#include "internal/canonical_writer.hpp"
#include "internal/utf8.hpp"

#include "agent_session/context.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace agent_session::internal {
namespace {

// The integer fast path of the counting sink against the printing path's
// Number::toString, for every magnitude and the edges of the exponent form.
TEST(EstimateNumbers, LengthEqualsPrintedLength) {
  std::vector<double> values = {0.0, -0.0, 1, -1, 9, 10, 99, 100, 999999, 1e15, 9007199254740992.0,
                                9007199254740994.0, 1e20, 99999999999999991611392.0 / 1000, 1e21, -1e21, 0.000001, 0.0000015, 0.00001, 123456.78901234,
                                999999999999999.9, 99999999999999.98, 0.1 + 0.2, 1.0 / 3, 2.5e-6, 12.375,
                                123456789012345680000.0, 5e-324, 0.5, -1.5, 1e-7, 1e-6, 0.1, 1e300,
                                std::numeric_limits<double>::max(), std::numeric_limits<double>::min()};
  std::mt19937_64 random(7);
  for (int i = 0; i < 20000; ++i) {
    const double magnitude = std::pow(10.0, static_cast<double>(random() % 44) - 22);
    const double value = std::floor(static_cast<double>(random() % 1000000) * magnitude) * (i % 2 ? -1 : 1);
    values.push_back(value);
    values.push_back(value / 8);
    // Short decimals (the fast path), near misses, and arbitrary bits.
    const double decimal = static_cast<double>(random() % 100000000) / std::pow(10.0, static_cast<double>(random() % 12));
    values.push_back(decimal);
    values.push_back(std::nextafter(decimal, 0.0));
    values.push_back(static_cast<double>(random() % 1000000) / 7.0);
    double bits = 0;
    const std::uint64_t pattern = random();
    std::memcpy(&bits, &pattern, sizeof bits);
    if (std::isfinite(bits)) values.push_back(bits);
  }
  for (const double value : values) {
    const Message message = AssistantMessage{"", {ToolCall{"id", "name", Json(value)}}};
    EXPECT_EQ(estimate_context_chars(std::span<const Message>(&message, 1)),
              utf16_length(to_canonical_json(message)) + 1)
        << value;
  }
}

}  // namespace
}  // namespace agent_session::internal
