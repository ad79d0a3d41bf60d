// The forms `agent-session conform` reports in (conform/runner/conform_report.hpp):
// the reproduce command of each FAIL line (run back through sh), JUnit XML
// (read back by a strict XML reader, hostile names and output included),
// the JSON report (parsed with nlohmann) and TAP on standard output.
#include "conform/runner/conform_report.hpp"
#include "conform/runner/conform_select.hpp"
#include "conform/runner/subprocess.hpp"
#include "support/fake_vectors.hpp"
#include "support/mini_xml.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::conform;
using test_support::conform_binary;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::MiniXml;
using test_support::shell_port;
using test_support::XmlElement;

const fs::path kSource = AGENT_SESSION_SOURCE_DIR;

std::string file_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

conform::runner::ProcessResult sh(const std::string& line) {
  return conform::runner::run_process({"sh", "-c", line}, "", std::chrono::minutes(1));
}

bool printable_line(const std::string& text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) return false;
  }
  return true;
}

// Words that sh would split, expand, glob or drop, and bytes a terminal
// must not see: each must arrive as itself.
const std::vector<std::string> kHostileWords = {"plain",
                                                "",
                                                "two words",
                                                "it's",
                                                "\"double\"",
                                                "back\\slash",
                                                "$HOME",
                                                "`id`",
                                                "$(id)",
                                                "*",
                                                "~",
                                                "-n",
                                                "100%",
                                                "%s%d",
                                                "a\nb",
                                                "trailing newline\n",
                                                "\n",
                                                "tab\there",
                                                "\x1b[2J",
                                                "\x7f",
                                                "\xff\xfe",
                                                "\xc3\xa9t\xc3\xa9",
                                                "\xe2\x80\xae"
                                                "bidi",
                                                "\xc2\x85"
                                                "nel",
                                                "semi;colon",
                                                "pipe|amp&",
                                                "<in>out",
                                                "#hash",
                                                "=",
                                                "'",
                                                "''"};

TEST(ShellCommand, EveryWordRoundTripsThroughShAndTheLineStaysPrintable) {
  for (const auto& word : kHostileWords) {
    const std::string line = conform::runner::shell_command({"printf", "[%s]", word});
    EXPECT_TRUE(printable_line(line)) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    const auto r = sh(line);
    EXPECT_EQ(r.exit_code, 0) << line << r.err;
    EXPECT_EQ(r.out, "[" + word + "]") << line;
  }
  std::vector<std::string> all = {"printf", "[%s]"};
  all.insert(all.end(), kHostileWords.begin(), kHostileWords.end());
  std::string expected;
  for (const auto& word : kHostileWords) expected += "[" + word + "]";
  EXPECT_EQ(sh(conform::runner::shell_command(all)).out, expected);
  // Plain words stay plain, so the usual line reads as typed.
  EXPECT_EQ(
      conform::runner::shell_command({"build/agent-session", "trim", "--max-chars", "10", "corpus/x/input.jsonl"}),
      "build/agent-session trim --max-chars 10 corpus/x/input.jsonl");
}

TEST_F(FakeVectors, StandardInputIsRedirectedFromTheVectorsFile) {
  const fs::path file = dir_ / "it's a \x1b name\n";
  std::ofstream(file, std::ios::binary) << "bytes\n";
  const std::string line = conform::runner::shell_command({"cat", "-"}, file.string());
  EXPECT_TRUE(printable_line(line)) << line;
  EXPECT_EQ(sh(line).out, "bytes\n");
}

