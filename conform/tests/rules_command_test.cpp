// `agent-session-conform rules` (conform/rules/rules_command.hpp), the real
// binary: on the repository every rule of SPEC.md §1-§6 has a vector or a
// reason, and it fails, one FAIL line each, on a copy of SPEC.md with an
// untraced MUST, a vector naming an unknown rule or none, a rule with
// neither a vector nor a reason, and a reasons file that lies.
#include "conform/runner/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using conform::runner::ProcessEnd;
using conform::runner::run_process;

struct RulesRun {
  int exit_code = -1;
  std::string out, err;
};

RulesRun rules(const std::vector<std::string>& args, const std::string& cwd = "") {
  std::vector<std::string> argv = {
      "sh", "-c", "cd \"$0\" && exec \"$@\"", cwd.empty() ? "." : cwd, AGENT_SESSION_CONFORM, "rules"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto limit = std::chrono::minutes(1);  // a safety net, never a measured duration
  const auto r = run_process(argv, "", limit);
  EXPECT_EQ(r.end, ProcessEnd::exited) << conform::runner::describe_end(r, limit);
  return {r.exit_code, r.out, r.err};
}

const fs::path kSource = AGENT_SESSION_SOURCE_DIR;

std::string text_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The lines of `out` that start with FAIL.
std::vector<std::string> fail_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("FAIL ", 0) == 0) lines.push_back(line);
  return lines;
}

TEST(RulesCommand, TheRepositoryTracesEveryRule) {
  const RulesRun r = rules({});  // the build tree's defaults: the source tree's SPEC.md and vectors
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(r.out.find("rules without a vector")) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(fail_lines(r.out).empty()) << fail_lines(r.out).front();
  EXPECT_NE(r.out.find("rule -> vectors\n  R1-1  y_key_order_normalized\n"), std::string::npos);
  EXPECT_NE(r.out.find("\n  builtin_missing_file  R6-13 R6-15 R6-19\n"), std::string::npos);
  EXPECT_NE(r.out.find("rules without a vector\n  R2-2  the loading function's answer"), std::string::npos);
  EXPECT_NE(r.out.find(" without a vector, each with its reason; 0 findings\n"), std::string::npos);
}

TEST(RulesCommand, JsonHasEveryRuleOfTheSpecWithItsVectorsOrReason) {
  const RulesRun r = rules(
      {"--json", "--vectors", (kSource / "corpus/conformance").string(), "--spec", (kSource / "SPEC.md").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json.at("format"), "agent-session-conform-rules");
  EXPECT_EQ(json.at("format_version"), 1);
  EXPECT_TRUE(json.at("findings").empty());
  // Every ID SPEC.md writes after a sentence, none left out.
  const std::string spec = text_of(kSource / "SPEC.md");
  const std::regex tag(R"( \[(R[0-9.]+-[0-9]+)\])");
  std::set<std::string> written;
  for (auto at = std::sregex_iterator(spec.begin(), spec.end(), tag); at != std::sregex_iterator(); ++at)
    written.insert((*at)[1]);
  std::set<std::string> listed;
  for (const auto& rule : json.at("rules")) {
    listed.insert(rule.at("id"));
    EXPECT_NE(!rule.at("vectors").empty(), rule.contains("reason")) << rule.dump();
  }
  EXPECT_EQ(listed, written);
  std::size_t folders = 0;
  for (const auto& entry : fs::directory_iterator(kSource / "corpus/conformance")) folders += entry.is_directory();
  EXPECT_EQ(json.at("by_vector").size(), folders + 10);  // and the built-in vector and the runner's 9 own checks
}

class RulesOnACopy : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    fs::copy(kSource / "corpus/conformance", path("vectors"), fs::copy_options::recursive);
    fs::copy_file(kSource / "SPEC.md", path("SPEC.md"));
  }
  RulesRun run() { return rules({"--vectors", path("vectors").string(), "--spec", path("SPEC.md").string()}); }
  void edit(const fs::path& file, const std::string& from, const std::string& to) {
    std::string text = read(file);
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    write(file, text);
  }
};

TEST_F(RulesOnACopy, TheCopyPasses) {
  const RulesRun r = run();
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(r.out.find("rules without a vector"));
}

TEST_F(RulesOnACopy, APlantedMustWithoutAnIdFails) {
  edit(path("SPEC.md"), "It is an approximation of a model's window, not a token count.",
       "It is an approximation of a model's window, not a token count. A port MUST round it up.");
  const RulesRun r = run();
  EXPECT_EQ(r.exit_code, 1);
  const auto lines = fail_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_TRUE(std::regex_match(lines[0], std::regex("FAIL .*/SPEC\\.md:[0-9]+: a sentence with MUST has no rule "
                                                    "ID \\(SPEC\\.md Conventions, \"Rule IDs\"\\): \"A port MUST "
                                                    "round it up\\.\"")))
      << lines[0];
}

