// What `agent-session conform` runs and which suite it is
// (conform/runner/conform_select.hpp): the vectors' VERSION and CHANGELOG.md,
// --version, --list, --only, --skip-file and --strict.
#include "conform/runner/conform_select.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::conform;
using test_support::conform_binary;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;

const fs::path kVectors = fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus" / "conformance";

std::string file_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// A port that answers every check of kOneMessage right and records each
// run's FILE in `log`, so a test sees which vectors ran.
std::vector<std::string> logging_port(const fs::path& log) {
  return shell_port("echo \"$2\" >> '" + log.string() + "'; printf '1 messages\\n'");
}

std::size_t lines_in(const fs::path& path) {
  std::ifstream file(path);
  std::size_t n = 0;
  for (std::string line; std::getline(file, line);) ++n;
  return n;
}

TEST(SemanticVersion, ThreeNumbersWithoutLeadingZerosAndNothingElse) {
  for (const char* good : {"0.0.0", "1.0.0", "10.20.30", "1.0.12345678901234567890", "18446744073709551615.0.0"}) {
    EXPECT_TRUE(conform::runner::is_semantic_version(good)) << good;
  }
  // A number past 2^64-1 is no number the runner can compare: not a version.
  for (const char* bad : {"", "1", "1.0", "1.0.0.0", "01.0.0", "1.00.0", "1.0.01", "1.0.0\n", " 1.0.0", "1.0.0-rc1",
                          "v1.0.0", "1..0", "1.0.", ".1.0", "1.x.0", "1.0.0 ", "18446744073709551616.0.0",
                          "1.18446744073709551616.0", "99999999999999999999999999.1.0"}) {
    EXPECT_FALSE(conform::runner::is_semantic_version(bad)) << bad;
  }
}

TEST(VectorsVersion, TheCorpusVersionIsSemanticAndHasAChangelogSection) {
  const auto version = conform::runner::read_vectors_version(kVectors);
  ASSERT_EQ(version.problem, "");
  EXPECT_TRUE(conform::runner::is_semantic_version(version.version)) << version.version;
  EXPECT_EQ(file_text(kVectors / "VERSION"), version.version + "\n");
  // Every release names what changed for a port.
  EXPECT_NE(file_text(kVectors / "CHANGELOG.md").find("\n## " + version.version + " ("), std::string::npos);
}

