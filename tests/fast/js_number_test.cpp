// The fast path's Number::toString (src/fast/js_number.hpp: Dragonbox
// digits, an exact 15-digit shortcut, SWAR layout) against the reference,
// reference::append_js_number (std::to_chars's shortest digits laid out as
// SPEC.md §3 says), on about 450,000 doubles: random bit patterns,
// integers near 2^53, powers of ten, subnormals, 15-, 16- and 17-digit
// numbers, and the numbers the benchmarks print.
#include "fast/js_number.hpp"

#include "reference/js_number.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace agent_session::fast {
namespace {

std::string reference(double value) {
  std::string out;
  reference::append_js_number(out, value);
  return out;
}

std::vector<double> numbers_to_print() {
  std::vector<double> values = {0.0,
                                -0.0,
                                1,
                                -1,
                                9,
                                10,
                                99,
                                100,
                                999999,
                                1e15,
                                9007199254740991.0,
                                9007199254740992.0,
                                9007199254740994.0,
                                1e20,
                                1e21,
                                -1e21,
                                1e22,
                                1e23,
                                1e36,
                                1e37,
                                1e-6,
                                1e-7,
                                1e-8,
                                1e-9,
                                0.000001,
                                0.0000015,
                                0.00001,
                                123456.78901234,
                                999999999999999.9,
                                99999999999999.98,
                                0.1 + 0.2,
                                1.0 / 3,
                                2.5e-6,
                                12.375,
                                123456789012345680000.0,
                                6.02e23,
                                4.77497347502628e+29,
                                2.70057e-7,
                                9.401399999999999e-7,
                                5e-324,
                                0.5,
                                -1.5,
                                0.1,
                                1e300,
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::min()};
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
    // The load benchmark's numbers (tests/support/history_generator.cpp): short
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
  // Integers near 2^53 (the shortcut's bound), both signs.
  for (std::int64_t delta = -300; delta <= 300; ++delta) {
    const auto near = static_cast<double>((std::int64_t{1} << 53) + delta);
    values.push_back(near);
    values.push_back(-near);
  }
  // Every power of ten a double holds, and its neighbours.
  for (int p = -323; p <= 308; ++p) {
    const double power = std::pow(10.0, p);
    values.push_back(power);
    values.push_back(std::nextafter(power, 0.0));
    values.push_back(std::nextafter(power, std::numeric_limits<double>::infinity()));
  }
  // Subnormals: the smallest ones, random ones, the largest one.
  for (std::uint64_t bits = 1; bits < 2000; ++bits) {
    double subnormal = 0;
    std::memcpy(&subnormal, &bits, sizeof subnormal);
    values.push_back(subnormal);
  }
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t bits = random() & ((std::uint64_t{1} << 52) - 1);
    double subnormal = 0;
    std::memcpy(&subnormal, &bits, sizeof subnormal);
    values.push_back(subnormal);
  }
  values.push_back(std::nextafter(std::numeric_limits<double>::min(), 0.0));
  // Exactly 15, 16 and 17 significant digits, every decimal exponent.
  for (int i = 0; i < 30000; ++i) {
    const int digits = 15 + i % 3;
    const auto low = static_cast<std::uint64_t>(std::pow(10.0, digits - 1));
    const double m = static_cast<double>(low + random() % (9 * low));
    values.push_back(std::stod(std::to_string(static_cast<std::uint64_t>(m)) + "e" +
                               std::to_string(static_cast<int>(random() % 590) - 300)));
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

TEST(WriteJsNumber, PrintsWhatTheReferencePrints) {
  const std::vector<double> values = numbers_to_print();
  ASSERT_GT(values.size(), 450000u);
  int mismatches = 0;
  for (const double value : values) {
    const std::string expected = reference(value);
    // In place, at an odd offset, nothing written before the start.
    char room[kJsNumberRoom + 1];
    std::memset(room, 'x', sizeof room);
    const std::string written(room + 1, write_js_number(room + 1, value));
    if ((written != expected || room[0] != 'x') && ++mismatches <= 10) {
      ADD_FAILURE() << "write_js_number(" << std::hexfloat << value << ") is " << written << ", the reference prints "
                    << expected;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(WriteJsInteger, PrintsWhatTheIntegerRoundedToADoublePrints) {
  std::vector<std::int64_t> values = {0,
                                      1,
                                      -1,
                                      9,
                                      10,
                                      99999999,
                                      100000000,
                                      -100000000,
                                      (std::int64_t{1} << 53) - 1,
                                      std::int64_t{1} << 53,
                                      (std::int64_t{1} << 53) + 1,
                                      -(std::int64_t{1} << 53) - 1,
                                      std::numeric_limits<std::int64_t>::max(),
                                      std::numeric_limits<std::int64_t>::min()};
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
    const std::string expected = reference(static_cast<double>(value));
    if (written != expected && ++mismatches <= 10)
      ADD_FAILURE() << "write_js_integer(" << value << ") is " << written << ", the reference prints " << expected;
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace agent_session::fast
