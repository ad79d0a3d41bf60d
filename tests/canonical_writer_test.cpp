// The canonical writer's counting fast paths against the plain code they
// replace: the estimate must never differ from the UTF-16 length of the
// printed line. (decisions §4, §5; the string kernels' own tests are in
// utf8_test.cpp)
#include "internal/canonical_writer.hpp"
#include "internal/utf8.hpp"

#include "agent_session/context.hpp"

#include <gtest/gtest.h>

#include <charconv>
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

// Number::toString by the book (ECMA-262 Number::toString, steps 5-12),
// from std::to_chars's shortest digits: the reference for
// format_js_number's shortcuts (integers below 2^53, decimals of at most
// 15 significant digits), which never generate digits this way.
std::string reference_js_number(double value) {
  if (value == 0) return "0";
  std::string sign = value < 0 ? "-" : "";
  char scientific[64];
  char* end = std::to_chars(scientific, scientific + sizeof scientific, std::fabs(value),
                                  std::chars_format::scientific).ptr;
  const std::string text(static_cast<const char*>(scientific), static_cast<const char*>(end));
  const std::size_t e = text.find('e');
  std::string digits;
  for (std::size_t i = 0; i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  const int k = static_cast<int>(digits.size());
  const int n = std::stoi(text.substr(e + 1)) + 1;
  if (k <= n && n <= 21) return sign + digits + std::string(static_cast<std::size_t>(n - k), '0');
  if (0 < n && n <= 21) return sign + digits.substr(0, static_cast<std::size_t>(n)) + "." + digits.substr(static_cast<std::size_t>(n));
  if (-6 < n && n <= 0) return sign + "0." + std::string(static_cast<std::size_t>(-n), '0') + digits;
  const std::string mantissa = k == 1 ? digits : digits.substr(0, 1) + "." + digits.substr(1);
  return sign + mantissa + "e" + (n - 1 >= 0 ? "+" : "-") + std::to_string(std::abs(n - 1));
}

std::vector<double> numbers_to_print() {
  std::vector<double> values = {0.0, -0.0, 1, -1, 9, 10, 99, 100, 999999, 1e15, 9007199254740991.0, 9007199254740992.0,
                                9007199254740994.0, 1e20, 1e21, -1e21, 1e22, 1e23, 1e36, 1e37, 1e-6, 1e-7, 1e-8, 1e-9,
                                0.000001, 0.0000015, 0.00001, 123456.78901234, 999999999999999.9, 99999999999999.98,
                                0.1 + 0.2, 1.0 / 3, 2.5e-6, 12.375, 123456789012345680000.0, 6.02e23, 4.77497347502628e+29,
                                2.70057e-7, 9.401399999999999e-7, 5e-324, 0.5, -1.5, 0.1, 1e300,
                                std::numeric_limits<double>::max(), std::numeric_limits<double>::min()};
  std::mt19937_64 random(7);
  for (int i = 0; i < 50000; ++i) {
    const double sign = i % 2 ? -1 : 1;
    // m · 10^p for m of 1 to 17 digits and p on both sides of every
    // shortcut's range, then the doubles next to each.
    const auto digits = static_cast<int>(random() % 17) + 1;
    const double m = static_cast<double>(random() % static_cast<std::uint64_t>(std::pow(10.0, digits)));
    const double value = sign * m * std::pow(10.0, static_cast<double>(static_cast<int>(random() % 80) - 40));
    values.push_back(value);
    values.push_back(std::nextafter(value, 0.0));
    values.push_back(std::nextafter(value, value * 2));
    values.push_back(static_cast<double>(random() % 1000000) / 7.0);
    // The load benchmark's numbers (bench/history_generator.cpp): short
    // decimals, and products one rounding away from one (17 digits).
    const auto n = static_cast<double>(random() % 1000000);
    values.push_back(-n / 1000.0);
    values.push_back(n * 1e-12);
    values.push_back(n * 6.02214076e23);
    double bits = 0;
    const std::uint64_t pattern = random();
    std::memcpy(&bits, &pattern, sizeof bits);
    if (std::isfinite(bits)) values.push_back(bits);
  }
  // Any bit pattern: Dragonbox's digits against std::to_chars's (Ryu).
  for (int i = 0; i < 200000; ++i) {
    double bits = 0;
    const std::uint64_t pattern = random();
    std::memcpy(&bits, &pattern, sizeof bits);
    if (std::isfinite(bits)) values.push_back(bits);
  }
  return values;
}

TEST(FormatJsNumber, AgreesWithShortestDigitsLaidOutAsNumberToString) {
  int mismatches = 0;
  for (const double value : numbers_to_print()) {
    char buffer[32];
    const std::string printed(format_js_number(value, buffer));
    const std::string expected = reference_js_number(value);
    if (printed != expected && ++mismatches <= 10) ADD_FAILURE() << printed << " != " << expected;
    // write_js_number, the loader's way: in place, at any offset.
    char room[kJsNumberRoom + 1];
    std::memset(room, 'x', sizeof room);
    const std::string written(room + 1, write_js_number(room + 1, value));
    if ((written != expected || room[0] != 'x') && ++mismatches <= 10) ADD_FAILURE() << written << " != " << expected;
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(WriteJsInteger, PrintsWhatTheIntegerRoundedToADoublePrints) {
  std::vector<std::int64_t> values = {0, 1, -1, 9, 10, 99999999, 100000000, -100000000, (std::int64_t{1} << 53) - 1,
                                      std::int64_t{1} << 53, (std::int64_t{1} << 53) + 1, -(std::int64_t{1} << 53) - 1,
                                      std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()};
  std::mt19937_64 random(11);
  for (int i = 0; i < 100000; ++i) {
    // Every magnitude from 1 to 63 bits, both signs.
    const auto value = static_cast<std::int64_t>(random() >> (random() % 64));
    values.push_back(value);
    values.push_back(-value);
  }
  int mismatches = 0;
  for (const std::int64_t value : values) {
    char room[kJsNumberRoom];
    const std::string written(room, write_js_integer(room, value));
    const std::string expected = reference_js_number(static_cast<double>(value));
    if (written != expected && ++mismatches <= 10) ADD_FAILURE() << value << ": " << written << " != " << expected;
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(TextBuffer, HoldsWhatWasAppendedAcrossGrowthAndClear) {
  TextBuffer buffer;
  std::string expected;
  for (int round = 0; round < 2; ++round) {
    buffer.clear();
    expected.clear();
    for (int i = 0; i < 3000; ++i) {  // past the first capacity several times
      const std::string piece = std::to_string(i * (round + 1));
      buffer.append(piece);
      buffer.push_back(',');
      char* at = buffer.room(kJsNumberRoom);
      buffer.advance_to(write_js_number(at, i / 8.0));
      expected += piece + "," + reference_js_number(i / 8.0);
    }
    EXPECT_EQ(buffer.view(), expected);
  }
}

TEST(TextBuffer, PrintsStringsAndNumbersAsTheStringWritersDo) {
  for (const std::string text : {"", "plain", "quote \" back \\ nl \n nul \x01", "caf\xC3\xA9 \xE2\x80\xA8"}) {
    // The message writer prints the same literal for a user's content.
    TextBuffer buffer;
    buffer.append(R"({"role":"user","content":)");
    append_json_string(buffer, text);
    buffer.push_back('}');
    EXPECT_EQ(buffer.view(), to_canonical_json(UserMessage{text}));
  }
  TextBuffer buffer;
  append_json_number(buffer, -2.5e-7);
  EXPECT_EQ(buffer.view(), "-2.5e-7");
  EXPECT_THROW(append_json_number(buffer, std::numeric_limits<double>::infinity()), SerializationError);
  EXPECT_THROW(append_json_string(buffer, "\xC3"), SerializationError);
}

}  // namespace
}  // namespace agent_session::internal
