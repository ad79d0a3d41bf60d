// `agent-session-conform export` (conform/exporter/export_command.hpp):
// its options, its errors (one line each, exit 2 usage, 3 I/O), --out
// written as a report is (never through a link), and the binary's
// dispatch, its --help and the help's example, run as written.
#include "conform/exporter/export_command.hpp"

#include "conform/runner/subprocess.hpp"
#include "support/fake_vectors.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using agent_session::conform::runner::ProcessEnd;
using agent_session::conform::runner::run_process;

struct ExportRun {
  int code;
  std::string out, err;
};

class ExportCommandTest : public agent_session::test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    fs::create_directories(path("v/y_one"));
    write(path("v/VERSION"), "1.4.0\n");
    write(path("v/y_one/input.jsonl"), "{\"role\":\"user\",\"content\":\"hi\"}\n");
    write(path("v/y_one/expect.json"), agent_session::test_support::kOneMessage);
  }
  static ExportRun run(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    const int code = agent_session::conform::exporter::export_main(args, "agent-session-conform", out, err);
    return {code, out.str(), err.str()};
  }
  // A failure: `code`, nothing on standard output, one line on standard
  // error naming the program and holding `says`.
  static void expect_error(const ExportRun& r, int code, const std::string& says) {
    EXPECT_EQ(r.code, code) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("agent-session-conform export: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
};

TEST_F(ExportCommandTest, WritesTheDocumentOnStandardOutputOrInOut) {
  const ExportRun r = run({"--format", "json", "--vectors", path("v").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["document"], "agent-session conformance vectors");
  EXPECT_EQ(json["vectors"][0]["name"], "y_one");
  const ExportRun to_file =
      run({"--format=json", "--vectors=" + path("v").string(), "--out", path("doc.json").string()});
  ASSERT_EQ(to_file.code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(read(path("doc.json")), r.out);
}

TEST_F(ExportCommandTest, BadOptionsAreUsageErrors) {
  const std::string v = path("v").string();
  expect_error(run({"--vectors", v}), 2, "--format is required (--format json)");
  expect_error(run({"--format", "xml", "--vectors", v}), 2, "--format: \"xml\" is not json");
  expect_error(run({"--format", "json", "--format", "json", "--vectors", v}), 2, "--format given twice");
  expect_error(run({"--format", "json", "--bogus"}), 2, "unknown option \"--bogus\"");
  expect_error(run({"--format", "json", "extra"}), 2, "unexpected argument \"extra\"");
  expect_error(run({"--format", "json", "--out"}), 2, "--out needs a value");
  expect_error(run({"--format", "json", "--out", ""}), 2, "--out needs a value, not the empty string");
  expect_error(run({"--format", "json", "--vectors", path("nowhere").string()}), 2, "cannot read the vectors folder");
  expect_error(run({"--format", "json", "--vectors", path("v/y_one/input.jsonl").string()}), 2,
               "cannot read the vectors folder");
  fs::remove(path("v/VERSION"));
  expect_error(run({"--format", "json", "--vectors", v}), 2, "have no version");
}

TEST_F(ExportCommandTest, OutIsNeverWrittenThroughALink) {
  write(path("target"), "kept");
  fs::create_symlink(path("target"), path("link.json"));
  expect_error(run({"--format", "json", "--vectors", path("v").string(), "--out", path("link.json").string()}), 3,
               "cannot write '" + path("link.json").string() + "': it is a symbolic link");
  EXPECT_EQ(read(path("target")), "kept");
  expect_error(run({"--format", "json", "--vectors", path("v").string(), "--out", path("no/such/doc.json").string()}),
               3, "cannot write '" + path("no/such/doc.json").string() + "'");
}

TEST_F(ExportCommandTest, AnUnusableVectorIsExitOneAndNothingIsWritten) {
  fs::create_directories(path("v/y_bad"));
  write(path("v/y_bad/input.jsonl"), "");
  write(path("v/y_bad/expect.json"), R"({"checks":[{"args":["conform","--","sh"],"exit":0,"stdout":""}]})");
  expect_error(run({"--format", "json", "--vectors", path("v").string(), "--out", path("doc.json").string()}), 1,
               "y_bad: unusable vector:");
  EXPECT_FALSE(fs::exists(path("doc.json")));
}

ExportRun binary(const std::string& script) {
  const auto limit = std::chrono::minutes(1);
  const auto r = run_process({"sh", "-c", script, "sh", AGENT_SESSION_CONFORM}, "", limit);
  EXPECT_EQ(r.end, ProcessEnd::exited) << r.err;
  return {r.exit_code, r.out, r.err};
}

TEST_F(ExportCommandTest, TheProgramDispatchesExportAndItsHelpsExampleRuns) {
  const ExportRun help = binary("\"$1\" export --help");
  ASSERT_EQ(help.code, 0) << help.err;
  const std::string example = "agent-session-conform export --format json --out vectors.json";
  ASSERT_NE(help.out.find("Example:\n  " + example + "\n"), std::string::npos) << help.out;
  // The example as written, the program's name aside, in a folder of its
  // own: the build tree's default vectors, the corpus.
  const ExportRun ran = binary("cd '" + dir_.string() + "' && \"$1\"" + example.substr(example.find(" export")));
  ASSERT_EQ(ran.code, 0) << ran.err;
  const auto json = nlohmann::json::parse(read(path("vectors.json")));
  EXPECT_GT(json["vectors"].size(), 200u);
  EXPECT_EQ(json["runner_checks"].size(), 10u);  // builtin_missing_file and the nine runner_* checks
  // And the runner's help names it.
  const ExportRun conform_help = binary("\"$1\" --help");
  EXPECT_NE(conform_help.out.find("export --format json"), std::string::npos) << conform_help.out;
  const ExportRun usage = binary("\"$1\" export --format yaml");
  EXPECT_EQ(usage.code, 2);
  EXPECT_EQ(usage.err,
            "agent-session-conform export: --format: \"yaml\" is not json (the one format) "
            "(agent-session-conform export --help)\n");
}

TEST_F(ExportCommandTest, StandardOutputThatCannotBeWrittenIsExitThree) {
  const ExportRun full = binary("\"$1\" export --format json --vectors '" + path("v").string() + "' > /dev/full");
  EXPECT_EQ(full.code, 3);
  EXPECT_EQ(full.err, "agent-session-conform: cannot write standard output: No space left on device\n");
}

}  // namespace
