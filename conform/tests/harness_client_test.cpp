// runner/harness_client.hpp: the runner's side of the harness protocol
// (corpus/conformance/harness.md), on the JavaScript oracle (answers as
// its exec mode does) and on shell ports that break the protocol each in
// one way: every break fails that run with its reason, the port is killed
// and the next run has a fresh one; nothing hangs or outlives it.
#include "conform/runner/harness_client.hpp"
#include "conform/runner/subprocess.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
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
const std::vector<std::string> kOracle = {"node", (kSource / "tests" / "oracle" / "cli.mjs").string()};
constexpr std::chrono::milliseconds kTimeout{10000};

conform::runner::HarnessSettings settings(std::vector<std::string> command,
                                          std::chrono::milliseconds timeout = kTimeout,
                                          std::size_t max_output = 1 << 20) {
  return {std::move(command), timeout, max_output, {}};
}

// A shell port that answers start, then each run with `run` (a shell
// snippet that sees the request in $l and its seq in $seq).
std::vector<std::string> scripted(const std::string& run) {
  return shell_port(R"(read l; echo '{"op":"start","protocol":1,"port":{"name":"fake","version":"0","language":"sh"},)"
                    R"("commands":["check","estimate","canon","trim"]}'; )"
                    R"(while read l; do case "$l" in *'"op":"stop"'*) echo '{"op":"stop"}'; exit 0;; esac; )"
                    R"(seq=$(echo "$l" | sed 's/.*"seq":\([0-9]*\).*/\1/'); )" +
                    run + "; done");
}
const std::string kAnswerOne =
    R"(echo "{\"op\":\"run\",\"seq\":$seq,\"exit\":0,\"stdout_b64\":\"MSBtZXNzYWdlcwo=\",\"stderr_b64\":\"\"}")";

TEST(HarnessClient, TheOracleAnswersAsItsExecModeDoes) {
  HarnessClient port(settings(kOracle));
  ASSERT_EQ(port.start(), std::nullopt);
  EXPECT_EQ(port.port().name, "agent-session-oracle");
  EXPECT_EQ(port.port().language, "JavaScript");
  const std::string missing = (fs::temp_directory_path() / "agent-session-harness-absent" / "s.jsonl").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> runs = {
      {{"check", "-"}, "{\"role\":\"user\",\"content\":\"hi\"}\n"},
      {{"canon", "-"}, "{\"role\":\"user\",\"content\":\"\xF0\x9F\x98\x80\"}\r\n"},
      {{"check", "-"}, "\xFF\n"},
      {{"check", "-"}, std::string("{\"role\":\"user\",\"content\":\"a\0b\"}\n", 32)},
      {{"trim", "--max-chars", "", "-"}, ""},
      {{"frobnicate", "-"}, ""},
      {{"estimate", missing}, ""},
  };
  for (const auto& [args, input] : runs) {
    std::vector<std::string> argv = kOracle;
    argv.insert(argv.end(), args.begin(), args.end());
    const auto exec = conform::runner::run_process(argv, input, kTimeout);
    const auto harness = port.run(args, input);
    ASSERT_EQ(harness.end, ProcessEnd::exited) << args[0] << ": " << conform::runner::describe_end(harness, kTimeout);
    EXPECT_EQ(harness.exit_code, exec.exit_code) << args[0];
    EXPECT_EQ(harness.out, exec.out) << args[0];
    EXPECT_EQ(harness.err, exec.err) << args[0];
  }
  EXPECT_EQ(port.stop(), std::nullopt);
}

TEST(HarnessClient, APortWithoutHarnessModeIsToldApartAtStart) {
  HarnessClient exec_only(settings(shell_port("echo \"unknown command: $1\" >&2; exit 2")));
  const auto problem = exec_only.start();
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("ended (exit 2) without answering start: it has no harness mode; stderr: \"unknown "
                          "command: harness\\n\""),
            std::string::npos)
      << *problem;
  HarnessClient garbage(settings(shell_port("echo hello; cat")));
  EXPECT_NE(garbage.start().value_or("").find("answered start with \"hello\", not a JSON object"), std::string::npos);
  HarnessClient missing(settings({"/nonexistent/port"}));
  EXPECT_EQ(missing.start(), "cannot run '/nonexistent/port': No such file or directory");
  HarnessClient no_trim(settings(shell_port(
      R"(read l; echo '{"op":"start","protocol":1,"port":{"name":"f","version":"0","language":"sh"},"commands":["check"]}'; cat)")));
  EXPECT_NE(no_trim.start().value_or("").find("without estimate among its commands"), std::string::npos);
}

