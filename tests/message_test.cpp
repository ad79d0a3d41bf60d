// message.hpp: the discrimination of SPEC.md §1.1 and the canonical form
// of §3 (numbers alone: js_number_test.cpp). Byte-level behaviour is also
// pinned by the conformance vectors; these tests cover the in-memory API
// they cannot.
#include "agent_session/message.hpp"
#include "reference/discriminate.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace agent_session {
namespace {

std::optional<Message> parse(const char* text) { return parse_session_message(Json::parse(text)); }

TEST(ParseSessionMessage, UserNeedsOnlyContent) {
  EXPECT_EQ(parse(R"({"role":"user","content":"x","extra":1})"), Message(UserMessage{"x"}));
}

TEST(ParseSessionMessage, SharedPreconditionsComeFirst) {
  EXPECT_FALSE(parse(R"([1])"));
  EXPECT_FALSE(parse(R"("user")"));
  EXPECT_FALSE(parse(R"(null)"));
  EXPECT_FALSE(parse(R"({"role":1,"content":"x"})"));
  EXPECT_FALSE(parse(R"({"role":"user"})"));
  EXPECT_FALSE(parse(R"({"role":"user","content":null})"));
  // Content is a shared precondition: even a complete tool result needs it.
  EXPECT_FALSE(parse(R"({"role":"tool","toolCallId":"a","isError":false})"));
}

TEST(ParseSessionMessage, UnknownRolesAreNotMessages) {
  EXPECT_FALSE(parse(R"({"role":"nope","content":"x"})"));
  EXPECT_FALSE(parse(R"({"role":"system","content":"x"})"));
  EXPECT_FALSE(parse(R"({"role":"User","content":"x"})"));
}

TEST(ParseSessionMessage, AssistantNeedsWellFormedToolCalls) {
  const auto message =
      parse(R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":null,"x":1}]})");
  ASSERT_TRUE(message);
  const auto& assistant = std::get<AssistantMessage>(*message);
  ASSERT_EQ(assistant.tool_calls.size(), 1u);
  EXPECT_EQ(assistant.tool_calls[0], (ToolCall{"a", "n", Json(nullptr)}));

  EXPECT_TRUE(parse(R"({"role":"assistant","content":"","toolCalls":[]})"));
  EXPECT_FALSE(parse(R"({"role":"assistant","content":""})"));
  EXPECT_FALSE(parse(R"({"role":"assistant","content":"","toolCalls":{}})"));
  EXPECT_FALSE(parse(R"({"role":"assistant","content":"","toolCalls":[null]})"));
  EXPECT_FALSE(parse(R"({"role":"assistant","content":"","toolCalls":[[]]})"));
  EXPECT_FALSE(parse(R"({"role":"assistant","content":"","toolCalls":[{"name":"n","input":1}]})"));
  EXPECT_FALSE(parse(R"({"role":"assistant","content":"","toolCalls":[{"id":1,"name":"n","input":1}]})"));
  EXPECT_FALSE(parse(R"({"role":"assistant","content":"","toolCalls":[{"id":"a","input":1}]})"));
  EXPECT_FALSE(parse(R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n"}]})"));
  // Every item is checked, not only the first.
  EXPECT_FALSE(parse(R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":1},{"id":"b"}]})"));
}

TEST(ParseSessionMessage, ToolResultNeedsCallIdAndBooleanErrorFlag) {
  EXPECT_EQ(parse(R"({"isError":true,"toolCallId":"a","content":"out","role":"tool"})"),
            Message(ToolResultMessage{"out", "a", true}));
  EXPECT_FALSE(parse(R"({"role":"tool","content":"x","isError":false})"));
  EXPECT_FALSE(parse(R"({"role":"tool","content":"x","toolCallId":7,"isError":false})"));
  EXPECT_FALSE(parse(R"({"role":"tool","content":"x","toolCallId":"a"})"));
  EXPECT_FALSE(parse(R"({"role":"tool","content":"x","toolCallId":"a","isError":"true"})"));
}

TEST(ParseSessionMessage, RvalueOverloadGivesTheSameAnswer) {
  const char* text = R"({"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"n","input":{"k":[1,2]}}]})";
  Json json = Json::parse(text);
  EXPECT_EQ(parse_session_message(std::move(json)), parse(text));
}

