// `agent-session-conform fuzz` as a campaign: it goes on after a
// difference, labels each by its signature (the SPEC.md section of the
// rule it breaks and its kind, conform/fuzz/campaign_tally.hpp), writes one
// shrunk vector per signature and counts, per rule of SPEC.md, the inputs
// that exercised it and the differences it produced, on standard output
// and in the JSON report's "fuzz" member (corpus/conformance/reports.md).
#include "conform/fuzz/campaign_tally.hpp"
#include "conform/fuzz/fuzz_options.hpp"
#include "conform/fuzz/reference_checks.hpp"
#include "conform/rules/spec_rules.hpp"
#include "conform/runner/subprocess.hpp"
#include "conform/runner/vector_files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace agent_session::conform::fuzz {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using runner::ProcessEnd;
using runner::ProcessResult;

const std::string kSource = AGENT_SESSION_SOURCE_DIR;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("fuzz_signatures_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

ProcessResult conform(const std::vector<std::string>& args, std::chrono::milliseconds timeout = 240s) {
  std::vector<std::string> argv = {AGENT_SESSION_CONFORM};
  argv.insert(argv.end(), args.begin(), args.end());
  return runner::run_process(argv, "", timeout);
}

nlohmann::json json_file(const fs::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

std::vector<std::string> spec_rule_ids_in_order() {
  std::vector<std::string> ids;
  for (const auto& rule : rules::read_spec_rules(runner::read_named_file(kSource + "/SPEC.md")).rules)
    ids.push_back(rule.id);
  return ids;
}

std::set<std::string> folders_in(const fs::path& out) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(out)) {
    if (entry.is_directory()) names.insert(entry.path().filename().string());
  }
  return names;
}

ProcessResult ended(int code, std::string out = "", std::string err = "") {
  ProcessResult result;
  result.end = ProcessEnd::exited;
  result.exit_code = code;
  result.out = std::move(out);
  result.err = std::move(err);
  return result;
}

runner::Check expected(std::vector<std::string> args, int exit, std::string out = "", std::string error = "") {
  runner::Check check;
  check.args = std::move(args);
  check.exit = exit;
  check.stdout_bytes = std::move(out);
  check.error = std::move(error);
  return check;
}

TEST(FuzzSignatures, KindsFollowTheJudgesOrder) {
  const runner::Check loads = expected({"estimate"}, 0, "7\n");
  const runner::Check fails = expected({"check"}, 1, "", "invalid session JSON at line 1");
  ProcessResult hung = ended(0, "7\n");
  hung.end = ProcessEnd::timed_out;
  EXPECT_EQ(kind_name(difference_kind(loads, hung)), "no-exit");
  EXPECT_EQ(kind_name(difference_kind(loads, ended(1, "", "x"))), "exit");
  EXPECT_EQ(kind_name(difference_kind(loads, ended(0, "8\n"))), "stdout");
  EXPECT_EQ(kind_name(difference_kind(loads, ended(0, "7\n", "a warning\n"))), "streams");
  EXPECT_EQ(kind_name(difference_kind(fails, ended(1, "oops\n", "invalid session JSON at line 1\n"))), "streams");
  EXPECT_EQ(kind_name(difference_kind(fails, ended(1, "", "bad line 1\n"))), "error");
}

TEST(FuzzSignatures, TheSectionIsTheBrokenRulesAndAStreamBreakIsSection6) {
  const fs::path dir = fresh_dir("sections");
  const auto section = [&](const std::string& input, const runner::Check& check, DifferenceKind kind) {
    std::ofstream(dir / "input.jsonl") << input;
    const Mismatch mismatch{check, "why", kind};
    return signature_of(mismatch, (dir / "input.jsonl").string()).text();
  };
  const runner::Check not_json = expected({"check"}, 1, "", "invalid session JSON at line 1");
  EXPECT_EQ(section("nul\n", not_json, DifferenceKind::exit), "§2 exit");
  EXPECT_EQ(section("{\"role\":\"user\",\"content\":\"\\ud800\"}\n", not_json, DifferenceKind::exit), "§2.1 exit");
  EXPECT_EQ(section("", expected({"estimate"}, 0, "0\n"), DifferenceKind::stdout_bytes), "§4 stdout");
  EXPECT_EQ(section("", expected({"canon"}, 0, ""), DifferenceKind::no_exit), "§3 no-exit");
  EXPECT_EQ(section("nul\n", not_json, DifferenceKind::streams), "§6 streams");
  const Mismatch streams{expected({"check"}, 1, "", "invalid session JSON at line 1"), "why", DifferenceKind::streams};
  EXPECT_EQ(broken_rules(streams, (dir / "input.jsonl").string()), std::vector<std::string>{"R6-15"});
  fs::remove_all(dir);
}