TEST(HarnessClient, ScriptedPortAnswersAndStopsCleanly) {
  HarnessClient port(settings(scripted(kAnswerOne)));
  ASSERT_EQ(port.start(), std::nullopt);
  for (int i = 0; i < 3; ++i) {
    const auto r = port.run({"check", "-"}, "{}\n");
    ASSERT_EQ(r.end, ProcessEnd::exited) << r.error;
    EXPECT_EQ(r.out, "1 messages\n");
  }
  EXPECT_EQ(port.stop(), std::nullopt);
}

// Each way of breaking the protocol fails the run with its reason; the
// next run starts a new port, which answers.
TEST(HarnessClient, EveryBreakFailsThatRunAndTheNextRunHasAFreshPort) {
  const struct {
    std::string snippet;
    ProcessEnd end;
    std::string reason;
  } cases[] = {
      {"echo garbage", ProcessEnd::harness_failure,
       "the port's harness answered \"garbage\", not a JSON object (killed)"},
      {R"(echo "{\"op\":\"run\",\"seq\":99,\"exit\":0,\"stdout_b64\":\"\",\"stderr_b64\":\"\"}")",
       ProcessEnd::harness_failure, "answered seq \"99\" to run request 1"},
      {R"(echo '{"op":"error","message":"no"}')", ProcessEnd::harness_failure, "answered an error: \"\\\"no\\\"\""},
      {R"(echo "{\"op\":\"run\",\"seq\":$seq,\"exit\":1.0,\"stdout_b64\":\"\",\"stderr_b64\":\"\"}")",
       ProcessEnd::harness_failure, "answered exit \"1.0\", not an integer from 0 to 255"},
      {R"(echo "{\"op\":\"run\",\"seq\":$seq,\"exit\":0,\"stdout_b64\":\"MS=t\",\"stderr_b64\":\"\"}")",
       ProcessEnd::harness_failure, "stdout_b64 that is not base64"},
      {"echo dying >&2; exit 1", ProcessEnd::harness_failure,
       "the port's harness process ended without answering (exit 1; stderr: \"dying\\n\")"},
      {"kill -SEGV $$", ProcessEnd::harness_failure, "killed by signal 11"},
      {"exec >&-; sleep 600", ProcessEnd::harness_failure, "ended without answering"},
      {R"(echo "{\"op\":\"run\",\"seq\":$seq,\"exit\":0,\"stdout_b64\":\"QUFBQUFBQUFBQUFB\",\"stderr_b64\":\"\"}")",
       ProcessEnd::output_limit, ""},
      {"sleep 600", ProcessEnd::timed_out, ""},
  };
  for (const auto& c : cases) {
    const std::string script = "case \"$l\" in *broken*) " + c.snippet + ";; *) " + kAnswerOne + ";; esac";
    HarnessClient port(settings(scripted(script), std::chrono::milliseconds(1500), 11));
    ASSERT_EQ(port.start(), std::nullopt);
    const auto start = std::chrono::steady_clock::now();
    const auto broken = port.run({"broken"}, "");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8)) << c.snippet;
    EXPECT_EQ(broken.end, c.end) << c.snippet << ": " << conform::runner::describe_end(broken, kTimeout);
    EXPECT_NE(broken.error.find(c.reason), std::string::npos) << c.snippet << ": " << broken.error;
    if (c.end == ProcessEnd::output_limit) {
      EXPECT_EQ(conform::runner::describe_end(broken, kTimeout),
                "wrote more than 11 bytes to standard output (killed)");
    }
    const auto next = port.run({"check", "-"}, "{}\n");
    EXPECT_EQ(next.end, ProcessEnd::exited) << c.snippet << ": " << next.error;
    EXPECT_EQ(next.out, "1 messages\n") << c.snippet;
  }
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