// The reasons load_session's details give (SPEC.md §2), checked without a
// file through the implementation's own entry point.
using reference::why_not_a_message;

TEST(DescribeInvalidRecord, NamesTheFirstProblem) {
  EXPECT_EQ(why_not_a_message(Json::parse(R"({"role":"user","content":"x"})")), std::nullopt);
  EXPECT_EQ(why_not_a_message(Json::parse(R"({"role":"assistant","content":"x"})")),
            "assistant requires toolCalls: it is missing ([] when it calls no tool)");
  EXPECT_EQ(why_not_a_message(Json::parse(R"({"role":"nope","content":"x"})")),
            R"(unknown role "nope": a role is "user", "assistant" or "tool")");
}

std::string why(const char* text) { return why_not_a_message(Json::parse(text)).value_or("(a message)"); }

// Each reason names what was found (the type, the value, or which tool
// call), so a person can fix the line without reading the spec.
TEST(DescribeInvalidRecord, NamesTheValueOrPositionFound) {
  EXPECT_EQ(why(R"([1])"), "not a JSON object: found an array");
  EXPECT_EQ(why(R"(null)"), "not a JSON object: found null");
  EXPECT_EQ(why(R"({"content":"x"})"), "role must be a string: it is missing");
  EXPECT_EQ(why(R"({"role":1,"content":"x"})"), "role must be a string: found a number");
  EXPECT_EQ(why(R"({"role":"user","content":["x"]})"), "content must be a string: found an array");
  EXPECT_EQ(why(R"({"role":"system","content":"x"})"),
            R"(unknown role "system": a role is "user", "assistant" or "tool")");
  EXPECT_EQ(why(R"({"role":"assistant","content":"","toolCalls":{}})"), "toolCalls must be an array: found an object");
  EXPECT_EQ(why(R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":1},)"
                R"({"id":"b","name":"n"}]})"),
            "tool call 2 of 2 requires input");
  EXPECT_EQ(why(R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":1},null,1]})"),
            "tool call 2 of 3 must be an object: found null");
  EXPECT_EQ(why(R"({"role":"assistant","content":"","toolCalls":[{"id":7,"name":"n","input":1}]})"),
            "tool call 1 of 1: id must be a string: found a number");
  EXPECT_EQ(why(R"({"role":"assistant","content":"","toolCalls":[{"id":"a","input":1}]})"),
            "tool call 1 of 1: name must be a string: it is missing");
  EXPECT_EQ(why(R"({"role":"tool","content":"x","toolCallId":7,"isError":false})"),
            "tool result requires a string toolCallId: found a number");
  EXPECT_EQ(why(R"({"role":"tool","content":"x","toolCallId":"a","isError":"true"})"),
            "tool result requires a boolean isError: found a string");
  EXPECT_EQ(why(R"({"role":"tool","content":"x","toolCallId":"a"})"),
            "tool result requires a boolean isError: it is missing");
}

// A role comes from the file: it is shown escaped (nothing in it can act on
// a terminal or break the line) and cut to a readable length.
TEST(DescribeInvalidRecord, AnUnknownRoleIsShownSafelyAndShort) {
  EXPECT_EQ(why("{\"role\":\"a\\n\\u001b[2Jb\\u202e\",\"content\":\"x\"}"),
            R"(unknown role "a\n\x1b[2Jb\u202e": a role is "user", "assistant" or "tool")");
  const std::string long_role(1000, 'r');
  const std::string reason = why(("{\"role\":\"" + long_role + "\",\"content\":\"x\"}").c_str());
  EXPECT_EQ(reason, "unknown role \"" + std::string(64, 'r') +
                        "\"... (1000 bytes): a role is \"user\", \"assistant\" or \"tool\"");
  // Never cut inside a character: 63 ASCII bytes, then a 2-byte e-acute.
  const std::string accented = std::string(63, 'r') + "\u00e9\u00e9";
  const std::string cut = why(("{\"role\":\"" + accented + "\",\"content\":\"x\"}").c_str());
  EXPECT_EQ(cut.rfind("unknown role \"" + std::string(63, 'r') + "\"... (67 bytes)", 0), 0u) << cut;
}

TEST(CanonicalJson, KeysInTheNormalizedOrder) {
  EXPECT_EQ(to_canonical_json(UserMessage{"hi"}), R"({"role":"user","content":"hi"})");
  EXPECT_EQ(to_canonical_json(ToolResultMessage{"out", "c1", false}),
            R"({"role":"tool","content":"out","toolCallId":"c1","isError":false})");
  EXPECT_EQ(to_canonical_json(AssistantMessage{"", {ToolCall{"c1", "read", Json{{"path", "a"}}}}}),
            R"({"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"read","input":{"path":"a"}}]})");
  EXPECT_EQ(to_canonical_json(AssistantMessage{"x", {}}), R"({"role":"assistant","content":"x","toolCalls":[]})");
}

