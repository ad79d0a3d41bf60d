// No recursion on untrusted JSON (SPEC.md §6.1), end to end: JSON
// nested 10^6 levels deep (2 MB, within the harness line limit) on every
// path where the kit reads JSON it did not write: a harness port's start,
// run and stop answers (`conform --harness`, `fuzz --harness`), a request
// to `agent-session harness` and to `exec-adapter`, and a vector's
// expect.json. Each used to end the process with SIGSEGV (a recursive copy
// or dump); each is now that check's failure, or that request's error
// answer, saying it is too deep (src/harness/untrusted_json.hpp).
#include "conform/runner/harness_client.hpp"
#include "harness/server.hpp"
#include "support/fake_vectors.hpp"
#include "support/run_binary.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::BinaryOptions;
using test_support::BinaryRun;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::run_binary;

const std::string kDeep = "[" + std::string(1'000'000 - 1, '[') + std::string(1'000'000, ']');
const std::string kTooDeep = "nested deeper than 64 levels";
const std::string kInput = "{\"role\":\"user\",\"content\":\"hi\"}\n";

// A harness port (harness.md) in Python that answers as it should but for
// one answer, whose value is nested 10^6 deep: the start, each run's
// (its exit) or the stop answer, as its first argument says. Every run is
// answered "1 messages\n", exit 0: kOneMessage's check passes.
std::vector<std::string> deep_port(const std::string& which) {
  return {"python3", "-c", R"(import sys
which = sys.argv[1]
deep = '[' * 10**6 + ']' * 10**6
def say(text):
    sys.stdout.write(text + '\n')
    sys.stdout.flush()
for line in sys.stdin:
    if '"op":"start"' in line:
        say('{"op":' + deep + '}' if which == 'start' else
            '{"op":"start","protocol":1,"port":{"name":"deep","version":"0","language":"Python"},'
            '"commands":["check","estimate","canon","trim"]}')
    elif '"op":"run"' in line:
        seq = line.split('"seq":')[1].split(',')[0]
        say('{"op":"run","seq":' + seq + ',"exit":' + (deep if which == 'run' else '0') +
            ',"stdout_b64":"MSBtZXNzYWdlcwo=","stderr_b64":""}')
    elif '"op":"stop"' in line:
        say('{"op":' + deep + '}' if which == 'stop' else '{"op":"stop"}')
        break
)",
          which};
}

std::string shown(const BinaryRun& run) {
  return "exit " + std::to_string(run.exit_code) + ", signal " + std::to_string(run.signal) +
         "\nstdout: " + run.out.substr(0, 2000) + "\nstderr: " + run.err.substr(0, 2000);
}

class DeepJson : public FakeVectors {
 protected:
  BinaryRun agent_session(std::vector<std::string> args, const std::string& input = "") {
    BinaryOptions options;
    options.input = input;
    return run_binary(args, dir_, options);
  }
  BinaryRun conform(const std::vector<std::string>& port, std::vector<std::string> options = {"--harness"}) {
    std::vector<std::string> args = {"conform", "--vectors", (dir_ / "vectors").string()};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--");
    args.insert(args.end(), port.begin(), port.end());
    return agent_session(args);
  }
  void add_vector(const std::string& name, const std::string& expect_json) {
    add("vectors/" + name, kInput, expect_json);
  }
};

TEST_F(DeepJson, AStartAnswerTooDeepStopsTheRunWithItsReason) {
  add_vector("y_one", kOneMessage);
  const BinaryRun r = conform(deep_port("start"));
  EXPECT_EQ(r.signal, 0) << shown(r);
  EXPECT_EQ(r.exit_code, 2) << shown(r);  // as for a port without harness mode
  EXPECT_NE(r.err.find("answered start with a line " + kTooDeep + " at byte 70"), std::string::npos) << shown(r);
}

TEST_F(DeepJson, ARunAnswerTooDeepFailsThatCheckWithItsReason) {
  add_vector("y_one", kOneMessage);
  const BinaryRun r = conform(deep_port("run"));
  EXPECT_EQ(r.signal, 0) << shown(r);
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  EXPECT_EQ(r.out.substr(0, 10), "FAIL y_one") << shown(r);
  EXPECT_NE(r.out.find("the port's harness answered a line " + kTooDeep + " at byte 91 (killed)"), std::string::npos)
      << shown(r);
}

