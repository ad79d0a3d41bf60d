// File checks (runner/file_check.hpp; corpus/conformance/README.md "Checks
// that write FILE"): a check that gives standard input runs once, with
// FILE a fresh copy of input.jsonl (or a path that does not exist, or
// `-`), and FILE's bytes after the run are judged too, in exec mode and
// in harness mode alike; the vector's folder is never written. Then the
// real `append` vectors (SPEC.md §6): the torn-tail mutant fails them,
// with the same verdicts in both modes.
#include "conform/runner/conform.hpp"
#include "conform/runner/subprocess.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::conform;
using test_support::FakeVectors;
using test_support::shell_port;
using test_support::without_reproduce;

const fs::path kSource = AGENT_SESSION_SOURCE_DIR;
const fs::path kVectors = kSource / "corpus" / "conformance";

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A port that appends standard input to FILE ($2) as it is.
const auto kCatPort = shell_port(R"(cat >> "$2")");

// One append check: FILE holds "a\n", standard input "b\n".
const std::string kAppendB = R"({"checks":[{"args":["append"],"stdin":"b\n","exit":0,"file_after":"a\nb\n"}]})";

TEST_F(FakeVectors, AFileCheckComparesFilesBytesAfterTheRun) {
  add("y_append", "a\n", kAppendB);
  auto r = conform(dir_, kCatPort);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "1 passed, 0 failed\n");
  // A port that writes other bytes fails, the first difference shown
  // printable, with its line; one that writes nothing fails too.
  r = conform(dir_, shell_port(R"(tr b c >> "$2")"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_append (append FILE): FILE differs at byte 2 (line 2): expected \"a\\nb\\n\", got \"a\\nc\\n\"\n"
            "0 passed, 1 failed\n");
  r = conform(dir_, shell_port("cat > /dev/null"));
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_append (append FILE): FILE differs at byte 2 (line 2): expected \"a\\nb\\n\", got \"a\\n\" "
            "(4 bytes expected, 2 got)\n"
            "0 passed, 1 failed\n");
  // Bytes that are no text travel both ways in base64.
  add("y_append", "\xff\n", R"({"checks":[{"args":["append"],"stdin_b64":"AA==","exit":0,"file_after_b64":"/woA"}]})");
  r = conform(dir_, kCatPort);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // The judge's other rules hold first: exit code, then the streams.
  r = conform(dir_, shell_port(R"(cat >> "$2"; echo done)"));
  EXPECT_NE(
      r.out.find("FAIL y_append (append FILE): stdout differs at byte 0 (line 1): expected \"\", got \"done\\n\""),
      std::string::npos)
      << r.out;
}

TEST_F(FakeVectors, AFileCheckNeverWritesTheVectorsFolder) {
  add("y_append", "a\n", kAppendB);
  const fs::path log = dir_ / "files.log";
  // The port records the FILE it got, then appends to it.
  const auto r = conform(dir_, shell_port("echo \"$2\" >> '" + log.string() + "'; cat >> \"$2\""));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(file_bytes(dir_ / "y_append" / "input.jsonl"), "a\n");
  const std::string file = file_bytes(log);
  ASSERT_FALSE(file.empty());
  EXPECT_EQ(file.find(dir_.string()), std::string::npos) << file;
  // Each run's FILE and its folder are gone after the run.
  EXPECT_FALSE(fs::exists(file.substr(0, file.size() - 1))) << file;
  EXPECT_FALSE(fs::exists(fs::path(file.substr(0, file.size() - 1)).parent_path())) << file;
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_ / "y_append")) ++entries;
  EXPECT_EQ(entries, 2u);
}

TEST_F(FakeVectors, AFileThatDoesNotExistBeforeTheRun) {
  add("y_create", "ignored\n",
      R"({"checks":[{"args":["append"],"file":"absent","stdin":"b\n","exit":0,"file_after":"b\n"}]})");
  add("n_no_create", "",
      R"({"checks":[{"args":["append"],"file":"absent","stdin":"x\n","exit":1,"error":"bad","file_after":null}]})");
  // FILE is absent before the run; a port that creates it passes y_create.
  const auto right = shell_port(R"(if [ -e "$2" ]; then echo exists >&2; exit 9; fi; )"
                                R"sh(if [ "$(cat)" = x ]; then echo bad >&2; exit 1; fi; echo b > "$2")sh");
  auto r = conform(dir_, right);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "2 passed, 0 failed\n");
  // Creating FILE in a failing run, or not creating it, fails the check.
  r = conform(dir_, shell_port(R"sh(: > "$2"; if [ "$(cat)" = x ]; then echo bad >&2; exit 1; fi)sh"));
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL n_no_create (append FILE): FILE exists after the run (0 bytes: \"\"), expected no file\n"
            "FAIL y_create (append FILE): FILE differs at byte 0 (line 1): expected \"b\\n\", got \"\" "
            "(2 bytes expected, 0 got)\n"
            "0 passed, 2 failed\n");
  r = conform(dir_, shell_port("cat > /dev/null"), {"--only", "y_create"});
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_create (append FILE): FILE does not exist after the run, expected 2 bytes: \"b\\n\"\n"
            "0 passed, 1 failed\n");
}

