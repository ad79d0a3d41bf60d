// The canonical text printed straight from simdjson's tape must be the
// text a ToolInput prints from the Json parse_json_line makes of the same
// bytes: the loader's fast path may take either.
#include "internal/canonical_element.hpp"

#include "agent_session/message.hpp"
#include "internal/json_line.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

namespace agent_session::internal {
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
  const ToolInput input = std::get<Json>(parse_json_line(json));
  return std::string(*input.canonical_json());
}

TEST(CanonicalElement, PrintsWhatTheJsonRoutePrints) {
  for (const std::string json : {
           R"(null)", R"(true)", R"(false)", R"("")", R"(0)", R"(-0)", R"(-0.0)", R"(1.0)", R"(1E+2)",
           R"(0.000001)", R"(1e-7)", R"(1e21)", R"(-9223372036854775808)",
           R"(18446744073709551615)", R"(9007199254740993)", R"(0.1)", R"(5e-324)", R"(1e-400)",
           R"(1.7976931348623157e308)", R"("a\"b\\c\/d\b\f\n\r\t\u0001\u001f é \u00e9 🚀 \ud83d\ude80 \u2028")",
           R"([])", R"({})", R"([1,[2,[3,{}]]])", R"({"path":"a.txt","n":[1.5,-2,3e-10],"deep":{"x":null}})",
           R"( { "spaced" : [ 1 , 2 ] } )", R"({"01":1,"-1":2,"1.5":3,"4294967295":4})",
       }) {
    EXPECT_EQ(printed_from_tape(json), std::optional<std::string>(printed_from_json(json))) << json;
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
  EXPECT_EQ(printed_from_tape(many + "\"last\":0}"), std::optional<std::string>(printed_from_json(many + "\"last\":0}")));
  EXPECT_EQ(printed_from_tape(many + "\"k7\":0}"), std::nullopt);
}

}  // namespace
}  // namespace agent_session::internal
