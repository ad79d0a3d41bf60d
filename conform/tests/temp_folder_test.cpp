// The runner's temporary folders (runner/temp_folder.hpp) against a port
// that moves, removes or links them: what the runner removes it removes
// through the descriptors it holds, a folder moved away is emptied and
// named (exit 3), one the port removed is gone without a word, and a
// check whose folder cannot be made fails alone: the run goes on, its
// summary and reports written (SPEC.md §6.1).
#include "conform/runner/temp_folder.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::conform_binary;
using test_support::ConformRun;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;

// A port that moves one of the runner's temporary folders away and puts
// a link to a folder outside in its place: what the runner removes, it
// removes through the descriptors it holds (runner/temp_folder.hpp), so
// the folder outside keeps all it holds, the moved folder is emptied,
// and the run names the folder it could not remove and does not exit 0.
class MovedTemporaryFolder : public FakeVectors {
 protected:
  void SetUp() override {
    FakeVectors::SetUp();
    tmpdir_ = dir_.string() + "-tmp";
    victim_ = dir_.string() + "-victim";
    fs::remove_all(tmpdir_);
    fs::remove_all(victim_);
    fs::create_directories(tmpdir_);
    for (int i = 1; i <= 5; ++i) {
      fs::create_directories(victim_ / ("run-" + std::to_string(i)));
      std::ofstream(victim_ / ("run-" + std::to_string(i)) / "keep") << "x";
    }
    std::ofstream(victim_ / "keep") << "x";
    kept_ = tree(victim_);
  }
  void TearDown() override {
    fs::remove_all(tmpdir_);
    fs::remove_all(victim_);
    FakeVectors::TearDown();
  }
  static std::set<std::string> tree(const fs::path& folder) {
    std::set<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
      names.insert(fs::relative(entry.path(), folder).string());
    }
    return names;
  }
  // The runner with TMPDIR set to tmpdir_.
  ConformRun run(const std::vector<std::string>& command, const std::vector<std::string>& options = {}) {
    const auto r = conform_binary(dir_, command, options, {"env", "TMPDIR=" + tmpdir_.string()});
    return r;
  }
  // What the port moved (FOLDER.moved in TMPDIR) holds nothing, the
  // folder outside holds what it held, and the run said which folder it
  // could not remove.
  void expect_contained(const ConformRun& r, const std::string& prefix) {
    EXPECT_NE(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(tree(victim_), kept_);
    std::vector<fs::path> moved;
    for (const auto& entry : fs::directory_iterator(tmpdir_)) {
      if (entry.path().extension() == ".moved") moved.push_back(entry.path());
    }
    ASSERT_EQ(moved.size(), 1u) << r.out << r.err;
    EXPECT_TRUE(fs::is_empty(moved[0])) << moved[0];
    const std::string original = moved[0].parent_path() / moved[0].stem();
    EXPECT_NE(original.find(prefix), std::string::npos) << original;
    EXPECT_NE(r.err.find("agent-session-conform: cannot remove the temporary folder " + original + ": "),
              std::string::npos)
        << r.err;
  }
  fs::path tmpdir_, victim_;
  std::set<std::string> kept_;
};

const std::string kHiLine = "{\"role\":\"user\",\"content\":\"hi\"}\n";

TEST_F(MovedTemporaryFolder, ExecModeRemovesNothingThroughALinkToTheJobFolder) {
  add("y_one", kHiLine, kOneMessage);
  // Exec mode starts each run in JOB/run-N: its first run moves JOB.
  const std::string port =
      "d=$(pwd -P); j=${d%/*}; case $j in *.moved) ;; */agent-session-conform-job-*) "
      "[ -L \"$j\" ] || { mv \"$j\" \"$j.moved\" && ln -s '" +
      victim_.string() +
      "' \"$j\"; };; "
      "esac; exec " +
      std::string(AGENT_SESSION_CLI) + " \"$@\"";
  const auto r = run(shell_port(port));
  expect_contained(r, "agent-session-conform-job-");
}

TEST_F(MovedTemporaryFolder, ExecModeStartsNoLaterRunInsideALinkPlantedForTheJobFolder) {
  add("y_one", kHiLine, kOneMessage);
  add("y_two", kHiLine, kOneMessage);
  // Every run leaves a file in its working folder; the first also moves
  // JOB and links its name to the victim, which has a run-2 of its own.
  const std::string port =
      "touch planted; d=$(pwd -P); j=${d%/*}; case $j in *.moved) ;; */agent-session-conform-job-*) "
      "[ -L \"$j\" ] || { mv \"$j\" \"$j.moved\" && ln -s '" +
      victim_.string() +
      "' \"$j\"; };; "
      "esac; exec " +
      std::string(AGENT_SESSION_CLI) + " \"$@\"";
  const auto r = run(shell_port(port));
  EXPECT_NE(r.out.find("2 passed, 0 failed\n"), std::string::npos) << r.out << r.err;
  expect_contained(r, "agent-session-conform-job-");
}

