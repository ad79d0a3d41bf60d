// The one escaping module (src/base/printable.hpp): which characters a
// terminal must not see raw, and the one hex case of every escape.
#include "base/printable.hpp"
#include "base/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace agent_session::base {
namespace {

// The one decoder, on every length of sequence: ASCII keeps its seven bits.
TEST(DecodeUtf8, GivesTheCodePointOfEveryLengthOfSequence) {
  EXPECT_EQ(decode_utf8("A"), U'A');
  EXPECT_EQ(decode_utf8("\x7f"), U'\x7f');
  EXPECT_EQ(decode_utf8("\xc3\xa9"), U'\u00e9');
  EXPECT_EQ(decode_utf8("\xe2\x80\xae"), U'\u202e');
  EXPECT_EQ(decode_utf8("\xf0\x9f\x98\x80"), U'\U0001f600');
  EXPECT_EQ(decode_utf8("\xf4\x8f\xbf\xbf"), U'\U0010ffff');
}

TEST(HiddenCodePoint, NoAsciiCharacterIsHiddenTheyAreEscapedByName) {
  for (char32_t c = 0; c < 0x80; ++c) EXPECT_FALSE(hidden_code_point(c)) << static_cast<unsigned>(c);
}

TEST(HiddenCodePoint, TheC1AndBidiControlsAndTheSeparatorsAreHiddenTheirNeighboursAreNot) {
  for (const char32_t c :
       {0x80, 0x85, 0x9B, 0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202E, 0x2066, 0x2069}) {
    EXPECT_TRUE(hidden_code_point(c)) << std::hex << static_cast<unsigned>(c);
  }
  for (const char32_t c : {0xA0, 0x061B, 0x061D, 0x200D, 0x2010, 0x2027, 0x202F, 0x2065, 0x206A, 0xFFFD, 0x1F600}) {
    EXPECT_FALSE(hidden_code_point(c)) << std::hex << static_cast<unsigned>(c);
  }
}

TEST(PrintableLength, IsTheCharactersBytesWhenATerminalMaySeeItElseZero) {
  EXPECT_EQ(printable_length("a", 0), 1u);
  EXPECT_EQ(printable_length("\x7f", 0), 0u);
  EXPECT_EQ(printable_length("\t", 0), 0u);
  EXPECT_EQ(printable_length("\xc3\xa9", 0), 2u);
  EXPECT_EQ(printable_length("\xf0\x9f\x98\x80", 0), 4u);
  EXPECT_EQ(printable_length("\xc2\x9b", 0), 0u) << "CSI, a C1 control";
  EXPECT_EQ(printable_length("\xff", 0), 0u);
}

TEST(Escapes, AreLowercaseInEveryForm) {
  std::string out;
  append_escape(out, 'x', 0xAB);
  append_escape(out, 'u', 0x202E);
  EXPECT_EQ(out, "\\xab\\u202e");
  EXPECT_EQ(terminal_safe("\xff\x1b\xe2\x80\xae"), "\\xff\\x1b\\u202e");
  EXPECT_EQ(printable_excerpt("\xff\x1b\xe2\x80\xae", 200), "\\xff\\x1b\\xe2\\x80\\xae");
}

// Every error line names a file one way, and counts agree with their noun.
TEST(Quoted, NamesAFileInSingleQuotes) {
  EXPECT_EQ(quoted("a b.jsonl"), "'a b.jsonl'");
  EXPECT_EQ(quoted(""), "''");
}

TEST(Counted, TakesTheNounInTheNumberTheCountNeeds) {
  EXPECT_EQ(counted(0, "message"), "0 messages");
  EXPECT_EQ(counted(1, "message"), "1 message");
  EXPECT_EQ(counted(2, "request"), "2 requests");
  EXPECT_EQ(counted(1, "reply", "replies"), "1 reply");
  EXPECT_EQ(counted(4, "reply", "replies"), "4 replies");
}

}  // namespace
}  // namespace agent_session::base
