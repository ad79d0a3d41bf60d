// fast::SimdLineParser (simdjson, then its discriminator) against the
// reference line parser, reference::parse_session_line (parse_json_line, then
// discriminate_record), on every case where simdjson's own rules differ
// from JavaScript's or from ours (SPEC.md §1.1, §2, §2.1), and on every
// truncation and one-byte change of real message lines: parse() must give
// the same Message, or throw a SessionError of the same kind, line and
// text; json() must give the value parse_json_line gives, bit for bit, or
// nothing when parse_json_line rejects the line.
// fuzz/fuzz_simd_line_parser.cpp checks arbitrary bytes.
#include "fast/simd_line_parser.hpp"

#include "agent_session/session.hpp"
#include "entry/implementation.hpp"
#include "entry/load.hpp"
#include "reference/json_line.hpp"
#include "reference/load.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <variant>

#include <sys/mman.h>
#include <unistd.h>

namespace agent_session::fast {
namespace {

using reference::parse_json_line;

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

// A parser's answer for a line: its message, or its error's kind, line and text.
struct Answer {
  std::optional<Message> message;
  std::string error;  // "kind N line L: what()"
};

template <class Parse>
Answer answer_of(Parse&& parse) {
  try {
    return {parse(), ""};
  } catch (const SessionError& error) {
    return {std::nullopt, (error.kind() == SessionErrorKind::invalid_json ? "invalid_json" : "invalid_record") +
                              std::string(" line ") + std::to_string(error.line()) + ": " + error.what()};
  }
}

class SimdLineParserTest : public ::testing::Test {
 protected:
  // parse() gives the reference's answer; `readable_after` bytes past the
  // line's end may be read.
  void expect_same_answer(std::string_view line, std::size_t readable_after = 0) {
    SCOPED_TRACE(std::string(line.substr(0, 300)));
    const Answer expected = answer_of([&] { return reference::parse_session_line(line, 7); });
    const Answer fast = answer_of([&] { return simd_.parse(line, 7, readable_after); });
    EXPECT_EQ(fast.error, expected.error);
    EXPECT_EQ(fast.message, expected.message);
    // json() answers only when the reference reads a value, and then the same one.
    const auto reference_value = parse_json_line(line);
    const std::optional<Json> fast_value = simd_.json(line, readable_after);
    if (fast_value) {
      ASSERT_TRUE(std::holds_alternative<Json>(reference_value)) << "simdjson accepts what the reference rejects";
      EXPECT_TRUE(identical(*fast_value, std::get<Json>(reference_value)));
    }
  }

  // A value the fast path must answer for itself (not leave to the reference).
  void expect_same_value(std::string_view line) {
    SCOPED_TRACE(std::string(line.substr(0, 300)));
    const std::optional<Json> fast_value = simd_.json(line, 0);
    ASSERT_TRUE(fast_value.has_value());
    const auto reference_value = parse_json_line(line);
    ASSERT_TRUE(std::holds_alternative<Json>(reference_value)) << std::get<std::string>(reference_value);
    EXPECT_TRUE(identical(*fast_value, std::get<Json>(reference_value)));
    expect_same_answer(line);
  }

  SimdLineParser simd_;
};

std::string with_input(const std::string& input) {
  return R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"b","input":)" + input + "}]}";
}

TEST_F(SimdLineParserTest, EveryNumberIsTheDoubleTheReferenceReads) {
  for (const char* number : {"0",
                             "-0",
                             "-0.0",
                             "-0e0",
                             "0e-5",
                             "1e-400",
                             "-1e-400",
                             "5e-324",
                             "2.2250738585072011e-308",
                             "1.7976931348623157e308",
                             "0.1",
                             "1E2",
                             "1e+2",
                             "123456789.123456789",
                             "9007199254740993",
                             "-9223372036854775808",
                             "9223372036854775808",
                             "18446744073709551615",
                             "1234567890123456789012345678901234567890e-20",
                             "[1,-2,3.5,1e21,1e-7]"}) {
    expect_same_value(number);
    expect_same_answer(with_input(number));
  }
}

