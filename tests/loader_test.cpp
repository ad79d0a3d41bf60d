// The load loop (src/internal/loader.hpp, SPEC.md §2) on every parser the
// build has: the reference's, and the one loads use (the fast path's when
// built). What it costs in heap: a load's buffer follows its input's size.
#include "agent_session/session.hpp"
#include "internal/loader.hpp"

#include "../bench/counting_allocator.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace agent_session {
namespace {

// Heap high-water mark of one in-memory load of `bytes`, above what was
// live before it.
std::size_t load_peak(const std::string& bytes) {
  const bench::HeapCounters before = bench::heap_counters();
  bench::reset_heap_peak();
  EXPECT_FALSE(load_session_from_memory(bytes).empty());
  return bench::heap_counters().peak_bytes - before.live_bytes;
}

// A small session costs a small buffer: loads of short inputs (a fuzz
// campaign's, a runtime's single line) are not dominated by a piece-sized
// buffer allocated and cleared per load.
TEST(Loader, ASmallInputGetsABufferOfItsOwnSize) {
  const std::string line = "{\"role\":\"user\",\"content\":\"hello\"}\n";
  EXPECT_LT(load_peak(line), std::size_t{32} << 10);
  std::string hundred;
  for (int i = 0; i < 100; ++i) hundred += line;
  EXPECT_LT(load_peak(hundred), std::size_t{64} << 10);
}

// Both parsers through the same loop give the same messages and lines.
TEST(Loader, TheReferenceParserAndTheBuildsParserLoadAlike) {
  const std::string bytes =
      "{\"role\":\"user\",\"content\":\"a\"}\n\n"
      "{\"role\":\"assistant\",\"content\":\"\",\"toolCalls\":[{\"id\":\"1\",\"name\":\"t\",\"input\":{\"b\":1,\"0\":2}}]}\n"
      "{\"role\":\"tool\",\"content\":\"r\",\"toolCallId\":\"1\",\"isError\":false}";
  const auto read_from = [](std::string_view rest) {
    return [rest](char* buffer, std::size_t size) mutable {
      const std::size_t got = std::min(size, rest.size());
      rest.copy(buffer, got);
      rest.remove_prefix(got);
      return got;
    };
  };
  internal::JsonLineParser reference;
  const std::unique_ptr<internal::LineParser> built = internal::make_line_parser();
  std::vector<std::size_t> reference_lines, built_lines;
  const auto expected = internal::load_lines(reference, read_from(bytes), false, &reference_lines, bytes.size());
  EXPECT_EQ(internal::load_lines(*built, read_from(bytes), false, &built_lines, bytes.size()), expected);
  EXPECT_EQ(built_lines, reference_lines);
  EXPECT_EQ(reference_lines, (std::vector<std::size_t>{1, 3, 4}));
}

}  // namespace
}  // namespace agent_session
