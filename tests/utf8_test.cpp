// The reference UTF-8 functions (SPEC.md §2.1 strictness, §4 UTF-16 code
// units): utf8_sequence_length, valid_utf8_prefix, utf16_length and
// json_string_units (base/utf8.hpp).
//
// Validity is checked without a second decoder: every scalar value's
// encoding (bench::append_utf8) must be accepted, and counting every byte
// sequence of a length that is accepted must give exactly the number of
// scalar values of that length, so nothing else is accepted. The fast
// path's kernels are checked against these functions (tests/fast/).
#include "base/utf8.hpp"
#include "support/json_string_units.hpp"

#include "base/printable.hpp"
#include "reference/canonical_value.hpp"
#include "support/history_generator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace agent_session::base {
namespace {

std::string bytes(std::initializer_list<unsigned> values) {
  std::string out;
  for (const unsigned v : values) out.push_back(static_cast<char>(v));
  return out;
}

bool is_surrogate(char32_t c) { return c >= 0xD800 && c <= 0xDFFF; }

std::size_t encoded_length(char32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

TEST(Utf8SequenceLength, AcceptsEveryScalarValuesEncodingAndNoPrefixOfIt) {
  std::size_t mismatches = 0;
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    if (is_surrogate(c)) continue;
    std::string text;
    bench::append_utf8(text, c);
    ASSERT_EQ(text.size(), encoded_length(c));
    if (utf8_sequence_length(text, 0) != text.size() && ++mismatches <= 10) {
      ADD_FAILURE() << "U+" << std::hex << static_cast<unsigned>(c) << " is rejected";
    }
    for (std::size_t cut = 1; cut < text.size(); ++cut) {
      if (utf8_sequence_length(text.substr(0, cut), 0) != 0 && ++mismatches <= 10) {
        ADD_FAILURE() << "U+" << std::hex << static_cast<unsigned>(c) << " cut to " << cut << " bytes is accepted";
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

// Every 1-, 2- and 3-byte sequence, and every 4-byte one whose last two
// bytes are at the bounds of the byte classes: accepted as one sequence
// of its length exactly as many times as there are scalar values of that
// length (surrogates excluded).
TEST(Utf8SequenceLength, AcceptsNothingButThoseEncodings) {
  std::size_t ones = 0, twos = 0, threes = 0, fours = 0;
  for (unsigned a = 0; a < 256; ++a) {
    ones += utf8_sequence_length(bytes({a}), 0) == 1;
    for (unsigned b = 0; b < 256; ++b) {
      twos += utf8_sequence_length(bytes({a, b}), 0) == 2;
      std::string three = bytes({a, b, 0});
      for (unsigned c = 0; c < 256; ++c) {
        three[2] = static_cast<char>(c);
        threes += utf8_sequence_length(three, 0) == 3;
      }
      for (const unsigned c : {0x00u, 0x7Fu, 0x80u, 0x8Fu, 0x90u, 0xBFu, 0xC0u, 0xFFu}) {
        for (const unsigned d : {0x00u, 0x7Fu, 0x80u, 0x8Fu, 0x90u, 0xBFu, 0xC0u, 0xFFu}) {
          fours += utf8_sequence_length(bytes({a, b, c, d}), 0) == 4;
        }
      }
    }
  }
  EXPECT_EQ(ones, 0x80u);
  EXPECT_EQ(twos, 0x800u - 0x80u);
  EXPECT_EQ(threes, 0x10000u - 0x800u - 0x800u);
  // Leads F0 (second byte 90..BF), F1..F3 (80..BF), F4 (80..8F): 256 pairs,
  // each with 4 continuation bytes of the 8 above in each last position.
  EXPECT_EQ(fours, 256u * 4 * 4);
}

TEST(Utf8SequenceLength, ReadsTheSequenceAtTheGivenOffset) {
  const std::string text = "a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80\x80";
  EXPECT_EQ(utf8_sequence_length(text, 0), 1u);
  EXPECT_EQ(utf8_sequence_length(text, 1), 2u);
  EXPECT_EQ(utf8_sequence_length(text, 2), 0u) << "a continuation byte starts nothing";
  EXPECT_EQ(utf8_sequence_length(text, 3), 3u);
  EXPECT_EQ(utf8_sequence_length(text, 6), 4u);
  EXPECT_EQ(utf8_sequence_length(text, 10), 0u);
  EXPECT_EQ(utf8_sequence_length(std::string_view(text).substr(0, 9), 6), 0u) << "cut short by the end";
}

TEST(ValidUtf8Prefix, StopsAtTheFirstInvalidSequence) {
  EXPECT_EQ(valid_utf8_prefix(""), 0u);
  EXPECT_EQ(valid_utf8_prefix("plain"), 5u);
  EXPECT_EQ(valid_utf8_prefix("caf\xC3\xA9"), 5u);
  EXPECT_EQ(valid_utf8_prefix("ab\xC3"), 2u);
  EXPECT_EQ(valid_utf8_prefix("ab\xED\xA0\x80"
                              "cd"),
            2u)
      << "a surrogate";
  EXPECT_EQ(valid_utf8_prefix("\xC0\xAF"), 0u) << "overlong";
  EXPECT_EQ(valid_utf8_prefix("\xF4\x8F\xBF\xBF\xF4\x90\x80\x80"), 4u) << "past U+10FFFF";
  EXPECT_EQ(valid_utf8_prefix(std::string("a\0b", 3)), 3u) << "NUL is valid UTF-8";
}

TEST(Utf16Length, CountsOneUnitPerCharacterAndTwoPastTheBmp) {
  EXPECT_EQ(utf16_length(""), 0u);
  EXPECT_EQ(utf16_length("abc"), 3u);
  EXPECT_EQ(utf16_length("\xC3\xA9"), 1u);
  EXPECT_EQ(utf16_length("\xE4\xB8\xAD"), 1u);
  EXPECT_EQ(utf16_length("\xF0\x9F\x98\x80"), 2u);
  EXPECT_EQ(utf16_length("a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF"), 1u + 1 + 1 + 2 + 2);
  for (char32_t c = 0; c <= 0x10FFFF; c += 0x101) {  // a sample of every length
    if (is_surrogate(c)) continue;
    std::string text;
    bench::append_utf8(text, c);
    ASSERT_EQ(utf16_length(text), c >= 0x10000 ? 2u : 1u) << std::hex << static_cast<unsigned>(c);
  }
}

// What JSON.stringify prints for one ASCII byte, in UTF-16 units.
std::uint64_t printed_units(unsigned char c) {
  switch (c) {
    case '"':
    case '\\':
    case '\b':
    case '\f':
    case '\n':
    case '\r':
    case '\t': return 2;
    default: return c < 0x20 ? 6 : 1;
  }
}

TEST(JsonStringUnits, CountsQuotesAndEscapesAsPrinted) {
  EXPECT_EQ(test_support::json_string_units(""), 2u);
  EXPECT_EQ(test_support::json_string_units("a\"\\\n\x01"), 2u + 1 + 2 + 2 + 2 + 6);
  EXPECT_EQ(test_support::json_string_units("\x7F/"), 2u + 1 + 1) << "DEL and / are not escaped";
  EXPECT_EQ(test_support::json_string_units("\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80"), 2u + 1 + 1 + 2);
  for (unsigned c = 0; c < 0x80; ++c) {
    EXPECT_EQ(test_support::json_string_units(std::string(3, static_cast<char>(c))),
              2 + 3 * printed_units(static_cast<unsigned char>(c)))
        << "byte " << c;
  }
}

TEST(JsonStringUnits, IsNulloptExactlyForInvalidUtf8) {
  for (const std::string& invalid :
       {bytes({0xC0, 0x80}), bytes({0xE0, 0x9F, 0xBF}), bytes({0xF0, 0x8F, 0xBF, 0xBF}), bytes({0xED, 0xA0, 0x80}),
        bytes({0xF4, 0x90, 0x80, 0x80}), bytes({0x80}), bytes({0xC3}), bytes({0xE4, 0xB8}), bytes({0xF0, 0x9F, 0x98}),
        bytes({0xC3, 0x41}), bytes({0xFF}), bytes({0xF5, 0x80, 0x80, 0x80})}) {
    EXPECT_EQ(test_support::json_string_units("ok" + invalid + "ok"), std::nullopt) << valid_utf8_prefix(invalid);
    EXPECT_EQ(test_support::json_string_units(invalid), std::nullopt);
  }
}

// The count and the printer are two functions: they must agree on every
// character, or the estimate would differ from the printed line.
TEST(JsonStringUnits, IsTheUtf16LengthOfTheLiteralAppendJsonStringPrints) {
  for (char32_t c = 0; c <= 0x10FFFF; c = c < 0x800 ? c + 1 : c + 0x3F) {
    if (is_surrogate(c)) continue;
    std::string text = "x";
    bench::append_utf8(text, c);
    std::string literal;
    reference::append_json_string(literal, text);
    ASSERT_EQ(test_support::json_string_units(text), utf16_length(literal)) << std::hex << static_cast<unsigned>(c);
  }
}

}  // namespace
}  // namespace agent_session::base