TEST_F(SimdLineParserTest, MinusZeroIntegerIsPlusZeroAndMinusZeroFloatIsMinusZero) {
  // The reference reads the token `-0` as the integer 0 (as strtoll does);
  // `-0.0` is a double. Both print as `0` (SPEC.md §3).
  EXPECT_FALSE(std::signbit(simd_.json("-0", 0)->get<double>()));
  EXPECT_TRUE(std::signbit(simd_.json("-0.0", 0)->get<double>()));
}

TEST_F(SimdLineParserTest, DuplicateKeysKeepTheFirstPositionAndTheLastValue) {
  expect_same_value(R"({"a":1,"b":2,"a":{"c":3,"c":[4]}})");
  EXPECT_EQ(simd_.json(R"({"a":1,"b":2,"a":3})", 0)->dump(), R"({"a":3.0,"b":2.0})");
  expect_same_answer(with_input(R"({"a":1,"b":2,"a":{"c":3,"c":[4]}})"));
}

TEST_F(SimdLineParserTest, ArrayIndexKeysComeFirstAscending) {
  expect_same_value(R"({"b":1,"10":2,"2":3,"01":4,"-1":5,"4294967295":6,"4294967294":7})");
  EXPECT_EQ(simd_.json(R"({"b":1,"10":2,"2":3})", 0)->dump(), R"({"2":3.0,"10":2.0,"b":1.0})");
  expect_same_answer(with_input(R"({"b":1,"10":2,"2":3,"b":[{"1":0,"0":1}]})"));
}

// Objects of many members, repeated and index keys among them: the
// reference merges those by sorting past 16 members.
TEST_F(SimdLineParserTest, ObjectsOfManyMembersMergeAndOrderAsTheReferenceDoes) {
  for (const std::size_t count : {15u, 16u, 17u, 18u, 40u, 200u}) {
    std::string text = "{";
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t r = i * 7 % 23;
      const std::string key = r < 12   ? "k" + std::to_string(r % 9)
                              : r < 20 ? std::to_string(r * 5 % 11)
                                       : "0" + std::to_string(r);
      text += (i > 0 ? ",\"" : "\"") + key + "\":" + std::to_string(i);
    }
    text += "}";
    expect_same_value(text);
    expect_same_answer(with_input(text));
  }
}

TEST_F(SimdLineParserTest, StringsAreUnescapedAsTheReferenceDoes) {
  expect_same_value(R"(["\u0000","\ud83d\ude00","\u00e9\/\b\f\n\r\t\"\\","é😀","\u2028"])");
}

TEST_F(SimdLineParserTest, NestingUpTo512LevelsIsAnswered) {
  expect_same_value(std::string(512, '[') + std::string(512, ']'));
  expect_same_answer(with_input(std::string(508, '[') + std::string(508, ']')));
  expect_same_answer(with_input(std::string(509, '[') + std::string(509, ']')));  // level 512
}

// Each of these is an error for the reference (SPEC.md §2, §2.1; JSON
// itself): the fast path must not read a value, and must throw the
// reference's error, text and byte offset included.
TEST_F(SimdLineParserTest, EveryRejectedLineGetsTheReferencesError) {
  const std::string nested_513 = std::string(513, '[') + std::string(513, ']');
  for (const std::string& line : {std::string("\xEF\xBB\xBF{}"),
                                  std::string("{}\0", 3),
                                  std::string("\"a\0b\"", 5),
                                  std::string("\"a\tb\""),
                                  std::string("\"\x1f\""),
                                  std::string(R"("\ud800")"),
                                  std::string(R"("\udc00x")"),
                                  std::string(R"("\ud800\u0041")"),
                                  std::string("\"\xff\""),
                                  std::string("\"\xed\xa0\x80\""),
                                  std::string("\"\xc0\x80\""),
                                  std::string("1e400"),
                                  std::string("-1e400"),
                                  std::string("1.7976931348623159e308"),
                                  nested_513,
                                  std::string(" "),
                                  std::string("\r"),
                                  std::string("{} {}"),
                                  std::string("[1,]"),
                                  std::string("01"),
                                  std::string("1."),
                                  std::string("\f{}"),
                                  std::string("{}\v"),
                                  std::string("nul"),
                                  std::string("'a'"),
                                  std::string("{\"a\" 1}"),
                                  std::string("\xEF\xBB\xBF{\"role\":\"user\",\"content\":\"\"}"),
                                  with_input("1e400"),
                                  with_input(std::string(510, '[') + std::string(510, ']'))}) {
    SCOPED_TRACE(line);
    ASSERT_TRUE(std::holds_alternative<std::string>(parse_json_line(line)));
    EXPECT_FALSE(simd_.json(line, 0).has_value());
    expect_same_answer(line);
  }
}

