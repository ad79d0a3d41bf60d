// reference/json_line.hpp: the exact detail of every kind of parse error,
// what follows "invalid session JSON at line N: " (SPEC §2 lets an
// implementation add one; ours says which byte and why). Pinned byte for
// byte, so that a changed cut of nlohmann's message, a changed position or
// a changed escape in the excerpt fails here rather than silently.
#include "reference/json_line.hpp"

#include "agent_session/session.hpp"
#include "base/printable.hpp"
#include "reference/js_object.hpp"
#include "support/history_generator.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace agent_session::reference {
namespace {

std::string error_of(const std::string& line) {
  auto parsed = parse_json_line(line);
  if (auto* error = std::get_if<std::string>(&parsed)) return *error;
  ADD_FAILURE() << "parse_json_line accepts " << line;
  return {};
}

const std::string kValue = "syntax error while parsing value - ";

TEST(JsonLineErrorTest, SyntaxErrorsSayTheByteAndNlohmannsReasonWithoutItsLocation) {
  EXPECT_EQ(error_of(""), "byte 1: " + kValue + "unexpected end of input; expected '[', '{', or a literal");
  EXPECT_EQ(error_of("tru"), "byte 4: " + kValue + "invalid literal; last read: 'tru'");
  EXPECT_EQ(error_of(R"({"a" 1})"),
            "byte 6: syntax error while parsing object separator - unexpected number literal; expected ':'");
  EXPECT_EQ(error_of(R"({"a":1,})"),
            "byte 8: syntax error while parsing object key - unexpected '}'; expected string literal");
  EXPECT_EQ(error_of("[1,]"), "byte 4: " + kValue + "unexpected ']'; expected '[', '{', or a literal");
  EXPECT_EQ(error_of("{} {}"), "byte 4: " + kValue + "unexpected '{'; expected end of input");
  EXPECT_EQ(error_of("1."), "byte 3: " + kValue + "invalid number; expected digit after '.'; last read: '1.'");
  EXPECT_EQ(error_of(R"("\x")"),
            "byte 3: " + kValue + "invalid string: forbidden character after backslash; last read: '\"\\x'");
}

TEST(JsonLineErrorTest, StricterThanJavaScriptErrorsSayWhy) {  // SPEC §2.1
  EXPECT_EQ(error_of("\"\xff\""), "byte 2: " + kValue + "invalid string: ill-formed UTF-8 byte; last read: '\"\\xff'");
  EXPECT_EQ(error_of(R"("\ud800")"), "byte 8: " + kValue +
                                         "invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF; "
                                         "last read: '\"\\ud800\"'");
  EXPECT_EQ(error_of(R"("\udc00x")"),
            "byte 7: " + kValue +
                "invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF; last read: '\"\\udc00'");
  // nlohmann words these without a location: nothing to cut but its id.
  EXPECT_EQ(error_of("1e400"), "byte 5: number overflow parsing '1e400'");
  EXPECT_EQ(error_of(R"({"a":[-1e400]})"), "byte 12: number overflow parsing '-1e400'");
  EXPECT_EQ(error_of(std::string(512, '[') + "[]" + std::string(512, ']')), "byte 513: nesting deeper than 512 levels");
  // Brackets in strings (escaped quotes too) are not nesting; closed ones are not either.
  const std::string before = R"([{"[\"{":"]"},[[]],)";
  std::string objects;
  for (int level = 0; level < 511; ++level) objects += R"({"a":)";
  EXPECT_EQ(error_of(before + objects + "[]"),
            "byte " + std::to_string(before.size() + objects.size() + 1) + ": nesting deeper than 512 levels");
}

TEST(JsonLineErrorTest, ByteOrderMarkAndNulAreNamedWithTheirPosition) {
  EXPECT_EQ(error_of("\xEF\xBB\xBF{}"), "byte 1: a byte-order mark is not JSON whitespace");
  EXPECT_EQ(error_of(std::string("{}\0x", 4)), "byte 3: a NUL byte is not JSON");
  EXPECT_EQ(error_of(std::string("\0", 1)), "byte 1: a NUL byte is not JSON");
}

