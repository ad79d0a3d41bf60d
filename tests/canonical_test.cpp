// The canonical writer's pieces (reference/canonical.hpp, SPEC.md §3):
// string literals, values, and the message's line. The public
// results (to_canonical_json) are checked in message_test.cpp.
#include "reference/canonical.hpp"
#include "reference/canonical_value.hpp"

#include "agent_session/json.hpp"
#include "agent_session/message.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agent_session::reference {
namespace {

std::string literal(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

TEST(AppendJsonString, EscapesEachAsciiByteAsJsonStringifyDoes) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned c = 0; c < 0x80; ++c) {
    std::string expected;
    switch (c) {
      case '"': expected = "\\\""; break;
      case '\\': expected = "\\\\"; break;
      case '\b': expected = "\\b"; break;
      case '\f': expected = "\\f"; break;
      case '\n': expected = "\\n"; break;
      case '\r': expected = "\\r"; break;
      case '\t': expected = "\\t"; break;
      default:
        expected = c < 0x20 ? std::string("\\u00") + kHex[c >> 4] + kHex[c & 15] : std::string(1, static_cast<char>(c));
    }
    EXPECT_EQ(literal("a" + std::string(1, static_cast<char>(c)) + "b"), "\"a" + expected + "b\"") << "byte " << c;
  }
}

TEST(AppendJsonString, KeepsValidUtf8RawAndRejectsTheRest) {
  EXPECT_EQ(literal(""), "\"\"");
  EXPECT_EQ(literal("caf\xC3\xA9 \xE2\x80\xA8 \xF0\x9F\x98\x80 \xC2\x9B"),
            "\"caf\xC3\xA9 \xE2\x80\xA8 \xF0\x9F\x98\x80 \xC2\x9B\"");
  for (const char* invalid : {"\xC3", "a\xFF", "\xED\xA0\x80", "\xC0\xAF", "\xF4\x90\x80\x80"}) {
    EXPECT_THROW(literal(invalid), SerializationError) << invalid;
  }
}

// Appended: what `out` holds stays before it.
TEST(AppendJsonString, AppendsAfterWhatIsThere) {
  std::string out = "[";
  append_json_string(out, "q\"\n\x01\xC3\xA9");
  EXPECT_EQ(out, "[" + literal("q\"\n\x01\xC3\xA9"));
}

std::string value_text(const Json& value, int depth = 1) {
  std::string out;
  append_canonical_value(out, value, depth);
  return out;
}

TEST(AppendCanonicalValue, PrintsWithoutWhitespaceInJavaScriptsKeyOrder) {
  Json object = Json::object();
  for (const char* key : {"b", "10", "a", "2", "01"}) object[key] = Json::array({1.5, nullptr, true, "x"});
  EXPECT_EQ(value_text(object), R"({"2":[1.5,null,true,"x"],"10":[1.5,null,true,"x"],"b":[1.5,null,true,"x"],)"
                                R"("a":[1.5,null,true,"x"],"01":[1.5,null,true,"x"]})");
  EXPECT_EQ(value_text(Json(-0.0)), "0");
  EXPECT_EQ(value_text(Json(9007199254740993LL)), "9007199254740992");
  EXPECT_EQ(value_text(Json::object()), "{}");
  EXPECT_EQ(value_text(Json::array()), "[]");
}

TEST(AppendCanonicalValue, RejectsWhatHasNoJsonForm) {
  EXPECT_THROW(value_text(Json(std::numeric_limits<double>::infinity())), SerializationError);
  EXPECT_THROW(value_text(Json(std::nan(""))), SerializationError);
  EXPECT_THROW(value_text(Json::binary({1, 2})), SerializationError);
  EXPECT_THROW(value_text(Json{{"k\xFF", 1}}), SerializationError) << "a key that is not UTF-8";
}

// `depth` is the level the value occupies: kMaxNestingDepth levels print,
// one more does not.
TEST(AppendCanonicalValue, CountsNestingFromTheGivenDepth) {
  Json nested = Json::array();
  for (int level = 1; level < 10; ++level) nested = Json::array({nested});  // 10 levels
  EXPECT_NO_THROW(value_text(nested, kMaxNestingDepth - 9));
  EXPECT_THROW(value_text(nested, kMaxNestingDepth - 8), SerializationError);
  EXPECT_EQ(value_text(Json(1.0), kMaxNestingDepth + 5), "1") << "a scalar adds no level";
}

// Keys in the normalized order of SPEC.md §1, appended after what `out`
// holds.
TEST(AppendCanonicalLine, AppendsTheLineAfterWhatIsThere) {
  const std::vector<std::pair<Message, std::string>> lines = {
      {UserMessage{"hi \"you\"\n"}, R"({"role":"user","content":"hi \"you\"\n"})"},
      {AssistantMessage{"", {}}, R"({"role":"assistant","content":"","toolCalls":[]})"},
      {AssistantMessage{"c", {ToolCall{"1", "read", Json{{"path", "a"}, {"0", 1}}}, ToolCall{"2", "n", Json(nullptr)}}},
       R"({"role":"assistant","content":"c","toolCalls":[{"id":"1","name":"read","input":{"0":1,"path":"a"}},)"
       R"({"id":"2","name":"n","input":null}]})"},
      {ToolResultMessage{"out", "1", true}, R"({"role":"tool","content":"out","toolCallId":"1","isError":true})"},
  };
  for (const auto& [message, line] : lines) {
    std::string out = "before\n";
    append_canonical_line(out, message);
    EXPECT_EQ(out, "before\n" + line);
  }
}

}  // namespace
}  // namespace agent_session::reference
