// The harness protocol end to end (corpus/conformance/harness.md): our own
// CLI's harness mode (src/cli/harness_command.hpp) and the exec adapter
// (runner/exec_adapter.hpp) answer every request as exec mode does; the
// server refuses what is not a request; `conform --harness` stops at once
// on a port without harness mode, and gives exactly exec mode's per-check
// verdicts on the real vectors for our CLI, the oracle and mutant ports.
#include "cli/cli.hpp"
#include "conform/runner/harness_client.hpp"
#include "conform/runner/subprocess.hpp"
#include "harness/server.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using conform::runner::HarnessClient;
using conform::runner::ProcessEnd;
using test_support::conform;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;

const fs::path kSource = AGENT_SESSION_SOURCE_DIR;
const fs::path kVectors = kSource / "corpus" / "conformance";
constexpr std::chrono::milliseconds kTimeout{20000};

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Each command line through `port`'s harness mode and through `exec` (a
// process per run) gives the same exit code and bytes; `append` writes
// the same file.
// A line with a raw NUL inside a string: the literal's own length, not a
// count by hand (one that read past it was caught by AddressSanitizer).
constexpr char kNulInContent[] = "{\"role\":\"user\",\"content\":\"a\0b\"}\n";

void expect_same_as_exec(const std::vector<std::string>& harness_command, const std::vector<std::string>& exec) {
  const fs::path dir = fs::temp_directory_path() / ("agent-session-harness-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "s.jsonl", std::ios::binary) << "{\"role\":\"user\",\"content\":\"hi\"}\n";
  const std::string two =
      "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":\"b\",\"toolCalls\":[]}\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> runs = {
      {{"check", (dir / "s.jsonl").string()}, ""},
      {{"estimate", "-"}, two},
      {{"canon", "-"}, "{\"content\":\"x\",  \"role\":\"user\"}\r\n"},
      {{"trim", "--max-chars", "40", "-"}, two},
      {{"trim", "--max-chars", "1", "-"}, two},
      {{"check", "-"}, "\xFF\xFE\n"},
      {{"check", "-"}, std::string(kNulInContent, sizeof kNulInContent - 1)},
      {{"check", (dir / "absent.jsonl").string()}, ""},
      {{"check", dir.string()}, ""},
      {{"frobnicate", "-"}, ""},
      {{"trim", "--max-chars", "", "-"}, ""},
      {{"append", "-"}, two},
  };
  HarnessClient port({harness_command, kTimeout, 1 << 20, {}});
  ASSERT_EQ(port.start(), std::nullopt);
  for (const auto& [args, input] : runs) {
    std::vector<std::string> argv = exec;
    argv.insert(argv.end(), args.begin(), args.end());
    const auto expected = conform::runner::run_process(argv, input, kTimeout);
    const auto got = port.run(args, input);
    ASSERT_EQ(got.end, ProcessEnd::exited) << args[0] << ": " << conform::runner::describe_end(got, kTimeout);
    EXPECT_EQ(got.exit_code, expected.exit_code) << args[0];
    EXPECT_EQ(got.out, expected.out) << args[0];
    if (args[0] == "frobnicate") {
      // Not a port command: the harness says so in its own words (SPEC.md
      // §6.1 "What the runner refuses"), never running it.
      EXPECT_NE(got.err.find("unknown command 'frobnicate'"), std::string::npos) << got.err;
    } else {
      EXPECT_EQ(got.err, expected.err) << args[0];
    }
  }
  // append: the same lines land in the file either way.
  for (const char* name : {"exec.jsonl", "harness.jsonl"}) std::ofstream(dir / name) << "";
  std::vector<std::string> argv = exec;
  argv.insert(argv.end(), {"append", (dir / "exec.jsonl").string()});
  EXPECT_EQ(conform::runner::run_process(argv, two, kTimeout).exit_code, 0);
  const auto appended = port.run({"append", (dir / "harness.jsonl").string()}, two);
  EXPECT_EQ(appended.exit_code, 0) << appended.err;
  EXPECT_EQ(file_bytes(dir / "harness.jsonl"), file_bytes(dir / "exec.jsonl"));
  EXPECT_FALSE(file_bytes(dir / "harness.jsonl").empty());
  EXPECT_EQ(port.stop(), std::nullopt);
  fs::remove_all(dir);
}

TEST(HarnessCommand, OurCliAnswersEveryCommandAsItsExecModeDoes) {
  expect_same_as_exec({AGENT_SESSION_CLI}, {AGENT_SESSION_CLI});
}

// A run of anything but SPEC.md §6.1's forms is an error answer and never
// dispatched: neither another harness nor `conform -- sh ...`
// (argument_forms_test.cpp has the rest of the class).
TEST(HarnessCommand, ARunOfHarnessItselfIsRefused) {
  HarnessClient port({{AGENT_SESSION_CLI}, kTimeout, 1 << 20, {}});
  ASSERT_EQ(port.start(), std::nullopt);
  EXPECT_EQ(port.port().name, "agent-session");
  const auto r = port.run({"harness"}, "");
  EXPECT_EQ(r.end, ProcessEnd::harness_failure);
  EXPECT_NE(r.error.find("argv word 1 'harness': not one of SPEC.md §6.1's argument forms"), std::string::npos)
      << r.error;
  EXPECT_EQ(port.run({"check", "-"}, "{\"role\":\"user\",\"content\":\"hi\"}\n").out, "1 messages\n");
}

TEST(HarnessExecAdapter, AnyExecPortAnswersThroughItAsInExecMode) {
  expect_same_as_exec({AGENT_SESSION_CLI, "conform", "exec-adapter", "--", AGENT_SESSION_CLI}, {AGENT_SESSION_CLI});
}

TEST(HarnessExecAdapter, ARunExecModeWouldFailOnItsEndIsAnErrorThatFailsIt) {
  HarnessClient port({{AGENT_SESSION_CLI, "conform", "exec-adapter", "--timeout", "0.3", "--", "sh", "-c",
                       "[ \"$2\" = hang ] && sleep 600; [ \"$2\" = crash ] && kill -SEGV $$; echo ok", "port"},
                      kTimeout,
                      1 << 20,
                      {}});
  ASSERT_EQ(port.start(), std::nullopt);
  const auto hang = port.run({"check", "hang"}, "");
  EXPECT_EQ(hang.end, ProcessEnd::harness_failure);
  EXPECT_NE(hang.error.find("answered an error: \"\\\"sh -c"), std::string::npos) << hang.error;
  EXPECT_NE(hang.error.find("timed out after 0.3 s (killed)"), std::string::npos) << hang.error;
  EXPECT_NE(port.run({"check", "crash"}, "").error.find("killed by signal 11"), std::string::npos);
  EXPECT_EQ(port.run({"check", "fine"}, "").out, "ok\n");
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_EQ(conform::runner::conform_main({"exec-adapter", "--"}, "agent-session-conform", in, out, err), 2);
  EXPECT_NE(err.str().find("exec-adapter: no port"), std::string::npos) << err.str();
}

// The server, in process: what is not a request is an error, never a run.
TEST(HarnessServer, RefusesWhatIsNotARequestAndGoesOn) {
  const fs::path dir = fs::temp_directory_path() / ("agent-session-harness-cwd-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "here.jsonl") << "x";
  std::istringstream in(
      "not json\n[1]\n{\"op\":\"dance\"}\n{\"op\":\"run\",\"seq\":4,\"argv\":[\"x\"],\"stdin_b64\":\"Zg\"}\n"
      "{\"op\":\"run\",\"seq\":5,\"argv\":[1],\"stdin_b64\":\"\"}\n"
      "{\"op\":\"run\",\"seq\":6,\"argv\":[],\"stdin_b64\":\"\",\"cwd\":\"\"}\n"
      "{\"op\":\"run\",\"seq\":7,\"argv\":[\"check\",\"here.jsonl\"],\"stdin_b64\":\"aGk=\",\"cwd\":\"" +
      dir.string() +
      "\"}  \r\n"
      "{\"op\":\"start\",\"protocol\":2}\n{\"op\":\"stop\"}\n");
  std::ostringstream out;
  const auto home = fs::current_path();
  const int code =
      harness::serve_harness(in, out, {"p", "1", "C++", {"check"}}, [](const auto& argv, std::string_view input) {
        return harness::HarnessRun{
            0, argv.back() + ":" + std::string(input) + ":" + std::to_string(fs::exists(argv.back())), "", ""};
      });
  EXPECT_EQ(code, 1);  // protocol 2: answered, then it ends
  EXPECT_EQ(fs::current_path(), home);
  EXPECT_EQ(out.str(),
            "{\"op\":\"error\",\"message\":\"not a JSON request\"}\n"
            "{\"op\":\"error\",\"message\":\"a request is a JSON object\"}\n"
            "{\"op\":\"error\",\"message\":\"unknown op \\\"dance\\\"\"}\n"
            "{\"op\":\"error\",\"message\":\"run request: stdin_b64 must be base64 (RFC 4648, padded)\",\"seq\":4}\n"
            "{\"op\":\"error\",\"message\":\"run request: argv must be an array of strings\",\"seq\":5}\n"
            "{\"op\":\"error\",\"message\":\"run request: cwd must be a path (a non-empty string without "
            "NUL)\",\"seq\":6}\n"
            "{\"op\":\"run\",\"seq\":7,\"exit\":0,\"stdout_b64\":\"aGVyZS5qc29ubDpoaTox\",\"stderr_b64\":\"\"}\n"
            "{\"op\":\"error\",\"message\":\"protocol 2 is not spoken here; protocol 1 is\"}\n");
  fs::remove_all(dir);
}

TEST_F(FakeVectors, HarnessModeOnAPortWithoutItStopsTheRunWithExitTwo) {
  add("y_one", "{}\n", kOneMessage);
  add("y_two", "{}\n", kOneMessage);
  const auto r =
      conform(dir_, shell_port("[ \"$1\" = harness ] && { echo \"unknown command $1\" >&2; exit 2; }; echo 1 messages"),
              {"--harness", "--jobs", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("agent-session-conform: --harness: 'sh -c "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" port harness' ended (exit 2) without answering start: it has no harness mode"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
}

// The vectors' names as the runner lists them (built-in one included).
std::vector<std::string> vector_names() {
  std::vector<std::string> names;
  std::istringstream list(conform(kVectors, {}, {"--list"}).out);
  for (std::string name; std::getline(list, name);) names.push_back(name);
  return names;
}

// The JSON report without its timings and what the port said of itself
// (harness mode's start answer; null in exec mode): what exec and
// harness mode must agree on.
nlohmann::json verdicts(const fs::path& report) {
  nlohmann::json json = nlohmann::json::parse(file_bytes(report));
  json["summary"].erase("seconds");
  json.erase("port");
  for (auto& vector : json["results"]) {
    vector.erase("seconds");
    for (auto& check : vector["checks"]) check.erase("seconds");
  }
  return json;
}

// Exec mode and harness mode give the same verdict on every check, and
// the same report but for the timings (the failing checks' messages and
// reproduce commands included), on the vectors `only` names (all of them
// when it is empty).
void expect_same_verdicts(const std::vector<std::string>& port, int exit_code,
                          const std::vector<std::string>& only = {}) {
  const fs::path dir = fs::temp_directory_path() / ("agent-session-verdicts-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<std::string> selection;
  for (const auto& name : only) selection.insert(selection.end(), {"--only", name});
  auto options = [&](std::vector<std::string> mode, const char* report) {
    // A timeout is a verdict: a minute a run, so that a loaded machine's
    // slow Node.js start gives neither mode a verdict of its own.
    mode.insert(mode.end(), {"--jobs", "2", "--timeout", "60", "--report", "json=" + (dir / report).string()});
    mode.insert(mode.end(), selection.begin(), selection.end());
    return mode;
  };
  const auto exec = conform(kVectors, port, options({}, "exec.json"));
  const auto harness = conform(kVectors, port, options({"--harness"}, "harness.json"));
  EXPECT_EQ(exec.exit_code, exit_code) << exec.out << exec.err;
  EXPECT_EQ(harness.exit_code, exec.exit_code) << harness.out << harness.err;
  EXPECT_EQ(harness.out, exec.out);
  const auto expected = verdicts(dir / "exec.json"), got = verdicts(dir / "harness.json");
  ASSERT_EQ(got["results"].size(), expected["results"].size());
  if (!only.empty()) {
    EXPECT_EQ(expected["results"].size(), only.size());
  }
  for (std::size_t i = 0; i < expected["results"].size(); ++i) {
    EXPECT_EQ(got["results"][i], expected["results"][i]) << expected["results"][i]["name"];
  }
  EXPECT_EQ(got, expected);
  fs::remove_all(dir);
}

TEST(HarnessSameVerdicts, OurCli) { expect_same_verdicts({AGENT_SESSION_CLI}, 0); }

// The comparison fails when harness mode answers one check differently:
// here a port whose harness (the exec adapter over a wrapper) prints a
// wrong estimate, and exec mode our CLI's right one.
TEST(HarnessSameVerdicts, AHarnessThatAnswersOneCheckDifferentlyIsCaught) {
  const std::string cli = AGENT_SESSION_CLI;
  const std::string wrong_estimate = "[ \"$1\" = estimate ] && { echo 1; exit 0; }; exec " + cli + " \"$@\"";
  const std::vector<std::string> port = {"sh", "-c",
                                         "if [ \"$1\" = harness ]; then exec " + cli +
                                             " conform exec-adapter -- sh -c '" + wrong_estimate + "' port; fi; exec " +
                                             cli + " \"$@\"",
                                         "port"};
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    expect_same_verdicts(port, 0, {"y_estimate_cjk", "y_semantics_not_checked"});
  }
  // The exit status, the FAIL lines, each of the two vectors, the report.
  std::set<std::string> what;
  for (int i = 0; i < failures.size(); ++i) {
    const std::string message = failures.GetTestPartResult(i).message();
    for (const char* part : {"harness.exit_code", "harness.out", "got[\"results\"][i]", "y_estimate_cjk",
                             "y_semantics_not_checked", "got\n"}) {
      if (message.find(part) != std::string::npos) what.insert(part);
    }
  }
  EXPECT_EQ(what.size(), 6u) << failures.size() << " failures, naming " << what.size() << " of the 6 parts";
}

// The JavaScript ports: the oracle and every mutant port in tests/mutants/
// (mutate.mjs is what builds them, not a port), listed from the folder so
// a new mutant is compared without being named here.
std::vector<std::string> javascript_ports() {
  std::vector<std::string> scripts = {(kSource / "tests" / "oracle" / "cli.mjs").string()};
  std::vector<std::string> mutants;
  for (const auto& entry : fs::directory_iterator(kSource / "tests" / "mutants")) {
    const auto& path = entry.path();
    if (path.extension() == ".mjs" && path.filename() != "mutate.mjs") mutants.push_back(path.string());
  }
  std::sort(mutants.begin(), mutants.end());
  scripts.insert(scripts.end(), mutants.begin(), mutants.end());
  return scripts;
}

// Exec mode costs a Node.js start per check (about 1,500 of them for the
// whole suite), so ctest compares each JavaScript port on a subset that
// still catches a harness bug: every vector the port fails in harness mode
// (a wrong verdict there is what a harness bug most likely shows as) and
// for the oracle, a deterministic spread of the others by name, over every
// kind of vector (i_, n_, y_ and the built-in one): every kOracleSpread-th.
// A mutant port is the oracle with one change (tests/mutants/mutate.mjs),
// its harness code the oracle's, so it is compared on the vectors it fails
// alone: there its verdicts can differ. Every port on every vector is
// tools/harness-verdicts (HARNESS_VERDICTS_FULL=1), run nightly
// (.github/workflows/nightly.yml).
constexpr std::size_t kOracleSpread = 6;

struct Subset {
  std::vector<std::string> names;
  std::size_t failing = 0;
};

// `spread` 0: the failing vectors alone.
Subset verdict_subset(const std::vector<std::string>& port, std::size_t spread) {
  const fs::path report = fs::temp_directory_path() / ("agent-session-subset-" + std::to_string(::getpid()) + ".json");
  const auto harness = conform(kVectors, port, {"--harness", "--jobs", "2", "--report", "json=" + report.string()});
  EXPECT_TRUE(harness.exit_code == 0 || harness.exit_code == 1) << harness.out << harness.err;
  std::set<std::string> chosen;
  Subset subset;
  const auto json = nlohmann::json::parse(file_bytes(report));  // outlives the loop: C++20 ends a temporary there
  for (const auto& vector : json["results"]) {
    if (vector["verdict"] != "pass") {
      chosen.insert(vector["name"].get<std::string>());
      ++subset.failing;
    }
  }
  fs::remove(report);
  // The report's failing vectors are the run's: the summary line counts them.
  std::smatch summary;
  EXPECT_TRUE(std::regex_search(harness.out, summary, std::regex("([0-9]+) failed\n$")) &&
              std::stoul(summary[1]) == subset.failing)
      << subset.failing << " failing vectors in the report; the run printed:\n"
      << harness.out;
  const auto names = vector_names();
  for (std::size_t i = 0; spread != 0 && i < names.size(); i += spread) chosen.insert(names[i]);
  subset.names.assign(chosen.begin(), chosen.end());
  return subset;
}

class HarnessSameVerdictsJavaScript : public ::testing::TestWithParam<std::string> {};

TEST_P(HarnessSameVerdictsJavaScript, OnTheVectorsItFailsAndASpreadOfTheRest) {
  const std::vector<std::string> port = {"node", GetParam()};
  const bool oracle = fs::path(GetParam()).parent_path().filename() == "oracle";
  const std::size_t spread = oracle ? kOracleSpread : 0;
  const Subset subset = verdict_subset(port, spread);
  if (oracle) {
    const std::size_t spread_size = (vector_names().size() + spread - 1) / spread;  // the first included
    ASSERT_GE(subset.names.size(), spread_size) << "the spread chose too few vectors";
  } else {
    ASSERT_GT(subset.failing, 0u) << "a mutant port every vector passes";
  }
  std::cout << fs::path(GetParam()).filename().string() << ": " << subset.names.size() << " vectors compared, "
            << subset.failing << " of them failing\n";
  expect_same_verdicts(port, subset.failing == 0 ? 0 : 1, subset.names);
}

INSTANTIATE_TEST_SUITE_P(Ports, HarnessSameVerdictsJavaScript, ::testing::ValuesIn(javascript_ports()),
                         [](const auto& info) {
                           const fs::path script = info.param;
                           return script.parent_path().filename() == "oracle" ? std::string("oracle")
                                                                              : script.stem().string();
                         });

// The listing finds the mutant ports (ten when this was written, more as
// mutants are added), not an empty or misread folder.
TEST(HarnessSameVerdictsJavaScriptPorts, AreTheOracleAndEveryMutantPort) {
  const auto ports = javascript_ports();
  EXPECT_GE(ports.size(), 11u);
  EXPECT_TRUE(ports.front().ends_with("/tests/oracle/cli.mjs")) << ports.front();
  for (std::size_t i = 1; i < ports.size(); ++i) EXPECT_NE(ports[i].find("/tests/mutants/"), std::string::npos);
  EXPECT_EQ(std::count_if(ports.begin(), ports.end(), [](const auto& p) { return p.ends_with("/utf8_bytes.mjs"); }), 1);
}

}  // namespace
}  // namespace agent_session
