// Running out of memory is an exit code, not an abort (SPEC.md §6: exit 3
// covers resources): a line that fits the line limit but not the memory
// at hand ends in `agent-session: out of memory`. This binary replaces
// operator new so that large allocations fail on demand.
#include "cli/cli.hpp"

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <limits>
#include <new>
#include <sstream>

namespace {

std::atomic<std::size_t> largest_allocation{std::numeric_limits<std::size_t>::max()};

void* allocate(std::size_t size) {
  if (size > largest_allocation.load()) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

}  // namespace

// Under AddressSanitizer: a shared library (simdjson) may allocate with the
// sanitizer's operator new and free through this one; the pair is still
// malloc and free, so the mismatch report is noise here, in this binary.
extern "C" const char* __asan_default_options() { return "alloc_dealloc_mismatch=0"; }

// Only the single-object forms: the loader's buffers and strings use them.
void* operator new(std::size_t size) { return allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace agent_session {
namespace {

using OutOfMemory = test_support::TempDirTest;

TEST_F(OutOfMemory, ALineLargerThanMemoryIsExitThree) {
  // 24 MiB of content on one valid line; no allocation over 8 MiB succeeds.
  const std::string line = R"({"role":"user","content":")" + std::string(std::size_t{24} << 20, 'x') + "\"}\n";
  write(path("big.jsonl"), line);
  for (const bool from_stdin : {false, true}) {
    std::istringstream in(from_stdin ? line : "");
    std::ostringstream out, err;
    largest_allocation = std::size_t{8} << 20;
    const int code = cli::run({"check", from_stdin ? "-" : path("big.jsonl").string()}, in, out, err);
    largest_allocation = std::numeric_limits<std::size_t>::max();
    EXPECT_EQ(code, cli::kIo) << (from_stdin ? "stdin" : "file");
    EXPECT_EQ(err.str(), "agent-session: out of memory\n");
    EXPECT_EQ(out.str(), "");
  }
  // With the memory, the same line loads.
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_EQ(cli::run({"check", path("big.jsonl").string()}, in, out, err), cli::kOk) << err.str();
  EXPECT_EQ(out.str(), "1 messages\n");
}

}  // namespace
}  // namespace agent_session