TEST(FuzzSignatures, TheCoverageTableListsEverySpecRuleInOrderWithZeroForThoseNeverReached) {
  std::map<std::string, RuleCount> reached;
  reached["R2-1"] = {"R2-1", 5, 1};
  reached["R9-1"] = {"R9-1", 2, 0};  // not a rule of SPEC.md: listed after them
  const auto table = coverage_table({"R1-1", "R2-1", "R3-1"}, reached);
  ASSERT_EQ(table.size(), 4u);
  EXPECT_EQ(table[0].id, "R1-1");
  EXPECT_EQ(table[0].inputs, 0u);
  EXPECT_EQ(table[1].id, "R2-1");
  EXPECT_EQ(table[1].inputs, 5u);
  EXPECT_EQ(table[1].differences, 1u);
  EXPECT_EQ(table[2].id, "R3-1");
  EXPECT_EQ(table[2].inputs, 0u);
  EXPECT_EQ(table[3].id, "R9-1");
  const auto json = campaign_json({7, 10, 1, false, table, {}});
  EXPECT_EQ(json["rules_reached"], 2);
  EXPECT_EQ(json["rules_never_reached"], 2);
  EXPECT_EQ(json["coverage"][0]["rule"], "R1-1");
  EXPECT_EQ(json["coverage"][0]["inputs"], 0);
}

// A port with two faults, our CLI but: `estimate` prints one more than it
// should (§4, stdout), and `check` prints its error on standard output too
// (§6's stream rule, streams). Every input shows one of the two: the first
// check a session that does not load fails is `check`, and one that loads
// passes `check` and fails `estimate`.
std::vector<std::string> two_fault_port() {
  const std::string cli = AGENT_SESSION_CLI;
  return {"sh", "-c",
          "case \"$1\" in estimate) n=$('" + cli + "' \"$@\") || exit $?; echo $((n + 1)) ;; check) '" + cli +
              "' \"$@\" 2>&1 ;; *) exec '" + cli + "' \"$@\" ;; esac",
          "port"};
}

TEST(FuzzSignatures, ATwoFaultPortGivesTwoSignaturesWithCountsAndOneVectorEach) {
  const fs::path dir = fresh_dir("two_faults");
  std::vector<std::string> args = {"fuzz",
                                   "--seed",
                                   "3",
                                   "--runs",
                                   "40",
                                   "--jobs",
                                   "2",
                                   "--shrink-time",
                                   "2",
                                   "--out",
                                   (dir / "out").string(),
                                   "--report",
                                   "json=" + (dir / "report.json").string(),
                                   "--"};
  const auto port = two_fault_port();
  args.insert(args.end(), port.begin(), port.end());
  const ProcessResult r = conform(args);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("40 inputs in "), std::string::npos) << r.out;  // it went on after the first difference
  EXPECT_NE(r.out.find("2 signatures of 40 differences:\n"), std::string::npos) << r.out;
  const auto report = json_file(dir / "report.json");
  const auto& fuzz = report["fuzz"];
  EXPECT_EQ(fuzz["inputs"], 40);
  EXPECT_EQ(fuzz["differences"], 40);
  EXPECT_EQ(fuzz["stop_at_first"], false);
  ASSERT_EQ(fuzz["signatures"].size(), 2u) << fuzz.dump(2);
  std::set<std::string> seen, vectors;
  std::uint64_t counted = 0;
  for (const auto& signature : fuzz["signatures"]) {
    seen.insert(signature["section"].get<std::string>() + " " + signature["kind"].get<std::string>());
    EXPECT_GT(signature["count"], 0) << signature.dump();
    counted += signature["count"].get<std::uint64_t>();
    vectors.insert(signature["vector"].get<std::string>());
    EXPECT_NE(r.out.find(signature["vector"].get<std::string>()), std::string::npos) << r.out;
  }
  EXPECT_EQ(seen, (std::set<std::string>{"§4 stdout", "§6 streams"}));
  EXPECT_EQ(counted, 40u);
  // One folder per signature, not one per difference; the runner's report
  // of them judges both on the port.
  EXPECT_EQ(folders_in(dir / "out"), vectors);
  EXPECT_EQ(report["summary"]["failed"], 2) << report["summary"].dump();
  // The rules: §4's estimate rule took the estimate's differences, R6-15
  // (nothing on standard output after a failure) the stream breaks.
  std::map<std::string, nlohmann::json> coverage;
  for (const auto& rule : fuzz["coverage"]) coverage[rule["rule"]] = rule;
  EXPECT_GT(coverage["R4-3"]["differences"], 0);
  EXPECT_GT(coverage["R6-15"]["differences"], 0);
  EXPECT_EQ(coverage["R3-2"]["differences"], 0);
  // Each vector is right: our own CLI passes both.
  const ProcessResult ours = conform({"--vectors", (dir / "out").string(), "--", AGENT_SESSION_CLI}, 60s);
  EXPECT_EQ(ours.exit_code, 0) << ours.out << ours.err;
  fs::remove_all(dir);
}

