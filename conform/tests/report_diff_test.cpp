// `agent-session-conform report --diff OLD.json NEW.json [--markdown]`
// (conform/runner/report_diff.hpp, report_command.hpp): the checks that
// newly fail, newly pass, appeared and disappeared; the exit code; the
// text and Markdown forms; reports as untrusted input; and the diff of a
// mutant port's report against the JavaScript oracle's.
#include "conform/runner/report_diff.hpp"
#include "conform/runner/report_command.hpp"
#include "conform/runner/subprocess.hpp"
#include "support/fake_vectors.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using conform::runner::diff_reports;
using conform::runner::parse_report;
using conform::runner::ReportError;

const fs::path kSource = AGENT_SESSION_SOURCE_DIR;

// A JSON report of one vector per entry of `vectors`: {name, [verdicts of
// its checks' runs, two per check]}; a vector with no runs is reported
// with `vector_verdict` alone (a skipped or unusable vector).
nlohmann::json report(const std::vector<std::pair<std::string, std::vector<std::string>>>& vectors,
                      const std::string& vector_verdict = "skip") {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& [name, runs] : vectors) {
    nlohmann::json checks = nlohmann::json::array();
    for (std::size_t i = 0; i < runs.size(); ++i) {
      nlohmann::json run = {{"index", i / 2},
                            {"args", {"estimate"}},
                            {"input", i % 2 ? "stdin" : "file"},
                            {"verdict", runs[i]},
                            {"seconds", 0}};
      if (runs[i] == "fail" || runs[i] == "xfail") run["message"] = "stdout differs at byte 0";
      checks.push_back(run);
    }
    results.push_back({{"name", name}, {"verdict", runs.empty() ? vector_verdict : "pass"}, {"checks", checks}});
  }
  return {{"format", "agent-session-conform-report"},
          {"format_version", 1},
          {"runner_version", "0.1.0"},
          {"vectors_version", "1.4.0"},
          {"command", {"./my-port"}},
          {"results", results}};
}

std::vector<std::string> keys(const std::vector<conform::runner::ReportDiff::Entry>& entries) {
  std::vector<std::string> names;
  for (const auto& entry : entries) names.push_back(entry.key);
  return names;
}

using Names = std::vector<std::string>;

TEST(ReportDiff, ListsWhatNewlyFailsNewlyPassesAppearedAndDisappeared) {
  const auto before = parse_report(report({{"y_a", {"pass", "pass", "fail", "fail"}},
                                           {"y_b", {"fail", "pass"}},
                                           {"y_gone", {"pass", "pass"}},
                                           {"y_same", {"fail", "fail"}}})
                                       .dump());
  const auto after = parse_report(report({{"y_a", {"pass", "fail", "pass", "pass"}},
                                          {"y_b", {"pass", "pass"}},
                                          {"y_new", {"pass", "pass", "fail", "pass"}},
                                          {"y_same", {"xfail", "fail"}}})
                                      .dump());
  const auto diff = diff_reports(before, after);
  EXPECT_EQ(keys(diff.newly_failing), (Names{"y_a#1"}));
  EXPECT_EQ(keys(diff.newly_passing), (Names{"y_a#2", "y_b#1"}));
  EXPECT_EQ(keys(diff.appeared), (Names{"y_new#1", "y_new#2"}));
  EXPECT_EQ(keys(diff.disappeared), (Names{"y_gone#1"}));
  EXPECT_FALSE(diff.clean());
  // An expected failure (xfail) still fails, an unexpected pass passes:
  // listing a failure in a known-failures file is no change of the port.
  EXPECT_TRUE(diff_reports(before, before).clean());
  EXPECT_EQ(diff_reports(before, before).newly_failing.size(), 0u);
}

TEST(ReportDiff, ACheckThatAppearsFailingIsANewFailure) {
  const auto before = parse_report(report({{"y_a", {"pass", "pass"}}}).dump());
  const auto passing = parse_report(report({{"y_a", {"pass", "pass"}}, {"y_new", {"pass", "pass"}}}).dump());
  const auto failing = parse_report(report({{"y_a", {"pass", "pass"}}, {"y_new", {"pass", "fail"}}}).dump());
  EXPECT_TRUE(diff_reports(before, passing).clean());
  EXPECT_FALSE(diff_reports(before, failing).clean());
  EXPECT_TRUE(diff_reports(failing, before).clean());  // one that disappears fails nothing
}