TEST_F(FakeVectors, AFileCheckWithDashRunsOnceWithDash) {
  add("n_dash", "", R"({"checks":[{"args":["append"],"file":"-","stdin":"b\n","exit":2}]})");
  auto r = conform(dir_, shell_port(R"(if [ "$2" = - ]; then exit 2; fi; exit 0)"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = conform(dir_, shell_port("exit 0"));
  EXPECT_EQ(without_reproduce(r.out), "FAIL n_dash (append -): exit 0, expected 2\n0 passed, 1 failed\n");
}

// The reproduce command makes FILE as the runner did, feeds the same
// bytes and shows FILE: run by sh, it prints what the port left.
TEST_F(FakeVectors, AFileChecksReproduceCommandRuns) {
  add("y_append", "a\n", R"({"checks":[{"args":["append"],"stdin":"b'%\\\u0001\n","exit":0,"file_after":""}]})");
  const auto r = conform(dir_, kCatPort);
  EXPECT_EQ(r.exit_code, 1);
  const auto at = r.out.find("; reproduce: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string command = r.out.substr(at + 13, r.out.find('\n', at) - at - 13);
  EXPECT_EQ(command.find('\x01'), std::string::npos) << command;  // printable
  const auto run = conform::runner::run_process({"sh", "-c", command}, "", std::chrono::seconds(20));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "a\nb'%\\\x01\n") << command;
}

TEST_F(FakeVectors, AMalformedFileCheckIsAnUnusableVector) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"args":["append"],"stdin":"","exit":0,"stdout":"","file_after":""})", "a file check gives no stdout"},
      {R"({"args":["append"],"stdin":"","exit":0})", "a file check needs file_after"},
      {R"({"args":["append"],"stdin":"","stdin_b64":"","exit":0,"file_after":""})", "both stdin and stdin_b64"},
      {R"({"args":["append"],"stdin_b64":"A","exit":0,"file_after":""})", "stdin_b64 is not padded base64"},
      {R"({"args":["append"],"stdin":"","file":"gone","exit":0,"file_after":""})", "file must be"},
      {R"({"args":["append"],"stdin":"","exit":0,"file_after":null})", "file_after null"},
      {R"({"args":["check"],"exit":0,"stdout":"","file_after":""})", "need stdin"},
  };
  for (const auto& [check, problem] : cases) {
    add("y_bad", "", R"({"checks":[)" + check + "]}");
    const auto r = conform(dir_, kCatPort);
    EXPECT_EQ(r.exit_code, 1) << check;
    EXPECT_NE(r.out.find("FAIL y_bad: unusable vector: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(problem), std::string::npos) << check << ": " << r.out;
  }
}

// The real append vectors: the oracle passes them, the mutant that skips
// the torn-tail guard fails exactly the two whose FILE ends in a torn
// line, and harness mode gives exec mode's output line for line.
TEST(AppendVectors, HarnessModeGivesExecModesVerdicts) {
  for (const auto& [port, expected] : std::vector<std::pair<fs::path, std::vector<std::string>>>{
           {kSource / "tests" / "oracle" / "cli.mjs", {}},
           {kSource / "tests" / "mutants" / "append_torn_tail.mjs",
            {"n_append_last_line_not_a_message", "n_append_torn_last_line"}}}) {
    SCOPED_TRACE(port.string());
    const auto exec = conform(kVectors, {"node", port.string()}, {"--only", "*_append_*", "--jobs", "2"});
    const auto harness = conform(kVectors, {"node", port.string()}, {"--only", "*_append_*", "--harness"});
    EXPECT_EQ(exec.exit_code, expected.empty() ? 0 : 1) << exec.out << exec.err;
    EXPECT_EQ(harness.exit_code, exec.exit_code);
    EXPECT_EQ(harness.out, exec.out);
    std::vector<std::string> failed;
    const std::regex fail("^FAIL ([a-z_]+) ");
    std::istringstream lines(exec.out);
    for (std::string line; std::getline(lines, line);) {
      std::smatch name;
      if (std::regex_search(line, name, fail) && (failed.empty() || failed.back() != name[1]))
        failed.push_back(name[1]);
    }
    EXPECT_EQ(failed, expected) << exec.out;
  }
}

}  // namespace
}  // namespace agent_session
