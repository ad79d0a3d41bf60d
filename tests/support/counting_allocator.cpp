#include "support/counting_allocator.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#include <malloc.h>

namespace agent_session::bench {
namespace {

// Relaxed atomics: the benchmarks are single-threaded, but Google
// Benchmark's own threads may allocate too and must not race.
std::atomic<std::uint64_t> allocations{0};
std::atomic<std::size_t> live_bytes{0};
std::atomic<std::size_t> peak_bytes{0};

void* counted_allocate(std::size_t size) {
  void* pointer = std::malloc(size == 0 ? 1 : size);
  if (pointer == nullptr) throw std::bad_alloc();
  allocations.fetch_add(1, std::memory_order_relaxed);
  // Usable size, so that freeing (where the requested size is unknown for
  // unsized delete) subtracts exactly what was added.
  const std::size_t now =
      live_bytes.fetch_add(malloc_usable_size(pointer), std::memory_order_relaxed) + malloc_usable_size(pointer);
  std::size_t peak = peak_bytes.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return pointer;
}

void counted_free(void* pointer) noexcept {
  if (pointer == nullptr) return;
  live_bytes.fetch_sub(malloc_usable_size(pointer), std::memory_order_relaxed);
  std::free(pointer);
}

}  // namespace

HeapCounters heap_counters() noexcept {
  return {allocations.load(std::memory_order_relaxed), live_bytes.load(std::memory_order_relaxed),
          peak_bytes.load(std::memory_order_relaxed)};
}

void reset_heap_peak() noexcept { peak_bytes.store(live_bytes.load(std::memory_order_relaxed)); }

}  // namespace agent_session::bench

// The replaceable global allocation functions ([new.delete]); the aligned
// forms are left to the library, which this project never uses.
void* operator new(std::size_t size) { return agent_session::bench::counted_allocate(size); }
void* operator new[](std::size_t size) { return agent_session::bench::counted_allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return agent_session::bench::counted_allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return agent_session::bench::counted_allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* pointer) noexcept { agent_session::bench::counted_free(pointer); }
void operator delete[](void* pointer) noexcept { agent_session::bench::counted_free(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { agent_session::bench::counted_free(pointer); }
void operator delete[](void* pointer, std::size_t) noexcept { agent_session::bench::counted_free(pointer); }
void operator delete(void* pointer, const std::nothrow_t&) noexcept { agent_session::bench::counted_free(pointer); }
void operator delete[](void* pointer, const std::nothrow_t&) noexcept { agent_session::bench::counted_free(pointer); }
