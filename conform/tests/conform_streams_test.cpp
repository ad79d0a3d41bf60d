// SPEC.md §6's streams rules and usage errors, judged by the runner's own
// checks (conform/runner/stream_checks.hpp), and the launcher that runs a
// port with standard input or output closed or opened on a path
// (conform/runner/subprocess.hpp). Ports: shell scripts that are right but
// for one planted mistake, our CLI, the JavaScript oracle and its mutants.
#include "conform/runner/stream_checks.hpp"
#include "conform/runner/subprocess.hpp"
#include "harness/argument_forms.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <system_error>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using conform::runner::kDefaultOutputLimit;
using conform::runner::ProcessEnd;
using conform::runner::run_process;
using conform::runner::StandardStreams;
using conform::runner::StreamSource;
using test_support::conform;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;
using Kind = StreamSource::Kind;

const fs::path kSource = AGENT_SESSION_SOURCE_DIR;
const fs::path kVectors = kSource / "corpus" / "conformance";
const auto kLimit = std::chrono::minutes(1);  // a safety net against a hang, never a measured time

conform::runner::ProcessResult run_sh(const std::string& script, const StandardStreams& streams,
                                      std::string_view input = "") {
  return run_process({"sh", "-c", script}, input, kLimit, kDefaultOutputLimit, {}, streams);
}

// ---------------------------------------------------------------- the launcher

TEST(RunProcessStreams, StandardInputClosedReachesTheProgramClosed) {
  const auto r = run_sh("readlink /proc/self/fd/0 || echo closed", {{Kind::closed, ""}, {}}, "ignored");
  ASSERT_EQ(r.end, ProcessEnd::exited) << r.err;
  EXPECT_EQ(r.out, "closed\n");
}

TEST(RunProcessStreams, StandardInputOnAFolderIsThatFolder) {
  const auto r = run_sh("readlink /proc/self/fd/0", {{Kind::path, "/"}, {}});
  ASSERT_EQ(r.end, ProcessEnd::exited) << r.err;
  EXPECT_EQ(r.out, "/\n");
}

TEST(RunProcessStreams, StandardOutputOnDevFullFailsItsWrites) {
  const auto r = run_sh("echo hi 2>/dev/null; echo \"status $?\" >&2", {{}, {Kind::path, "/dev/full"}});
  ASSERT_EQ(r.end, ProcessEnd::exited) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "status 1\n");
}

TEST(RunProcessStreams, StandardOutputClosedReachesTheProgramClosed) {
  const auto r = run_sh("readlink /proc/self/fd/1 || echo closed >&2", {{}, {Kind::closed, ""}});
  ASSERT_EQ(r.end, ProcessEnd::exited) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "closed\n");
}

TEST(RunProcessStreams, BothClosedStillCaptureStandardErrorAndTheExit) {
  const auto r = run_sh("echo on stderr >&2; exit 3", {{Kind::closed, ""}, {Kind::closed, ""}});
  ASSERT_EQ(r.end, ProcessEnd::exited) << r.err;
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "on stderr\n");
}

TEST(RunProcessStreams, PipesStayTheDefault) {
  const auto r = run_sh("cat", {}, "bytes");
  EXPECT_EQ(r.out, "bytes");
}

TEST(RunProcessStreams, APathThatCannotBeOpenedIsTheRunnersErrorNamed) {
  try {
    run_sh("true", {{}, {Kind::path, "/nonexistent/full"}});
    FAIL() << "no error";
  } catch (const std::system_error& error) {
    EXPECT_NE(std::string(error.what()).find("cannot open /nonexistent/full for the program's standard output"),
              std::string::npos)
        << error.what();
  }
}

// ---------------------------------------------------------------- the runner's checks

// A port right for every runner's check (and for kOneMessage): usage
// errors exit 2, a failed read or write exit 3, one line each.
// One line, so that a FAIL line's reproduce command shows it as it is.
const std::string kRightPort =
    R"(case "$2" in --*) echo "unknown option $2" >&2; exit 2;; esac; )"
    R"(case "$1" in check|canon) ;; *) echo "usage" >&2; exit 2;; esac; )"
    R"([ $# -eq 2 ] || { echo "usage: $1 FILE" >&2; exit 2; }; )"
    R"(if [ "$2" = - ]; then data=$(cat 2>/dev/null) || { echo "cannot read standard input" >&2; exit 3; }; fi; )"
    R"(if [ "$1" = check ]; then echo "1 messages"; exit 0; fi; )"
    R"(cat "$2" 2>/dev/null || { echo "cannot write standard output" >&2; exit 3; })";

// kRightPort with `from` replaced by `to`, once: one planted mistake.
std::vector<std::string> planted(const std::string& from, const std::string& to) {
  return test_support::planted_port(kRightPort, from, to);
}