// Every check passed, but a stop answer that is not one fails stop
// (harness.md §4): a port never passes by misbehaving, so the run fails,
// exit 1, and says why in one line after the summary.
TEST_F(DeepJson, AStopAnswerTooDeepFailsTheRunWithItsReason) {
  add_vector("y_one", kOneMessage);
  const BinaryRun r = conform(deep_port("stop"));
  EXPECT_EQ(r.signal, 0) << shown(r);
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  EXPECT_NE(r.out.find("1 passed, 0 failed"), std::string::npos) << shown(r);
  EXPECT_NE(r.err.find("agent-session-conform: the port's harness did not stop cleanly: "), std::string::npos)
      << shown(r);
  EXPECT_NE(r.err.find("answered stop with a line " + kTooDeep + " at byte 70"), std::string::npos) << shown(r);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown(r);
}

// What the runner does not report (it has its verdicts), the client says.
TEST_F(DeepJson, TheClientSaysAStopAnswerWasTooDeep) {
  conform::runner::HarnessClient port({deep_port("stop"), std::chrono::seconds(10), 1 << 20, {}});
  ASSERT_EQ(port.start(), std::nullopt);
  EXPECT_EQ(port.run({"check", "-"}, "{}\n").out, "1 messages\n");
  EXPECT_NE(port.stop().value_or("").find("answered stop with a line " + kTooDeep + " at byte 70"), std::string::npos);
}

// A value that is a container where a scalar belongs is shown as one,
// never dumped.
TEST_F(DeepJson, TheServerShowsAContainerWithoutDumpingIt) {
  std::istringstream in("{\"op\":[[1]]}\n{\"op\":\"start\",\"protocol\":{\"a\":[2]}}\n");
  std::ostringstream out;
  EXPECT_EQ(harness::serve_harness(in, out, {"p", "1", "C++", {"check"}}, {}), 1);
  EXPECT_EQ(out.str(),
            "{\"op\":\"error\",\"message\":\"unknown op [...]\"}\n"
            "{\"op\":\"error\",\"message\":\"protocol {...} is not spoken here; protocol 1 is\"}\n");
}

TEST_F(DeepJson, FuzzHarnessFailsOnATooDeepAnswerWithItsReason) {
  add_vector("y_one", kOneMessage);
  const std::string out = (dir_ / "found").string();
  const auto fuzz = [&](const std::string& which) {
    std::vector<std::string> args = {"conform",       "fuzz", "--seed", "1", "--runs",    "1",
                                     "--shrink-time", "1",    "--out",  out, "--vectors", (dir_ / "vectors").string(),
                                     "--harness",     "--"};
    const auto port = deep_port(which);
    args.insert(args.end(), port.begin(), port.end());
    return agent_session(args);
  };
  const BinaryRun start = fuzz("start");
  EXPECT_EQ(start.signal, 0) << shown(start);
  EXPECT_EQ(start.exit_code, 2) << shown(start);  // the port cannot be run
  EXPECT_NE(start.err.find(kTooDeep), std::string::npos) << shown(start);
  const BinaryRun run = fuzz("run");
  EXPECT_EQ(run.signal, 0) << shown(run);
  EXPECT_EQ(run.exit_code, 1) << shown(run);  // a difference, its vector written
  EXPECT_NE(run.out.find(kTooDeep), std::string::npos) << shown(run);
}

// The issue's request: a start, then a run whose op is nested 10^6 deep.
const std::string kDeepRequest = "{\"op\":\"start\",\"protocol\":1}\n{\"op\":" + kDeep + "}\n{\"op\":\"stop\"}\n";
const std::string kDeepAnswer =
    "{\"op\":\"error\",\"message\":\"request " + kTooDeep + " at byte 70\"}\n{\"op\":\"stop\"}\n";

TEST_F(DeepJson, AgentSessionHarnessAnswersATooDeepRequestWithAnError) {
  const BinaryRun r = agent_session({"harness"}, kDeepRequest);
  EXPECT_EQ(r.signal, 0) << shown(r);
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  ASSERT_NE(r.out.find('\n'), std::string::npos) << shown(r);
  EXPECT_EQ(r.out.substr(r.out.find('\n') + 1), kDeepAnswer) << shown(r);
}

TEST_F(DeepJson, ExecAdapterAnswersATooDeepRequestWithAnError) {
  const BinaryRun r = agent_session({"conform", "exec-adapter", "--", "true"}, kDeepRequest);
  EXPECT_EQ(r.signal, 0) << shown(r);
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  ASSERT_NE(r.out.find('\n'), std::string::npos) << shown(r);
  EXPECT_EQ(r.out.substr(r.out.find('\n') + 1), kDeepAnswer) << shown(r);
}

