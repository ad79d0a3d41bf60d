// `agent-session-conform properties` (conform/properties): a planted
// trimmer that keeps the last N messages regardless of SPEC.md §5.1's
// units is caught as "orphan" and shrunk to a small case, its reports
// naming each invariant; a trimmer of whole units is clean; LangChain's
// trimMessages breaks the invariants it is known to (conform_adapters_npm_ci
// installs it); a port's harness is judged too (our CLI and the JavaScript
// oracle clean over 10,000 sessions each, a mutant caught); usage errors
// are exit 2.
#include "conform/runner/subprocess.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace agent_session::conform::runner {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string kSource = AGENT_SESSION_SOURCE_DIR;

ProcessResult properties(const std::vector<std::string>& args, std::chrono::milliseconds timeout = 240s) {
  std::vector<std::string> argv = {AGENT_SESSION_CONFORM, "properties"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, "", timeout);
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("properties_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string slurp(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::size_t lines_of(const fs::path& path) {
  const std::string text = slurp(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

nlohmann::json report(const fs::path& path) { return nlohmann::json::parse(slurp(path)); }

TEST(PropertiesJavaScript, KeepLastNIsAnOrphanShrunkToTwoMessages) {
  const fs::path dir = fresh_dir("keep_last");
  const ProcessResult r = properties({"--seed", "3", "--runs", "100", "--out", (dir / "found").string(), "--report",
                                      "json=" + (dir / "r.json").string(), "--", "node",
                                      kSource + "/conform/tests/properties/keep_last.mjs"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json doc = report(dir / "r.json");
  EXPECT_GT(doc["invariants"]["orphan"]["violations"].get<int>(), 0) << r.out;
  // It never alters, never goes over, never keeps nothing at a budget of 1 or more.
  EXPECT_EQ(doc["invariants"]["unaltered"]["violations"], 0) << r.out;
  EXPECT_EQ(doc["invariants"]["budget"]["violations"], 0) << r.out;
  EXPECT_EQ(doc["invariants"]["suffix"]["violations"], 0) << r.out;
  // The smallest orphan: an assistant and its result, budget 1 keeps the result.
  const fs::path orphan = dir / "found" / "orphan-1";
  EXPECT_EQ(lines_of(orphan / "session.jsonl"), 2u) << slurp(orphan / "session.jsonl");
  EXPECT_EQ(slurp(orphan / "budget"), "1\n");
  // Its contents made plain too: only the structure that breaks is left.
  EXPECT_EQ(slurp(orphan / "session.jsonl"),
            "{\"role\":\"assistant\",\"content\":\"\",\"toolCalls\":[{\"id\":\"a\",\"name\":\"f\",\"input\":null}]}\n"
            "{\"role\":\"tool\",\"content\":\"\",\"toolCallId\":\"a\",\"isError\":false}\n");
  EXPECT_EQ(slurp(orphan / "broke.txt").rfind("orphan: kept tool result 1 without its declaring assistant 0", 0), 0u)
      << slurp(orphan / "broke.txt");
  EXPECT_NE(slurp(orphan / "adapter").find("keep_last.mjs"), std::string::npos);
  // What the trimmer returned: the result alone.
  EXPECT_EQ(report(orphan / "returned.json")["kept"], nlohmann::json::parse("[1]"));
  EXPECT_NE(
      r.out.find("VIOLATION orphan: kept tool result 1 without its declaring assistant 0 (2 messages, budget 1; " +
                 (orphan / "session.jsonl").string() + ")\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" / 100 sessions ("), std::string::npos) << r.out;
}

// The reports name each invariant: JSON its count, rate and case files;
// JUnit one test case each, failed with the rate and the first case's
// file (junit/read_properties.py reads it with a real JUnit parser).
TEST(PropertiesJavaScript, ReportsNameEachInvariantWithItsRateAndCases) {
  const fs::path dir = fresh_dir("reports");
  const ProcessResult r = properties(
      {"--seed", "3", "--runs", "100", "--out", (dir / "found").string(), "--report",
       "json=" + (dir / "r.json").string(), "--report", "junit=" + (dir / "r.xml").string(), "--report",
       "markdown=" + (dir / "r.md").string(), "--", "node", kSource + "/conform/tests/properties/keep_last.mjs"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json doc = report(dir / "r.json");
  EXPECT_EQ(doc["format"], "agent-session-conform-properties");
  const nlohmann::json& orphan = doc["invariants"]["orphan"];
  const int violations = orphan["violations"].get<int>();
  ASSERT_GT(violations, 0);
  EXPECT_DOUBLE_EQ(orphan["rate"].get<double>(), violations / 100.0);
  const std::string first = (dir / "found" / "orphan-1" / "session.jsonl").string();
  EXPECT_EQ(orphan["cases"][0], first);
  EXPECT_EQ(orphan["cases"].size(), std::min(violations, 3));
  EXPECT_EQ(doc["invariants"]["split"]["cases"], nlohmann::json::array());
  EXPECT_EQ(doc["cases"][0]["file"], first);
  const std::string xml = slurp(dir / "r.xml");
  EXPECT_NE(xml.find("<testcase classname=\"properties\" name=\"orphan\">\n      <failure message=\"" +
                     std::to_string(violations) + " of 100 sessions ("),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("; first case: " + first + " (2 messages, budget 1)\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"properties\" name=\"split\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find(" tests=\"6\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(slurp(dir / "r.md").find("| `split` | 0 | 0.00% |  |\n"), std::string::npos) << slurp(dir / "r.md");
}

TEST(PropertiesJavaScript, WholeUnitsIsCleanOver400Sessions) {
  const fs::path dir = fresh_dir("whole_units");
  const ProcessResult r =
      properties({"--seed", "11", "--runs", "400", "--out", (dir / "found").string(), "--report",
                  "json=" + (dir / "r.json").string(), "--report", "junit=" + (dir / "r.xml").string(), "--", "node",
                  kSource + "/conform/tests/properties/whole_units.mjs"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("properties: 0 violations in 400 sessions"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "found"));
  EXPECT_EQ(report(dir / "r.json")["judged"], 400);
  EXPECT_NE(slurp(dir / "r.xml").find("failures=\"0\""), std::string::npos);
}

// A port's harness (SPEC.md §6's commands) is judged too: estimate is its
// count, trim --max-chars its trim. 300 sessions under the sanitizers;
// 10,000 in the plain builds (a test of volume), our CLI and the
// JavaScript oracle each, one harness process for the whole run.
ProcessResult judge_port_clean(const std::string& name, const std::string& runs, const std::vector<std::string>& port) {
  const fs::path dir = fresh_dir(name);
  std::vector<std::string> args = {
      "--seed", "5", "--runs", runs, "--out", (dir / "found").string(), "--report", "json=" + (dir / "r.json").string(),
      "--"};
  args.insert(args.end(), port.begin(), port.end());
  const auto start = std::chrono::steady_clock::now();
  ProcessResult r = properties(args);
  std::cout << name << ": " << runs << " sessions in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("properties: 0 violations in " + runs + " sessions"), std::string::npos) << r.out;
  EXPECT_EQ(report(dir / "r.json")["judged"], std::stoi(runs));
  EXPECT_FALSE(fs::exists(dir / "found"));
  return r;
}

TEST(PropertiesPort, OurOwnCliIsCleanOver300Sessions) { judge_port_clean("self", "300", {AGENT_SESSION_CLI}); }

TEST(PropertiesPort, OurOwnCliIsCleanOver10000Sessions) {
  judge_port_clean("self_volume", "10000", {AGENT_SESSION_CLI});
}

TEST(PropertiesJavaScript, TheOracleIsCleanOver10000Sessions) {
  const ProcessResult r = judge_port_clean("oracle", "10000", {"node", kSource + "/tests/oracle/cli.mjs"});
  EXPECT_EQ(r.out.rfind("properties: agent-session-oracle ", 0), 0u) << r.out.substr(0, 200);
}

TEST(PropertiesJavaScript, MutantPortTrimmingByMessageIsAnOrphan) {
  const fs::path dir = fresh_dir("mutant");
  const ProcessResult r = properties({"--seed", "5", "--runs", "300", "--out", (dir / "found").string(), "--", "node",
                                      kSource + "/tests/mutants/trim_by_message.mjs"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("orphan: kept tool result"), std::string::npos) << r.out;
  EXPECT_LE(lines_of(dir / "found" / "orphan-1" / "session.jsonl"), 3u);
}

TEST(PropertiesLangChain, DefaultOrphansAndStartOnHumanEmpties) {
  const std::string adapter = kSource + "/conform/adapters/langchain/adapter.mjs";
  ASSERT_TRUE(fs::exists(kSource + "/conform/adapters/langchain/node_modules"))
      << "no node_modules: the fixture conform_adapters_npm_ci installs them";
  const fs::path dir = fresh_dir("langchain");
  const ProcessResult last = properties({"--seed", "1", "--runs", "200", "--out", (dir / "last").string(), "--report",
                                         "json=" + (dir / "last.json").string(), "--", "node", adapter});
  ASSERT_EQ(last.exit_code, 1) << last.out << last.err;
  EXPECT_GT(report(dir / "last.json")["invariants"]["orphan"]["violations"].get<int>(), 0) << last.out;
  EXPECT_LE(lines_of(dir / "last" / "orphan-1" / "session.jsonl"), 3u);
  const ProcessResult human =
      properties({"--seed", "1", "--runs", "200", "--out", (dir / "human").string(), "--report",
                  "json=" + (dir / "human.json").string(), "--", "node", adapter, "--start-on", "human"});
  ASSERT_EQ(human.exit_code, 1) << human.out << human.err;
  EXPECT_GT(report(dir / "human.json")["invariants"]["non-empty"]["violations"].get<int>(), 0) << human.out;
  EXPECT_LE(lines_of(dir / "human" / "non-empty-1" / "session.jsonl"), 3u);
  std::cout << last.out << human.out;
}

TEST(PropertiesUsage, ErrorsAreExit2AndHelpHasExamples) {
  EXPECT_EQ(properties({"--runs", "1"}, 10s).exit_code, 2);
  EXPECT_EQ(properties({"--runs", "x", "--", "node"}, 10s).exit_code, 2);
  EXPECT_EQ(properties({"--report", "xml=f", "--", "node"}, 10s).exit_code, 2);
  EXPECT_EQ(properties({"--bogus", "--", "node"}, 10s).err,
            "agent-session-conform properties: unknown option \"--bogus\" (agent-session-conform properties --help)\n");
  const ProcessResult help = properties({"--help"}, 10s);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Examples:"), std::string::npos);
  EXPECT_NE(help.out.find("orphan "), std::string::npos);
}

TEST(PropertiesUsage, AnAdapterThatDoesNotStartIsExit3) {
  const ProcessResult r = properties({"--runs", "1", "--", "false"}, 20s);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
}

}  // namespace
}  // namespace agent_session::conform::runner
