// The fast path's tape printer (src/fast/canonical_element.hpp) against
// the reference: the canonical text printed straight from simdjson's tape
// must be the text a ToolInput prints (reference::append_canonical_value)
// from the Json parse_json_line makes of the same bytes (SPEC.md §3), or
// the printer must decline. And its TextBuffer holds what was printed.
#include "fast/canonical_element.hpp"

#include "agent_session/message.hpp"
#include "fast/js_number.hpp"
#include "fast/text_buffer.hpp"
#include "reference/canonical_value.hpp"
#include "reference/js_number.hpp"
#include "reference/js_object.hpp"
#include "reference/json_line.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::fast {
namespace {

// The element printer's text for `json`, or nullopt when it declines.
std::optional<std::string> printed_from_tape(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element element;
  if (parser.parse(json).get(element) != simdjson::SUCCESS) {
    ADD_FAILURE() << "simdjson rejects " << json;
    return std::nullopt;
  }
  TextBuffer out;
  if (!append_canonical_element(out, element)) return std::nullopt;
  return std::string(out.view());
}

std::string printed_from_json(const std::string& json) {
  const ToolInput input = std::get<Json>(reference::parse_json_line(json));
  return std::string(*input.canonical_json());
}

TEST(CanonicalElement, PrintsWhatTheJsonRoutePrints) {
  for (const std::string json : {
           R"(null)",
           R"(true)",
           R"(false)",
           R"("")",
           R"(0)",
           R"(-0)",
           R"(-0.0)",
           R"(1.0)",
           R"(1E+2)",
           R"(0.000001)",
           R"(1e-7)",
           R"(1e21)",
           R"(-9223372036854775808)",
           R"(18446744073709551615)",
           R"(9007199254740993)",
           R"(0.1)",
           R"(5e-324)",
           R"(1e-400)",
           R"(1.7976931348623157e308)",
           R"("a\"b\\c\/d\b\f\n\r\t\u0001\u001f é \u00e9 🚀 \ud83d\ude80 \u2028")",
           R"([])",
           R"({})",
           R"([1,[2,[3,{}]]])",
           R"({"path":"a.txt","n":[1.5,-2,3e-10],"deep":{"x":null}})",
           R"( { "spaced" : [ 1 , 2 ] } )",
           R"({"01":1,"-1":2,"1.5":3,"4294967295":4})",
       }) {
    EXPECT_EQ(printed_from_tape(json), std::optional<std::string>(printed_from_json(json))) << json;
  }
}

// The printer's own string escaping (simdjson has checked the UTF-8)
// against the reference's append_json_string, in values and in keys:
// every ASCII byte, alone and among others, and characters of each UTF-8
// length at their edges.
TEST(CanonicalElement, PrintsStringsAsTheReferenceEscapesThem) {
  std::vector<std::string> texts = {"",
                                    "plain",
                                    "caf\xC3\xA9",
                                    "\xC2\x80",
                                    "\xDF\xBF",
                                    "\xE0\xA0\x80",
                                    "\xE2\x80\xA8",
                                    "\xEF\xBF\xBF",
                                    "\xF0\x90\x80\x80",
                                    "\xF0\x9F\x98\x80",
                                    "\xF4\x8F\xBF\xBF"};
  for (int c = 0; c < 0x80; ++c) {
    texts.emplace_back(1, static_cast<char>(c));
    texts.push_back("a" + std::string(1, static_cast<char>(c)) + "b\x01\"\xC3\xA9\\");
  }
  for (const std::string& text : texts) {
    std::string literal;
    reference::append_json_string(literal, text);
    EXPECT_EQ(printed_from_tape(literal), std::optional<std::string>(literal)) << literal;
    if (reference::is_array_index(text)) continue;  // reordered: the Json route prints it
    const std::string object = "{" + literal + ":0}";
    EXPECT_EQ(printed_from_tape(object), std::optional<std::string>(object)) << object;
  }
}

TEST(CanonicalElement, DeclinesWhatJavaScriptReorders) {
  EXPECT_EQ(printed_from_tape(R"({"b":1,"0":2})"), std::nullopt) << "an array-index key";
  EXPECT_EQ(printed_from_tape(R"({"a":1,"a":2})"), std::nullopt) << "a repeated key";
  EXPECT_EQ(printed_from_tape(R"([{"x":{"4294967294":0}}])"), std::nullopt) << "deep inside";
}

TEST(CanonicalElement, FindsARepeatedKeyAmongManyKeys) {
  std::string many = "{";
  for (int i = 0; i < 40; ++i) many += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  EXPECT_EQ(printed_from_tape(many + "\"last\":0}"),
            std::optional<std::string>(printed_from_json(many + "\"last\":0}")));
  EXPECT_EQ(printed_from_tape(many + "\"k7\":0}"), std::nullopt);
}

// Every number token as an array's item and as a member's value (the
// printer has a path for each), integers of every magnitude included.
TEST(CanonicalElement, PrintsEveryNumberAsTheReferencePrintsIt) {
  std::mt19937_64 random(3);
  std::vector<std::string> tokens = {"0",
                                     "-0",
                                     "1",
                                     "-1",
                                     "9007199254740993",
                                     "-9007199254740993",
                                     "9223372036854775807",
                                     "-9223372036854775808",
                                     "9223372036854775808",
                                     "18446744073709551615",
                                     "1e22",
                                     "1.5e-7",
                                     "123.456",
                                     "0.1",
                                     "2e-323"};
  for (int i = 0; i < 3000; ++i) {
    tokens.push_back(std::to_string(random() >> (random() % 64)));
    tokens.push_back("-" + std::to_string(random() >> (1 + random() % 63)));  // simdjson reads down to -2^63
    tokens.push_back(std::to_string(random() % 100000) + "." + std::to_string(random() % 100000) + "e" +
                     std::to_string(static_cast<int>(random() % 60) - 30));
  }
  for (const std::string& token : tokens) {
    for (const std::string& json : {"[" + token + "]", "{\"n\":" + token + "}", token}) {
      ASSERT_EQ(printed_from_tape(json), std::optional<std::string>(printed_from_json(json))) << json;
    }
  }
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
      expected += piece + ",";
      reference::append_js_number(expected, i / 8.0);
    }
    EXPECT_EQ(buffer.view(), expected);
  }
}

}  // namespace
}  // namespace agent_session::fast