// SPEC §2: only an exactly empty line is skipped; a line of only
// whitespace is invalid JSON, and the detail says why (as for the BOM).
TEST(JsonLineErrorTest, WhitespaceOnlyAndLoneCarriageReturnLinesSayWhyTheyAreNotEmpty) {
  const std::string cr = error_of("\r");
  EXPECT_EQ(cr.find("syntax error"), std::string::npos) << cr;
  EXPECT_EQ(cr,
            "byte 1: the line is a lone carriage return, a blank line of a CRLF file: not an empty line, so not "
            "skipped (only an exactly empty line is)");
  for (const char* blank : {" ", "\t", "  \r", " \t \r\r"}) {
    EXPECT_EQ(error_of(blank),
              "byte 1: the line holds only whitespace (spaces, tabs, carriage returns): not an empty line, so not "
              "skipped (only an exactly empty line is)")
        << blank;
  }
  EXPECT_NE(error_of(" x").find("syntax error"), std::string::npos);  // not only whitespace: the parser's reason
}

// The quoted bytes: printable ASCII (space included) and valid UTF-8 stay,
// every other byte is \xNN (DEL too); a control character is nlohmann's
// <U+00XX>.
TEST(JsonLineErrorTest, TheExcerptKeepsPrintableTextAndEscapesTheRest) {
  EXPECT_EQ(error_of("\"a b\tc\""), "byte 5: " + kValue +
                                        "invalid string: control character U+0009 (HT) must be escaped to \\u0009 or "
                                        "\\t; last read: '\"a b<U+0009>'");
  EXPECT_EQ(error_of("\"\x7f~\x1f\""), "byte 4: " + kValue +
                                           "invalid string: control character U+001F (US) must be escaped to \\u001F; "
                                           "last read: '\"\\x7f~<U+001F>'");
  EXPECT_EQ(error_of("\"\xc3\xa9\x01\""), "byte 4: " + kValue +
                                              "invalid string: control character U+0001 (SOH) must be escaped to "
                                              "\\u0001; last read: '\"\xc3\xa9<U+0001>'");
  // What a terminal must not see raw is escaped even as valid UTF-8 (as
  // repair's excerpts and conform's output escape it): C1 controls (U+009B
  // starts an escape sequence), bidi controls (U+202E reverses what
  // follows), line separators, and DEL after a non-ASCII character.
  EXPECT_EQ(error_of("\"\xe2\x80\xae\xc2\x9b"
                     "31m\xe2\x80\xa8\xd8\x9c\xe2\x81\xa6\xc3\xa9\x7f\x01\""),
            "byte 21: " + kValue +
                "invalid string: control character U+0001 (SOH) must be escaped to \\u0001; last read: "
                "'\"\\xe2\\x80\\xae\\xc2\\x9b"
                "31m\\xe2\\x80\\xa8\\xd8\\x9c\\xe2\\x81\\xa6\xc3\xa9\\x7f<U+0001>'");
  // A sequence cut short is not valid UTF-8: its bytes are escaped.
  EXPECT_EQ(error_of("\"\xe2\x82\""),
            "byte 4: " + kValue + "invalid string: ill-formed UTF-8 byte; last read: '\"\\xe2\\x82\"'");
}

// UTF-8 of code point `c`.
std::string utf8(char32_t c) {
  std::string out;
  bench::append_utf8(out, c);
  return out;
}

std::string escaped(const std::string& bytes) {
  std::string out;
  for (const char c : bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += {'\\', 'x', kHex[static_cast<unsigned char>(c) >> 4], kHex[c & 0xF]};
  }
  return out;
}