class RunnerChecks : public FakeVectors {
 protected:
  void SetUp() override {
    FakeVectors::SetUp();
    add("y_one", "{}\n", kOneMessage);
    std::ofstream(dir_ / "VERSION") << "1.4.0\n";
  }
};

TEST_F(RunnerChecks, ListedAfterTheVectorsFromVectors140On) {
  std::ofstream(dir_ / "VERSION") << "1.3.0\n";
  EXPECT_EQ(conform(dir_, {}, {"--list"}).out, "y_one\nbuiltin_missing_file\n");
  std::ofstream(dir_ / "VERSION") << "1.4.0\n";
  EXPECT_EQ(conform(dir_, {}, {"--list"}).out,
            "y_one\nbuiltin_missing_file\nrunner_stdin_closed\nrunner_stdin_directory\nrunner_stdout_full\n"
            "runner_stdout_closed\nrunner_extra_argument\nrunner_unknown_option\n");
}

TEST_F(RunnerChecks, ARightPortPassesEachOnce) {
  const auto r = conform(dir_, shell_port(kRightPort), {"--only", "runner_*"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "6 passed, 0 failed\n");
}

TEST_F(RunnerChecks, AClosedOrFolderInputAnsweredWithExit1FailsBoth) {
  const auto r = conform(dir_, planted("read standard input\" >&2; exit 3", "read standard input\" >&2; exit 1"),
                         {"--only", "runner_stdin_*"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(test_support::without_reproduce(r.out),
            "FAIL runner_stdin_closed (check - <&-): exit 1, expected 3; stderr: \"cannot read standard input\\n\"\n"
            "FAIL runner_stdin_directory (check - < /): exit 1, expected 3; stderr: \"cannot read standard "
            "input\\n\"\n0 passed, 2 failed\n");
  EXPECT_NE(r.out.find("; reproduce: sh -c "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" port check - <&-\n"), std::string::npos) << r.out;
}

TEST_F(RunnerChecks, AnOutputErrorIgnoredFailsTheFullAndTheClosedOutput) {
  const auto r = conform(dir_, planted("cat \"$2\" 2>/dev/null ||", "cat \"$2\" 2>/dev/null; exit 0 ||"),
                         {"--only", "runner_stdout_*"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAIL runner_stdout_full (canon FILE > /dev/full): exit 0, expected 3; reproduce: f=$(mktemp) "
                       "&& printf '%s\\n' '{\"role\":\"user\",\"content\":\"hi\"}' > \"$f\" && sh -c "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" port canon \"$f\" > /dev/full\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL runner_stdout_closed (canon FILE >&-): exit 0, expected 3"), std::string::npos) << r.out;
}

TEST_F(RunnerChecks, ASignalIsNeverAnExit) {
  const auto r = conform(dir_, planted("echo \"cannot write standard output\" >&2; exit 3", "kill -SEGV $$"),
                         {"--only", "runner_stdout_full"});
  EXPECT_NE(r.out.find("FAIL runner_stdout_full (canon FILE > /dev/full): killed by signal 11 (Segmentation fault), "
                       "expected exit 3"),
            std::string::npos)
      << r.out;
}

TEST_F(RunnerChecks, StandardErrorMustBeExactlyOneLine) {
  auto r = conform(dir_, planted("echo \"cannot read standard input\" >&2;", "printf 'cannot\\nread\\n' >&2;"),
                   {"--only", "runner_stdin_closed"});
  EXPECT_EQ(test_support::without_reproduce(r.out),
            "FAIL runner_stdin_closed (check - <&-): stderr holds 2 lines (\"cannot\\nread\\n\"), expected exactly "
            "one (SPEC.md §6)\n0 passed, 1 failed\n");
  r = conform(dir_, planted("echo \"cannot read standard input\" >&2;", ""), {"--only", "runner_stdin_closed"});
  EXPECT_NE(r.out.find("stderr is empty, expected one line with the reason (SPEC.md §6)"), std::string::npos) << r.out;
}

TEST_F(RunnerChecks, OutputOnAFailureFails) {
  const auto r = conform(dir_, planted("echo \"cannot read standard input\" >&2;", "echo 0 messages; echo no >&2;"),
                         {"--only", "runner_stdin_directory"});
  EXPECT_NE(r.out.find("FAIL runner_stdin_directory (check - < /): stdout is not empty (11 bytes: "), std::string::npos)
      << r.out;
}

TEST_F(RunnerChecks, AnExtraArgumentOrAnUnknownOptionMustBeExit2) {
  auto r = conform(dir_, planted("[ $# -eq 2 ] ||", "[ $# -ge 2 ] ||"), {"--only", "runner_*"});
  EXPECT_EQ(test_support::without_reproduce(r.out),
            "FAIL runner_extra_argument (check FILE extra): exit 0, expected 2\n5 passed, 1 failed\n");
  EXPECT_NE(r.out.find(" port check \"$f\" extra\n"), std::string::npos) << r.out;
  r = conform(dir_, planted("--*) echo \"unknown option $2\" >&2; exit 2;;", "--*) echo \"no file $2\" >&2; exit 3;;"),
              {"--only", "runner_*"});
  EXPECT_EQ(test_support::without_reproduce(r.out),
            "FAIL runner_unknown_option (check --bogus FILE): exit 3, expected 2; stderr: \"no file --bogus\\n\"\n"
            "5 passed, 1 failed\n");
}

TEST_F(RunnerChecks, TheSkipFileAndOnlyApplyToThem) {
  std::ofstream(dir_ / "skip.txt") << "runner_stdout_full\nrunner_stdout_closed\n";
  const auto r = conform(dir_, planted("cat \"$2\" 2>/dev/null ||", "cat \"$2\" 2>/dev/null; exit 0 ||"),
                         {"--only", "runner_*", "--skip-file", (dir_ / "skip.txt").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out,
            "SKIP runner_stdout_full (listed in the skip file)\nSKIP runner_stdout_closed (listed in the skip "
            "file)\n4 passed, 0 failed, 2 skipped\n");
}

TEST_F(RunnerChecks, AVectorFolderCannotTakeTheirNames) {
  add("runner_stdin_closed", "{}\n", kOneMessage);
  const auto r = conform(dir_, shell_port(kRightPort), {"--only", "runner_stdin_closed"});
  EXPECT_NE(r.out.find("FAIL runner_stdin_closed: unusable vector: runner_stdin_closed is the name of one of the "
                       "runner's own checks\n"),
            std::string::npos)
      << r.out;
}

// Harness mode cannot close a run's stream or carry a word past FILE, so
// these runs are exec mode's there too (a process each): a harness port
// is judged on them as in exec mode, never skipped.
TEST_F(RunnerChecks, HarnessModeRunsThemInExecMode) {
  // Its `harness` answers nothing right: every run below must be exec mode's.
  const std::string script = "[ \"$1\" = harness ] && exit 9; " + kRightPort;
  auto r = conform(dir_, shell_port(script), {"--harness", "--only", "runner_*"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "6 passed, 0 failed\n");
  r = conform(dir_, planted("[ $# -eq 2 ] ||", "[ $# -ge 2 ] ||"), {"--harness", "--only", "runner_extra_*"});
  EXPECT_EQ(test_support::without_reproduce(r.out),
            "FAIL runner_extra_argument (check FILE extra): exit 0, expected 2\n0 passed, 1 failed\n");
}

TEST_F(RunnerChecks, ReportsCarryThem) {
  const fs::path json = dir_ / "r.json", junit = dir_ / "r.xml";
  auto r = conform(dir_, planted("read standard input\" >&2; exit 3", "read standard input\" >&2; exit 1"),
                   {"--only", "runner_stdin_closed", "--only", "runner_extra_argument", "--report",
                    "json=" + json.string(), "--report", "junit=" + junit.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::ifstream json_in(json);
  const auto report = nlohmann::json::parse(json_in);
  ASSERT_EQ(report["results"].size(), 2u) << report.dump();
  const auto& closed = report["results"][0];
  EXPECT_EQ(closed["name"], "runner_stdin_closed");
  EXPECT_EQ(closed["verdict"], "fail");
  EXPECT_EQ(closed["checks"][0]["args"], nlohmann::json::array({"check"}));
  EXPECT_EQ(closed["checks"][0]["input"], "stdin");
  EXPECT_EQ(closed["checks"][0]["after"], "<&-");
  EXPECT_EQ(closed["checks"][0]["message"], "exit 1, expected 3; stderr: \"cannot read standard input\\n\"");
  EXPECT_EQ(report["results"][1]["checks"][0]["after"], "extra");
  EXPECT_EQ(report["results"][1]["verdict"], "pass");
  std::ifstream junit_in(junit);
  const std::string xml((std::istreambuf_iterator<char>(junit_in)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find(R"(<testcase classname="runner_stdin_closed" name="check - &lt;&amp;-")"), std::string::npos)
      << xml;
  EXPECT_NE(xml.find(R"(<testcase classname="runner_extra_argument" name="check FILE extra")"), std::string::npos)
      << xml;
  r = conform(dir_, shell_port(kRightPort), {"--only", "runner_*", "--format", "tap"});
  EXPECT_NE(r.out.find("ok 1 - runner_stdin_closed\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ok 6 - runner_unknown_option\n"), std::string::npos) << r.out;
}

// SPEC.md §6.1: no vector can give the usage checks' words, and no
// harness request carries them; the other checks' are the table's forms
// (`append` a file check's).
TEST(RunnerCheckForms, OnlyTheRunnerPassesTheUsageChecksWords) {
  for (const auto& name : conform::runner::runner_check_names()) {
    const auto vector = conform::runner::runner_check_vector(name, "/tmp/FILE");
    ASSERT_FALSE(vector.checks.empty()) << name;
    for (const auto& check : vector.checks) {
      std::vector<std::string> argv = check.args;
      argv.push_back(check.file);
      argv.insert(argv.end(), check.after_file.begin(), check.after_file.end());
      const bool usage = check.exit == 2;
      // A vector gives no word after FILE at all; its args are refused.
      const bool append = check.args[0] == "append";
      EXPECT_EQ(harness::argument_form_problem(check.args, append).has_value() || !check.after_file.empty(), usage)
          << name;
      EXPECT_EQ(harness::run_argv_problem(argv).has_value(), usage) << name;
    }
  }
}

// ---------------------------------------------------------------- real ports

TEST(ConformOurCli, PassesTheRunnersOwnChecks) {
  for (const char* mode : {"--jobs", "--harness"}) {
    std::vector<std::string> options = {"--only", "runner_*", mode};
    if (std::string(mode) == "--jobs") options.push_back("2");
    const auto r = conform(kVectors, {AGENT_SESSION_CLI}, options);
    EXPECT_EQ(r.exit_code, 0) << mode << r.out << r.err;
    EXPECT_EQ(r.out, "9 passed, 0 failed\n") << mode;
  }
}

TEST(ConformJavaScriptOracle, PassesTheRunnersOwnChecks) {
  const auto r = conform(kVectors, {"node", (kSource / "tests" / "oracle" / "cli.mjs").string()},
                         {"--only", "runner_*", "--timeout", "60"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "9 passed, 0 failed\n");
}

struct StreamMutant {
  const char* script;
  const char* fail_lines;  // the one vector's FAIL lines, without their reproduce commands
};

void PrintTo(const StreamMutant& mutant, std::ostream* out) { *out << mutant.script; }

class StreamsConformMutant : public ::testing::TestWithParam<StreamMutant> {};

// Each fails exactly one vector of all, the runner's check named with its
// reason (each command of it, for runner_file_directory).
TEST_P(StreamsConformMutant, FailsExactlyItsRunnerCheck) {
  const auto r = conform(kVectors, {"node", (kSource / "tests" / "mutants" / GetParam().script).string()},
                         {"--harness", "--jobs", "2", "--timeout", "60"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::smatch summary;
  const std::string shown = test_support::without_reproduce(r.out);
  ASSERT_TRUE(std::regex_search(shown, summary, std::regex("^((FAIL [^\n]*\n)+)([0-9]+) passed, 1 failed\n$")))
      << r.out;
  // A port's stderr may name FILE, in the runner's temporary folder: the
  // runner names that folder "$d", as the reproduce command does.
  EXPECT_EQ(summary[1].str(), std::string(GetParam().fail_lines) + "\n");
}

INSTANTIATE_TEST_SUITE_P(
    Mutants, StreamsConformMutant,
    ::testing::Values(StreamMutant{"stdin_closed_exit_1.mjs",
                                   "FAIL runner_stdin_closed (check - <&-): exit 1, expected 3; stderr: \"cannot "
                                   "read standard input\\n\""},
                      StreamMutant{"extra_argument_accepted.mjs",
                                   "FAIL runner_extra_argument (check FILE extra): exit 0, expected 2"},
                      StreamMutant{"file_directory_exit_2.mjs",
                                   "FAIL runner_file_directory (check FILE): exit 2, expected 3; stderr: \"$d: not "
                                   "a file\\n\"\n"
                                   "FAIL runner_file_directory (estimate FILE): exit 2, expected 3; stderr: \"$d: "
                                   "not a file\\n\"\n"
                                   "FAIL runner_file_directory (canon FILE): exit 2, expected 3; stderr: \"$d: not "
                                   "a file\\n\"\n"
                                   "FAIL runner_file_directory (trim --max-chars 100 FILE): exit 2, expected 3; "
                                   "stderr: \"$d: not a file\\n\""},
                      StreamMutant{"append_directory_exit_4.mjs",
                                   "FAIL runner_append_directory (append FILE): exit 4, expected 3; stderr: \"$d: "
                                   "EISDIR: illegal operation on a directory, read\\n\""},
                      StreamMutant{"append_missing_folder_exit_2.mjs",
                                   "FAIL runner_append_missing_folder (append FILE): exit 2, expected 3; stderr: "
                                   "\"$d/absent/session.jsonl: no such folder\\n\""}),
    [](const auto& info) {
      std::string name = info.param.script;
      return name.substr(0, name.find('.'));
    });

}  // namespace
}  // namespace agent_session
