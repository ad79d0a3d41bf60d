// src/harness/untrusted_json.hpp: JSON the kit did not write is parsed within a
// depth and a value limit, refused with the reason and the byte past a
// limit, streamed one element at a time where asked, and never copied or
// dumped whole. End to end on every path: deep_json_test.cpp.
#include "harness/untrusted_json.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace agent_session::harness {
namespace {

using nlohmann::json;
using Problem = UntrustedJson::Problem;

std::string nested(std::size_t levels, const std::string& inside = "") {
  return std::string(levels, '[') + inside + std::string(levels, ']');
}

// `n` copies of `item`, comma-separated, in an array.
std::string array_of(std::size_t n, const std::string& item) {
  std::string text = "[";
  for (std::size_t i = 0; i < n; ++i) text += (i ? "," : "") + item;
  return text + "]";
}

TEST(UntrustedJson, ParsesAsNlohmannDoes) {
  const std::string text =
      R"({"op":"run","seq":18446744073709551615,"exit":-1,"x":1.5,"a":[true,false,null,{}],"op":"last"})";
  const UntrustedJson parsed = parse_untrusted_json(text);
  ASSERT_TRUE(parsed) << parsed.reason;
  EXPECT_EQ(parsed.value, json::parse(text));
  EXPECT_TRUE(member(parsed.value, "seq").is_number_unsigned());
  EXPECT_EQ(member(parsed.value, "op"), "last");  // the last of a repeated key, as json::parse
}

TEST(UntrustedJson, TakesSixtyFourLevelsAndRefusesTheSixtyFifthWithItsByte) {
  ASSERT_TRUE(parse_untrusted_json(nested(64)));
  ASSERT_TRUE(parse_untrusted_json("{\"a\":" + nested(63) + "}"));
  const UntrustedJson deep = parse_untrusted_json("{\"a\":" + nested(64) + "}");
  EXPECT_EQ(deep.problem, Problem::refused);
  EXPECT_EQ(deep.reason, "nested deeper than 64 levels at byte 69");  // {"a": then 63 brackets, the 64th
  EXPECT_TRUE(deep.value.is_null());
}

TEST(UntrustedJson, AMillionLevelsAreRefusedNotACrash) {
  for (const char* open : {"[", "{\"\":"}) {
    std::string text;
    for (int i = 0; i < 1'000'000; ++i) text += open;
    const UntrustedJson deep = parse_untrusted_json(text);  // not even closed
    EXPECT_EQ(deep.problem, Problem::refused) << open;
    EXPECT_NE(deep.reason.find("nested deeper than 64 levels at byte "), std::string::npos) << deep.reason;
  }
}

TEST(UntrustedJson, HoldsAtMostTenThousandValuesAtOnce) {
  ASSERT_TRUE(parse_untrusted_json(array_of(kMaxJsonValues - 1, "0")));  // the array is one
  for (const char* item : {"0", "[]", "{}", "\"\""}) {
    const UntrustedJson wide = parse_untrusted_json(array_of(kMaxJsonValues, item));
    EXPECT_EQ(wide.problem, Problem::refused) << item;
    EXPECT_NE(wide.reason.find("holds more than 10000 values at once (at byte "), std::string::npos) << wide.reason;
  }
  // A key is one too: an object's member costs more than its value.
  std::string members = "{";
  for (std::size_t i = 0; i < kMaxJsonValues / 2; ++i) members += (i ? ",\"" : "\"") + std::to_string(i) + "\":0";
  EXPECT_EQ(parse_untrusted_json(members + "}").problem, Problem::refused);
}

TEST(UntrustedJson, WhatIsNotJsonSaysWhyAndWhere) {
  const UntrustedJson garbage = parse_untrusted_json("{\"op\":nul}");
  EXPECT_EQ(garbage.problem, Problem::not_json);
  EXPECT_EQ(garbage.reason.substr(0, 18), "not JSON: byte 10:") << garbage.reason;
  EXPECT_EQ(parse_untrusted_json("").problem, Problem::not_json);
  EXPECT_EQ(parse_untrusted_json("{} {}").problem, Problem::not_json);
  const UntrustedJson nul = parse_untrusted_json(std::string("{\"op\":\"stop\"}\0junk", 18));
  EXPECT_EQ(nul.problem, Problem::not_json);
  EXPECT_EQ(nul.reason, "not JSON: byte 14: a NUL byte");
  const UntrustedJson control = parse_untrusted_json("\"\x1b[31m\"");
  EXPECT_EQ(control.problem, Problem::not_json);
  EXPECT_EQ(control.reason.find('\x1b'), std::string::npos) << control.reason;  // printable
}

TEST(UntrustedJson, StreamsTheNamedArrayOneElementAtATime) {
  std::vector<json> seen;
  const auto keep = [&](json& element) { seen.push_back(std::move(element)); };
  const UntrustedJson parsed =
      parse_untrusted_json(R"({"rule":"r","checks":[{"args":["check"]},7,[1,[2]],"s"],"about":"a"})", "checks", keep);
  ASSERT_TRUE(parsed) << parsed.reason;
  EXPECT_EQ(parsed.value, json::parse(R"({"rule":"r","checks":[],"about":"a"})"));
  EXPECT_EQ(json(seen), json::parse(R"([{"args":["check"]},7,[1,[2]],"s"])"));
  // Nowhere else: an array under that key deeper down, or a document that is no object.
  seen.clear();
  EXPECT_TRUE(parse_untrusted_json(R"({"x":{"checks":[1,2]}})", "checks", keep));
  EXPECT_TRUE(parse_untrusted_json(R"([{"checks":[1,2]}])", "checks", keep));
  EXPECT_TRUE(seen.empty());
}

// The limit is on what is held at once: ten thousand values in each of many
// elements pass, one element past it does not.
TEST(UntrustedJson, AStreamedElementHasTheLimitToItself) {
  std::size_t elements = 0;
  const auto count = [&](json&) { ++elements; };
  const std::string element = array_of(kMaxJsonValues / 2, "0");
  std::string text = "{\"checks\":[";
  for (int i = 0; i < 5; ++i) text += (i ? "," : "") + element;
  ASSERT_TRUE(parse_untrusted_json(text + "]}", "checks", count));
  EXPECT_EQ(elements, 5u);
  const UntrustedJson wide =
      parse_untrusted_json("{\"checks\":[" + array_of(kMaxJsonValues, "0") + "]}", "checks", count);
  EXPECT_EQ(wide.problem, Problem::refused);
}

TEST(UntrustedJson, AStreamedKeyGivenTwiceIsRefused) {
  const auto ignore = [](json&) {};
  const UntrustedJson twice = parse_untrusted_json(R"({"checks":[1],"checks":[2]})", "checks", ignore);
  EXPECT_EQ(twice.problem, Problem::refused);
  EXPECT_EQ(twice.reason, "gives \"checks\" twice");
}

TEST(UntrustedJson, WhatTheConsumerThrowsEndsTheParse) {
  int calls = 0;
  const auto refuse_second = [&](json&) {
    if (++calls == 2) throw std::runtime_error("the second check is wrong");
  };
  EXPECT_THROW(parse_untrusted_json(R"({"checks":[1,2,3]})", "checks", refuse_second), std::runtime_error);
  EXPECT_EQ(calls, 2);
}

TEST(UntrustedJson, MemberIsAReferenceOrNull) {
  const json object = json::parse(R"({"op":[1,2],"n":null})");
  EXPECT_EQ(&member(object, "op"), &object.at("op"));
  EXPECT_TRUE(member(object, "missing").is_null());
  EXPECT_TRUE(member(json::array({1}), "op").is_null());
  EXPECT_TRUE(member(json("op"), "op").is_null());
}

TEST(UntrustedJson, ShownValueNeverDumpsAContainer) {
  EXPECT_EQ(shown_value(json::parse(nested(64))), "[...]");
  EXPECT_EQ(shown_value(json::parse(R"({"a":[[[]]]})")), "{...}");
  EXPECT_EQ(shown_value(json::array()), "[]");
  EXPECT_EQ(shown_value(json::object()), "{}");
  EXPECT_EQ(shown_value(json(99)), "99");
  EXPECT_EQ(shown_value(json(1.0)), "1.0");
  EXPECT_EQ(shown_value(json("no")), "\"no\"");
  EXPECT_EQ(shown_value(json(std::string(1'000'000, 'x')), 10), "\"xxxxxxxxxx\"...");
  EXPECT_EQ(shown_value(json("\xE2\x82\xAC\xE2\x82\xAC"), 4), "\"\xE2\x82\xAC\xEF\xBF\xBD\"...");  // cut: U+FFFD
}

}  // namespace
}  // namespace agent_session::harness
