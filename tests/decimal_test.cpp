// The one decimal reader (src/base/decimal.hpp) every number of ours goes
// through: array-index keys, budgets, the pending-sync mark, the runner's
// options, /proc's pids.
#include "base/decimal.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace agent_session::base {
namespace {

TEST(Decimal, OnlyAsciiDigitsAreDecimal) {
  EXPECT_TRUE(is_decimal("0"));
  EXPECT_TRUE(is_decimal("0123"));
  for (const char* text : {"", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0x10", "\xd9\xa1"}) {
    EXPECT_FALSE(is_decimal(text)) << text;
  }
}

TEST(Decimal, ParsesEverySixtyFourBitValueAndNothingPast) {
  EXPECT_EQ(parse_decimal("0"), 0u);
  EXPECT_EQ(parse_decimal("007"), 7u);
  EXPECT_EQ(parse_decimal("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_decimal("18446744073709551616"), std::nullopt);
  EXPECT_EQ(parse_decimal("99999999999999999999"), std::nullopt);
  EXPECT_EQ(parse_decimal("12a"), std::nullopt);
  EXPECT_EQ(parse_decimal(""), std::nullopt);
}

TEST(Decimal, LeadingDigitsStopAtTheFirstOtherCharacter) {
  EXPECT_EQ(leading_digits("123 (bash) S"), "123");
  EXPECT_EQ(leading_digits("1.10.0"), "1");
  EXPECT_EQ(leading_digits("x1"), "");
  EXPECT_EQ(leading_digits(""), "");
}

}  // namespace
}  // namespace agent_session::base