TEST(ConformVersion, PrintsTheRunnersAndTheVectorsVersions) {
  const std::string vectors = conform::runner::read_vectors_version(kVectors).version;
  const auto r = conform_binary(kVectors, {}, {"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::regex shape("agent-session conform (.*)\nvectors (.*) \\((.*)\\)\n");
  std::smatch parts;
  ASSERT_TRUE(std::regex_match(r.out, parts, shape)) << r.out;
  EXPECT_EQ(parts[1], std::string(conform::runner::runner_version()));
  EXPECT_TRUE(conform::runner::is_semantic_version(parts[1].str())) << parts[1];
  EXPECT_EQ(parts[2], vectors);
  EXPECT_EQ(parts[3], kVectors.string());
}

TEST_F(FakeVectors, AMissingOrMalformedVersionIsReportedClearly) {
  add("y_one", "{}\n", kOneMessage);
  auto r = conform(dir_, {}, {"--version"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "agent-session conform " + std::string(conform::runner::runner_version()) + "\n");
  EXPECT_EQ(r.err, "agent-session-conform: the vectors in '" + dir_.string() +
                       "' have no version: cannot open VERSION: No such file or directory\n");
  for (const std::string bad : {"1.0\n", "1.0.0\n\n", "v1.0.0\n", "1.0.0\x1b[2J\n", ""}) {
    std::ofstream(dir_ / "VERSION", std::ios::binary | std::ios::trunc) << bad;
    r = conform(dir_, {}, {"--version"});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("have no version: VERSION holds \""), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\", not MAJOR.MINOR.PATCH\n"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  }
  // Numbers that do not fit 64 bits: refused as any malformed VERSION,
  // never read as a version without the built-in vector (README.md step 3).
  std::ofstream(dir_ / "VERSION", std::ios::binary | std::ios::trunc) << "99999999999999999999999999.1.0\n";
  r = conform(dir_, {}, {"--version"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "agent-session-conform: the vectors in '" + dir_.string() +
                       "' have no version: VERSION holds \"99999999999999999999999999.1.0\\n\", not MAJOR.MINOR.PATCH "
                       "(a number past 18446744073709551615)\n");
  const fs::path report = dir_ / "report.json";
  r = conform(dir_, shell_port("printf '1 messages\\n'"), {"--report", "json=" + report.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("have no version (VERSION holds \"99999999999999999999999999.1.0\\n\", not MAJOR.MINOR.PATCH"),
            std::string::npos)
      << r.err;
  // Run from the wrong folder: the usual hint.
  r = conform(dir_ / "missing", {}, {"--version"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("No such file or directory (pass --vectors DIR)\n"), std::string::npos) << r.err;
  std::ofstream(dir_ / "VERSION", std::ios::binary | std::ios::trunc) << "2.3.4";  // the newline is optional
  r = conform(dir_, {}, {"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nvectors 2.3.4 ("), std::string::npos) << r.out;
}

TEST_F(FakeVectors, ListPrintsTheNamesInOrderAndRunsNothing) {
  add("y_b", "{}\n", kOneMessage);
  add("y_a", "{}\n", kOneMessage);
  add("n_c", "{}\n", kOneMessage);
  const fs::path log = dir_ / "log";  // a file, so no vector
  EXPECT_EQ(conform(dir_, {}, {"--list"}).out, "n_c\ny_a\ny_b\n");
  // A port's command line is what --list would ignore: an error, and run nothing.
  const auto refused = conform(dir_, logging_port(log), {"--list"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--list runs no port"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(log));
  const auto r = conform(dir_, {}, {"--list", "--only", "y_*"});  // needs no CMD
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "y_a\ny_b\n");
}

TEST_F(FakeVectors, OnlyRunsTheVectorsMatchingAnyGlob) {
  for (const char* name : {"y_trim_a", "y_trim_b", "y_canon_a", "n_trim_a"}) add(name, "{}\n", kOneMessage);
  const fs::path log = dir_ / "log";
  auto r = conform(dir_, logging_port(log), {"--only", "y_trim_*"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "2 passed, 0 failed\n");
  EXPECT_EQ(lines_in(log), 4u);  // two vectors, FILE and -
  fs::remove(log);
  r = conform(dir_, logging_port(log), {"--only", "*_a", "--only", "y_trim_?"});
  EXPECT_EQ(r.out, "4 passed, 0 failed\n");
  // A pattern that matches nothing is a typo, not an empty success.
  r = conform(dir_, logging_port(log), {"--only", "y_trim_*", "--only", "y_tirm_*"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "agent-session-conform: --only 'y_tirm_*' matches no vector\n");
}

// A vector of the skip file still runs, as in toml-test: one that fails
// is SKIP as ever, one that passes is in the skip file for nothing and
// the run says so (README.md step 4). Both count as skipped.
TEST_F(FakeVectors, SkippedVectorsRunAndThoseThatPassAreNamed) {
  for (const char* name : {"y_a", "y_b", "y_c", "y_d"}) add(name, "{}\n", kOneMessage);
  add("y_e", "{}\n", R"({"checks":[{"args":["check"],"exit":0,"stdout":"2 messages\n"}]})");
  const fs::path skip = dir_ / "skip.txt";
  std::ofstream(skip) << "# not yet in our port\n\n  y_b  \r\ny_d # surrogates: next release\n\t# y_a\ny_e\n";
  const fs::path log = dir_ / "log";
  const auto r = conform(dir_, logging_port(log), {"--skip-file", skip.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "SKIP y_b: listed in the skip file but passes; remove it from the skip file\n"
            "SKIP y_d: listed in the skip file but passes; remove it from the skip file\n"
            "SKIP y_e (listed in the skip file)\n"
            "2 passed, 0 failed, 3 skipped\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(lines_in(log), 10u);  // five vectors, FILE and -
  EXPECT_NE(file_text(log).find("y_b"), std::string::npos);
  // With --only, only the chosen vectors run and count.
  const auto some = conform(dir_, logging_port(log), {"--skip-file", skip.string(), "--only", "y_[ae]"});
  EXPECT_EQ(some.out, "SKIP y_e (listed in the skip file)\n1 passed, 0 failed, 1 skipped\n");
}

// A skip file that is no skip file (a link to /proc/self/environ, a
// report) is refused without printing its lines: only a line that could
// be a vector's name is shown.
TEST_F(FakeVectors, ASkipFileLineThatIsNoVectorNameIsNotShown) {
  add("y_a", "{\"role\":\"user\",\"content\":\"hi\"}\n", kOneMessage);
  const auto skip = dir_.string() + "-skip";
  std::ofstream(skip) << "y_a\nTOKEN=secret-value-123\n";
  auto r = conform(dir_, shell_port("printf '1 messages\\n'"), {"--skip-file", skip});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 2: not a vector name (22 bytes, not shown)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("secret-value"), std::string::npos) << r.err;
  std::ofstream(skip) << "y_b\n";
  r = conform(dir_, shell_port("printf '1 messages\\n'"), {"--skip-file", skip});
  EXPECT_NE(r.err.find("line 1: no vector named \"y_b\""), std::string::npos) << r.err;
  std::filesystem::remove(skip);
}

// The built-in vector's name is reserved: a folder that takes it is
// unusable, never a second result under the same name.
TEST_F(FakeVectors, AVectorFolderNamedAsTheBuiltInIsUnusable) {
  add("builtin_missing_file", "{\"role\":\"user\",\"content\":\"hi\"}\n", kOneMessage);
  std::ofstream(dir_ / "VERSION") << "1.3.0\n";  // vectors of a version with the built-in vector
  const auto r = conform_binary(dir_, {AGENT_SESSION_CLI});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL builtin_missing_file: unusable vector: builtin_missing_file is the runner's built-in"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 passed, 1 failed\n"), std::string::npos) << r.out;  // the built-in itself passes
}

// A TMPDIR whose name is not printable ASCII: the built-in's absent path is
// under /tmp instead, which a port can name on standard error as it is.
TEST_F(FakeVectors, TheBuiltInVectorPassesWithATmpdirNamedInOtherBytes) {
  add("y_a", "{\"role\":\"user\",\"content\":\"hi\"}\n", kOneMessage);
  std::ofstream(dir_ / "VERSION") << "1.3.0\n";  // vectors of a version with the built-in vector
  const std::string tmpdir = dir_.string() + "-t\xff";
  std::filesystem::create_directories(tmpdir);
  const auto r = conform_binary(dir_, {AGENT_SESSION_CLI}, {}, {"env", "TMPDIR=" + tmpdir});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "2 passed, 0 failed\n");
  std::filesystem::remove_all(tmpdir);
}

TEST_F(FakeVectors, TheReportsSayWhichSkippedVectorsPass) {
  add("y_a", "{}\n", kOneMessage);
  add("y_b", "{}\n", kOneMessage);
  add("y_c", "{}\n", R"({"checks":[{"args":["check"],"exit":0,"stdout":"2 messages\n"}]})");
  const fs::path skip = dir_ / "skip.txt";
  std::ofstream(skip) << "y_b\ny_c\n";
  const fs::path junit = dir_ / "r.xml", json = dir_ / "r.json";
  const auto r = conform(
      dir_, shell_port("printf '1 messages\\n'"),
      {"--skip-file", skip.string(), "--report", "junit=" + junit.string(), "--report", "json=" + json.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string xml = file_text(junit);
  EXPECT_NE(xml.find("<testcase classname=\"y_b\" name=\"vector\" time=\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"listed in the skip file but passes; remove it from the skip file\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped message=\"listed in the skip file\"/>"), std::string::npos) << xml;
  const std::string report = file_text(json);
  EXPECT_NE(report.find("\"skipped\": 2,\n    \"skipped_passing\": 1,"), std::string::npos) << report;
  EXPECT_NE(report.find("\"name\": \"y_b\",\n      \"verdict\": \"skip\",\n      \"message\": \"listed in the skip "
                        "file but passes; remove it from the skip file\""),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("\"name\": \"y_c\",\n      \"verdict\": \"skip\",\n      \"message\": \"listed in the skip "
                        "file\""),
            std::string::npos)
      << report;
  // TAP too.
  const auto tap =
      conform(dir_, shell_port("printf '1 messages\\n'"), {"--skip-file", skip.string(), "--format", "tap"});
  EXPECT_NE(tap.out.find("ok 2 - y_b # SKIP listed in the skip file but passes; remove it from the skip file\n"),
            std::string::npos)
      << tap.out;
  EXPECT_NE(tap.out.find("ok 3 - y_c # SKIP listed in the skip file\n"), std::string::npos) << tap.out;
}

TEST_F(FakeVectors, StrictFailsOnAnySkipAndNamesTheOnesThatPass) {
  add("y_a", "{}\n", kOneMessage);
  add("y_b", "{}\n", kOneMessage);
  const fs::path skip = dir_ / "skip.txt";
  std::ofstream(skip) << "y_b\n";
  const auto port = shell_port("printf '1 messages\\n'");
  auto r = conform(dir_, port, {"--skip-file", skip.string(), "--strict"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "SKIP y_b: listed in the skip file but passes; remove it from the skip file\n"
            "1 passed, 0 failed, 1 skipped\n");
  EXPECT_EQ(r.err,
            "agent-session-conform: --strict: 1 vector skipped, 1 of them passing (remove them from the skip file)\n");
  // A skipped vector that fails is still a skip, and still fails --strict.
  const auto fails_b = shell_port(R"(case "$2" in *y_b*) echo 2 messages;; *) echo 1 messages;; esac)");
  r = conform(dir_, fails_b, {"--skip-file", skip.string(), "--strict"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "SKIP y_b (listed in the skip file)\n1 passed, 0 failed, 1 skipped\n");
  EXPECT_EQ(r.err, "agent-session-conform: --strict: 1 vector skipped\n");
  // Without --strict, a passing skipped vector is reported, not a failure.
  EXPECT_EQ(conform(dir_, port, {"--skip-file", skip.string()}).exit_code, 0);
  EXPECT_EQ(conform(dir_, port, {"--strict"}).exit_code, 0);
  std::ofstream(skip, std::ios::trunc) << "# nothing skipped\n";
  r = conform(dir_, port, {"--skip-file", skip.string(), "--strict"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 passed, 0 failed\n");
}

TEST_F(FakeVectors, ARunInWhichEveryVectorWasSkippedFails) {
  add("y_a", "{}\n", kOneMessage);
  add("y_b", "{}\n", kOneMessage);
  const fs::path skip = dir_ / "skip.txt";
  std::ofstream(skip) << "y_a\ny_b\n";
  // Even when they pass: the skip file says they do not count.
  const auto r = conform(dir_, shell_port("printf '1 messages\\n'"), {"--skip-file", skip.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.ends_with("0 passed, 0 failed, 2 skipped\n")) << r.out;
  EXPECT_EQ(
      r.err,
      "agent-session-conform: every vector chosen was skipped (2, run but not counted): a run that checks nothing is "
      "not a pass\n");
}

TEST_F(FakeVectors, ASkipFileNamingNoVectorOrUnreadableIsAUsageError) {
  add("y_one", "{}\n", kOneMessage);
  const fs::path skip = dir_ / "skip.txt";
  std::ofstream(skip) << "y_one\n\n# fine so far\ny_oen\n";
  const auto port = shell_port("printf '1 messages\\n'");
  auto r = conform(dir_, port, {"--skip-file", skip.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "agent-session-conform: skip file '" + skip.string() + "' line 4: no vector named \"y_oen\"\n");
  // Names are exact: no glob, no case folding, no escape forged in the error.
  for (const std::string name : {"y_*", "Y_ONE", "y_one\x1b[2J"}) {
    std::ofstream(skip, std::ios::trunc) << name << "\n";
    r = conform(dir_, port, {"--skip-file", skip.string()});
    EXPECT_EQ(r.exit_code, 2) << name;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  }
  r = conform(dir_, port, {"--skip-file", (dir_ / "missing.txt").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "agent-session-conform: cannot read the skip file '" + (dir_ / "missing.txt").string() +
                       "': No such file or directory\n");
  r = conform(dir_, port, {"--skip-file", dir_.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is a directory, not a regular file"), std::string::npos) << r.err;
}

TEST_F(FakeVectors, NoCommandIsAUsageErrorOnlyWhenSomethingMustRun) {
  add("y_one", "{}\n", kOneMessage);
  const auto r = conform(dir_, {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("conform needs the port's command line after --"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace agent_session
