// Out of memory as a real process meets it (SPEC.md §6, §8: no failure
// may end in a signal): the `agent-session` binary under address-space
// limits (RLIMIT_AS, `ulimit -v`), on the input shapes that build the
// largest trees for their size, loaded by `check` and by `append`. Each
// run must exit 0, 1 or 3, and with 3 say why in one line; an append
// leaves the file loadable. Not built with AddressSanitizer, whose shadow
// memory needs terabytes of address space: out_of_memory_test fails every
// allocation of a small load in turn, in every build.
#include "agent_session/session.hpp"

#include "support/run_binary.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include <sys/resource.h>

namespace agent_session {
namespace {

using AddressSpace = test_support::TempDirTest;

// `item` repeated, comma-separated, to about `bytes`.
std::string repeated(const std::string& item, std::size_t bytes) {
  std::string text;
  text.reserve(bytes + item.size() + 1);
  while (text.size() < bytes) {
    if (!text.empty()) text += ',';
    text += item;
  }
  return text;
}

std::string user_with_extra(const std::string& extra) {
  return R"({"role":"user","content":"x","extra":[)" + extra + "]}\n";
}

// What the child runs before exec: `ulimit -v kib`.
std::function<void()> address_space_of(rlim_t kib) {
  return [kib] {
    const rlimit limit{kib * 1024, kib * 1024};
    ::setrlimit(RLIMIT_AS, &limit);
  };
}

struct Shape {
  std::string name;
  std::string bytes;
};

std::vector<Shape> shapes() {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  return {
      {"6 MiB line of empty arrays", "[" + repeated("[]", 6 * kMiB) + "]\n"},
      {"30 MiB line of empty arrays", user_with_extra(repeated("[]", 30 * kMiB))},
      {"30 MiB line of empty strings", user_with_extra(repeated(R"("")", 30 * kMiB))},
      {"40 MiB line, past the line limit", user_with_extra(repeated("[]", 40 * kMiB))},
      {"67k small objects with a repeated key",
       R"({"role":"assistant","content":"","toolCalls":[{"id":"c","name":"n","input":[)" +
           repeated(R"({"k":0,"k":1})", 67'000 * 14) + "]}]}\n"},
  };
}

// Every shape at every limit, once each: where the address space layout
// decides what fails, ManyRoundsAtTheLimitsWhereTheTreeIsBuiltNeverEndInASignal
// repeats the runs.
TEST_F(AddressSpace, EveryLimitEndsInAnExitCodeAndOneLineNeverASignal) {
  for (const Shape& shape : shapes()) {
    write(path("s.jsonl"), shape.bytes);
    for (const rlim_t kib : {24'000, 30'000, 36'000, 60'000, 150'000, 400'000, 900'000}) {
      for (const std::string command : {"check", "append"}) {
        std::filesystem::remove(path("appended.jsonl"));
        const bool append = command == "append";
        test_support::BinaryOptions options;
        options.input = append ? shape.bytes : "";
        options.in_child = address_space_of(kib);
        const auto run = test_support::run_binary(
            {command, append ? path("appended.jsonl").string() : path("s.jsonl").string()}, dir_, options);
        const std::string where = shape.name + ", " + command + ", ulimit -v " + std::to_string(kib);
        EXPECT_EQ(run.signal, 0) << where << ": " << run.err;
        EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1 || run.exit_code == 3) << where << ": " << run.err;
        if (run.exit_code != 0) {
          EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << where << ": " << run.err;
          EXPECT_TRUE(run.err.starts_with("agent-session: ")) << where << ": " << run.err;
        }
        if (append && std::filesystem::exists(path("appended.jsonl"))) {
          EXPECT_NO_THROW(load_session(path("appended.jsonl"))) << where;
        }
      }
    }
  }
}

// run parses each tool call's input into a tree for the tool: a tree that
// could not be destroyed without memory, and a tool's std::bad_alloc
// recorded as its result, were the two ways it broke (SIGABRT; a made-up
// result in the session).
TEST_F(AddressSpace, RunOutOfMemoryInAToolCallIsExitThreeAndRecordsNoResult) {
  std::string script = R"({"role":"assistant","content":"x","toolCalls":[{"id":"c0","name":"echo","input":[)";
  script += repeated("[]", 666'000) + "]}]}\n";
  write(path("script.jsonl"), script);
  for (rlim_t kib = 20'000; kib <= 60'000; kib += 1'000) {
    std::filesystem::remove(path("s.jsonl"));
    test_support::BinaryOptions options;
    options.in_child = address_space_of(kib);
    const auto run = test_support::run_binary(
        {"run", "--session", path("s.jsonl").string(), "--script", path("script.jsonl").string(), "go"}, dir_, options);
    const std::string where = "ulimit -v " + std::to_string(kib);
    EXPECT_EQ(run.signal, 0) << where << ": " << run.err;
    EXPECT_TRUE(run.exit_code == 1 || run.exit_code == 3) << where << ": exit " << run.exit_code << ", " << run.err;
    if (std::filesystem::exists(path("s.jsonl"))) {
      EXPECT_EQ(read(path("s.jsonl")).find("bad_alloc"), std::string::npos) << where << ": recorded as a result";
    }
  }
}

// Where the limit falls just as the tree is built, each run's address
// space layout (ASLR) decides what fails: many rounds. A stack that could
// not grow here was SIGSEGV in about one run of eight.
TEST_F(AddressSpace, ManyRoundsAtTheLimitsWhereTheTreeIsBuiltNeverEndInASignal) {
  const std::vector<Shape> all = shapes();
  for (const Shape& shape : {all[0], all[4]}) {
    write(path("s.jsonl"), shape.bytes);
    int signals = 0, runs = 0;
    for (rlim_t kib = 26'000; kib <= 36'000; kib += 1'000) {
      for (int round = 0; round < 10; ++round) {
        std::filesystem::remove(path("appended.jsonl"));
        test_support::BinaryOptions options;
        options.input = shape.bytes;
        options.in_child = address_space_of(kib);
        const auto run = test_support::run_binary({"append", path("appended.jsonl").string()}, dir_, options);
        ++runs;
        if (run.signal != 0) ++signals;
        EXPECT_EQ(run.signal, 0) << shape.name << ", ulimit -v " << kib << ", round " << round;
      }
    }
    EXPECT_EQ(signals, 0) << shape.name << ": of " << runs << " runs";
  }
}

}  // namespace
}  // namespace agent_session
