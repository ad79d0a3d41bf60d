// A counting global allocator for the benchmark binary: counting_allocator.cpp
// replaces the global operator new/delete, so every heap allocation the
// library makes (std::string, std::vector, nlohmann's values) is counted.
// The benchmarks report allocations per iteration (the estimator must make
// none per message) and the heap's high-water mark while loading.
#pragma once

#include <cstddef>
#include <cstdint>

namespace agent_session::bench {

struct HeapCounters {
  std::uint64_t allocations = 0;  // calls to operator new since the start
  std::size_t live_bytes = 0;     // usable bytes currently allocated
  std::size_t peak_bytes = 0;     // high-water mark of live_bytes since reset_heap_peak()
};

HeapCounters heap_counters() noexcept;

// Starts a new high-water mark at the current live bytes.
void reset_heap_peak() noexcept;

}  // namespace agent_session::bench
