// internal/fast_json_line.hpp: simdjson in front of parse_json_line. Its
// one promise: when it answers, the answer is parse_json_line's (then
// discriminate_record's), bit for bit; otherwise it says "not sure". These
// are the cases where simdjson's own rules differ from ours or from
// nlohmann's; fuzz/fuzz_fast_json_line.cpp checks arbitrary bytes.
#include "internal/fast_json_line.hpp"

#include "agent_session/session.hpp"
#include "internal/json_line.hpp"
#include "internal/record.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <variant>

#include <sys/mman.h>
#include <unistd.h>

namespace agent_session::internal {
namespace {

using test_support::thrown;

// Identical, not just equal: nlohmann's == takes -0.0 for 0.0.
::testing::AssertionResult identical(const Json& a, const Json& b) {
  if (a.type() != b.type()) return ::testing::AssertionFailure() << a.dump() << " vs " << b.dump() << ": types";
  if (a.is_number_float() &&
      std::bit_cast<std::uint64_t>(a.get<double>()) != std::bit_cast<std::uint64_t>(b.get<double>())) {
    return ::testing::AssertionFailure() << a.dump() << " vs " << b.dump() << ": number bits";
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return ::testing::AssertionFailure() << a.dump() << " vs " << b.dump();
    auto x = a.begin();
    for (auto y = b.begin(); y != b.end(); ++x, ++y) {
      if (x.key() != y.key()) return ::testing::AssertionFailure() << x.key() << " vs " << y.key() << ": key order";
      if (auto same = identical(*x, *y); !same) return same;
    }
  } else if (a.is_array()) {
    if (a.size() != b.size()) return ::testing::AssertionFailure() << a.dump() << " vs " << b.dump();
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (auto same = identical(a[i], b[i]); !same) return same;
    }
  } else if (a != b) {
    return ::testing::AssertionFailure() << a.dump() << " vs " << b.dump();
  }
  return ::testing::AssertionSuccess();
}

Json nlohmann_value(std::string_view line) {
  auto parsed = parse_json_line(line);
  if (auto* error = std::get_if<std::string>(&parsed)) ADD_FAILURE() << "parse_json_line rejects " << line << ": " << *error;
  return std::get<Json>(parsed);
}

class FastJsonLineTest : public ::testing::Test {
 protected:
  // The fast answer, which must exist, and must be parse_json_line's.
  void expect_same_value(std::string_view line) {
    SCOPED_TRACE(std::string(line));
    const std::optional<Json> fast_value = fast_.json(line, 0);
    ASSERT_TRUE(fast_value.has_value());
    EXPECT_TRUE(identical(*fast_value, nlohmann_value(line)));
  }

  FastJsonLine fast_;
};

TEST_F(FastJsonLineTest, EveryNumberIsTheDoubleParseJsonLineReads) {
  for (const char* line : {"0", "-0", "-0.0", "-0e0", "0e-5", "1e-400", "-1e-400", "5e-324", "2.2250738585072011e-308",
                           "1.7976931348623157e308", "0.1", "1E2", "1e+2", "123456789.123456789", "9007199254740993",
                           "-9223372036854775808", "9223372036854775808", "18446744073709551615",
                           "1234567890123456789012345678901234567890e-20", "[1,-2,3.5,1e21,1e-7]"}) {
    expect_same_value(line);
  }
}

TEST_F(FastJsonLineTest, MinusZeroIntegerIsPlusZeroAndMinusZeroFloatIsMinusZero) {
  // parse_json_line reads the token `-0` as the integer 0 (as strtoll does);
  // `-0.0` is a double. Both print as `0` (decisions §4).
  EXPECT_FALSE(std::signbit(fast_.json("-0", 0)->get<double>()));
  EXPECT_TRUE(std::signbit(fast_.json("-0.0", 0)->get<double>()));
}

TEST_F(FastJsonLineTest, DuplicateKeysKeepTheFirstPositionAndTheLastValue) {
  expect_same_value(R"({"a":1,"b":2,"a":{"c":3,"c":[4]}})");
  const Json value = *fast_.json(R"({"a":1,"b":2,"a":3})", 0);
  EXPECT_EQ(value.dump(), R"({"a":3.0,"b":2.0})");
}

TEST_F(FastJsonLineTest, ArrayIndexKeysComeFirstAscending) {
  expect_same_value(R"({"b":1,"10":2,"2":3,"01":4,"-1":5,"4294967295":6,"4294967294":7})");
  EXPECT_EQ(fast_.json(R"({"b":1,"10":2,"2":3})", 0)->dump(), R"({"2":3.0,"10":2.0,"b":1.0})");
}

TEST_F(FastJsonLineTest, StringsAreUnescapedAsParseJsonLineDoes) {
  expect_same_value(R"(["\u0000","\ud83d\ude00","\u00e9\/\b\f\n\r\t\"\\","é😀","\u2028"])");
}

