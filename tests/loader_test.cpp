// What the load loop (src/entry/load.hpp, SPEC.md §2) costs in heap:
// a load's buffers follow its input's size. (Both parsers through the
// loop: tests/fast/simd_line_parser_test.cpp.)
#include "agent_session/session.hpp"

#include "support/counting_allocator.hpp"

#include <gtest/gtest.h>

#include <string>

namespace agent_session {
namespace {

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
