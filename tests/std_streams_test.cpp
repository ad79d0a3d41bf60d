// The command's standard streams (src/base/std_streams.hpp, SPEC.md §6):
// a failed write of standard output or read of standard input is exit 3
// with the system's reason, never exit 0 with the output lost, and never
// a signal. Run on the real binary: only a process has descriptors.
#include "support/run_binary.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::BinaryOptions;
using test_support::BinaryRun;
using test_support::run_binary;

const std::string kUser = R"({"role":"user","content":"hi"})"
                          "\n";

class StdStreams : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    session_ = path("s.jsonl");
    write(session_, kUser);
    script_ = path("replies.jsonl");
    write(script_, R"({"role":"assistant","content":"done","toolCalls":[]})"
                   "\n");
  }
  // Every command that prints something on success.
  std::vector<std::vector<std::string>> printing_commands() const {
    const std::string s = session_.string();
    return {
        {"check", s},        {"estimate", s},
        {"canon", s},        {"trim", "--max-chars", "1000", s},
        {"repair", s},       {"--help"},
        {"check", "--help"}, {"run", "--session", path("run.jsonl").string(), "--script", script_.string(), "hello"}};
  }
  BinaryRun run(const std::vector<std::string>& args, const BinaryOptions& options = {}) const {
    return run_binary(args, dir_, options);
  }
  fs::path session_, script_;
};

void expect_io_error(const BinaryRun& run, const std::string& reason, const std::string& where) {
  EXPECT_EQ(run.signal, 0) << where;
  EXPECT_EQ(run.exit_code, 3) << where << ": " << run.err;
  EXPECT_NE(run.err.find("agent-session: cannot write standard output: " + reason), std::string::npos)
      << where << ": " << run.err;
}

TEST_F(StdStreams, AFullDiskOnStandardOutputIsExitThree) {
  for (const auto& args : printing_commands()) {
    BinaryOptions options;
    options.stdout_path = "/dev/full";
    fs::remove(path("run.jsonl"));
    expect_io_error(run(args, options), std::strerror(ENOSPC), args[0] + " " + args.back());
  }
}

TEST_F(StdStreams, AClosedStandardOutputIsExitThree) {
  for (const auto& args : printing_commands()) {
    BinaryOptions options;
    options.close_stdout = true;
    fs::remove(path("run.jsonl"));
    expect_io_error(run(args, options), std::strerror(EBADF), args[0] + " " + args.back());
  }
}

TEST_F(StdStreams, AClosedStandardOutputNeverLendsItsNumberToTheSession) {
  // With descriptor 1 closed, the session opened next would be descriptor
  // 1 and receive the output. The run's output fails instead; the session
  // holds exactly the two messages the run recorded.
  BinaryOptions options;
  options.close_stdout = true;
  const fs::path session = path("run.jsonl");
  const BinaryRun result = run({"run", "--session", session.string(), "--script", script_.string(), "hello"}, options);
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_EQ(read(session), R"({"role":"user","content":"hello"})"
                           "\n"
                           R"({"role":"assistant","content":"done","toolCalls":[]})"
                           "\n");
}

TEST_F(StdStreams, AClosedPipeIsExitThreeNotSigpipe) {
  // More than a pipe holds, so the write meets the closed end.
  std::string big;
  for (int i = 0; i < 2000; ++i) big += R"({"role":"user","content":")" + std::string(500, 'x') + "\"}\n";
  write(session_, big);
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  ::close(pipe_ends[0]);
  BinaryOptions options;
  options.stdout_path = "/proc/self/fd/" + std::to_string(pipe_ends[1]);
  const BinaryRun result = run({"canon", session_.string()}, options);
  ::close(pipe_ends[1]);
  expect_io_error(result, std::strerror(EPIPE), "canon");
}

TEST_F(StdStreams, StandardInputThatCannotBeReadIsExitThree) {
  BinaryOptions closed;
  closed.close_stdin = true;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", "-"}, std::vector<std::string>{"append", session_.string()}}) {
    const BinaryRun result = run(args, closed);
    EXPECT_EQ(result.exit_code, 3) << args[0] << ": " << result.err;
    EXPECT_NE(result.err.find(std::string("cannot read standard input: ") + std::strerror(EBADF)), std::string::npos)
        << result.err;
    EXPECT_EQ(result.out, "");
  }
  EXPECT_EQ(read(session_), kUser) << "a failed read appends nothing";
}

TEST_F(StdStreams, AnEndlessLineStopsAtTheLineLimitInsteadOfTakingAllMemory) {
  // /dev/zero never ends a line: as a file, and as standard input.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", "/dev/zero"}, std::vector<std::string>{"check", "-"}}) {
    BinaryOptions options;
    options.in_child = [] {
#ifndef AGENT_SESSION_SANITIZED  // a sanitizer's shadow memory needs terabytes of address space
      // A safety net, far below what an unbounded read would take and far
      // above the limit: a regression fails here instead of filling memory.
      const rlimit memory{std::size_t{3} << 30, std::size_t{3} << 30};
      ::setrlimit(RLIMIT_AS, &memory);
#endif
      const int zero = ::open("/dev/zero", O_RDONLY);
      ::dup2(zero, 0);
    };
    const BinaryRun result = run(args, options);
    EXPECT_EQ(result.signal, 0);
    EXPECT_EQ(result.exit_code, 3) << args[1] << ": " << result.err;
    EXPECT_NE(result.err.find("cannot load line 1: it is longer than 33554432 bytes"), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace agent_session
