// Where a port runs (runner/port_runner.hpp; corpus/conformance/README.md,
// step 2: where a port runs): every run in a fresh, empty folder of its own,
// removed after it, in exec mode and in harness mode, so nothing a port
// writes lands beside the runner; the command's relative words still
// name what they named; and harness mode's working directory travels as
// runner-chosen ASCII relative to the port's starting folder, so a
// runner started in a folder it may enter but not list, or whose name is
// not UTF-8, runs as exec mode does.
#include "conform/runner/port_runner.hpp"
#include "conform/runner/subprocess.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::conform_binary;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::unprivileged;

std::set<std::string> entries(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
  return names;
}

// The runner as the real binary, started in `folder` (and as nobody when
// `as` says so), the vectors and the port named relative to it.
std::vector<std::string> in_folder(const fs::path& folder, const std::vector<std::string>& as = {}) {
  std::vector<std::string> prefix = as;
  prefix.insert(prefix.end(), {"sh", "-c", "cd \"$0\" && exec \"$@\"", folder.string()});
  return prefix;
}

const std::string kHi = "{\"role\":\"user\",\"content\":\"hi\"}\n";

// A folder beside the test's vectors, removed at the end.
class Beside : public FakeVectors {
 protected:
  void SetUp() override {
    FakeVectors::SetUp();
    here_ = dir_.string() + "-here";
    fs::remove_all(here_);
    fs::create_directories(here_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(here_, fs::perms::owner_all, ignored);
    fs::remove_all(here_);
    FakeVectors::TearDown();
  }
  fs::path here_;
};

// A wrong port (SPEC.md §6.1: every run in a folder of its own): `append -` appends to a file named `-` in
// its working directory; it also leaves a file of its own there, and
// fails when the folder it starts in is not empty.
const std::string kLitteringPort =
    R"sh([ -z "$(ls -A)" ] || { echo "not a fresh folder: $(ls -A)" >&2; exit 7; }; echo x > left-behind; )sh"
    R"sh(case $1 in append) cat >> "$2";; check) echo 1 messages;; esac)sh";

TEST_F(Beside, APortWritesNothingBesideTheRunnerInExecOrHarnessMode) {
  fs::create_directories(here_ / "v");
  std::ofstream(here_ / "port.sh") << kLitteringPort;
  // Relative --vectors and a relative word in the command: FILE and the
  // port's script reach a port that runs elsewhere as absolute paths.
  const fs::path vectors = "v";
  const std::vector<std::pair<std::string, std::string>> vectors_made = {
      {"y_one", kOneMessage},
      {"n_append_file_dash", R"({"checks":[{"args":["append"],"file":"-","stdin":"b\n","exit":2}]})"}};
  for (const auto& [name, expect] : vectors_made) {
    fs::create_directories(here_ / "v" / name);
    std::ofstream(here_ / "v" / name / "input.jsonl") << "{}\n";
    std::ofstream(here_ / "v" / name / "expect.json") << expect;
  }
  const std::vector<std::string> exec = {"sh", "port.sh"};
  const std::vector<std::string> adapter = {AGENT_SESSION_CLI, "conform", "exec-adapter", "--", "sh", "port.sh"};
  for (const bool harness : {false, true}) {
    const auto r =
        conform_binary(vectors, harness ? adapter : exec,
                       harness ? std::vector<std::string>{"--harness"} : std::vector<std::string>{}, in_folder(here_));
    const char* mode = harness ? "harness mode: " : "exec mode: ";
    EXPECT_EQ(r.exit_code, 1) << mode << r.out << r.err;
    EXPECT_NE(r.out.find("FAIL n_append_file_dash (append -): exit 0, expected 2"), std::string::npos) << mode << r.out;
    EXPECT_NE(r.out.find("1 passed, 1 failed\n"), std::string::npos) << mode << r.out;
    EXPECT_EQ(r.out.find("not a fresh folder"), std::string::npos) << mode << r.out;
    EXPECT_EQ(entries(here_), (std::set<std::string>{"port.sh", "v"})) << mode;
  }
}

// A harness port starts in the folder that holds the runs' folders and
// can plant the next one's name (a link to a folder of ours): the run
// takes another, and nothing is written through the link.
TEST_F(Beside, APlantedNextRunFolderIsNeverUsed) {
  add("y_one", kHi, kOneMessage);
  add("y_two", kHi, kOneMessage);
  fs::create_directories(here_ / "victim");
  const std::string plant = "n=$(basename \"$PWD\"); n=${n#run-}; ln -s '" + (here_ / "victim").string() +
                            "' \"../run-$((n + 1))\"; echo x > left-behind; echo 1 messages";
  const auto r = conform_binary(dir_, {AGENT_SESSION_CLI, "conform", "exec-adapter", "--", "sh", "-c", plant, "port"},
                                {"--harness"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "2 passed, 0 failed\n");
  EXPECT_TRUE(entries(here_ / "victim").empty());
}

// Passes in a folder it may enter but not list (0711), as nobody: harness
// mode as exec mode (it failed every check: open(".") needs read).
TEST_F(Beside, HarnessModeFromAFolderItMayEnterButNotListPassesAsExecMode) {
  add("y_one", kHi, kOneMessage);
  add("y_canon", kHi,
      R"({"checks":[{"args":["canon"],"exit":0,"stdout":"{\"role\":\"user\",\"content\":\"hi\"}\n"}]})");
  ASSERT_EQ(::chmod(here_.c_str(), 0711), 0);
  for (const bool harness : {false, true}) {
    const auto r = conform_binary(dir_, {AGENT_SESSION_CLI},
                                  harness ? std::vector<std::string>{"--harness"} : std::vector<std::string>{},
                                  in_folder(here_, unprivileged()));
    EXPECT_EQ(r.exit_code, 0) << (harness ? "harness: " : "exec: ") << r.out << r.err;
    EXPECT_EQ(r.out, "2 passed, 0 failed\n");
  }
}