TEST_F(RulesOnACopy, AVectorNamingAnUnknownRuleFails) {
  edit(path("vectors/y_user_valid/expect.json"), "\"rules\": [", "\"rules\": [\"R9-99\", ");
  const RulesRun r = run();
  EXPECT_EQ(r.exit_code, 1);
  const auto lines = fail_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0], "FAIL vector y_user_valid names R9-99, which is no rule of " + path("SPEC.md").string());
}

TEST_F(RulesOnACopy, AVectorNamingNoRuleFails) {
  const fs::path expect = path("vectors/y_tool_result_valid/expect.json");
  edit(expect, "\"rules\": [\"R1.1-7\"],\n", "");
  const RulesRun r = run();
  EXPECT_EQ(r.exit_code, 1);
  // Its rule keeps its other vectors (n_tool_result_*): this is the one finding.
  EXPECT_EQ(fail_lines(r.out),
            (std::vector<std::string>{"FAIL vector y_tool_result_valid names no rule (expect.json's \"rules\")"}));
}

TEST_F(RulesOnACopy, ARuleWithNeitherAVectorNorAReasonFails) {
  edit(path("vectors/untested-rules.txt"), "R6-20 ", "# R6-20 ");
  const RulesRun r = run();
  EXPECT_EQ(r.exit_code, 1);
  const auto lines = fail_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_TRUE(std::regex_match(lines[0], std::regex("FAIL .*/SPEC\\.md:[0-9]+: R6-20 has no vector and no reason in "
                                                    ".*/vectors/untested-rules\\.txt")))
      << lines[0];
}

TEST_F(RulesOnACopy, AReasonsFileThatLiesFails) {
  const fs::path reasons = path("vectors/untested-rules.txt");
  const std::string before = read(reasons);
  const auto lines_before = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const auto r2_2 =
      1 + static_cast<std::size_t>(std::count(before.begin(), before.begin() + before.find("R2-2 "), '\n'));
  write(reasons, before + "R1-1 has a vector all the same\nR9-1 no such rule\nR2-2 again\nnot a line\n");
  const RulesRun r = run();
  EXPECT_EQ(r.exit_code, 1);
  const auto at = [&](std::size_t added) {
    return reasons.string() + ":" + std::to_string(lines_before + added) + ": ";
  };
  const auto lines = fail_lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0], "FAIL " + at(4) + "not a rule ID, a space and a reason: \"not a line\"");
  EXPECT_EQ(lines[1],
            "FAIL " + at(1) + "R1-1 has vectors (y_key_order_normalized): a reason is only for a rule that has none");
  EXPECT_EQ(lines[2], "FAIL " + at(2) + "R9-1 is no rule of " + path("SPEC.md").string());
  EXPECT_EQ(lines[3], "FAIL " + at(3) + "R2-2 is given a reason again (first at line " + std::to_string(r2_2) + ")");
}

TEST(RulesCommand, HelpHasAnExampleThatRuns) {
  const RulesRun help = rules({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  const std::string marker = "agent-session-conform rules --json";
  const auto at = help.out.find(marker);
  ASSERT_NE(at, std::string::npos) << help.out;
  const std::string line = help.out.substr(at, help.out.find(" > rules.json\n", at) - at);
  std::vector<std::string> words;
  std::istringstream in(line.substr(std::string("agent-session-conform rules ").size()));
  for (std::string word; in >> word;) words.push_back(word);
  const RulesRun example = rules(words, kSource.string());  // from a clone's root, as the help says
  EXPECT_EQ(example.exit_code, 0) << example.err;
  EXPECT_TRUE(nlohmann::json::parse(example.out).at("findings").empty());
}

TEST(RulesCommand, UsageErrorsAreExitTwoAndUnreadableFilesExitThree) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--bogus"}, {"extra"}, {"--spec"}, {"--spec", ""}, {"--vectors", ""}, {"--spec", "a", "--spec", "b"}}) {
    const RulesRun r = rules(args);
    EXPECT_EQ(r.exit_code, 2) << args.front();
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(r.err.rfind("agent-session-conform rules: ", 0) == 0) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const RulesRun missing = rules({"--spec", "/nonexistent/SPEC.md"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_EQ(missing.out, "");
  EXPECT_NE(missing.err.find("cannot read the specification '/nonexistent/SPEC.md': "), std::string::npos)
      << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  const RulesRun no_vectors = rules({"--vectors", "/nonexistent"});
  EXPECT_EQ(no_vectors.exit_code, 3);
  EXPECT_NE(no_vectors.err.find("cannot read the vectors folder '/nonexistent': "), std::string::npos)
      << no_vectors.err;
}

}  // namespace
}  // namespace agent_session