TEST_F(MovedTemporaryFolder, HarnessModeRemovesNothingThroughALinkToTheJobFolder) {
  add("y_one", kHiLine, kOneMessage);
  add("y_two", kHiLine, kOneMessage);
  // Harness mode starts the port in JOB itself.
  const std::string port = "[ \"$1\" = harness ] && { d=$(pwd -P); mv \"$d\" \"$d.moved\" && ln -s '" +
                           victim_.string() + "' \"$d\"; }; exec " + std::string(AGENT_SESSION_CLI) + " \"$@\"";
  const auto r = run(shell_port(port), {"--harness"});
  EXPECT_NE(r.out.find("2 passed, 0 failed\n"), std::string::npos) << r.out << r.err;
  expect_contained(r, "agent-session-conform-job-");
}

TEST_F(MovedTemporaryFolder, AFileCheckRemovesNothingThroughALinkToFilesFolder) {
  add("y_append", kHiLine,
      R"({"checks":[{"args":["append"],"stdin":"{\"role\":\"user\",\"content\":\"hi\"}\n",)"
      R"("exit":0,"file_after":"{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"user\",)"
      R"(\"content\":\"hi\"}\n"}]})");
  const std::string port = std::string(AGENT_SESSION_CLI) +
                           " \"$@\"; s=$?; f=${2%/*}; mv \"$f\" \"$f.moved\" && ln -s '" + victim_.string() +
                           "' \"$f\"; exit $s";
  const auto r = run(shell_port(port));
  EXPECT_NE(r.out.find("1 passed, 0 failed\n"), std::string::npos) << r.out << r.err;
  expect_contained(r, "agent-session-conform-file-");
}

// Exec mode: the port moves its run's folder out of TMPDIR (no link in
// its place). The runner empties it through its descriptor and names it.
TEST_F(MovedTemporaryFolder, ARunFolderMovedAwayIsEmptiedAndNamedExitThree) {
  add("y_one", kHiLine, kOneMessage);
  const fs::path away = dir_.string() + "-away";
  fs::remove_all(away);
  fs::create_directories(away);
  // Each run's folder goes to away/run-N, with a file in it.
  const std::string port =
      "touch planted; mv \"$PWD\" '" + away.string() + "/' && exec " + std::string(AGENT_SESSION_CLI) + " \"$@\"";
  const auto r = run(shell_port(port));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("1 passed, 0 failed\n"), std::string::npos) << r.out;
  std::size_t moved = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(away)) {
    ++moved;
    EXPECT_TRUE(entry.is_directory() && fs::is_empty(entry.path())) << entry.path();
    EXPECT_NE(r.err.find("cannot remove the temporary folder "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("/" + entry.path().filename().string() + ": the port moved it to " + entry.path().string() +
                         " (what was in it is removed; the empty folder is left there)\n"),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(moved, 2u) << "one folder for each of the vector's two checks";
  fs::remove_all(away);
}

// The port removes the job's folder on its first run: that run passes,
// the later ones fail each with the reason, and the run goes on to its
// summary and report; nothing is left, so nothing is named.
TEST_F(MovedTemporaryFolder, AJobFolderThePortRemovedFailsTheLaterChecksAndTheRunGoesOn) {
  add("y_one", kHiLine, kOneMessage);
  add("y_two", kHiLine, kOneMessage);
  const fs::path report = dir_.string() + "-report.json";
  const std::string port = "rm -rf \"${PWD%/*}\"; exec " + std::string(AGENT_SESSION_CLI) + " \"$@\"";
  const auto r = run(shell_port(port), {"--report", "json=" + report.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // y_one's first check passed, its second failed: both vectors fail.
  EXPECT_NE(r.out.find("0 passed, 2 failed\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAIL y_one (check FILE)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL y_one (check -): cannot make the run's working folder "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No such file or directory"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("cannot remove"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(report));
  EXPECT_TRUE(fs::is_empty(tmpdir_));
  fs::remove(report);
}

// Harness mode: the port removes the folder it starts in; every check
// fails with the reason, the run ends with its summary.
TEST_F(MovedTemporaryFolder, HarnessModeAJobFolderThePortRemovedFailsEachCheckAndTheRunGoesOn) {
  add("y_one", kHiLine, kOneMessage);
  add("y_two", kHiLine, kOneMessage);
  const std::string port =
      "[ \"$1\" = harness ] && rm -rf \"$PWD\"; exec " + std::string(AGENT_SESSION_CLI) + " \"$@\"";
  const auto r = run(shell_port(port), {"--harness"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("0 passed, 2 failed\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cannot make the run's working folder "), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("cannot remove"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(tmpdir_));
}

// A port (root, in a mount namespace of its own) that bind-mounts a
// folder from outside into its run's folder: the removal never crosses
// the mount point, so the folder outside keeps all it holds, and the
// folder left is named (exit 3).
TEST_F(MovedTemporaryFolder, ABindMountInARunFolderIsNeverEmptiedThrough) {
  add("y_one", kHiLine, kOneMessage);
  const std::string port = "mkdir inner && mount --bind '" + victim_.string() + "' inner && exec " +
                           std::string(AGENT_SESSION_CLI) + " \"$@\"";
  const auto r =
      conform_binary(dir_, shell_port(port), {},
                     {"unshare", "--mount", "--propagation", "private", "env", "TMPDIR=" + tmpdir_.string()});
  EXPECT_EQ(tree(victim_), kept_);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("1 passed, 0 failed\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("cannot remove the temporary folder "), std::string::npos) << r.err;
}

}  // namespace
}  // namespace agent_session