TEST(CanonicalJson, EscapesOnlyWhatJsonStringifyEscapes) {
  std::string all_controls;
  for (char c = 0; c < 0x20; ++c) all_controls.push_back(c);
  EXPECT_EQ(to_canonical_json(UserMessage{all_controls}),
            R"({"role":"user","content":")"
            R"(\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f)"
            R"(\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"})");
  EXPECT_EQ(to_canonical_json(UserMessage{"\"\\/\x7f\u00e9\u2028\u2029\U0001F600"}),
            "{\"role\":\"user\",\"content\":\"\\\"\\\\/\x7f\u00e9\u2028\u2029\U0001F600\"}");
}

TEST(CanonicalJson, IntegerJsonValuesPrintAsDoubles) {
  // Values built in memory may hold nlohmann integers; JavaScript has
  // only doubles, so 2^53 + 1 prints as its nearest double.
  const Json input = Json{{"big", 9007199254740993LL}, {"neg", -5}, {"u", 18446744073709551615ULL}};
  EXPECT_EQ(to_canonical_json(AssistantMessage{"", {ToolCall{"i", "n", input}}}),
            R"({"role":"assistant","content":"","toolCalls":[{"id":"i","name":"n","input":)"
            R"({"big":9007199254740992,"neg":-5,"u":18446744073709552000}}]})");
}

TEST(CanonicalJson, ArrayIndexKeysFirstAscendingThenInsertionOrder) {
  Json input = Json::object();
  for (const char* key : {"b", "10", "a", "2", "01", "-1", "1.5", "4294967295", "4294967294", "0"}) input[key] = 0;
  EXPECT_EQ(to_canonical_json(AssistantMessage{"", {ToolCall{"i", "n", input}}}),
            R"({"role":"assistant","content":"","toolCalls":[{"id":"i","name":"n","input":)"
            R"({"0":0,"2":0,"10":0,"4294967294":0,"b":0,"a":0,"01":0,"-1":0,"1.5":0,"4294967295":0}}]})");
}

TEST(CanonicalJson, RejectsWhatHasNoJsonForm) {
  EXPECT_THROW(to_canonical_json(UserMessage{"\xff"}), SerializationError);
  EXPECT_THROW(to_canonical_json(UserMessage{"\xed\xa0\x80"}), SerializationError);  // a surrogate in UTF-8
  EXPECT_THROW(to_canonical_json(UserMessage{"\xc0\xaf"}), SerializationError);      // overlong
  EXPECT_THROW(to_canonical_json(ToolResultMessage{"ok", "\xe2\x82", false}), SerializationError);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THROW(to_canonical_json(AssistantMessage{"", {ToolCall{"i", "n", Json(inf)}}}), SerializationError);
  EXPECT_THROW(to_canonical_json(AssistantMessage{"", {ToolCall{"i", "n", Json(std::nan(""))}}}), SerializationError);
  EXPECT_THROW(to_canonical_json(AssistantMessage{"", {ToolCall{"i", "n", Json::binary({1, 2})}}}), SerializationError);
}

Json nested_arrays(int levels) {
  Json value = Json::array();
  for (int i = 1; i < levels; ++i) value = Json::array({std::move(value)});
  return value;
}

TEST(CanonicalJson, NestingLimitCountsTheMessageAsLevelOne) {
  // message 1, toolCalls 2, call 3: input may nest 509 levels, not 510.
  EXPECT_NO_THROW(to_canonical_json(AssistantMessage{"", {ToolCall{"i", "n", nested_arrays(509)}}}));
  EXPECT_THROW(to_canonical_json(AssistantMessage{"", {ToolCall{"i", "n", nested_arrays(510)}}}), SerializationError);
}

TEST(ToolInput, DefaultIsNull) {
  EXPECT_EQ(ToolInput().canonical_json(), std::optional<std::string_view>("null"));
  EXPECT_EQ(ToolInput().value(), Json(nullptr));
}