// Started in a folder whose name is not UTF-8 (it exited 3 on
// `[json.exception.type_error.316]`: the cwd went into every request).
TEST_F(Beside, HarnessModeFromAFolderNamedInBytesThatAreNotUtf8PassesAsExecMode) {
  add("y_one", kHi, kOneMessage);
  const fs::path odd = here_ / "\xff\xfe-not-utf-8";
  fs::create_directories(odd);
  for (const bool harness : {false, true}) {
    const auto r =
        conform_binary(dir_, {AGENT_SESSION_CLI},
                       harness ? std::vector<std::string>{"--harness"} : std::vector<std::string>{}, in_folder(odd));
    EXPECT_EQ(r.exit_code, 0) << (harness ? "harness: " : "exec: ") << r.out << r.err;
    EXPECT_EQ(r.out, "1 passed, 0 failed\n");
  }
}

// The server side (agent-session harness; harness.md §3): a relative cwd
// resolves against the folder it started in, an unlistable one, and it
// is back there after each run.
TEST_F(Beside, TheHarnessServerTakesARelativeCwdFromAFolderItMayNotList) {
  fs::create_directories(here_ / "run-1");
  std::ofstream(here_ / "run-1" / "s.jsonl") << "{\"role\":\"user\",\"content\":\"hi\"}\n";
  ASSERT_EQ(::chmod(here_.c_str(), 0711), 0);
  std::vector<std::string> argv = in_folder(here_, unprivileged());
  argv.insert(argv.end(), {AGENT_SESSION_CLI, "harness"});
  const auto r = conform::runner::run_process(
      argv,
      "{\"op\":\"start\",\"protocol\":1}\n"
      "{\"op\":\"run\",\"seq\":1,\"argv\":[\"check\",\"s.jsonl\"],\"stdin_b64\":\"\","
      "\"cwd\":\"run-1\"}\n"
      "{\"op\":\"run\",\"seq\":2,\"argv\":[\"check\",\"run-1/s.jsonl\"],\"stdin_b64\":\"\"}\n"
      "{\"op\":\"stop\"}\n",
      std::chrono::minutes(1));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // "1 messages\n" is MSBtZXNzYWdlcwo=.
  EXPECT_NE(r.out.find("{\"op\":\"run\",\"seq\":1,\"exit\":0,\"stdout_b64\":\"MSBtZXNzYWdlcwo=\",\"stderr_b64\":\"\"}"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("{\"op\":\"run\",\"seq\":2,\"exit\":0,\"stdout_b64\":\"MSBtZXNzYWdlcwo=\",\"stderr_b64\":\"\"}"),
            std::string::npos)
      << r.out;
}

// The rule corpus/conformance/README.md states (step 2: where a port runs).
TEST_F(Beside, TheCommandsRelativePathsBecomeAbsolute) {
  fs::create_directories(here_ / "bin");
  std::ofstream(here_ / "bin" / "port") << "";
  std::ofstream(here_ / "cli.mjs") << "";
  const fs::path home = fs::current_path();
  fs::current_path(here_);
  const auto resolved = conform::runner::resolved_command(
      {"bin/port", "cli.mjs", "-c", "exit 2", "/abs", "absent.mjs", "", "bin", "./bin"});
  const auto bare = conform::runner::resolved_command({"node", "cli.mjs"});
  const auto absent = conform::runner::resolved_command({"build/agent-session"});
  fs::current_path(home);
  const std::string at = here_.string() + "/";
  EXPECT_EQ(resolved, (std::vector<std::string>{at + "bin/port", at + "cli.mjs", "-c", "exit 2", "/abs", "absent.mjs",
                                                "", "bin", at + "./bin"}));
  EXPECT_EQ(bare, (std::vector<std::string>{"node", at + "cli.mjs"}));  // a program without '/': PATH's
  EXPECT_EQ(absent, (std::vector<std::string>{at + "build/agent-session"}));
}

}  // namespace
}  // namespace agent_session
