// SPEC.md §6's exit 3 for a FILE that exists but cannot be read or made
// for a reason other than its absence, judged by three of the runner's
// own checks from vectors 1.6.0 (conform/runner/stream_checks.hpp):
// runner_file_directory (check, estimate, canon and trim on a folder),
// runner_append_directory (append to a folder) and
// runner_append_missing_folder (append to a path whose folder does not
// exist). No permission is ever taken away: the tests may run as root,
// whom chmod 000 does not stop. Ports: shell scripts that are right but
// for one planted mistake (the oracle's mutants are conform_streams_test's).
#include "conform/runner/stream_checks.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::conform;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;

// The three checks, as --only takes them.
const std::vector<std::string> kOnlyThem = {
    "--only", "runner_file_directory", "--only", "runner_append_directory", "--only", "runner_append_missing_folder"};

// A port right for the three: FILE is the last word; a folder is exit 3
// (read or append), and so is an append whose file cannot be made. One
// line, so that a FAIL line's reproduce command shows it as it is.
const std::string kRightPort =
    R"(case "$1" in trim) f=$4;; *) f=$2;; esac; )"
    R"([ "$1" = append ] && cat > /dev/null; )"
    R"(if [ -d "$f" ]; then )"
    R"([ "$1" = append ] && { echo "cannot open $f: Is a directory" >&2; exit 3; }; )"
    R"(echo "cannot read $f: Is a directory" >&2; exit 3; fi; )"
    R"(if [ "$1" = append ]; then )"
    R"({ true >> "$f"; } 2>/dev/null || { echo "cannot open $f: No such file or directory" >&2; exit 3; }; exit 0; fi; )"
    R"(echo "1 messages")";

// kRightPort with `from` replaced by `to`, once: one planted mistake.
std::vector<std::string> planted(const std::string& from, const std::string& to) {
  return test_support::planted_port(kRightPort, from, to);
}

std::vector<std::string> with(std::vector<std::string> options, const std::vector<std::string>& more) {
  options.insert(options.end(), more.begin(), more.end());
  return options;
}

class FileErrorChecks : public FakeVectors {
 protected:
  void SetUp() override {
    FakeVectors::SetUp();
    add("y_one", "{}\n", kOneMessage);
    std::ofstream(dir_ / "VERSION") << "1.6.0\n";
  }
};

TEST_F(FileErrorChecks, ListedAfterTheOtherRunnerChecksFromVectors160On) {
  const std::string before =
      "y_one\nbuiltin_missing_file\nrunner_stdin_closed\nrunner_stdin_directory\nrunner_stdout_full\n"
      "runner_stdout_closed\nrunner_extra_argument\nrunner_unknown_option\n";
  std::ofstream(dir_ / "VERSION") << "1.5.0\n";
  EXPECT_EQ(conform(dir_, {}, {"--list"}).out, before);
  std::ofstream(dir_ / "VERSION") << "1.6.0\n";
  EXPECT_EQ(conform(dir_, {}, {"--list"}).out,
            before + "runner_file_directory\nrunner_append_directory\nrunner_append_missing_folder\n");
}

TEST_F(FileErrorChecks, ARightPortPassesThem) {
  for (const auto& mode : {std::vector<std::string>{"--jobs", "2"}, {"--harness"}}) {
    // Harness mode cannot name a folder or a missing folder for FILE: the
    // runs are exec mode's there too, as the other runner's checks are.
    const std::string script = std::string("[ \"$1\" = harness ] && exit 9; ") + kRightPort;
    const auto r = conform(dir_, shell_port(script), with(kOnlyThem, mode));
    EXPECT_EQ(r.exit_code, 0) << mode[0] << r.out << r.err;
    EXPECT_EQ(r.out, "3 passed, 0 failed\n") << mode[0];
  }
}

TEST_F(FileErrorChecks, AFolderAnsweredWithAUsageErrorFailsEachCommand) {
  const auto r = conform(
      dir_, planted("read $f: Is a directory\" >&2; exit 3", "read $f: Is a directory\" >&2; exit 2"), kOnlyThem);
  EXPECT_EQ(r.exit_code, 1);
  const std::string out = test_support::without_reproduce(r.out);
  for (const char* command : {"check FILE", "estimate FILE", "canon FILE", "trim --max-chars 100 FILE"}) {
    EXPECT_NE(out.find(std::string("FAIL runner_file_directory (") + command + "): exit 2, expected 3; stderr: "),
              std::string::npos)
        << command << out;
  }
  EXPECT_NE(out.find("\n2 passed, 1 failed\n"), std::string::npos) << out;
  // The reproduce command makes a folder of its own for FILE.
  EXPECT_NE(r.out.find("; reproduce: d=$(mktemp -d) && sh -c "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" port check \"$d\"\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" port trim --max-chars 100 \"$d\"\n"), std::string::npos) << r.out;
}

