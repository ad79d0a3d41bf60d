// `agent-session-conform report` (conform/matrix/matrix_command.hpp) as
// the real program: the JSON reports of real runs (label, port, rule per
// result: corpus/conformance/reports.md) merged into the matrix, its
// help, and its errors: one line naming the file, exit 2 or 3, outputs
// never written through a planted link.
#include "conform/runner/conform_options.hpp"
#include "conform/runner/subprocess.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::conform;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;

const fs::path kSource = AGENT_SESSION_SOURCE_DIR;

std::string file_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The kit's program itself; a minute is a safety net, never a measure.
conform::runner::ProcessResult kit(std::vector<std::string> args) {
  args.insert(args.begin(), AGENT_SESSION_CONFORM);
  return conform::runner::run_process(args, "", std::chrono::minutes(1));
}

bool one_line(const std::string& text) { return !text.empty() && text.find('\n') == text.size() - 1; }

class MatrixCommand : public FakeVectors {
 protected:
  // Two vectors with rules, run by a port that passes y_one and fails
  // n_two, its JSON report written to `json`; exit 1 when n_two runs.
  void run_port(const fs::path& json, const std::vector<std::string>& options, int exit_code = 1) {
    std::ofstream(dir_ / "VERSION") << "1.0.0\n";
    add("y_one", "{}\n", R"({"rule":"SPEC §2: one","checks":[{"args":["check"],"exit":0,"stdout":"1 messages\n"}]})");
    add("n_two", "{}\n", R"({"rule":"SPEC §5.1: two","checks":[{"args":["check"],"exit":0,"stdout":"2 messages\n"}]})");
    std::vector<std::string> all = {"--report", "json=" + json.string()};
    all.insert(all.end(), options.begin(), options.end());
    EXPECT_EQ(conform(dir_, shell_port("printf '1 messages\\n'"), all).exit_code, exit_code);
  }
};

TEST_F(MatrixCommand, TheJsonReportCarriesTheLabelAndEachVectorsRule) {
  run_port(dir_ / "a.json", {"--label", "my port"});
  const auto report = nlohmann::json::parse(file_text(dir_ / "a.json"));
  EXPECT_EQ(report.at("label"), "my port");
  EXPECT_TRUE(report.at("port").is_null());  // exec mode: the port said nothing of itself
  EXPECT_EQ(report.at("results").at(0).at("name"), "n_two");
  EXPECT_EQ(report.at("results").at(0).at("rule"), "SPEC §5.1: two");
  EXPECT_EQ(report.at("results").at(1).at("rule"), "SPEC §2: one");
  run_port(dir_ / "b.json", {});
  EXPECT_EQ(nlohmann::json::parse(file_text(dir_ / "b.json")).at("label"), "sh -c printf '1 messages\\\\n' port");
  for (const char* bad : {"", "a\nb", "\x1b[2J"}) {
    EXPECT_EQ(conform(dir_, shell_port("true"), {"--label", bad}).exit_code, 2) << bad;
  }
  EXPECT_EQ(conform(dir_, shell_port("true"), {"--label", "a", "--label", "b"}).exit_code, 2);
}

// The runner's own vectors give their rules too; a long rule is cut.
TEST_F(MatrixCommand, EveryResultHasItsRuleTheRunnersOwnToo) {
  std::ofstream(dir_ / "VERSION") << "1.4.0\n";
  add("y_long", "{}\n",
      R"({"rule":"SPEC §2: )" + std::string(1000, 'r') +
          R"(","checks":[{"args":["check"],"exit":0,"stdout":"1 messages\n"}]})");
  const fs::path json = dir_ / "r.json";
  conform(dir_, shell_port("printf '1 messages\\n'"), {"--report", "json=" + json.string()});
  const auto report = nlohmann::json::parse(file_text(json));
  std::size_t own = 0;
  for (const auto& result : report.at("results")) {
    const std::string name = result.at("name"), rule = result.at("rule");
    if (name == "y_long") {
      // kMaxRuleBytes (240) in all before the note; "SPEC §2: " is 10 bytes (§ is two).
      EXPECT_EQ(rule, "SPEC §2: " + std::string(240 - 10, 'r') + "... (1010 bytes in all)");
      continue;
    }
    ++own;
    EXPECT_EQ(rule.rfind("SPEC §6: ", 0), 0u) << name << ": " << rule;
  }
  EXPECT_EQ(own, 7u);  // builtin_missing_file and the six runner_* checks
}