// The FAIL lines' reproduce commands, run as printed from the same folder,
// do what the runner did: the port sees the same arguments and input.
TEST_F(FakeVectors, EachFailLineEndsWithACommandThatReproducesIt) {
  const std::string hostile = "y_it's \"odd\" $x \x01";
  add(hostile, "{\"role\":\"user\"}\n", kOneMessage);
  add("y_plain", "{}\n", R"({"checks":[{"args":["trim","--max-chars","7 8"],"exit":0,"stdout":"x"}]})");
  // Prints its arguments and, with -, its standard input: never right.
  const auto port = shell_port(R"(printf '<%s>' "$@"; if [ "$2" = - ] || [ "$4" = - ]; then cat; fi)");
  const auto r = conform(dir_, port);
  EXPECT_EQ(r.exit_code, 1);
  std::smatch match;
  const std::regex fail("FAIL (.*?) \\((.*?)\\): .*; reproduce: (.*)");
  std::size_t lines = 0;
  std::istringstream out(r.out);
  for (std::string line; std::getline(out, line);) {
    if (line.rfind("FAIL ", 0) != 0) continue;
    ++lines;
    ASSERT_TRUE(std::regex_match(line, match, fail)) << line;
    const bool stdin_only = match[2].str().ends_with(" -");
    const std::string name = match[1].str() == "y_plain" ? "y_plain" : hostile;
    const std::string input = file_text(dir_ / name / "input.jsonl");
    const std::string file = (dir_ / name / "input.jsonl").string();
    const std::string args = name == "y_plain" ? "<trim><--max-chars><7 8>" : "<check>";
    const auto again = sh(match[3].str());
    EXPECT_EQ(again.out, args + (stdin_only ? "<->" + input : "<" + file + ">")) << line;
  }
  EXPECT_EQ(lines, 4u) << r.out;  // FILE and - fail differently: a line each
}

// Every <testcase> of a report, with the elements it holds.
std::vector<const XmlElement*> testcases(const XmlElement& root) {
  EXPECT_EQ(root.name, "testsuites");
  const auto suites = root.all("testsuite");
  EXPECT_EQ(suites.size(), 1u);
  return suites.empty() ? std::vector<const XmlElement*>{} : suites[0]->all("testcase");
}

TEST(XmlEscaped, EveryByteAndCodePointGivesWellFormedXml) {
  std::string all_bytes;
  for (int c = 1; c < 256; ++c) all_bytes += static_cast<char>(c);
  const std::vector<std::string> texts = {all_bytes,      "]]>",          "<&\"'>",   "\xef\xbf\xbe\xef\xbf\xbf",
                                          "\xed\xa0\x80", "\xe2\x80\xae", "\xc0\xaf", "ok \xf0\x9f\x98\x80"};
  for (const auto& text : texts) {
    for (const bool attribute : {false, true}) {
      const std::string xml = "<a b=\"" + conform::runner::xml_escaped(text, true) + "\">" +
                              conform::runner::xml_escaped(text, attribute) + "</a>";
      EXPECT_NO_THROW(MiniXml::parse(xml)) << xml;
    }
  }
  const auto element =
      MiniXml::parse("<a b=\"" + conform::runner::xml_escaped("x\ty\nz\x01]]><&\"", true) + "\">" +
                     conform::runner::xml_escaped("x\ty\nz\x01]]><&\"\xef\xbf\xbf\xff", false) + "</a>");
  EXPECT_EQ(element.at("b"), "x\ty\nz\\x01]]><&\"");  // references keep tab and newline
  EXPECT_EQ(element.text, "x\ty\nz\\x01]]><&\"\\uffff\\xff");
  EXPECT_EQ(conform::runner::xml_escaped("\xe2\x80\xae", false), "\\u202e");  // a bidi control, visible
}