TEST_F(DeepJson, AnExpectJsonTooDeepMakesItsVectorUnusable) {
  add_vector("y_deep", "{\"checks\":[{\"args\":" + kDeep + "}]}");
  add_vector("y_one", kOneMessage);
  const BinaryRun r = conform(test_support::shell_port("echo 1 messages"), {});
  EXPECT_EQ(r.signal, 0) << shown(r);
  EXPECT_EQ(r.exit_code, 1) << shown(r);
  EXPECT_NE(r.out.find("FAIL y_deep: unusable vector: expect.json: " + kTooDeep + " at byte 81"), std::string::npos)
      << shown(r);
  EXPECT_NE(r.out.find("1 passed"), std::string::npos) << shown(r);  // the next vector runs
}

// What a vector costs the runner, as corpus/conformance/README.md states
// it: at most 5 times the size of its two files, plus 16 MiB. Each shape
// below is 8 MiB of expect.json, the worst of its kind for nlohmann's DOM
// (measured: an array of {} costs 27 times its text, of "" 22 times, of
// [] 16 times; deep nesting more) or for the checks the runner keeps
// (10000 of them, the most; one 8 MiB string). The peak is the runner's
// peak resident set (wait4), less that of a run on a one-line vector.
constexpr long kTimesTheFiles = 5;
constexpr long kPlusKib = 16 * 1024;

TEST_F(DeepJson, AVectorCostsAtMostFiveTimesItsFilesPlusSixteenMiB) {
  const std::size_t size = std::size_t{8} << 20;
  const std::string bad_last = R"({"args":["check"],"exit":"not a number"}]})";
  const struct {
    const char* name;
    std::string head, item, tail;  // expect.json: head, item as often as fits in `size`, tail
  } shapes[] = {
      {"arrays", "[[]", ",[]", "]"},
      {"objects", R"({"checks":[],"about":[{})", ",{}", "]}"},
      {"strings", R"({"checks":[{"args":["")", R"(,"")", "]}]}"},
      {"deep", "", "[", ""},
      {"checks", R"({"checks":[)", R"({"args":["check"],"exit":2},)", bad_last},
      {"string", R"({"checks":[{"args":["check"],"exit":0,"stdout":")", "x", R"("},)" + bad_last},
  };
  add_vector("y_one", kOneMessage);
  const BinaryRun small = conform(test_support::shell_port("echo 1 messages"), {});
  ASSERT_EQ(small.exit_code, 0) << shown(small);
  for (const auto& shape : shapes) {
    // Written piece by piece: a forked child's peak counts the memory it
    // shared with this process before its exec, so this one stays small.
    fs::remove_all(dir_ / "vectors");
    const fs::path vector = dir_ / "vectors" / (std::string("y_") + shape.name);
    fs::create_directories(vector);
    std::ofstream(vector / "input.jsonl", std::ios::binary) << kInput;
    std::ofstream expect(vector / "expect.json", std::ios::binary);
    std::size_t expect_size = shape.head.size() + shape.tail.size();
    expect << shape.head;
    for (; expect_size + shape.item.size() <= size; expect_size += shape.item.size()) expect << shape.item;
    expect << shape.tail;
    expect.close();
    const BinaryRun big = conform(test_support::shell_port("echo 1 messages"), {});
    EXPECT_EQ(big.signal, 0) << shape.name << ": " << shown(big);
    EXPECT_EQ(big.exit_code, 1) << shape.name << ": " << shown(big);
    EXPECT_NE(big.out.find("unusable vector: "), std::string::npos) << shape.name << ": " << shown(big);
    const long files_kib = static_cast<long>(expect_size + kInput.size()) / 1024;
    const long cost_kib = big.max_rss_kib - small.max_rss_kib;
    std::cout << shape.name << ": " << files_kib << " KiB of files cost " << cost_kib << " KiB (peak "
              << big.max_rss_kib << " KiB, " << small.max_rss_kib << " KiB on one small vector; "
              << big.out.substr(0, big.out.find('\n')) << ")\n";
    EXPECT_LE(cost_kib, kTimesTheFiles * files_kib + kPlusKib) << shape.name << ": " << shown(big);
  }
}

}  // namespace
}  // namespace agent_session