TEST(JsonLineErrorTest, TheExcerptEscapesExactlyTheCodePointsATerminalMustNotSeeRaw) {
  for (const char32_t hidden :
       {0x80, 0x9B, 0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202E, 0x2066, 0x2069}) {
    SCOPED_TRACE(static_cast<unsigned>(hidden));
    EXPECT_EQ(base::printable_excerpt("a" + utf8(hidden) + "b", 200), "a" + escaped(utf8(hidden)) + "b");
  }
  for (const char32_t shown :
       {0xA0, 0xE9, 0x061B, 0x061D, 0x200D, 0x2010, 0x2027, 0x202F, 0x2065, 0x206A, 0x4E2D, 0x1F600, 0x10FFFF}) {
    SCOPED_TRACE(static_cast<unsigned>(shown));
    EXPECT_EQ(base::printable_excerpt("a" + utf8(shown) + "b", 200), "a" + utf8(shown) + "b");
  }
  EXPECT_EQ(base::printable_excerpt(std::string("\0\x1b\x7f ~", 5), 200), "\\x00\\x1b\\x7f ~");
}

TEST(JsonLineErrorTest, ALongReasonIsCutAfter200BytesWithAnEllipsis) {
  const std::string reason = kValue + "invalid string: missing closing quote; last read: '\"";
  const std::string unclosed = '"' + std::string(300, 'x');
  EXPECT_EQ(error_of(unclosed), "byte 302: " + reason + std::string(200 - reason.size(), 'x') + "...");
  const std::string overflow = "number overflow parsing '";
  EXPECT_EQ(error_of(std::string(400, '9')), "byte 400: " + overflow + std::string(200 - overflow.size(), '9') + "...");
  // A reason of exactly 200 bytes is kept whole.
  const std::string exponent = "1e" + std::string(169, '0') + "400";
  ASSERT_EQ((overflow + exponent + "'").size(), 200u);
  EXPECT_EQ(error_of(exponent), "byte 174: " + overflow + exponent + "'");
}

TEST(JsonLineErrorTest, ALoadSaysTheLineThenTheDetail) {
  const auto error = test_support::thrown<SessionError>(
      [] { load_session_from_memory("{\"role\":\"user\",\"content\":\"\"}\n\n{\"a\" 1}\n"); });
  EXPECT_EQ(std::string(error.what()),
            "invalid session JSON at line 3: byte 6: syntax error while parsing object separator - unexpected number "
            "literal; expected ':'");
  const auto overflow = test_support::thrown<SessionError>(
      [] { load_session_from_memory("{\"role\":\"user\",\"content\":\"\",\"n\":1e999}\n"); });
  EXPECT_EQ(std::string(overflow.what()), "invalid session JSON at line 1: byte 37: number overflow parsing '1e999'");
}

// Objects are built member by member (object_member_slot), and past 16
// members merged by sorting: the result must be the object SPEC §2's and
// §3's rules give, as javascript_object (js_object.hpp) states them.
TEST(JsonLineTest, ObjectsOfManyMembersMergeAndOrderAsJavaScriptDoes) {
  for (const std::size_t count : {15u, 16u, 17u, 18u, 40u, 200u}) {
    std::vector<std::pair<std::string, Json>> members;
    for (std::size_t i = 0; i < count; ++i) {
      // Repeated keys, index keys (repeated too) and keys that only look like indexes.
      const std::size_t r = i * 7 % 23;
      const std::string key = r < 12   ? "k" + std::to_string(r % 9)
                              : r < 20 ? std::to_string(r * 5 % 11)
                                       : "0" + std::to_string(r);
      members.emplace_back(key, static_cast<double>(i));
    }
    std::string text = "{";
    for (const auto& [key, value] : members)
      text += (text.size() > 1 ? ",\"" : "\"") + key + "\":" + std::to_string(static_cast<int>(value.get<double>()));
    text += "}";
    SCOPED_TRACE(text);
    const std::string expected = javascript_object(members).dump();
    EXPECT_EQ(std::get<Json>(parse_json_line(text)).dump(), expected);
    const auto loaded = load_session_from_memory(
        R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"b","input":)" + text + "}]}\n");
    EXPECT_EQ(std::get<AssistantMessage>(loaded.at(0)).tool_calls.at(0).input.value().dump(), expected);
  }
}

}  // namespace
}  // namespace agent_session::reference