// A vector reported without checks (skipped, or unusable) stands for each
// of its checks on the other side.
TEST(ReportDiff, AVectorWithoutChecksStandsForItsChecks) {
  const auto skipped = parse_report(report({{"y_a", {}}}, "skip").dump());
  const auto unusable = parse_report(report({{"y_a", {}}}, "fail").dump());
  const auto now = parse_report(report({{"y_a", {"pass", "pass", "fail", "fail"}}}).dump());
  auto diff = diff_reports(skipped, now);
  EXPECT_EQ(keys(diff.newly_failing), (Names{"y_a#2"}));
  EXPECT_TRUE(diff.appeared.empty() && diff.disappeared.empty());
  diff = diff_reports(unusable, now);
  EXPECT_EQ(keys(diff.newly_passing), (Names{"y_a#1"}));
  EXPECT_TRUE(diff.newly_failing.empty());
  diff = diff_reports(now, unusable);
  EXPECT_EQ(keys(diff.newly_failing), (Names{"y_a#1"}));
}

TEST(ReportDiff, TheTextAndMarkdownFormsNameEachCheckWithItsArguments) {
  const auto before = parse_report(report({{"y_a", {"pass", "pass"}}, {"y_gone", {"fail", "pass"}}}).dump());
  const auto after = parse_report(report({{"y_a", {"fail", "pass"}}, {"y_new", {"pass", "pass"}}}).dump());
  const auto diff = diff_reports(before, after);
  std::ostringstream text, markdown;
  write_diff_text(before, after, diff, text);
  EXPECT_EQ(text.str(),
            "old: runner 0.1.0, vectors 1.4.0, ./my-port\n"
            "new: runner 0.1.0, vectors 1.4.0, ./my-port\n"
            "newly failing (1):\n"
            "  y_a#1 (estimate): stdout differs at byte 0\n"
            "appeared (1):\n"
            "  y_new#1 (estimate): passes\n"
            "disappeared (1):\n"
            "  y_gone#1 (estimate): fails: stdout differs at byte 0\n"
            "1 newly failing, 0 newly passing, 1 appeared (0 failing), 1 disappeared\n");
  write_diff_markdown(before, after, diff, markdown);
  EXPECT_EQ(markdown.str(),
            "### Conformance: changes since the previous report\n\n"
            "- old: `runner 0.1.0, vectors 1.4.0, ./my-port`\n"
            "- new: `runner 0.1.0, vectors 1.4.0, ./my-port`\n\n"
            "**1 newly failing, 0 newly passing, 1 appeared (0 failing), 1 disappeared**\n\n"
            "#### Newly failing (1)\n\n"
            "- `y_a#1` `estimate`: `stdout differs at byte 0`\n\n"
            "#### Appeared (1)\n\n"
            "- `y_new#1` `estimate`: passes\n\n"
            "#### Disappeared (1)\n\n"
            "- `y_gone#1` `estimate`: fails: `stdout differs at byte 0`\n");
}

