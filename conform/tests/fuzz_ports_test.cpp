// `agent-session-conform fuzz` as a port's author runs it: against our own
// CLI it finds no difference; against mutant ports (tests/mutants/) it
// finds each within 60 s at a fixed seed, and the vector it writes makes
// the mutant fail under the normal runner while the JavaScript oracle
// passes it.
#include "conform/runner/subprocess.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <unistd.h>

namespace agent_session::conform::runner {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string kSource = AGENT_SESSION_SOURCE_DIR;

ProcessResult conform(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  std::vector<std::string> argv = {AGENT_SESSION_CONFORM};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, "", timeout);
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("fuzz_ports_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  return dir;
}

TEST(FuzzPorts, OurOwnCliShowsNoDifferenceOver300Inputs) {
  const fs::path out = fresh_dir("self");
  const ProcessResult r = conform(
      {"fuzz", "--seed", "5", "--runs", "300", "--jobs", "2", "--out", out.string(), "--", AGENT_SESSION_CLI}, 240s);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("300 inputs in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" inputs/s ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no difference\n"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
  std::cout << r.out;
}

TEST(FuzzPorts, UsageErrorsAreExit2) {
  EXPECT_EQ(conform({"fuzz", "--runs", "1"}, 10s).exit_code, 2);
  EXPECT_EQ(conform({"fuzz", "--runs", "x", "--", AGENT_SESSION_CLI}, 10s).exit_code, 2);
  // What the user typed is quoted once, its control bytes escaped.
  EXPECT_EQ(conform({"fuzz", "--x", "--", "p"}, 10s).err,
            "agent-session-conform fuzz: unknown option \"--x\" (agent-session-conform fuzz --help)\n");
  EXPECT_EQ(conform({"fuzz", "--runs", "1\x1b", "--", "p"}, 10s).err,
            "agent-session-conform fuzz: --runs: \"1\\x1b\" is not a whole number from 1 to 1099511627776 "
            "(agent-session-conform fuzz --help)\n");
  const ProcessResult missing = conform({"fuzz", "--runs", "1", "--", "/nonexistent/port"}, 10s);
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("cannot run the port"), std::string::npos) << missing.err;
  // A --vectors that names no folder is the caller's typo, as for conform.
  for (const std::string& vectors : {std::string("/nonexistent/vectors"), kSource + "/README.md"}) {
    const ProcessResult typo = conform({"fuzz", "--runs", "1", "--vectors", vectors, "--", AGENT_SESSION_CLI}, 10s);
    EXPECT_EQ(typo.exit_code, 2) << typo.out << typo.err;
    EXPECT_EQ(typo.err.rfind("agent-session-conform fuzz: cannot read the vectors folder '" + vectors + "': ", 0), 0u)
        << typo.err;
    EXPECT_EQ(typo.out.find("no difference"), std::string::npos) << typo.out;
  }
  const ProcessResult help = conform({"fuzz", "--help"}, 10s);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--runs N"), std::string::npos);
}

// A harness port that answers every run but never its stop fails the
// fuzz run as it fails a conformance run (harness.md §5): exit 1, one
// line on standard error, the inputs still counted.
TEST(FuzzPorts, AHarnessPortThatHangsOnStopFailsTheRun) {
  const std::string cli = AGENT_SESSION_CLI;
  const std::string script = "[ \"$1\" = harness ] || exec " + cli +
                             " \"$@\"; while IFS= read -r l; do case \"$l\" in *'\"op\":\"stop\"'*) sleep 600;; esac; "
                             "printf '%s\\n' \"$l\"; done | " +
                             cli + " harness";
  const ProcessResult r = conform({"fuzz", "--seed", "5", "--runs", "20", "--jobs", "1", "--harness", "--timeout", "2",
                                   "--", "sh", "-c", script, "port"},
                                  120s);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("20 inputs in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no difference\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.rfind("agent-session-conform fuzz: the port's harness did not stop cleanly: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("stop"), std::string::npos) << r.err;
}

// The mutant is found (exit 1) before --time 60 runs out, on one job in
// harness mode, the run stopping at its first difference (--stop-at-first); its vector is written, fails the mutant
// under the normal runner, passes the oracle.
void finds(const std::string& mutant, const std::string& seed) {
  const fs::path out = fresh_dir(mutant);
  const std::string port = kSource + "/tests/mutants/" + mutant + ".mjs";
  const auto started = std::chrono::steady_clock::now();
  const ProcessResult r = conform({"fuzz", "--seed", seed, "--time", "60", "--stop-at-first", "--jobs", "1",
                                   "--harness", "--shrink-time", "20", "--out", out.string(), "--", "node", port},
                                  150s);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  std::smatch found;
  ASSERT_TRUE(std::regex_search(r.out, found, std::regex(R"((\d+) inputs? in ([0-9.]+) s)"))) << r.out;
  EXPECT_LT(std::stod(found[2]), 60.0) << r.out;
  std::cout << mutant << ": " << r.out << "(all in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() << " s)\n";
  ASSERT_TRUE(std::regex_search(r.out, found, std::regex(R"(wrote \S+/(fuzz_\d+_\d+) )"))) << r.out;
  const fs::path vector = out / found[1].str();
  EXPECT_TRUE(fs::exists(vector / "input.jsonl") && fs::exists(vector / "expect.json") &&
              fs::exists(vector / "reproduce.sh"));
  // reproduce.sh runs as written: the kit by the path it was run by (this
  // test runs it by its absolute path in the build tree, not on PATH).
  std::ifstream script(vector / "reproduce.sh");
  const std::string lines((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
  EXPECT_NE(lines.find("\n" + std::string(AGENT_SESSION_CONFORM) + " --vectors "), std::string::npos) << lines;
  const ProcessResult reproduced = run_process({"sh", (vector / "reproduce.sh").string()}, "", 120s);
  EXPECT_EQ(reproduced.exit_code, 1) << reproduced.out << reproduced.err;
  EXPECT_NE(reproduced.out.find("0 passed, 1 failed"), std::string::npos) << reproduced.out << reproduced.err;
  const ProcessResult mutated = conform({"--vectors", out.string(), "--", "node", port}, 120s);
  EXPECT_EQ(mutated.exit_code, 1) << mutated.out << mutated.err;
  EXPECT_NE(mutated.out.find("0 passed, 1 failed"), std::string::npos) << mutated.out;
  const ProcessResult oracle =
      conform({"--vectors", out.string(), "--", "node", kSource + "/tests/oracle/cli.mjs"}, 120s);
  EXPECT_EQ(oracle.exit_code, 0) << oracle.out << oracle.err;
  EXPECT_NE(oracle.out.find("1 passed, 0 failed"), std::string::npos) << oracle.out;
  const ProcessResult ours = conform({"--vectors", out.string(), "--", AGENT_SESSION_CLI}, 60s);
  EXPECT_EQ(ours.exit_code, 0) << ours.out << ours.err;
  fs::remove_all(out);
}

TEST(FuzzPorts, FindsNumberInt64Exact) { finds("number_int64_exact", "1"); }
TEST(FuzzPorts, FindsUtf16F1F3Astral) { finds("utf16_f1_f3_astral", "1"); }
TEST(FuzzPorts, FindsTrimFirstResultOnly) { finds("trim_first_result_only", "1"); }
TEST(FuzzPorts, FindsKeysCaseInsensitive) { finds("keys_case_insensitive", "1"); }
TEST(FuzzPorts, FindsOverflowIntegerDigits) { finds("overflow_integer_digits", "1"); }
TEST(FuzzPorts, FindsKeyIndexUint32Wrap) { finds("key_index_uint32_wrap", "1"); }
// The token-edge mutants (issue 30): they pass every vector of 1.2.0; the
// generator's token edges (fuzz/token_edges.cpp) reach each.
TEST(FuzzPorts, FindsLiteralFirstLetter) { finds("literal_first_letter", "1"); }
TEST(FuzzPorts, FindsLiteralCaseInsensitive) { finds("literal_case_insensitive", "1"); }
TEST(FuzzPorts, FindsNumberLoneMinus) { finds("number_lone_minus", "1"); }
TEST(FuzzPorts, FindsControlChar1F) { finds("control_char_1f", "1"); }
TEST(FuzzPorts, FindsSurrogateLowLowPair) { finds("surrogate_low_low_pair", "1"); }
TEST(FuzzPorts, FindsSurrogateLowHalfE000) { finds("surrogate_low_half_e000", "1"); }
TEST(FuzzPorts, FindsSurrogateHighDbffAsLow) { finds("surrogate_high_dbff_as_low", "1"); }
TEST(FuzzPorts, FindsSurrogateSkipsNestedArrays) { finds("surrogate_skips_nested_arrays", "1"); }

nlohmann::json json_file(const fs::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

// --report writes what conform writes: a passing case for a run without a
// difference; for a difference, the written vector's checks judged on the
// port, the failing ones with their reproduce lines.
TEST(FuzzPorts, ReportsAreTheRunnersJunitAndJson) {
  const fs::path out = fresh_dir("reports");
  fs::create_directories(out);
  const ProcessResult clean =
      conform({"fuzz", "--seed", "5", "--runs", "20", "--harness", "--report", "json=" + (out / "clean.json").string(),
               "--report", "junit=" + (out / "clean.xml").string(), "--", AGENT_SESSION_CLI},
              60s);
  ASSERT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  const auto passed = json_file(out / "clean.json");
  EXPECT_EQ(passed["summary"]["passed"], 1);
  EXPECT_EQ(passed["summary"]["failed"], 0);
  EXPECT_EQ(passed["results"][0]["name"], "fuzz_5");
  EXPECT_EQ(passed["label"], AGENT_SESSION_CLI);  // the port's command line names it in a matrix
  EXPECT_EQ(passed["results"][0]["checks"][0]["verdict"], "pass");
  std::ifstream xml(out / "clean.xml");
  const std::string junit{std::istreambuf_iterator<char>(xml), {}};
  EXPECT_NE(junit.find("<testcase"), std::string::npos) << junit;
  EXPECT_EQ(junit.find("<failure"), std::string::npos) << junit;

  const ProcessResult found =
      conform({"fuzz", "--seed", "1", "--time", "60", "--stop-at-first", "--harness", "--shrink-time", "5", "--out",
               (out / "found").string(), "--report", "json=" + (out / "found.json").string(), "--", "node",
               kSource + "/tests/mutants/utf8_bytes.mjs"},
              150s);
  ASSERT_EQ(found.exit_code, 1) << found.out << found.err;
  std::smatch name;
  ASSERT_TRUE(std::regex_search(found.out, name, std::regex(R"(wrote \S+/(fuzz_\d+_\d+) )"))) << found.out;
  const auto failed = json_file(out / "found.json");
  EXPECT_EQ(failed["summary"]["failed"], 1);
  ASSERT_EQ(failed["results"].size(), 1u);
  EXPECT_EQ(failed["results"][0]["name"], name[1].str());
  bool a_failing_check = false;
  for (const auto& check : failed["results"][0]["checks"]) {
    if (check["verdict"] != "fail") continue;
    a_failing_check = true;
    EXPECT_FALSE(check.value("reproduce", "").empty()) << check.dump();
  }
  EXPECT_TRUE(a_failing_check) << failed.dump();
  // The campaign beside the runner's report: one signature, its vector.
  EXPECT_EQ(failed["fuzz"]["stop_at_first"], true);
  ASSERT_EQ(failed["fuzz"]["signatures"].size(), 1u) << failed["fuzz"].dump();
  EXPECT_EQ(failed["fuzz"]["signatures"][0]["vector"], name[1].str());
  EXPECT_EQ(passed["fuzz"]["differences"], 0);
  const ProcessResult bad = conform({"fuzz", "--report", "xml=x", "--", AGENT_SESSION_CLI}, 10s);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--report: \"xml=x\" is not junit=FILE or json=FILE"), std::string::npos) << bad.err;
  fs::remove_all(out);
}

// Harness mode gives the exec mode's answer: no difference with our CLI
// over many more inputs, at the cost of one process per job.
TEST(FuzzPorts, OurOwnCliInHarnessModeShowsNoDifferenceOver3000Inputs) {
  const fs::path out = fresh_dir("self-harness");
  const ProcessResult r = conform(
      {"fuzz", "--seed", "6", "--runs", "3000", "--harness", "--out", out.string(), "--", AGENT_SESSION_CLI}, 240s);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("3000 inputs in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no difference\n"), std::string::npos) << r.out;
  std::cout << r.out;
}

}  // namespace
}  // namespace agent_session::conform::runner
