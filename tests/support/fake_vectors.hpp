// Helpers for the tests of `agent-session conform`: a temporary folder of
// hand-made vectors (layout: corpus/conformance/README.md), ports written as
// shell scripts, and the runner run in process or through the real
// command (which runs agent-session-conform in its place).
#pragma once

#include "conform/runner/conform_options.hpp"
#include "conform/runner/subprocess.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace agent_session::test_support {

struct ConformRun {
  int exit_code;
  std::string out;
  std::string err;
};

inline std::vector<std::string> conform_args(const std::filesystem::path& vectors,
                                             const std::vector<std::string>& command,
                                             const std::vector<std::string>& options) {
  std::vector<std::string> args = {"conform", "--vectors", vectors.string()};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  args.insert(args.end(), command.begin(), command.end());
  return args;
}

// The runner in this process: agent-session-conform's entry point with
// the words after `conform`.
inline ConformRun conform(const std::filesystem::path& vectors, const std::vector<std::string>& command,
                          const std::vector<std::string>& options = {}) {
  std::istringstream in;
  std::ostringstream out, err;
  const std::vector<std::string> args = conform_args(vectors, command, options);
  const int code = conform::runner::conform_main({args.begin() + 1, args.end()}, "agent-session-conform", in, out, err);
  return {code, out.str(), err.str()};
}

// The runner as the real binary, for defects that hang or abort the
// process: the minute is a safety net so that such a defect fails the test
// instead of hanging it, never a measured duration.
inline ConformRun conform_binary(const std::filesystem::path& vectors, const std::vector<std::string>& command,
                                 const std::vector<std::string>& options = {},
                                 const std::vector<std::string>& prefix = {}) {
  std::vector<std::string> argv = prefix;
  argv.push_back(AGENT_SESSION_CLI);
  const auto args = conform_args(vectors, command, options);
  argv.insert(argv.end(), args.begin(), args.end());
  const auto limit = std::chrono::minutes(1);
  const auto r = conform::runner::run_process(argv, "", limit);
  if (r.end != conform::runner::ProcessEnd::exited)
    return {-1, r.out, r.err + "[" + conform::runner::describe_end(r, limit) + "]"};
  return {r.exit_code, r.out, r.err};
}

// A port written as a shell script: `sh -c SCRIPT port CHECK-ARGS... FILE`,
// so the script sees the check's arguments as $1, $2, ...
inline std::vector<std::string> shell_port(const std::string& script) { return {"sh", "-c", script, "port"}; }

// shell_port of `script` with `from` replaced by `to`, once: a right
// port with one planted mistake (a `from` not in `script` fails the test).
inline std::vector<std::string> planted_port(std::string script, const std::string& from, const std::string& to) {
  const auto at = script.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) script.replace(at, from.size(), to);
  return shell_port(script);
}

// A folder of hand-made vectors, removed at the end of the test.
class FakeVectors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("agent_session_conform_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void add(const std::string& name, const std::string& input, const std::string& expect_json) {
    std::filesystem::create_directories(dir_ / name);
    std::ofstream(dir_ / name / "input.jsonl", std::ios::binary) << input;
    std::ofstream(dir_ / name / "expect.json", std::ios::binary) << expect_json;
  }
  std::filesystem::path dir_;
};

// `out` without the "; reproduce: COMMAND" that ends each FAIL line, for
// tests about the rest of the line (conform_report_test tests the command).
inline std::string without_reproduce(const std::string& out) {
  std::string kept;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) kept += line.substr(0, line.find("; reproduce: ")) + '\n';
  return kept;
}

// The prefix that runs a command as nobody when the test is root, since
// permissions bind no root (a folder a port made unreadable, a vectors
// folder that cannot be listed); nothing otherwise.
inline std::vector<std::string> unprivileged() {
  if (::geteuid() != 0) return {};
  return {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
}

inline const std::string kOneMessage = R"({"checks":[{"args":["check"],"exit":0,"stdout":"1 messages\n"}]})";

}  // namespace agent_session::test_support
