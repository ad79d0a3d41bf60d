// Runs every vector in corpus/conformance/ (layout: its README.md) through
// the command-line protocol, in process, with the conformance runner's own
// reader and judge (runner/conform_judge.hpp): once with the file's path and
// once with `-` and the bytes on standard input, and the runner's built-in
// missing-FILE checks (SPEC.md §6); a file check (`append`) once, on a
// fresh FILE the runner's CheckFile makes and judges after the run.
#include "cli/cli.hpp"
#include "conform/runner/conform_judge.hpp"
#include "conform/runner/file_check.hpp"
#include "conform/runner/vector_files.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <sstream>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

const fs::path kVectors = fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus" / "conformance";
constexpr std::chrono::milliseconds kNoTimeout{0};  // in process: judge never sees a timeout

std::vector<conform::runner::VectorDir> vectors() {
  std::error_code error;
  std::vector<conform::runner::VectorDir> dirs = conform::runner::vector_dirs(kVectors, error);
  if (error) ADD_FAILURE() << kVectors << ": " << error.message();
  return dirs;
}

// `agent-session ARGS... FILE` in process, as the runner's judge sees a run.
conform::runner::ProcessResult run_in_process(std::vector<std::string> args, const std::string& file,
                                              const std::string& input) {
  args.push_back(file);
  std::istringstream in(input);
  std::ostringstream out, err;
  conform::runner::ProcessResult result;
  result.exit_code = cli::run(args, in, out, err);
  result.end = conform::runner::ProcessEnd::exited;
  result.out = out.str();
  result.err = err.str();
  return result;
}

// Every check of `vector` as the runner runs it; a failure says why in
// the runner's own words.
void expect_passes(const conform::runner::Vector& vector) {
  ASSERT_EQ(vector.problem, "");
  ASSERT_FALSE(vector.checks.empty());
  for (const conform::runner::Check& check : vector.checks) {
    if (check.stdin_bytes) {  // a file check: once, on a fresh FILE, judged after (SPEC.md §6 append)
      const conform::runner::CheckFile file(check, vector.input);
      const conform::runner::ProcessResult result = run_in_process(check.args, file.path(), *check.stdin_bytes);
      const auto verdict = conform::runner::judge(check, result, kNoTimeout);
      EXPECT_FALSE(verdict.has_value()) << check.args.front() << " FILE: " << verdict.value_or("");
      const auto after = file.judge_after();
      EXPECT_FALSE(after.has_value()) << check.args.front() << " FILE: " << after.value_or("");
      continue;
    }
    const bool once = !check.file.empty();
    for (const bool use_stdin : {false, true}) {
      if (use_stdin && once) continue;
      const std::string file = once ? check.file : use_stdin ? "-" : vector.input_path.string();
      const conform::runner::ProcessResult result = run_in_process(check.args, file, use_stdin ? vector.input : "");
      const auto verdict = conform::runner::judge(check, result, kNoTimeout);
      std::string args;
      for (const auto& word : check.args) args += word + " ";
      EXPECT_FALSE(verdict.has_value()) << args << (use_stdin ? "-" : file) << ": " << verdict.value_or("");
      if (result.exit_code != 0) {
        EXPECT_EQ(result.out, "") << args << ": nothing is printed on a failure";
      }
    }
  }
}

class Conformance : public ::testing::TestWithParam<conform::runner::VectorDir> {};

TEST_P(Conformance, EveryCheckAnswersAsExpected) { expect_passes(conform::runner::load_vector(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Vectors, Conformance, ::testing::ValuesIn(vectors()), [](const auto& info) {
  std::string name = info.param.path.filename().string();  // gtest names allow [A-Za-z0-9_] only
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
});

TEST(ConformanceSuite, HasAVectorForEveryRule) { EXPECT_GE(vectors().size(), 60u); }

TEST(ConformanceSuite, AMissingFileIsExitThreeForEveryCommand) {
  expect_passes(
      conform::runner::missing_file_vector(fs::path(::testing::TempDir()) / "agent_session_absent" / "s.jsonl"));
}

}  // namespace
}  // namespace agent_session