pid_t read_pid(const fs::path& file) {
  for (int i = 0; i < 100 && fs::file_size(file) == 0; ++i) ::usleep(20000);
  std::ifstream in(file);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

// A daemon the port starts (in a session of its own) dies with the port,
// on stop as when a broken port is killed.
TEST(HarnessClient, NoDaemonOutlivesThePort) {
  const fs::path pids = fs::temp_directory_path() / ("agent-session-harness-pids-" + std::to_string(::getpid()));
  for (const bool clean_stop : {true, false}) {
    std::ofstream(pids).close();
    {
      HarnessClient port(settings(scripted("setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $! > " + pids.string() +
                                           "; case \"$l\" in *broken*) echo x;; *) " + kAnswerOne + ";; esac")));
      ASSERT_EQ(port.start(), std::nullopt);
      const auto r = port.run({clean_stop ? "check" : "broken"}, "");
      EXPECT_EQ(r.end, clean_stop ? ProcessEnd::exited : ProcessEnd::harness_failure) << r.error;
      const pid_t daemon = read_pid(pids);
      ASSERT_GT(daemon, 0);
      if (clean_stop) {
        EXPECT_TRUE(alive(daemon));
        EXPECT_EQ(port.stop(), std::nullopt);
      }
      for (int i = 0; i < 100 && alive(daemon); ++i) ::usleep(20000);
      EXPECT_FALSE(alive(daemon)) << "clean stop: " << clean_stop;
    }
  }
  fs::remove(pids);
}

TEST(HarnessClient, APortThatIgnoresStopIsKilledWithinTheTimeout) {
  HarnessClient port(settings(scripted(kAnswerOne) /*answers stop*/, std::chrono::milliseconds(1000)));
  ASSERT_EQ(port.start(), std::nullopt);
  HarnessClient deaf(settings(
      shell_port(R"(read l; echo '{"op":"start","protocol":1,"port":{"name":"f","version":"0","language":"sh"},)"
                 R"("commands":["check","estimate","canon","trim"]}'; trap '' TERM; exec sleep 600 <&-)"),
      std::chrono::milliseconds(1000)));
  ASSERT_EQ(deaf.start(), std::nullopt);
  const auto start = std::chrono::steady_clock::now();
  const auto problem = deaf.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("did not answer stop"), std::string::npos) << *problem;
  EXPECT_EQ(port.stop(), std::nullopt);
}

std::vector<std::string> fail_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("FAIL")) lines.push_back(line);
  return lines;
}

std::size_t count_containing(const std::vector<std::string>& lines, const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(lines.begin(), lines.end(), [&](const std::string& line) { return line.find(text) != line.npos; }));
}

