// The canonical writer's counting fast paths against the plain code they
// replace: the estimate must never differ from the UTF-16 length of the
// printed line, and must reject exactly the strings printing rejects.
// (decisions §3, §4, §5)
#include "internal/canonical_writer.hpp"

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

// What the estimate of a string must be: the UTF-16 length of the literal
// the printing path writes, or nullopt when printing rejects it.
std::optional<std::uint64_t> printed_units(std::string_view text) {
  if (valid_utf8_prefix(text) != text.size()) return std::nullopt;
  const std::string line = to_canonical_json(UserMessage{std::string(text)});
  // {"role":"user","content":<literal>}
  return utf16_length(line) - utf16_length(R"({"role":"user","content":})");
}

void expect_same_units(std::string_view text) {
  const auto expected = printed_units(text);
  ASSERT_EQ(json_string_units_plain(text), expected) << "plain path, " << text.size() << " bytes";
  ASSERT_EQ(json_string_units(text), expected) << "fast path, " << text.size() << " bytes";
}

// Bytes worth putting at every position: block edges, lead bytes of every
// length, the bounds of every continuation range, escapes.
const std::vector<unsigned char> kInterestingBytes = {0x00, 0x01, 0x08, 0x0A, 0x1F, 0x20, '"',  '\\', 0x7F, 0x80,
                                                      0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
                                                      0xE1, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xF8, 0xFF};

// `pattern` placed at `offset` in ASCII filler of `length` bytes (or at
// the very end when it does not fit).
std::string embedded(std::string_view pattern, std::size_t offset, std::size_t length) {
  std::string text(length, 'a');
  offset = std::min(offset, length >= pattern.size() ? length - pattern.size() : 0);
  text.replace(offset, pattern.size(), pattern);
  return text;
}

const std::size_t kOffsets[] = {0, 1, 15, 16, 29, 30, 31, 32, 33, 62, 63, 64};

TEST(JsonStringUnits, EveryTwoBytePatternAtEveryBlockEdge) {
  for (unsigned first = 0; first < 256; ++first) {
    for (unsigned second = 0; second < 256; ++second) {
      const char pattern[] = {static_cast<char>(first), static_cast<char>(second)};
      for (const std::size_t offset : kOffsets) {
        for (const std::size_t length : {2, 65}) {
          expect_same_units(embedded(std::string_view(pattern, 2), offset, length));
        }
      }
    }
  }
}

TEST(JsonStringUnits, ThreeAndFourBytePatternsAtBlockEdges) {
  for (unsigned lead = 0x80; lead < 256; ++lead) {
    for (const unsigned char b : kInterestingBytes) {
      for (const unsigned char c : kInterestingBytes) {
        const char three[] = {static_cast<char>(lead), static_cast<char>(b), static_cast<char>(c)};
        for (const std::size_t offset : {0, 29, 30, 31, 32, 63}) {
          expect_same_units(embedded(std::string_view(three, 3), offset, 66));
        }
        for (const unsigned char d : {0x41, 0x80, 0xBF, 0xC0}) {
          const char four[] = {static_cast<char>(lead), static_cast<char>(b), static_cast<char>(c), static_cast<char>(d)};
          for (const std::size_t offset : {0, 30, 31, 70}) {
            expect_same_units(embedded(std::string_view(four, 4), offset, 70));
          }
        }
      }
    }
  }
}

// Random texts of every length up to 300 bytes, mixing ASCII, escapes,
// 2-, 3- and 4-byte characters and, rarely, one bad byte.
TEST(JsonStringUnits, RandomMixedTexts) {
  std::mt19937_64 random(20261130);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  const std::vector<std::string> pieces = {"a",  "Z",    " ",    "\"",     "\\",       "\n",       "\t",
                                           "\x01", "\x1b", "\x7f", "\xC3\xA9", "\xE4\xB8\xAD", "\xE2\x80\xA8",
                                           "\xF0\x9F\x98\x80", "\xEF\xBF\xBF", "\xF4\x8F\xBF\xBF"};
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const std::size_t target = pick(300);
    while (text.size() < target) {
      // Runs of plain ASCII exercise the all-ASCII block path.
      text += pick(3) == 0 ? std::string(pick(70), 'x') : pieces[pick(pieces.size())];
    }
    if (pick(4) == 0 && !text.empty()) text[pick(text.size())] = static_cast<char>(0x80 + pick(128));
    expect_same_units(text);
  }
}

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
