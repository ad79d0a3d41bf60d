// reference::append_js_number, the reference Number::toString (SPEC.md §3),
// against what JavaScript prints: every expected text below is
// String(value) as Node.js prints it, covering each branch of the layout
// (integer digits, digits then zeros up to 21 digits, a point inside the
// digits, leading zeros down to 1e-6, exponent form both ways) and the
// edges of the double range.
#include "reference/js_number.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace agent_session::reference {
namespace {

std::string printed(double value) {
  std::string out = "[";  // appends, never replaces
  append_js_number(out, value);
  return out.substr(1);
}

struct Known {
  double value;
  const char* javascript;
};

TEST(AppendJsNumber, PrintsWhatJavaScriptPrints) {
  const Known known[] = {
      {0.0, "0"},
      {-0.0, "0"},
      {1.0, "1"},
      {-1.0, "-1"},
      {100, "100"},
      {1e21, "1e+21"},
      {-1e21, "-1e+21"},
      {1e20, "100000000000000000000"},
      {1e22, "1e+22"},
      {1e23, "1e+23"},
      {123456789012345678901234567890.0, "1.2345678901234568e+29"},
      {123456789012345680000.0, "123456789012345680000"},
      {1e-7, "1e-7"},
      {0.000001, "0.000001"},
      {0.0000015, "0.0000015"},
      {1.5e-7, "1.5e-7"},
      {0.1, "0.1"},
      {-2.5e-10, "-2.5e-10"},
      {123.456, "123.456"},
      {9007199254740993.0, "9007199254740992"},
      {9007199254740991.0, "9007199254740991"},
      {9007199254740992.0, "9007199254740992"},
      {-9007199254740994.0, "-9007199254740994"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {-1.5e300, "-1.5e+300"},
      {2.2250738585072014e-308, "2.2250738585072014e-308"},
      {12.75, "12.75"},
      {-0.5, "-0.5"},
      {1.005, "1.005"},
      {0.0000012, "0.0000012"},
      {0.00000123, "0.00000123"},
      {0.000000123, "1.23e-7"},
      {0.12345678, "0.12345678"},
      {0.123456789, "0.123456789"},
      {12345678901234.5, "12345678901234.5"},
      {123456789012345.6, "123456789012345.6"},
      {0.1 + 0.2, "0.30000000000000004"},
      {1.0 / 3, "0.3333333333333333"},
      {2.0 / 3, "0.6666666666666666"},
      {6.02e23, "6.02e+23"},
      {4.77497347502628e+29, "4.77497347502628e+29"},
      {2.70057e-7, "2.70057e-7"},
      {9.401399999999999e-7, "9.401399999999999e-7"},
      {999999999999999.9, "999999999999999.9"},
      {99999999999999.98, "99999999999999.98"},
      {1e15, "1000000000000000"},
      {1e16, "10000000000000000"},
      {123e18, "123000000000000000000"},
      {1.5e21, "1.5e+21"},
      {0.00001, "0.00001"},
      {1e300, "1e+300"},
      {1e-300, "1e-300"},
      {4294967295.0, "4294967295"},
      {18446744073709551615.0, "18446744073709552000"},
      {-123456.789e-12, "-1.23456789e-7"},
      {3.0e-5, "0.00003"},
      {25.0, "25"},
      {1.25e-6, "0.00000125"},
      {std::numeric_limits<double>::max(), "1.7976931348623157e+308"},
      {std::numeric_limits<double>::min(), "2.2250738585072014e-308"},
      {std::numeric_limits<double>::denorm_min(), "5e-324"},
      {-std::numeric_limits<double>::denorm_min(), "-5e-324"},
  };
  for (const Known& k : known) EXPECT_EQ(printed(k.value), k.javascript) << "for " << k.javascript;
}

TEST(AppendJsNumber, AppendsToWhatIsThere) {
  std::string out = "x=";
  append_js_number(out, -2.5e-7);
  out += ',';
  append_js_number(out, 1e21);
  EXPECT_EQ(out, "x=-2.5e-7,1e+21");
}

// Each branch's bounds: 21 integer digits stay plain, 22 do not; six
// leading zeros after the point stay plain, seven do not.
TEST(AppendJsNumber, LayoutChangesExactlyWhereNumberToStringChangesIt) {
  EXPECT_EQ(printed(999999999999999900000.0), "999999999999999900000");
  EXPECT_EQ(printed(1e21), "1e+21");
  EXPECT_EQ(printed(1.2e21), "1.2e+21");
  EXPECT_EQ(printed(0.0000012345), "0.0000012345");
  EXPECT_EQ(printed(0.00000012345), "1.2345e-7");
  EXPECT_EQ(printed(123.0), "123");
  EXPECT_EQ(printed(1230.0), "1230");
  EXPECT_EQ(printed(1.23), "1.23");
  EXPECT_EQ(printed(0.123), "0.123");
}

}  // namespace
}  // namespace agent_session::reference