TEST(FuzzSignatures, StopAtFirstStopsAtTheFirstDifferenceWithOneVector) {
  const fs::path dir = fresh_dir("stop_at_first");
  std::vector<std::string> args = {"fuzz",
                                   "--seed",
                                   "3",
                                   "--runs",
                                   "40",
                                   "--stop-at-first",
                                   "--shrink-time",
                                   "2",
                                   "--out",
                                   (dir / "out").string(),
                                   "--report",
                                   "json=" + (dir / "report.json").string(),
                                   "--"};
  const auto port = two_fault_port();
  args.insert(args.end(), port.begin(), port.end());
  const ProcessResult r = conform(args);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("1 input in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 signature of 1 difference:\n"), std::string::npos) << r.out;
  const auto fuzz = json_file(dir / "report.json")["fuzz"];
  EXPECT_EQ(fuzz["stop_at_first"], true);
  ASSERT_EQ(fuzz["signatures"].size(), 1u) << fuzz.dump(2);
  EXPECT_EQ(fuzz["signatures"][0]["count"], 1);
  EXPECT_EQ(fuzz["signatures"][0]["first_input"], 0);
  EXPECT_EQ(folders_in(dir / "out"), std::set<std::string>{fuzz["signatures"][0]["vector"].get<std::string>()});
  fs::remove_all(dir);
}

// No difference: zero signatures, and a coverage table of every rule of
// SPEC.md in its order, the ones the inputs exercise nonzero, the rules no
// input file can reach (an I/O error, an unserializable message) zero.
void no_difference_coverage(const std::vector<std::string>& port, const std::string& name) {
  const fs::path dir = fresh_dir(name);
  std::vector<std::string> args = {"fuzz",
                                   "--seed",
                                   "5",
                                   "--runs",
                                   "60",
                                   "--out",
                                   (dir / "out").string(),
                                   "--report",
                                   "json=" + (dir / "report.json").string()};
  args.push_back("--harness");  // both ports speak it: a second, not a minute
  args.push_back("--");
  args.insert(args.end(), port.begin(), port.end());
  const ProcessResult r = conform(args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no difference\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rule coverage: "), std::string::npos) << r.out;
  const auto report = json_file(dir / "report.json");
  EXPECT_EQ(report["summary"]["passed"], 1);  // the runner's report is still there
  const auto& fuzz = report["fuzz"];
  EXPECT_EQ(fuzz["differences"], 0);
  EXPECT_TRUE(fuzz["signatures"].empty());
  const auto ids = spec_rule_ids_in_order();
  ASSERT_EQ(fuzz["coverage"].size(), ids.size());
  std::map<std::string, std::uint64_t> inputs;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(fuzz["coverage"][i]["rule"], ids[i]);
    EXPECT_EQ(fuzz["coverage"][i]["differences"], 0);
    inputs[ids[i]] = fuzz["coverage"][i]["inputs"];
  }
  for (const char* id : {"R2-1", "R3-2", "R4-3", "R5.1-4", "R6-16"}) EXPECT_GT(inputs[id], 0u) << id;
  EXPECT_EQ(inputs["R4-5"], 0u);  // a message only memory builds: no file holds one
  EXPECT_EQ(fuzz["rules_reached"].get<std::size_t>() + fuzz["rules_never_reached"].get<std::size_t>(), ids.size());
  EXPECT_NE(r.out.find("never reached: R2-2 R2-3 "), std::string::npos) << r.out;  // I/O errors: no input has them
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

TEST(FuzzSignatures, OurCliShowsNoDifferenceAndEveryRuleInTheCoverage) {
  no_difference_coverage({AGENT_SESSION_CLI}, "ours");
}

TEST(FuzzSignatures, TheOracleShowsNoDifferenceAndEveryRuleInTheCoverage) {
  no_difference_coverage({"node", kSource + "/tests/oracle/cli.mjs"}, "oracle");
}

TEST(FuzzSignatures, StopAtFirstAndSpecAreOptions) {
  EXPECT_FALSE(parse_fuzz_options({"--", "p"}).stop_at_first);  // the campaign goes on by default
  EXPECT_TRUE(parse_fuzz_options({"--stop-at-first", "--", "p"}).stop_at_first);
  EXPECT_EQ(parse_fuzz_options({"--", "p"}).spec, "");
  EXPECT_EQ(parse_fuzz_options({"--spec", "S.md", "--", "p"}).spec, "S.md");
  EXPECT_THROW(parse_fuzz_options({"--spec", "a", "--spec", "b", "--", "p"}), FuzzUsageError);
}

TEST(FuzzSignatures, SpecOptionErrors) {
  const ProcessResult missing =
      conform({"fuzz", "--runs", "1", "--spec", "/nonexistent/SPEC.md", "--", AGENT_SESSION_CLI}, 30s);
  EXPECT_EQ(missing.exit_code, 3) << missing.out << missing.err;
  EXPECT_NE(missing.err.find("cannot read the specification '/nonexistent/SPEC.md'"), std::string::npos) << missing.err;
  EXPECT_EQ(conform({"fuzz", "--runs", "1", "--spec", "", "--", AGENT_SESSION_CLI}, 30s).exit_code, 2);
  const ProcessResult help = conform({"fuzz", "--help"}, 10s);
  EXPECT_NE(help.out.find("--stop-at-first"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--spec FILE"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace agent_session::conform::fuzz