// A report is untrusted: what it says is shown inert (no control byte
// raw, no backtick to end a code span), and one that is no report, too
// deep, too large or malformed is refused with the reason.
TEST(ReportDiff, AReportIsUntrustedInput) {
  auto hostile = report({{"y_\x1b[2Ja`b", {"fail", "pass"}}});
  const auto before = parse_report(report({{"y_\x1b[2Ja`b", {"pass", "pass"}}}).dump());
  const auto after = parse_report(hostile.dump());
  std::ostringstream text, markdown;
  write_diff_text(before, after, diff_reports(before, after), text);
  write_diff_markdown(before, after, diff_reports(before, after), markdown);
  EXPECT_EQ(text.str().find('\x1b'), std::string::npos);
  EXPECT_NE(text.str().find("y_\\x1b[2Ja`b#1"), std::string::npos) << text.str();
  EXPECT_NE(markdown.str().find("`y_\\x1b[2Ja'b#1`"), std::string::npos) << markdown.str();
  const auto refused = [](const std::string& text) {
    try {
      parse_report(text);
    } catch (const ReportError& error) {
      EXPECT_FALSE(error.io);
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused("not json").find("not a JSON report: not JSON"), std::string::npos);
  EXPECT_NE(refused(std::string(100, '[') + std::string(100, ']')).find("nested deeper than 64 levels"),
            std::string::npos);
  EXPECT_NE(refused(R"({"format":"junit","format_version":1,"results":[]})").find("format_version 1"),
            std::string::npos);
  EXPECT_NE(
      refused(R"({"format":"agent-session-conform-report","format_version":2,"results":[]})").find("format_version 1"),
      std::string::npos);
  EXPECT_EQ(refused(R"({"format":"agent-session-conform-report","format_version":1,"results":[{"name":"y"}]})"),
            "result 1 has no name, verdict or checks");
  hostile["results"][0]["checks"][0]["index"] = -1;
  EXPECT_NE(refused(hostile.dump()).find("result 1 has a check without a whole index"), std::string::npos);
}

class ReportCommand : public test_support::TempDirTest {
 protected:
  std::string file(const std::string& name) const { return path(name).string(); }
  // agent-session-conform itself: `report` is dispatched by its main.
  conform::runner::ProcessResult kit(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {AGENT_SESSION_CONFORM};
    argv.insert(argv.end(), args.begin(), args.end());
    return conform::runner::run_process(argv, "", std::chrono::minutes(1));
  }
};

TEST_F(ReportCommand, ExitCodesSayWhetherSomethingNewlyFails) {
  write(path("old.json"), report({{"y_a", {"pass", "pass"}}}).dump());
  write(path("new.json"), report({{"y_a", {"pass", "fail"}}}).dump());
  auto r = kit({"report", "--diff", file("old.json"), file("new.json")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("newly failing (1):\n  y_a#1 (estimate)"), std::string::npos) << r.out;
  r = kit({"report", "--diff", file("new.json"), file("old.json"), "--markdown"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("#### Newly passing (1)\n\n- `y_a#1`"), std::string::npos) << r.out;
  for (const std::vector<std::string>& usage :
       std::vector<std::vector<std::string>>{{"report"},
                                             {"report", "--diff", file("old.json")},
                                             {"report", "--diff", file("old.json"), "--markdown"},
                                             {"report", "--bogus"}}) {
    r = kit(usage);
    EXPECT_EQ(r.exit_code, 2) << usage.back() << r.err;
    EXPECT_TRUE(r.err.starts_with("agent-session-conform: report: ")) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  write(path("junit.xml"), "<testsuites/>");
  r = kit({"report", "--diff", file("old.json"), file("junit.xml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "agent-session-conform: report --diff: cannot use the report '" + file("junit.xml") +
                       "': not a JSON report: not JSON: byte 1: syntax error while parsing value - invalid literal; "
                       "last read: '<'\n");
  r = kit({"report", "--diff", file("old.json"), file("missing.json")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "agent-session-conform: report --diff: cannot read the report '" + file("missing.json") +
                       "': No such file or directory\n");
  // --help wins wherever it stands, a --diff missing its files too.
  for (const std::vector<std::string>& help : {std::vector<std::string>{"report", "--help", "--diff"},
                                               {"report", "--diff", "--help"},
                                               {"report", "--diff", "-h"}}) {
    r = kit(help);
    EXPECT_EQ(r.exit_code, 0) << help.back() << r.err;
    EXPECT_NE(r.out.find("report --diff old.json new.json --markdown"), std::string::npos) << r.out;
  }
}

// The JSON report of a mutant port (tests/mutants/utf8_bytes.mjs: bytes
// instead of UTF-16 code units) against the oracle's, both written by
// the runner: the estimate checks of non-ASCII vectors newly fail.
class ConformMutantReport : public test_support::TempDirTest {};

TEST_F(ConformMutantReport, TheDiffOfAMutantAgainstTheOracleNamesItsNewFailures) {
  const auto run = [&](const std::string& port, const std::string& json) {
    return test_support::conform(kSource / "corpus" / "conformance", {"node", (kSource / "tests" / port).string()},
                                 {"--harness", "--only", "y_estimate_*", "--report", "json=" + json});
  };
  const std::string oracle = path("oracle.json").string(), mutant = path("mutant.json").string();
  ASSERT_EQ(run("oracle/cli.mjs", oracle).exit_code, 0);
  ASSERT_EQ(run("mutants/utf8_bytes.mjs", mutant).exit_code, 1);
  std::ostringstream out, err;
  const auto code = conform::runner::report_main({"report", "--diff", oracle, mutant}, out, err);
  EXPECT_EQ(code, std::optional<int>(1)) << err.str();
  EXPECT_NE(out.str().find("\n  y_estimate_cjk#2 (estimate): stdout differs at byte 0"), std::string::npos)
      << out.str();
  EXPECT_EQ(out.str().find("y_estimate_ascii"), std::string::npos) << out.str();  // ASCII: bytes are code units
  EXPECT_NE(out.str().find(" newly failing, 0 newly passing, 0 appeared (0 failing), 0 disappeared\n"),
            std::string::npos)
      << out.str();
  // And back: the oracle newly passes them all, nothing newly fails.
  std::ostringstream back;
  EXPECT_EQ(conform::runner::report_main({"report", "--diff", mutant, oracle}, back, err), std::optional<int>(0));
  EXPECT_NE(back.str().find("newly passing ("), std::string::npos) << back.str();
}

}  // namespace
}  // namespace agent_session