TEST(ToolInput, HoldsTheCanonicalTextAndGivesTheValueBack) {
  const ToolInput input = Json{{"b", 1.0}, {"1", "x"}, {"a", Json::array({-0.0, 1e21, "\u00e9\n"})}};
  EXPECT_EQ(input.canonical_json(), std::optional<std::string_view>(R"({"1":"x","b":1,"a":[0,1e+21,"é\n"]})"));
  const Json value = input.value();
  EXPECT_EQ(value.dump(), R"({"1":"x","b":1.0,"a":[0.0,1e+21,"é\n"]})");
  EXPECT_TRUE(value["b"].is_number_float()) << "every number is a double, as in JavaScript";
}

TEST(ToolInput, EqualWhenTheCanonicalTextsAre) {
  EXPECT_EQ(ToolInput(Json{{"n", 1}}), ToolInput(Json{{"n", 1.0}}));
  EXPECT_NE(ToolInput(Json{{"n", 1}}), ToolInput(Json{{"n", 2}}));
  EXPECT_NE(ToolInput(Json{{"a", 1}, {"b", 2}}), ToolInput(Json{{"b", 2}, {"a", 1}})) << "key order is kept";
}

TEST(ToolInput, AnUnprintableValueIsKeptAndThrowsOnlyWhenItsMessageIsPrinted) {
  const Json bad = Json{{"s", "\xff"}};
  const ToolInput input = bad;  // no throw here: SPEC.md §4 names the message's index at estimate time
  EXPECT_EQ(input.canonical_json(), std::nullopt);
  EXPECT_EQ(input.value(), bad);
  EXPECT_EQ(input, ToolInput(bad));
  EXPECT_NE(input, ToolInput(Json{{"s", "ok"}}));
  EXPECT_THROW(to_canonical_json(AssistantMessage{"", {ToolCall{"i", "n", input}}}), SerializationError);
}

// The text or the error printing gives, without printing again: the
// error's text is the one printing the value gives.
TEST(ToolInput, CanonicalJsonOrThrowGivesTheTextOrWhyThereIsNone) {
  EXPECT_EQ(ToolInput(Json{{"n", 1.0}}).canonical_json_or_throw(), R"({"n":1})");
  const ToolInput input = Json{{"s", "\xff"}};
  const auto error = test_support::thrown<SerializationError>([&] { (void)input.canonical_json_or_throw(); });
  EXPECT_EQ(std::string(error.what()), "string is not valid UTF-8");
  const auto printing = test_support::thrown<SerializationError>([&] {
    (void)to_canonical_json(AssistantMessage{"", {ToolCall{"i", "n", input}}});
  });
  EXPECT_EQ(std::string(printing.what()), error.what());
}

TEST(ToolInput, AMovedFromInputIsNullAndStillPrints) {
  ToolInput input = Json{{"path", "a.txt"}};
  const ToolInput taken = std::move(input);
  EXPECT_EQ(taken.canonical_json(), std::optional<std::string_view>(R"({"path":"a.txt"})"));
  EXPECT_EQ(input.canonical_json(), std::optional<std::string_view>("null"));  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(input.value(), Json(nullptr));                                     // NOLINT(bugprone-use-after-move)

  ToolInput unprintable = Json(std::nan(""));
  ToolInput target;
  target = std::move(unprintable);
  EXPECT_EQ(target.canonical_json(), std::nullopt);
  EXPECT_EQ(unprintable.canonical_json(), std::optional<std::string_view>("null"));  // NOLINT(bugprone-use-after-move)

  // A dispatcher taking the call out of its message leaves a valid line.
  AssistantMessage message{"c", {ToolCall{"1", "read", Json{{"path", "a.txt"}}}}};
  const ToolCall call = std::move(message.tool_calls[0]);
  const std::string line = to_canonical_json(message);
  EXPECT_TRUE(Json::accept(line)) << line;
  EXPECT_TRUE(line.ends_with(R"("input":null}]})")) << line;
}

TEST(RoleOf, NamesEachRole) {
  EXPECT_STREQ(role_of(UserMessage{}), "user");
  EXPECT_STREQ(role_of(AssistantMessage{}), "assistant");
  EXPECT_STREQ(role_of(ToolResultMessage{}), "tool");
}

}  // namespace
}  // namespace agent_session