TEST_F(FastJsonLineTest, NestingUpTo512LevelsIsAnswered) {
  expect_same_value(std::string(512, '[') + std::string(512, ']'));
}

// Each of these is an error for parse_json_line (decisions §2, §3; JSON
// itself): the fast path must not answer, so that the error text is
// parse_json_line's.
TEST_F(FastJsonLineTest, LeavesEveryRejectedLineToParseJsonLine) {
  const std::string nested_513 = std::string(513, '[') + std::string(513, ']');
  for (const std::string& line :
       {std::string("\xEF\xBB\xBF{}"), std::string("{}\0", 3), std::string("\"a\0b\"", 5), std::string("\"a\tb\""),
        std::string("\"\x1f\""), std::string(R"("\ud800")"), std::string(R"("\udc00x")"),
        std::string(R"("\ud800\u0041")"), std::string("\"\xff\""), std::string("\"\xed\xa0\x80\""),
        std::string("\"\xc0\x80\""), std::string("1e400"), std::string("-1e400"),
        std::string("1.7976931348623159e308"), nested_513, std::string(" "), std::string("\r"), std::string("{} {}"),
        std::string("[1,]"), std::string("01"), std::string("1."), std::string("\f{}"), std::string("{}\v"),
        std::string("nul"), std::string("'a'"), std::string("{\"a\" 1}")}) {
    SCOPED_TRACE(line);
    ASSERT_TRUE(std::holds_alternative<std::string>(parse_json_line(line)));
    EXPECT_FALSE(fast_.json(line, 0).has_value());
    EXPECT_FALSE(fast_.message(line, 0).has_value());
  }
}

// Integers past 64 bits: simdjson declines them, parse_json_line reads them
// correctly rounded (strtod), and the loader gives that value.
TEST_F(FastJsonLineTest, IntegersPast64BitsAreCorrectlyRoundedThroughTheFallback) {
  for (const char* number : {"18446744073709551616", "-9223372036854775809", "123456789012345678901234567890"}) {
    SCOPED_TRACE(number);
    if (const auto fast_value = fast_.json(number, 0)) {
      EXPECT_TRUE(identical(*fast_value, nlohmann_value(number)));
    }
    const std::string line =
        std::string(R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"b","input":)") + number + "}]}";
    const auto messages = load_session_from_memory(line);
    ASSERT_EQ(messages.size(), 1u);
    const ToolCall& call = std::get<AssistantMessage>(messages[0]).tool_calls.at(0);
    EXPECT_EQ(call, (ToolCall{"a", "b", Json(std::strtod(number, nullptr))}));
  }
}

TEST_F(FastJsonLineTest, BytesPastTheLineDoNotChangeTheAnswer) {
  const std::string line = R"({"role":"user","content":"a\"b"})";
  for (const std::string& after : {std::string(64, '"'), std::string(64, '\\'), std::string(64, '9'),
                                  std::string(64, '\0'), std::string(64, '\xff'), std::string(64, '{')}) {
    const std::string buffer = line + after;
    const auto in_place = fast_.message(std::string_view(buffer).substr(0, line.size()), after.size());
    ASSERT_TRUE(in_place.has_value());
    EXPECT_EQ(*in_place, Message(UserMessage{"a\"b"}));
  }
  // A number or a truncated literal at the very end of the line.
  const std::string number = "12345";
  const std::string buffer = number + "678" + std::string(64, ' ');
  EXPECT_TRUE(identical(*fast_.json(std::string_view(buffer).substr(0, number.size()), 67), Json(12345.0)));
  EXPECT_FALSE(fast_.json(std::string_view("truex").substr(0, 3), 0).has_value());
}

// simdjson reads past its input: a line with less than kFastJsonLinePadding
// readable bytes after it must be copied first. Here the next page is
// unmapped, so reading past the line's end would crash the test.
TEST_F(FastJsonLineTest, ALineEndingWhereReadableMemoryEndsIsReadFromACopy) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  void* pages = ::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(pages, MAP_FAILED);
  char* const end = static_cast<char*>(pages) + page;
  ASSERT_EQ(::mprotect(end, page, PROT_NONE), 0);
  for (const std::string& line : {std::string(R"({"role":"user","content":"a\"b"})"), std::string("12345"),
                                  std::string(R"(["x",1e5,true])"), std::string("nul")}) {
    SCOPED_TRACE(line);
    std::memcpy(end - line.size(), line.data(), line.size());
    const std::string_view at_the_end(end - line.size(), line.size());
    const auto value = fast_.json(at_the_end, 0);
    if (line == "nul") {
      EXPECT_FALSE(value.has_value());
    } else {
      ASSERT_TRUE(value.has_value());
      EXPECT_TRUE(identical(*value, nlohmann_value(line)));
    }
    EXPECT_EQ(fast_.message(at_the_end, 0).has_value(), line.front() == '{');
  }
  ::munmap(pages, 2 * page);
}