TEST_F(FileErrorChecks, AppendToAFolderAnsweredWithExit4Fails) {
  const auto r = conform(
      dir_, planted("open $f: Is a directory\" >&2; exit 3", "open $f: Is a directory\" >&2; exit 4"), kOnlyThem);
  EXPECT_EQ(r.exit_code, 1);
  // The runner's temporary folder is named "$d" in the quoted stderr, as
  // in the reproduce command: its name changes from run to run.
  EXPECT_NE(r.out.find("FAIL runner_append_directory (append FILE): exit 4, expected 3; stderr: \"cannot open $d: Is a "
                       "directory\\n\"; reproduce: d=$(mktemp -d) && printf '' | sh -c "),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("agent-session-conform-own-"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" port append \"$d\"\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n2 passed, 1 failed\n"), std::string::npos) << r.out;
}

TEST_F(FileErrorChecks, AppendInAMissingFolderAnsweredWithExit4Fails) {
  const auto r = conform(
      dir_, planted("No such file or directory\" >&2; exit 3", "No such file or directory\" >&2; exit 4"), kOnlyThem);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAIL runner_append_missing_folder (append FILE): exit 4, expected 3; stderr: \"cannot open "),
            std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find("cannot open $d/absent/session.jsonl: No such file or directory\\n\"; reproduce: d=$(mktemp -d) && "
                 "printf '' | sh -c "),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" port append \"$d/absent/session.jsonl\"\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n2 passed, 1 failed\n"), std::string::npos) << r.out;
}

// FILE cannot be made where its folder does not exist (ENOENT): exit 3,
// SPEC.md §6. A port that makes the folder first (mkdir -p) never meets
// that error, and ends 0.
TEST_F(FileErrorChecks, MakingTheMissingFolderFails) {
  const auto r = conform(dir_, planted("{ true >> \"$f\"; }", "{ mkdir -p \"${f%/*}\" && : >> \"$f\"; }"), kOnlyThem);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(test_support::without_reproduce(r.out),
            "FAIL runner_append_missing_folder (append FILE): exit 0, expected 3\n2 passed, 1 failed\n");
}

// SPEC.md §6's table: one line on standard error, nothing on standard output.
TEST_F(FileErrorChecks, OneLineOnStandardErrorAndNoOutput) {
  auto r = conform(dir_, planted("echo \"cannot read $f: Is a directory\" >&2;", "echo 0 messages; echo no >&2;"),
                   {"--only", "runner_file_directory"});
  EXPECT_NE(r.out.find("FAIL runner_file_directory (check FILE): stdout is not empty (11 bytes: "), std::string::npos)
      << r.out;
  r = conform(dir_, planted("echo \"cannot open $f: Is a directory\" >&2;", ""), {"--only", "runner_append_directory"});
  EXPECT_NE(r.out.find("FAIL runner_append_directory (append FILE): stderr is empty, expected one line with the "
                       "reason (SPEC.md §6)"),
            std::string::npos)
      << r.out;
}

TEST(FileErrorCheckVectors, TheirFilesAreAFolderAndAPathInAMissingFolder) {
  const fs::path session = "/tmp/own/session.jsonl";
  const auto folder = conform::runner::runner_check_vector("runner_file_directory", session);
  ASSERT_EQ(folder.checks.size(), 4u);
  for (const auto& check : folder.checks) {
    EXPECT_EQ(check.file, "/tmp/own");
    EXPECT_EQ(check.exit, 3);
    EXPECT_TRUE(check.one_stderr_line);
  }
  EXPECT_EQ(folder.checks[3].args, (std::vector<std::string>{"trim", "--max-chars", "100"}));
  const auto append = conform::runner::runner_check_vector("runner_append_directory", session);
  ASSERT_EQ(append.checks.size(), 1u);
  EXPECT_EQ(append.checks[0].file, "/tmp/own");
  EXPECT_EQ(append.checks[0].args, std::vector<std::string>{"append"});
  const auto missing = conform::runner::runner_check_vector("runner_append_missing_folder", session);
  ASSERT_EQ(missing.checks.size(), 1u);
  EXPECT_EQ(missing.checks[0].file, "/tmp/own/absent/session.jsonl");
  EXPECT_EQ(missing.rules, (std::vector<std::string>{"R6-13", "R6-15", "R6-18", "R6.1-1"}));
}

}  // namespace
}  // namespace agent_session