TEST_F(FakeVectors, JunitReportIsWellFormedWithHostileNamesAndOutput) {
  const std::string hostile = "y_\x01<&\"]]>\x1b[31m";
  add(hostile, "{}\n", kOneMessage);
  add("y_pass", "{}\n", R"({"checks":[{"args":["estimate"],"exit":0,"stdout":"1 messages\n"}]})");
  add("y_skipped", "{}\n", kOneMessage);
  add("y_unusable", "{}\n", R"({"checks":[]})");
  std::ofstream(dir_ / "skip.txt") << "y_skipped\n";
  const fs::path report = dir_ / "junit.xml";
  // Right for estimate; for check, output with every kind of trouble.
  const auto port = shell_port(R"(if [ "$1" = check ]; then printf ']]><&"\001\033\377'; else echo 1 messages; fi)");
  const auto r =
      conform(dir_, port, {"--skip-file", (dir_ / "skip.txt").string(), "--report", "junit=" + report.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string xml = file_text(report);
  XmlElement root;
  ASSERT_NO_THROW(root = MiniXml::parse(xml)) << xml;
  const XmlElement& suite = *root.all("testsuite").at(0);
  for (const XmlElement* element : {static_cast<const XmlElement*>(&root), &suite}) {
    EXPECT_EQ(element->at("tests"), "6");  // 2 runs, 2 runs, one per skipped or unusable vector
    EXPECT_EQ(element->at("failures"), "3");
    EXPECT_EQ(element->at("errors"), "0");
    EXPECT_EQ(element->at("skipped"), "1");
    EXPECT_TRUE(std::regex_match(element->at("time"), std::regex("[0-9]+\\.[0-9]{3}"))) << element->at("time");
  }
  std::map<std::string, std::string> properties;
  for (const auto* property : suite.all("properties").at(0)->all("property")) {
    properties[property->at("name")] = property->at("value");
  }
  EXPECT_EQ(properties["vectors_version"], "unknown");  // the folder has no VERSION, and the run says so
  EXPECT_NE(properties["vectors_version_problem"].find("cannot open VERSION"), std::string::npos);
  EXPECT_NE(r.err.find("have no version (cannot open VERSION: No such file or directory); the reports say"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(properties["runner_version"], std::string(conform::runner::runner_version()));
  std::map<std::string, const XmlElement*> cases;
  for (const auto* testcase : testcases(root)) {
    EXPECT_TRUE(testcase->attributes.count("time")) << testcase->at("name");
    cases[testcase->at("classname") + " / " + testcase->at("name")] = testcase;
  }
  ASSERT_EQ(cases.size(), 6u) << xml;
  const std::string shown = R"(y_\x01<&\"]]>\x1b[31m)";  // as on the FAIL lines: escaped for a terminal
  for (const char* run : {" / check FILE", " / check -"}) {
    ASSERT_TRUE(cases.count(shown + run)) << xml;
    const auto failures = cases[shown + run]->all("failure");
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_NE(failures[0]->at("message").find(R"(got "]]><&\"\x01\x1b\xff")"), std::string::npos)
        << failures[0]->at("message");
    EXPECT_EQ(failures[0]->text.rfind(failures[0]->at("message") + "\nreproduce: ", 0), 0u) << failures[0]->text;
  }
  EXPECT_TRUE(cases.at("y_pass / estimate FILE")->children.empty());
  EXPECT_EQ(cases.at("y_skipped / vector")->all("skipped").size(), 1u);
  EXPECT_EQ(cases.at("y_unusable / vector")->all("failure").at(0)->at("message"), "expect.json has no checks");
}

TEST_F(FakeVectors, JsonReportHasEveryVectorAndRunWithItsVerdict) {
  std::ofstream(dir_ / "VERSION") << "1.0.4\n";  // before 1.1.0: no built-in vector here
  add("y_fail", "{}\n",
      R"({"checks":[{"args":["check"],"exit":0,"stdout":"2 messages\n"},)"
      R"({"args":["check"],"exit":0,"stdout":"1 messages\n"}]})");
  add("y_pass", "{}\n", kOneMessage);
  add("y_skip", "{}\n", kOneMessage);
  std::ofstream(dir_ / "skip.txt") << "y_skip\n";
  const fs::path json = dir_ / "report.json", xml = dir_ / "report.xml";
  const auto r = conform(dir_, shell_port("printf '1 messages\\n'"),
                         {"--skip-file", (dir_ / "skip.txt").string(), "--report", "json=" + json.string(), "--report",
                          "junit=" + xml.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NO_THROW(MiniXml::parse(file_text(xml)));  // both reports, from one run
  const auto report = nlohmann::json::parse(file_text(json));
  EXPECT_EQ(report.at("format"), "agent-session-conform-report");
  EXPECT_EQ(report.at("format_version"), 1);
  EXPECT_EQ(report.at("vectors_version"), "1.0.4");
  EXPECT_EQ(report.at("runner_version"), std::string(conform::runner::runner_version()));
  EXPECT_EQ(report.at("summary"), nlohmann::json({{"vectors", 3},
                                                  {"passed", 1},
                                                  {"failed", 1},
                                                  {"skipped", 1},
                                                  {"skipped_passing", 1},
                                                  {"seconds", report.at("summary").at("seconds")}}));
  const auto& results = report.at("results");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].at("name"), "y_fail");
  EXPECT_EQ(results[0].at("verdict"), "fail");
  const auto& checks = results[0].at("checks");
  ASSERT_EQ(checks.size(), 4u);  // two checks, each with FILE and with stdin
  EXPECT_EQ(checks[0].at("index"), 0);
  EXPECT_EQ(checks[0].at("args"), nlohmann::json({"check"}));
  EXPECT_EQ(checks[0].at("input"), "file");
  EXPECT_EQ(checks[0].at("verdict"), "fail");
  EXPECT_NE(checks[0].at("message").get<std::string>().find("stdout differs at byte 0"), std::string::npos);
  EXPECT_EQ(checks[1].at("input"), "stdin");
  EXPECT_NE(checks[1].at("reproduce").get<std::string>().find(" check - < "), std::string::npos);
  EXPECT_EQ(checks[2].at("verdict"), "pass");
  EXPECT_FALSE(checks[2].contains("message"));
  EXPECT_EQ(results[1].at("verdict"), "pass");
  EXPECT_EQ(results[2].at("verdict"), "skip");
  // It ran, and passed: the report says to take it out of the skip file.
  EXPECT_EQ(results[2].at("message"), "listed in the skip file but passes; remove it from the skip file");
  EXPECT_TRUE(results[2].at("checks").empty());
}

TEST_F(FakeVectors, ReportsThatCannotBeWrittenOrAreMisspelledAreErrors) {
  add("y_one", "{}\n", kOneMessage);
  const auto port = shell_port("printf '1 messages\\n'");
  auto r = conform(dir_, port, {"--report", "junit=" + (dir_ / "no" / "such.xml").string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("cannot write the junit report '"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("': No such file or directory"), std::string::npos) << r.err;
  // The other report is still written.
  std::ofstream(dir_ / "VERSION") << "1.0.0\n";
  const fs::path json = dir_ / "report.json";
  r = conform(dir_, port,
              {"--report", "junit=" + (dir_ / "no" / "such.xml").string(), "--report", "json=" + json.string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(nlohmann::json::parse(file_text(json)).at("summary").at("passed"), 1);
  // A write that fails after the open (a full disk; here the file size
  // limit, whose SIGXFSZ the runner ignores) is exit 3 with the reason.
  r = conform_binary(dir_, port, {"--report", "junit=" + (dir_ / "big.xml").string()}, {"prlimit", "--fsize=64", "--"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, "agent-session-conform: cannot write the junit report '" + (dir_ / "big.xml").string() +
                       "': File too large\n");
  for (const char* bad : {"xml=a.xml", "junit=", "junit", "=a"}) {
    EXPECT_EQ(conform(dir_, port, {"--report", bad}).exit_code, 2) << bad;
  }
}

TEST_F(FakeVectors, TapHasAPlanOnePointPerVectorAndYamlDiagnostics) {
  add("y_a", "{}\n", kOneMessage);
  add("y_b#1", "{}\n", R"({"checks":[{"args":["check"],"exit":0,"stdout":"2 messages\n"}]})");
  add("y_c", "{}\n", kOneMessage);
  std::ofstream(dir_ / "skip.txt") << "y_c\n";
  const auto r = conform(dir_, shell_port("printf '1 messages\\n'"),
                         {"--format", "tap", "--skip-file", (dir_ / "skip.txt").string()});
  EXPECT_EQ(r.exit_code, 1);
  const std::string reproduce = conform::runner::shell_command(
      {"sh", "-c", "printf '1 messages\\n'", "port", "check", (dir_ / "y_b#1" / "input.jsonl").string()});
  const std::string diagnostic =
      "    message: \"stdout differs at byte 0 (line 1): expected \\\"2 messages\\\\n\\\", got \\\"1 "
      "messages\\\\n\\\"\"\n";
  EXPECT_EQ(
      r.out,
      "TAP version 14\n"
      "1..3\n"
      "ok 1 - y_a\n"
      "not ok 2 - y_b\\#1\n"
      "  ---\n"
      "  checks:\n"
      "    - check: \"check FILE\"\n"
      "      verdict: fail\n"
      "  " +
          diagnostic + "      reproduce: " + nlohmann::json(reproduce).dump() +
          "\n"
          "    - check: \"check -\"\n"
          "      verdict: fail\n"
          "  " +
          diagnostic + "      reproduce: " +
          nlohmann::json(conform::runner::shell_command({"sh", "-c", "printf '1 messages\\n'", "port", "check", "-"},
                                                        (dir_ / "y_b#1" / "input.jsonl").string()))
              .dump() +
          "\n"
          "  ...\n"
          "ok 3 - y_c # SKIP listed in the skip file but passes; remove it from the skip file\n"
          "# 1 passed, 1 failed, 1 skipped\n");
  EXPECT_EQ(conform(dir_, {"true"}, {"--format", "json"}).exit_code, 2);
}

// A failing port on the real vectors: the JUnit report names the vectors
// and checks that catch its one mistake. The mutant ports run in harness
// mode, which reports as exec mode does (harness_test: HarnessSameVerdicts*).
TEST(ConformMutantReport, JunitNamesTheFailingVectorsAndChecks) {
  const fs::path report = fs::temp_directory_path() / ("agent_session_mutant_" + std::to_string(::getpid()) + ".xml");
  const auto r =
      conform(kSource / "corpus" / "conformance", {"node", (kSource / "tests" / "mutants" / "utf8_bytes.mjs").string()},
              {"--harness", "--jobs", "2", "--only", "y_estimate_*", "--report", "junit=" + report.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto root = MiniXml::parse(file_text(report));
  fs::remove(report);
  std::set<std::string> failed;
  for (const auto* testcase : testcases(root)) {
    if (!testcase->all("failure").empty()) failed.insert(testcase->at("classname") + " / " + testcase->at("name"));
  }
  EXPECT_TRUE(failed.count("y_estimate_cjk / estimate FILE")) << r.out;
  EXPECT_TRUE(failed.count("y_estimate_emoji / estimate -")) << r.out;
  const auto suite = root.all("testsuite").at(0);
  EXPECT_EQ(suite->at("failures"), std::to_string(failed.size()));
  EXPECT_NE(suite->at("name").find("conformance vectors 1."), std::string::npos) << suite->at("name");
}

// The runner's built-in vector is reported like the others: a port that
// reads a missing FILE as an empty session fails its four checks by name,
// in the JUnit report and the JSON report.
TEST(ConformMutantReport, TheBuiltInMissingFileCheckIsReportedLikeAVector) {
  const fs::path base = fs::temp_directory_path() / ("agent_session_builtin_" + std::to_string(::getpid()));
  const auto r = conform(kSource / "corpus" / "conformance",
                         {"node", (kSource / "tests" / "mutants" / "missing_file_empty.mjs").string()},
                         {"--harness", "--only", "builtin_missing_file", "--report", "junit=" + base.string() + ".xml",
                          "--report", "json=" + base.string() + ".json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(r.out.ends_with("\n0 passed, 1 failed\n")) << r.out;
  const auto root = MiniXml::parse(file_text(base.string() + ".xml"));
  const auto json = nlohmann::json::parse(file_text(base.string() + ".json"));
  fs::remove(base.string() + ".xml");
  fs::remove(base.string() + ".json");
  std::set<std::string> failed;
  for (const auto* testcase : testcases(root)) {
    if (!testcase->all("failure").empty()) failed.insert(testcase->at("classname") + " / " + testcase->at("name"));
  }
  EXPECT_EQ(failed, (std::set<std::string>{"builtin_missing_file / canon FILE", "builtin_missing_file / check FILE",
                                           "builtin_missing_file / estimate FILE",
                                           "builtin_missing_file / trim --max-chars 100 FILE"}));
  EXPECT_EQ(root.all("testsuite").at(0)->at("failures"), "4");
  EXPECT_NE(json.dump().find("builtin_missing_file"), std::string::npos);
}

}  // namespace
}  // namespace agent_session