// Integers past 64 bits: simdjson declines them, the reference reads them
// correctly rounded (strtod), and the fast parser gives that value.
TEST_F(SimdLineParserTest, IntegersPast64BitsAreCorrectlyRoundedThroughTheReference) {
  for (const char* number : {"18446744073709551616", "-9223372036854775809", "123456789012345678901234567890"}) {
    SCOPED_TRACE(number);
    if (const auto fast_value = simd_.json(number, 0)) {
      EXPECT_TRUE(identical(*fast_value, std::get<Json>(parse_json_line(number))));
    }
    const Message message = simd_.parse(with_input(number), 1, 0);
    const ToolCall& call = std::get<AssistantMessage>(message).tool_calls.at(0);
    EXPECT_EQ(call, (ToolCall{"a", "b", Json(std::strtod(number, nullptr))}));
    expect_same_answer(with_input(number));
  }
}

TEST_F(SimdLineParserTest, BytesPastTheLineDoNotChangeTheAnswer) {
  for (const std::string& line : {std::string(R"({"role":"user","content":"a\"b"})"), std::string("12345"),
                                  std::string(R"({"role":"user","content":"a")"), std::string("tru")}) {
    for (const std::string& after :
         {std::string(64, '"'), std::string(64, '\\'), std::string(64, '9'), std::string(64, '\0'),
          std::string(64, '\xff'), std::string(64, '{'), std::string("e") + std::string(63, ' ')}) {
      const std::string buffer = line + after;
      expect_same_answer(std::string_view(buffer).substr(0, line.size()), after.size());
    }
  }
}

// simdjson reads past its input: a line with less than kSimdPadding
// readable bytes after it must be copied first. Here the next page is
// unmapped, so reading past the line's end would crash the test.
TEST_F(SimdLineParserTest, ALineEndingWhereReadableMemoryEndsIsReadFromACopy) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  void* pages = ::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(pages, MAP_FAILED);
  char* const end = static_cast<char*>(pages) + page;
  ASSERT_EQ(::mprotect(end, page, PROT_NONE), 0);
  for (const std::string& line : {std::string(R"({"role":"user","content":"a\"b"})"), std::string("12345"),
                                  std::string(R"(["x",1e5,true])"), std::string("nul")}) {
    std::memcpy(end - line.size(), line.data(), line.size());
    expect_same_answer(std::string_view(end - line.size(), line.size()), 0);
  }
  ::munmap(pages, 2 * page);
}

const std::string kMessages[] = {
    R"({"role":"user","content":"hi"})",
    R"({"content":"hi","role":"user","extra":[1,{"x":null}]})",
    R"({"role":"tool","role":"user","content":"last role wins"})",
    R"({"role":"user","content":"first","content":"last content wins"})",
    R"({"role":"assistant","content":"","toolCalls":[]})",
    R"({"role":"assistant","content":"c","toolCalls":[{"id":"1","name":"n","input":null,"x":1},)"
    R"({"input":{"b":[1.5,-0.0,"\u00e9"],"1":true,"b":2},"name":"m","id":"2"}]})",
    R"({"role":"assistant","content":"","toolCalls":[{"id":"1","name":"n","input":1,"input":{"k":[true]}}]})",
    R"({"role":"tool","content":"r","toolCallId":"1","isError":true,"isError":false})",
    R"({"role":"tool","content":"r\n\u0000","toolCallId":"1\"2","isError":false,"toolCallId":"3"})",
};

TEST_F(SimdLineParserTest, ReadsEachKindOfMessageAsTheReferenceDoes) {
  for (const std::string& line : kMessages) {
    ASSERT_NO_THROW(reference::parse_session_line(line, 1)) << line;
    expect_same_answer(line);
  }
}