TEST_F(MatrixCommand, TheKitsHelpNamesReportAndReportsHelpItsExitCodes) {
  const auto help = kit({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("agent-session-conform report [--html FILE] [--markdown FILE] [--badges DIR] REPORT.json..."),
            std::string::npos)
      << help.out;
  EXPECT_NE(help.out.find("--label NAME"), std::string::npos);
  const auto report_help = kit({"report", "--help"});
  EXPECT_EQ(report_help.exit_code, 0);
  EXPECT_NE(report_help.out.find("Exit 0: written (whatever the ports' verdicts); 2:"), std::string::npos)
      << report_help.out;
}

TEST_F(MatrixCommand, MergesRealReportsIntoHtmlMarkdownAndBadges) {
  run_port(dir_ / "a.json", {"--label", "first"});
  run_port(dir_ / "b.json", {"--label", "second", "--only", "y_one"}, 0);
  const auto r = kit({"report", "--html", (dir_ / "m.html").string(), "--markdown", (dir_ / "m.md").string(),
                      "--badges", (dir_ / "badges").string(), "--link-base", "https://example.org/v/",
                      (dir_ / "a.json").string(), (dir_ / "b.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string markdown = file_text(dir_ / "m.md");
  EXPECT_EQ(markdown.substr(0, markdown.find('\n')), "| vector | first | second |");
  EXPECT_NE(markdown.find("| **SPEC §2** | | |\n| [y\\_one](https://example.org/v/y_one \"SPEC §2: one\") | [pass]"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| **SPEC §5.1** | | |\n| [n\\_two]"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| **passed** | 1/2 | 1/1 |"), std::string::npos) << markdown;
  EXPECT_NE(file_text(dir_ / "m.html").find("<td class=\"cell fail\" title=\"fail: check FILE: stdout differs"),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(file_text(dir_ / "badges" / "first.json")),
            nlohmann::json({{"schemaVersion", 1}, {"label", "first"}, {"message", "1/2"}, {"color", "red"}}));
  EXPECT_EQ(nlohmann::json::parse(file_text(dir_ / "badges" / "second.json")).at("color"), "brightgreen");
  // No output named: the Markdown table on standard output.
  const auto plain = kit({"report", (dir_ / "a.json").string()});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.rfind("| vector | first |\n", 0), 0u) << plain.out;
}

TEST_F(MatrixCommand, ABadReportIsOneLineNamingItExit2Or3) {
  run_port(dir_ / "a.json", {});
  std::ofstream(dir_ / "bad.json") << "{\"format\":\"agent-session-conform-report\",\"format_version\":9}";
  auto r = kit({"report", (dir_ / "a.json").string(), (dir_ / "bad.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_EQ(r.err.rfind("agent-session-conform: cannot use the report '" + (dir_ / "bad.json").string() + "': ", 0), 0u)
      << r.err;
  r = kit({"report", (dir_ / "missing.json").string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("'" + (dir_ / "missing.json").string() + "': "), std::string::npos) << r.err;
  r = kit({"report"});  // no report
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_EQ(kit({"report", "--bogus", (dir_ / "a.json").string()}).exit_code, 2);
  // An option the outputs asked for would ignore is an error too.
  r = kit({"report", "--link-base", "https://x/", "--badges", (dir_ / "b").string(), (dir_ / "a.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("--link-base sets the vectors' links of --html and --markdown"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "b"));
  EXPECT_EQ(kit({"report", "--link-base", "https://x/", "--markdown", (dir_ / "m.md").string(), "--badges",
                 (dir_ / "b").string(), (dir_ / "a.json").string()})
                .exit_code,
            0);
}

// The outputs are written as the kit writes reports: never through a link.
TEST_F(MatrixCommand, AnOutputThatIsAPlantedLinkIsRefusedExit3) {
  run_port(dir_ / "a.json", {});
  std::ofstream(dir_ / "target") << "keep";
  fs::create_symlink(dir_ / "target", dir_ / "m.html");
  const auto r = kit({"report", "--html", (dir_ / "m.html").string(), (dir_ / "a.json").string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("cannot write the HTML matrix '" + (dir_ / "m.html").string() + "': it is a symbolic link"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(file_text(dir_ / "target"), "keep");
}

// The help's examples run as written from a clone's root with the kit on
// PATH (tests/help_examples.sh runs every help's), and make what they say.
TEST(MatrixCommandHelp, ItsExamplesMakeThePageAndTheBadges) {
  const auto help = kit({"report", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  const std::string marker = "agent-session-conform on PATH):\n";
  const auto at = help.out.find(marker);
  ASSERT_NE(at, std::string::npos) << help.out;
  std::string examples = help.out.substr(at + marker.size());
  examples = examples.substr(0, examples.find("\n\n"));
  const fs::path scratch = fs::temp_directory_path() / ("agent_session_matrix_help_" + std::to_string(::getpid()));
  fs::create_directories(scratch / "bin");
  fs::create_directory_symlink(kSource / "corpus", scratch / "corpus");
  fs::create_directory_symlink(kSource / "tests", scratch / "tests");
  fs::create_symlink(AGENT_SESSION_CLI, scratch / "bin" / "agent-session");
  fs::create_symlink(AGENT_SESSION_CONFORM, scratch / "bin" / "agent-session-conform");
  const auto r = conform::runner::run_process(
      {"sh", "-c", "cd \"$1\" && PATH=\"$1/bin:$PATH\" && set -e && " + examples, "sh", scratch.string()}, "",
      std::chrono::minutes(2));
  EXPECT_EQ(r.exit_code, 0) << examples << "\n" << r.out << r.err;
  // Harness mode: the report carries what the port said of itself.
  const auto oracle = nlohmann::json::parse(file_text(scratch / "oracle.json"));
  EXPECT_EQ(oracle.at("port").at("name"), "agent-session-oracle");
  const std::string version = oracle.at("port").at("version");
  EXPECT_NE(file_text(scratch / "matrix.html").find("oracle<small>" + version + "</small></th>"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(file_text(scratch / "badges" / "oracle.json")).at("message"),
            nlohmann::json::parse(file_text(scratch / "oracle.json")).at("summary").at("passed").dump() + "/" +
                nlohmann::json::parse(file_text(scratch / "oracle.json")).at("summary").at("vectors").dump());
  fs::remove_all(scratch);
}

}  // namespace
}  // namespace agent_session