TEST_F(FastJsonLineTest, ReadsEachKindOfMessageAsDiscriminateRecordDoes) {
  for (const std::string& line : {
           std::string(R"({"role":"user","content":"hi"})"),
           std::string(R"({"content":"hi","role":"user","extra":[1,{"x":null}]})"),
           std::string(R"({"role":"tool","role":"user","content":"last role wins"})"),
           std::string(R"({"role":"assistant","content":"","toolCalls":[]})"),
           std::string(R"({"role":"assistant","content":"c","toolCalls":[{"id":"1","name":"n","input":null,"x":1},)"
                       R"({"input":{"b":[1.5,-0.0,"\u00e9"],"1":true,"b":2},"name":"m","id":"2"}]})"),
           std::string(R"({"role":"tool","content":"r","toolCallId":"1","isError":true,"isError":false})"),
       }) {
    SCOPED_TRACE(line);
    auto verdict = discriminate_record(nlohmann_value(line));
    ASSERT_TRUE(std::holds_alternative<Message>(verdict));
    const auto fast_message = fast_.message(line, 0);
    ASSERT_TRUE(fast_message.has_value());
    EXPECT_EQ(*fast_message, std::get<Message>(verdict));
  }
}

TEST_F(FastJsonLineTest, LeavesEveryRecordThatIsNotAMessageToDiscriminateRecord) {
  for (const char* line : {R"([])", R"("user")", R"({"role":"user"})", R"({"role":1,"content":""})",
                           R"({"role":"user","content":null})", R"({"role":"nope","content":""})",
                           R"({"role":"assistant","content":""})", R"({"role":"assistant","content":"","toolCalls":{}})",
                           R"({"role":"assistant","content":"","toolCalls":[1]})",
                           R"({"role":"assistant","content":"","toolCalls":[{"id":1,"name":"n","input":1}]})",
                           R"({"role":"assistant","content":"","toolCalls":[{"id":"1","name":"n"}]})",
                           R"({"role":"tool","content":"","toolCallId":"1"})",
                           R"({"role":"tool","content":"","toolCallId":"1","isError":"false"})",
                           R"({"role":"tool","content":"","isError":false})"}) {
    SCOPED_TRACE(line);
    ASSERT_TRUE(std::holds_alternative<std::string>(discriminate_record(nlohmann_value(line))));
    EXPECT_FALSE(fast_.message(line, 0).has_value());
  }
}

TEST_F(FastJsonLineTest, LinesPastTheSizeLimitAreLeftToParseJsonLine) {
  const std::string head = R"({"role":"user","content":")";
  const std::string at_limit = head + std::string(kFastJsonLineMaxBytes - head.size() - 2, 'x') + "\"}";
  ASSERT_EQ(at_limit.size(), kFastJsonLineMaxBytes);
  EXPECT_TRUE(fast_.message(at_limit, 0).has_value());
  const std::string line = head + std::string(kFastJsonLineMaxBytes, 'x') + "\"}";
  EXPECT_FALSE(fast_.message(line, 0).has_value());
  const auto messages = load_session_from_memory(line + "\n");
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(std::get<UserMessage>(messages[0]).content.size(), kFastJsonLineMaxBytes);
}

// The loader's errors are parse_json_line's, line numbers included, for a
// bad line anywhere: after fast lines, at the end of the buffer (copied),
// unterminated.
TEST(FastJsonLineLoader, ErrorsKeepParseJsonLinesTextAndLineNumber) {
  const std::string good = R"({"role":"user","content":"a"})";
  for (const std::string& bad : {std::string("{\"role\":\"user\",\"content\":\"\\ud800\"}"), std::string("1e400"),
                                std::string("{\"role\":\"user\"}"), std::string("\xEF\xBB\xBF{}")}) {
    for (const std::string& tail : {std::string("\n"), std::string("\n") + good + "\n", std::string()}) {
      const std::string bytes = good + "\n\n" + bad + tail;
      SCOPED_TRACE(bytes);
      const SessionError error = thrown<SessionError>([&] { load_session_from_memory(bytes); });
      EXPECT_EQ(error.line(), 3u);
      auto parsed = parse_json_line(bad);
      const std::string expected =
          std::holds_alternative<std::string>(parsed)
              ? "invalid session JSON at line 3: " + std::get<std::string>(parsed)
              : "invalid session record at line 3: " +
                    std::get<std::string>(discriminate_record(std::move(std::get<Json>(parsed))));
      EXPECT_EQ(error.what(), expected);
    }
  }
}

}  // namespace
}  // namespace agent_session::internal
