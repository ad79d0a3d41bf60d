// Running out of memory is an exit code, not an abort (SPEC.md §6: exit 3
// covers resources): a line that fits the line limit but not the memory
// at hand ends in `agent-session: out of memory`. This binary replaces
// operator new so that allocations fail on demand: the large ones, or
// exactly the Nth, for every N a small load makes (an allocation in a
// destructor or a noexcept function that fails ends the process; the
// exhaustive test finds each one). address_space_test runs the real
// binary under address-space limits.
#include "cli/cli.hpp"

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <new>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace {

std::atomic<std::size_t> largest_allocation{std::numeric_limits<std::size_t>::max()};
// The allocation that fails (1-based), counted from when it is set; 0: none.
std::atomic<std::uint64_t> failing_allocation{0};
std::atomic<std::uint64_t> allocations{0};

void* allocate_or_null(std::size_t size) {
  if (size > largest_allocation.load()) return nullptr;
  if (failing_allocation.load() != 0 && ++allocations == failing_allocation.load()) return nullptr;
  return std::malloc(size == 0 ? 1 : size);
}

void* allocate(std::size_t size) {
  if (void* p = allocate_or_null(size)) return p;
  throw std::bad_alloc();
}

}  // namespace

// Under AddressSanitizer: a shared library (simdjson) may allocate with the
// sanitizer's operator new and free through this one; the pair is still
// malloc and free, so the mismatch report is noise here, in this binary.
extern "C" const char* __asan_default_options() { return "alloc_dealloc_mismatch=0"; }

// Every form that allocates plain memory: simdjson asks with std::nothrow.
void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate_or_null(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate_or_null(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

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

// A small session of every shape the parsers build differently: each
// record kind, tool inputs with index keys and repeated keys (few and many:
// the two ways objects merge), nesting, escapes, long strings.
std::string every_shape() {
  std::string many_keys = "{";
  for (int i = 0; i < 20; ++i) many_keys += "\"k" + std::to_string(i % 12) + "\":[" + std::to_string(i) + "],";
  many_keys += "\"3\":{\"b\":1,\"a\":[[],{}],\"b\":2}}";
  return "{\"role\":\"user\",\"content\":\"caf\u00e9 \\ud83d\\ude80\",\"extra\":[[],[[]],{\"x\":null}]}\n"
         "{\"role\":\"assistant\",\"content\":\"\",\"toolCalls\":[{\"id\":\"c1\",\"name\":\"read\",\"input\":" +
         many_keys +
         "},{\"id\":\"c2\",\"name\":\"ls\",\"input\":[1e20,-0,0.1,{\"2\":1,\"1\":2,\"a\":3,\"a\":4,\"c\":[[1],{\"d\":[]"
         "}],\"c\":1}]}]}\n"
         "{\"role\":\"tool\",\"content\":\"" +
         std::string(300, 'y') +
         "\",\"toolCallId\":\"c1\",\"isError\":false,\"toolCallId\":\"c2\"}\n"
         "{\"role\":\"tool\",\"content\":\"ok\",\"toolCallId\":\"c1\",\"isError\":true}\n"
         // A number only the reference parser reads (past 64 bits): the
         // fast build reads this line with it too.
         "{\"role\":\"user\",\"content\":\"big\",\"n\":123456789012345678901234567890,\"o\":{\"a\":[1],\"b\":{},"
         "\"c\":\"x\",\"d\":[[]],\"e\":null}}\n";
}

// Standard output and error that never allocate while the command runs
// (room reserved first): a failure is then the command's, not the test's.
class ReservedStream : public std::streambuf {
 public:
  ReservedStream() { text_.reserve(1 << 20); }
  const std::string& text() const { return text_; }

 protected:
  int_type overflow(int_type c) override {
    if (c == traits_type::eof() || text_.size() == text_.capacity()) return traits_type::eof();
    text_.push_back(traits_type::to_char_type(c));
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const auto room = static_cast<std::streamsize>(text_.capacity() - text_.size());
    text_.append(s, static_cast<std::size_t>(std::min(n, room)));
    return std::min(n, room);
  }

 private:
  std::string text_;
};

// In a child process, so that an abort fails one N, visibly: runs `args`
// with the Nth allocation failing, and exits 0 when the command either
// did as it does with all the memory (`expected_code`, `expected_out`) or
// exited 3 saying only `agent-session: out of memory`; 2 when the Nth
// allocation was never reached; 1 (after saying why) for anything else.
int run_failing(std::uint64_t n, const std::vector<std::string>& args, const std::string& input, int expected_code,
                const std::string& expected_out) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::istringstream in(input);
    ReservedStream out_text, err_text;
    std::ostream out(&out_text), err(&err_text);
    allocations = 0;
    failing_allocation = n;
    const int code = cli::run(args, in, out, err);
    const bool reached = allocations >= n;
    failing_allocation = 0;
    if (code == cli::kIo && err_text.text() == "agent-session: out of memory\n" && out_text.text().empty()) {
      ::_exit(0);
    }
    if (code == expected_code && out_text.text() == expected_out) ::_exit(reached ? 0 : 2);
    std::fprintf(stderr, "allocation %llu: exit %d, stdout %zu bytes, stderr: %s\n", static_cast<unsigned long long>(n),
                 code, out_text.text().size(), err_text.text().c_str());
    ::_exit(1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    std::fprintf(stderr, "allocation %llu: killed by signal %d\n", static_cast<unsigned long long>(n),
                 WTERMSIG(status));
    return 1;
  }
  return WEXITSTATUS(status);
}

TEST_F(OutOfMemory, EveryAllocationOfASmallLoadMayFailAndTheCommandStillExitsThree) {
  write(path("s.jsonl"), every_shape());
  write(path("junk.jsonl"), every_shape() + "[[],[[]],{\"a\":[],\"a\":{}}]\n");
  struct Case {
    std::vector<std::string> args;
    std::string input;
  };
  const std::vector<Case> cases = {
      {{"check", path("s.jsonl").string()}, ""},
      {{"check", path("junk.jsonl").string()}, ""},  // exit 1: the last line is not a message
      {{"check", "-"}, every_shape()},
      {{"canon", path("s.jsonl").string()}, ""},
      {{"trim", "--max-chars", "400", path("s.jsonl").string()}, ""},
      {{"append", path("appended.jsonl").string()}, every_shape()},
  };
  for (const Case& c : cases) {
    std::istringstream in(c.input);
    std::ostringstream out, err;
    const int expected_code = cli::run(c.args, in, out, err);
    ASSERT_TRUE(expected_code == cli::kOk || expected_code == cli::kInvalid) << err.str();
    std::uint64_t n = 1;
    int failures = 0;
    for (; n < 1'000'000; ++n) {
      if (c.args[0] == "append") std::filesystem::remove(path("appended.jsonl"));
      const int verdict = run_failing(n, c.args, c.input, expected_code, out.str());
      if (verdict == 2) break;  // the command made fewer than n allocations
      if (verdict != 0) ++failures;
    }
    EXPECT_EQ(failures, 0) << c.args[0] << " " << c.args.back() << ": of " << n - 1 << " allocations";
    EXPECT_GT(n, 20U) << "the command allocates: the test reached its allocations";
  }
}

}  // namespace
}  // namespace agent_session