// Found by an attacker: a port whose harness dies and never answers start again made
// every remaining check pay --timeout for a start (5 small vectors at 2 s
// took 63 s). Now kRestartAttempts failed starts in a row end the job's
// restarts and the rest fail at once, named. The time is recorded, never
// asserted; the starts the port saw are counted.
TEST_F(FakeVectors, HarnessRestartsStopAfterTheBudgetAndTheRestFailAtOnce) {
  const int vectors = 6;
  for (int i = 0; i < vectors; ++i)
    add("v" + std::to_string(i), "{\"role\":\"user\",\"content\":\"hi\"}\n", kOneMessage);
  const fs::path starts = dir_.string() + ".starts";
  const auto port =
      shell_port("echo start >> '" + starts.string() + R"('; [ "$(wc -l < ')" + starts.string() +
                 R"-(')" -gt 1 ] && exec sleep 600; )-"
                 R"(read l; echo '{"op":"start","protocol":1,"port":{"name":"f","version":"0","language":"sh"},)"
                 R"("commands":["check","estimate","canon","trim"]}'; read l; exit 1)");
  const auto began = std::chrono::steady_clock::now();
  const auto r = conform(dir_, port, {"--harness", "--timeout", "2"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  RecordProperty("seconds", std::to_string(seconds));
  std::cout << "[ timing   ] " << vectors << " vectors, 2 s timeout, restart budget "
            << conform::runner::kRestartAttempts << ": " << seconds << " s\n";
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // v0 FILE: the run the port died on; v0 -, v1 FILE and - (one line for
  // both): the budget's restarts, each a start not answered within 2 s;
  // v2 on: given up at once.
  const auto lines = fail_lines(r.out);
  ASSERT_EQ(lines.size(), vectors + 1u) << r.out;
  EXPECT_NE(lines[0].find("the port's harness process ended without answering (exit 1)"), std::string::npos);
  EXPECT_EQ(count_containing(lines, "cannot restart the port: "), 2u);
  const std::string gave_up = "the port's harness could not be restarted (" +
                              std::to_string(conform::runner::kRestartAttempts) + " attempts in a row failed: 'sh -c ";
  EXPECT_EQ(count_containing(lines, gave_up), vectors - 2u) << r.out;
  EXPECT_EQ(count_containing(lines, "did not answer start within 2"), lines.size() - 1);
  std::ifstream in(starts);
  std::string line;
  int seen = 0;
  while (std::getline(in, line)) ++seen;
  EXPECT_EQ(seen, 1 + conform::runner::kRestartAttempts);  // the first start, then the budget's restarts
  fs::remove(starts);
}

// A start that succeeds resets the count: a port that answers every third
// start only (and dies on every run) is never given up on, although it
// fails kRestartAttempts - 1 starts in a row again and again.
TEST(HarnessClient, ASuccessfulStartResetsTheRestartBudget) {
  static_assert(conform::runner::kRestartAttempts == 3, "the port below fails two starts in a row");
  const fs::path starts = fs::temp_directory_path() / ("agent-session-starts-" + std::to_string(::getpid()));
  fs::remove(starts);
  HarnessClient port(settings(
      shell_port("echo s >> '" + starts.string() + R"('; [ $(( $(wc -l < ')" + starts.string() +
                 R"(') % 3 )) = 1 ] || exit 3; )"
                 R"(read l; echo '{"op":"start","protocol":1,"port":{"name":"f","version":"0","language":"sh"},)"
                 R"("commands":["check","estimate","canon","trim"]}'; read l; exit 1)"),
      std::chrono::milliseconds(2000)));
  ASSERT_EQ(port.start(), std::nullopt);
  for (int i = 0; i < 9; ++i) {
    const auto r = port.run({"check", "-"}, "{}\n");
    EXPECT_EQ(r.end, ProcessEnd::harness_failure) << i;
    EXPECT_EQ(r.error.find("could not be restarted"), std::string::npos) << i << ": " << r.error;
  }
  fs::remove(starts);
}

// Found by an attacker: an answer n followed in the same write by a forged answer n+1
// had n+1 accepted although request n+1 was never sent, and the port's
// real answer then blamed the next check (harness.md §4). Bytes after an
// answer are an answer to no request: the run they were meant for fails,
// named, the port is restarted, and the vector after it passes.
TEST_F(FakeVectors, AnAnswerWrittenBeforeItsRequestFailsThatCheckAndNoOther) {
  for (const char* name : {"v1", "v2", "v3"}) add(name, "{\"role\":\"user\",\"content\":\"hi\"}\n", kOneMessage);
  const std::string answer =
      R"({\"op\":\"run\",\"seq\":%s,\"exit\":0,\"stdout_b64\":\"MSBtZXNzYWdlcwo=\",\"stderr_b64\":\"\"}\n)";
  const auto forging =
      scripted(R"(if [ "$seq" = 1 ]; then printf ")" + answer + answer + R"(" "$seq" 2; else )" + kAnswerOne + "; fi");
  const auto r = conform(dir_, forging, {"--harness", "--timeout", "10"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto lines = fail_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_NE(lines[0].find("v1"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("the port wrote 78 bytes after its answer to request 1, before request 2 was sent (killed)"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(r.out.find("2 passed, 1 failed"), std::string::npos) << r.out;
}

// The same on the client: bytes the port writes after its answer, later
// but before the next request, fail that request unsent; stop too.
TEST(HarnessClient, BytesAfterAnAnswerFailTheNextRequestUnsent) {
  HarnessClient port(settings(scripted(kAnswerOne + R"(; case "$l" in *late*) sleep 0.2; echo stale;; esac)")));
  ASSERT_EQ(port.start(), std::nullopt);
  EXPECT_EQ(port.run({"late"}, "").end, ProcessEnd::exited);
  ::usleep(600000);
  const auto r = port.run({"check", "-"}, "{}\n");
  EXPECT_EQ(r.end, ProcessEnd::harness_failure);
  EXPECT_EQ(r.error, "the port wrote 6 bytes after its answer to request 1, before request 2 was sent (killed)");
  EXPECT_EQ(port.run({"late"}, "").out, "1 messages\n");  // a fresh port: its answer to start came first
  ::usleep(600000);
  EXPECT_NE(port.stop().value_or("").find("wrote 6 bytes after its answer to request 3, before stop was sent"),
            std::string::npos);
}

// A port that passes every check but never answers stop fails stop
// (harness.md §4: no answer within the timeout): the run fails, exit 1,
// with one line that says so, after its summary and reports.
TEST_F(FakeVectors, APortThatHangsOnStopFailsTheRun) {
  add("y_one", "{}\n", kOneMessage);
  std::ofstream(dir_ / "VERSION") << "1.0.0\n";  // no other line on standard error
  const auto port =
      shell_port(R"(read l; echo '{"op":"start","protocol":1,"port":{"name":"fake","version":"0","language":"sh"},)"
                 R"("commands":["check","estimate","canon","trim"]}'; )"
                 R"(while read l; do case "$l" in *'"op":"stop"'*) exec sleep 600;; esac; )"
                 R"(seq=$(echo "$l" | sed 's/.*"seq":\([0-9]*\).*/\1/'); )"
                 R"(echo '{"op":"run","seq":'$seq',"exit":0,"stdout_b64":"MSBtZXNzYWdlcwo=","stderr_b64":""}'; done)");
  const fs::path report = dir_ / "report.json";
  const auto r = conform(dir_, port, {"--harness", "--timeout", "1", "--report", "json=" + report.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("1 passed, 0 failed\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("agent-session-conform: the port's harness did not stop cleanly: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did not answer stop"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(fs::exists(report));
}

}  // namespace
}  // namespace agent_session