TEST_F(SimdLineParserTest, EveryRecordThatIsNotAMessageGetsTheReferencesReason) {
  for (const char* line :
       {R"([])", R"("user")", R"({"role":"user"})", R"({"role":1,"content":""})", R"({"role":"user","content":null})",
        R"({"role":"nope","content":""})", R"({"role":"assistant","content":""})",
        R"({"role":"assistant","content":"","toolCalls":{}})", R"({"role":"assistant","content":"","toolCalls":[1]})",
        R"({"role":"assistant","content":"","toolCalls":[{"id":1,"name":"n","input":1}]})",
        R"({"role":"assistant","content":"","toolCalls":[{"id":"1","name":"n"}]})",
        R"({"role":"tool","content":"","toolCallId":"1"})",
        R"({"role":"tool","content":"","toolCallId":"1","isError":"false"})",
        R"({"role":"tool","content":"","isError":false})", R"({"role":"user","content":"","role":"nope"})",
        R"({"role":"tool","content":"","toolCallId":"1","isError":false,"isError":0})"}) {
    EXPECT_THROW(reference::parse_session_line(line, 1), SessionError) << line;
    expect_same_answer(line);
  }
}

// Every prefix and every one-byte change of real message lines: most are
// errors, some still messages; all must get the reference's answer.
TEST_F(SimdLineParserTest, EveryTruncationAndOneByteChangeGetsTheReferencesAnswer) {
  for (const std::string& line : kMessages) {
    for (std::size_t cut = 0; cut < line.size(); ++cut) expect_same_answer(std::string_view(line).substr(0, cut));
    for (std::size_t at = 0; at < line.size(); ++at) {
      for (const char byte : {'"', '\\', '1', '{', ']', ' ', '\x01', '\xC3', '\x80'}) {
        std::string changed = line;
        changed[at] = byte;
        expect_same_answer(changed);
      }
    }
  }
}

TEST_F(SimdLineParserTest, LinesPastTheSizeLimitGetTheReferencesAnswer) {
  const std::string head = R"({"role":"user","content":")";
  const std::string at_limit = head + std::string(kSimdMaxLineBytes - head.size() - 2, 'x') + "\"}";
  ASSERT_EQ(at_limit.size(), kSimdMaxLineBytes);
  expect_same_answer(at_limit);
  const std::string past = head + std::string(kSimdMaxLineBytes, 'x') + "\"}";
  expect_same_answer(past);
  EXPECT_EQ(std::get<UserMessage>(simd_.parse(past, 1, 0)).content.size(), kSimdMaxLineBytes);
}

// The load loop with either parser: the same messages and line numbers,
// or the same error, for a bad line anywhere (after good lines, at the
// end of the input, unterminated).
TEST(SimdLineParserLoad, LoadsWhatTheReferenceLoads) {
  const auto load = [](const entry::Implementation& path, const std::string& bytes) {
    return answer_of([&] {
      std::vector<std::size_t> numbers;
      auto messages = entry::load_lines(*path.make_line_parser(), entry::read_from(bytes), true, &numbers);
      EXPECT_EQ(numbers.size(), messages.size());
      return messages.empty() ? Message(UserMessage{"none"}) : messages.back();
    });
  };
  const std::string good = R"({"role":"user","content":"a"})";
  for (const std::string& bad : {std::string("{\"role\":\"user\",\"content\":\"\\ud800\"}"), std::string("1e400"),
                                 std::string("{\"role\":\"user\"}"), std::string("\xEF\xBB\xBF{}"), good}) {
    for (const std::string& tail : {std::string("\n"), std::string("\n") + good + "\n", std::string()}) {
      const std::string bytes = good + "\n\n" + bad + tail;
      SCOPED_TRACE(bytes);
      const Answer expected = load(entry::reference_path, bytes);
      const Answer fast = load(entry::fast_path, bytes);
      EXPECT_EQ(fast.error, expected.error);
      EXPECT_EQ(fast.message, expected.message);
    }
  }
}

}  // namespace
}  // namespace agent_session::fast
