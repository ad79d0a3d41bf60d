// The load loop of SPEC.md §2 (src/reference/load.hpp), and what a load
// through the library (src/entry/load.hpp) costs in heap: its buffers
// follow its input's size. (Both parsers through the loop:
// tests/fast/simd_line_parser_test.cpp.)
#include "agent_session/session.hpp"

#include "reference/load.hpp"
#include "support/counting_allocator.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agent_session {
namespace {

// The loop parses every line but the exactly empty ones, in order, keeps
// each message's physical line, and stops at the first line that throws:
// nothing after it is read, nothing is returned.
TEST(ReferenceLoad, SkipsEmptyLinesCountsThemAndStopsAtTheFirstBadLine) {
  std::vector<std::size_t> parsed;
  const reference::ParseLine parse = [&](const reference::Line& line) -> Message {
    parsed.push_back(line.number);
    if (line.text == "bad") throw SessionError(SessionErrorKind::invalid_json, line.number, "");
    return UserMessage{std::string(line.text)};
  };
  reference::LinesInMemory good("a\n\n \n\nb");
  std::vector<std::size_t> numbers;
  EXPECT_EQ(reference::load_lines(good, parse, &numbers),
            (std::vector<Message>{UserMessage{"a"}, UserMessage{" "}, UserMessage{"b"}}));
  EXPECT_EQ(numbers, (std::vector<std::size_t>{1, 3, 5})) << "physical: the empty lines count";
  EXPECT_EQ(parsed, numbers) << "only exactly empty lines are skipped";

  parsed.clear();
  reference::LinesInMemory bad("a\n\nbad\nc\n");
  EXPECT_EQ(test_support::thrown<SessionError>([&] { reference::load_lines(bad, parse); }).line(), 3u);
  EXPECT_EQ(parsed, (std::vector<std::size_t>{1, 3})) << "the line after the bad one is never parsed";
}

// Heap high-water mark of one in-memory load of `bytes`, above what was
// live before it.
std::size_t load_peak(const std::string& bytes) {
  const bench::HeapCounters before = bench::heap_counters();
  bench::reset_heap_peak();
  EXPECT_EQ(load_session_from_memory(bytes).empty(), bytes.empty());
  return bench::heap_counters().peak_bytes - before.live_bytes;
}

// A small session costs a small buffer: loads of short inputs (a fuzz
// campaign's, a runtime's single line) are not dominated by a piece-sized
// buffer allocated and cleared per load.
TEST(Loader, ASmallInputGetsABufferOfItsOwnSize) {
  const std::string line = "{\"role\":\"user\",\"content\":\"hello\"}\n";
  EXPECT_LT(load_peak(""), std::size_t{32} << 10);  // an empty input is a known size too
  EXPECT_LT(load_peak(line), std::size_t{32} << 10);
  std::string hundred;
  for (int i = 0; i < 100; ++i) hundred += line;
  EXPECT_LT(load_peak(hundred), std::size_t{64} << 10);
}

}  // namespace
}  // namespace agent_session
