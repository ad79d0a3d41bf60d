// The runner's helper processes (conform/runner/supervisor.hpp) against ports
// that leave daemons behind, stop or kill a process (their parent, the
// runner's helper, among them): each run ends within its timeout, fails
// with a reason, the run goes on to the next vector and nothing the port
// started outlives it (corpus/conformance/README.md, step 2). Issue 13,
// item 9, and "Hardening, round two", items 4 and 5.
#include "conform/runner/subprocess.hpp"
#include "support/fake_vectors.hpp"
#include "support/processes.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::conform;
using test_support::ConformRun;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;
using test_support::without_reproduce;

// The scans of /proc below read processes that may end at any moment: one
// reaped between the open and the read of its cmdline made a stream's read
// throw (ESRCH) and failed a test at random; proc_text calls it gone.
TEST(ProcText, AProcessReapedBetweenOpenAndReadIsGoneNotAnError) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  EXPECT_NE(test_support::proc_text(child, "cmdline"), "");
  std::ifstream opened("/proc/" + std::to_string(child) + "/cmdline", std::ios::binary);
  ASSERT_TRUE(opened.is_open());
  ::kill(child, SIGKILL);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  EXPECT_ANY_THROW(std::string(std::istreambuf_iterator<char>(opened), {}));  // what the scans met
  EXPECT_EQ(test_support::proc_text(child, "cmdline"), "");
  EXPECT_EQ(test_support::proc_text(child, "stat"), "");
}

// The pids that the daemons of a port wrote into `dir`, one file each.
std::vector<pid_t> daemon_pids(const fs::path& dir) {
  std::vector<pid_t> pids;
  for (const auto& entry : fs::directory_iterator(dir)) {
    long pid = 0;
    std::ifstream(entry.path()) >> pid;
    if (pid > 0) pids.push_back(static_cast<pid_t>(pid));
  }
  return pids;
}

// A port that leaves two daemons per run: one that double-forks with
// `setsid -f` (out of the port's session and process group), one forked
// by a subshell that exits (an orphan that calls setsid). Each writes its
// pid; the port waits for both, then answers (or hangs with `hang`).
std::string daemonizing_port(const fs::path& pids, const char* hang) {
  const std::string d = "'" + pids.string() + "'";
  return "setsid -f sh -c 'echo $$ > \"$0/a.$1\"; exec sleep 1000' " + d +
         " $$; "
         "( setsid sh -c 'echo $$ > \"$0/b.$1\"; exec sleep 1000' " +
         d +
         " $$ & ); "
         "while [ ! -s " +
         d + "/a.$$ ] || [ ! -s " + d +
         "/b.$$ ]; do sleep 0.01; done; "
         "if [ \"$1\" = " +
         hang + " ]; then sleep 1000; fi; printf '1 messages\\n'";
}

// The command line of process `pid`, NULs and all ("" once it is gone,
// also while it is read).
std::string command_line(pid_t pid) { return test_support::proc_text(pid, "cmdline"); }

// Every pid in `pids` that still runs `sleep` (every daemon here does),
// killed so that a failing run leaves nothing behind. The command line
// keeps a pid reused by another program from counting, or being killed;
// a zombie has none.
std::vector<pid_t> survivors(const std::vector<pid_t>& pids) {
  std::vector<pid_t> alive;
  for (const pid_t pid : pids) {
    if (command_line(pid).starts_with(std::string("sleep\0", 6))) {
      alive.push_back(pid);
      ::kill(pid, SIGKILL);
    }
  }
  return alive;
}

// The runner in this process, with a safety net: a defect that hangs it
// fails the test, ending the test binary, after a minute (never a measured
// duration) instead of hanging the suite. Not the runner binary under
// run_process (conform_binary): that call's own helper would reap and
// kill whatever the runner leaked, so the leak could not be seen.
ConformRun conform_or_give_up(const fs::path& vectors, const std::vector<std::string>& command,
                              const std::vector<std::string>& options) {
  std::promise<ConformRun> promise;
  auto future = promise.get_future();
  std::thread([vectors, command, options, promise = std::move(promise)]() mutable {
    promise.set_value(conform(vectors, command, options));
  }).detach();
  if (future.wait_for(std::chrono::minutes(1)) != std::future_status::ready) {
    ADD_FAILURE() << "the runner still runs after a minute: it hangs";
    std::fflush(nullptr);
    std::_Exit(1);  // the runner's thread cannot be stopped
  }
  return future.get();
}

class Daemons : public FakeVectors {
 protected:
  void SetUp() override {
    FakeVectors::SetUp();
    pids_ = dir_.string() + "_pids";
    fs::remove_all(pids_);
    fs::create_directories(pids_);
  }
  void TearDown() override {
    survivors(daemon_pids(pids_));
    fs::remove_all(pids_);
    FakeVectors::TearDown();
  }
  // Shell words that start `sleep 300` in the background and write its
  // pid into pids_, one file per port process.
  std::string background_sleep() const { return "sleep 300 & echo $! > '" + pids_.string() + "'/$$; "; }
  fs::path pids_;
};

TEST_F(Daemons, NoDescendantOfAPortThatExitsSurvivesItsRun) {
  add("y_one", "{}\n", kOneMessage);
  add("y_two", "{}\n", kOneMessage);
  // The daemons keep the port's output open: the run is judged when the
  // port exits, not when they die, so this passes well within the timeout.
  const auto r = conform(dir_, shell_port(daemonizing_port(pids_, "never")), {"--jobs", "2", "--timeout", "60"});
  EXPECT_EQ(r.out, "2 passed, 0 failed\n") << r.err;
  const auto pids = daemon_pids(pids_);
  EXPECT_EQ(pids.size(), 8u);  // 2 vectors, 2 runs each, 2 daemons per run
  EXPECT_EQ(survivors(pids), std::vector<pid_t>{});
}

TEST_F(Daemons, NoDescendantOfAPortKilledAtItsTimeoutSurvives) {
  add("y_hang", "{}\n", kOneMessage);
  // The timeout only has to outlast starting the two daemons.
  const auto r = conform(dir_, shell_port(daemonizing_port(pids_, "check")), {"--timeout", "5"});
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_hang (check FILE): timed out after 5 s (killed), expected exit 0\n0 passed, 1 failed\n");
  const auto pids = daemon_pids(pids_);
  EXPECT_EQ(pids.size(), 2u);
  EXPECT_EQ(survivors(pids), std::vector<pid_t>{});
}

// Item 5: `kill -KILL $PPID` kills the port's parent, the runner's helper
// that waits for it. The check fails with that reason, not the whole run;
// the port, hanging on, and its background job are killed at once (the
// timeout, far off, is not what ends the run).
TEST_F(Daemons, APortThatKillsItsParentFailsThatCheckAndLeavesNothingBehind) {
  add("y_kill", "{}\n", R"({"checks":[{"args":["estimate"],"exit":0,"stdout":"1\n"}]})");
  add("y_next", "{}\n", kOneMessage);
  const auto port = "if [ $1 = estimate ]; then " + background_sleep() +
                    "kill -KILL $PPID; sleep 300; fi; "
                    "printf '1 messages\\n'";
  const auto r = conform_or_give_up(dir_, shell_port(port), {"--timeout", "30"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_kill (estimate FILE, and with -): its parent process, the runner's helper, was killed by "
            "signal 9 (Killed), expected exit 0\n1 passed, 1 failed\n");
  EXPECT_EQ(r.err, "");
  const auto pids = daemon_pids(pids_);
  EXPECT_EQ(pids.size(), 2u);  // one per run
  EXPECT_EQ(survivors(pids), std::vector<pid_t>{});
}

TEST_F(Daemons, RunProcessReportsAKilledParentAndKillsWhatTheProgramStarted) {
  const auto limit = std::chrono::seconds(30);
  const auto r =
      conform::runner::run_process({"sh", "-c", "sleep 300 & echo $!; kill -KILL $PPID; sleep 300"}, "", limit);
  EXPECT_EQ(r.end, conform::runner::ProcessEnd::parent_killed);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_EQ(conform::runner::describe_end(r, limit),
            "its parent process, the runner's helper, was killed by signal 9 (Killed)");
  EXPECT_EQ(survivors({static_cast<pid_t>(std::stol("0" + r.out))}), std::vector<pid_t>{}) << r.out;
}

// A program that stops its parent at once may do so before the parent has
// closed its copy of the start pipe (it holds it until just after its
// fork): the start then never completes, and the timeout must still say
// that the parent was stopped, as it does for a stop a moment later.
TEST_F(Daemons, AProgramThatStopsItsParentAtOnceIsReportedSoWheneverTheStopLands) {
  const auto limit = std::chrono::milliseconds(300);
  for (int run = 0; run < 10; ++run) {
    const auto r = conform::runner::run_process({"sh", "-c", "kill -STOP $PPID"}, "", limit);
    ASSERT_EQ(r.end, conform::runner::ProcessEnd::parent_stopped)
        << "run " << run << ": " << conform::runner::describe_end(r, limit);
    EXPECT_EQ(r.signal, SIGSTOP);
  }
}

// Item 4: ports that stop a process, their parent (the runner's helper)
// and its parent too, themselves, their process group, with SIGSTOP,
// SIGTSTP, SIGTTIN or SIGTTOU, then exit or hang. Each run ends at its
// timeout with the stopped processes killed; the run does not hang.
TEST_F(Daemons, PortsThatStopAProcessFailAtTheirTimeoutAndLeaveNothingBehind) {
  const std::vector<std::pair<std::string, std::string>> stops = {
      {"y_parent", "kill -STOP $PPID"},
      {"y_parent_and_grandparent", "read -r _ _ _ up _ < /proc/$PPID/stat; kill -STOP $PPID $up"},
      {"y_self", "kill -STOP $$"},
      {"y_group", "kill -STOP 0"},
      {"y_tstp", "kill -TSTP $$"},
      {"y_ttin", "kill -TTIN $$"},
      {"y_ttou", "kill -TTOU $$"},
      {"y_parent_then_hang", "kill -STOP $PPID; sleep 300"},
  };
  std::string port = background_sleep() + "case $2 in ";
  for (const auto& [name, stop] : stops) {
    add(name, "{}\n", kOneMessage);
    port += "*/" + name + "/*) " + stop + ";; ";
  }
  port += "esac; printf '1 messages\\n'";
  const auto r = conform_or_give_up(dir_, shell_port(port), {"--timeout", "2", "--jobs", "4"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string timed_out = "timed out after 2 s (killed), expected exit 0\n";
  const std::string parent_stopped =
      "its parent process, the runner's helper, was stopped by signal 19 (Stopped (signal)) and killed at the 2 s "
      "timeout, expected exit 0\n";
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_group (check FILE): " + timed_out + "FAIL y_parent (check FILE): " + parent_stopped +
                "FAIL y_parent_and_grandparent (check FILE): " + parent_stopped +
                "FAIL y_parent_then_hang (check FILE): " + parent_stopped + "FAIL y_self (check FILE): " + timed_out +
                "FAIL y_tstp (check FILE): " + timed_out + "FAIL y_ttin (check FILE): " + timed_out +
                "FAIL y_ttou (check FILE): " + timed_out + "0 passed, 8 failed\n");
  EXPECT_EQ(r.err, "");
  const auto pids = daemon_pids(pids_);
  EXPECT_EQ(pids.size(), stops.size());  // each vector's first run
  EXPECT_EQ(survivors(pids), std::vector<pid_t>{});
}

// A supervisor that never answers, kept stopped by a process out of its
// reach (not a descendant it would kill: a stopper the test starts, which
// SIGSTOPs it over and over from the moment the port names it): the runner
// waits for its word no longer than its grace after the timeout, then
// kills it; the run ends and goes on. (The supervisor may also win the
// race with the stopper after the runner's SIGCONT, and answer: the run
// ends the same way, only sooner.) What the port started would then be
// left to init, the limit of runner/supervisor.hpp; this port leaves nothing.
TEST_F(Daemons, ASupervisorKeptStoppedIsKilledAfterItsGrace) {
  add("y_keep_stopped", "{}\n", kOneMessage);
  add("y_next", "{}\n", kOneMessage);
  const std::string named = (dir_ / "supervisor_pid").string(), script = (dir_ / "stopper.sh").string();
  std::ofstream(script) << "until [ -s '" << named << "' ]; do sleep 0.01; done; read up < '" << named << "'\n"
                        << "while kill -STOP \"$up\" 2>/dev/null; do :; done\n";
  ASSERT_EQ(std::system(("sh '" + script + "' keep_stopped </dev/null >/dev/null 2>&1 &").c_str()), 0);
  // The port names its grandparent and waits until it is stopped.
  const std::string port = "case $2 in */y_keep_stopped/*) read -r _ _ _ up _ < /proc/$PPID/stat; echo $up > '" +
                           named +
                           "'; "
                           "until grep -q '^State:.*T' /proc/$up/status; do :; done;; esac; printf '1 messages\\n'";
  const auto r = conform_or_give_up(dir_, shell_port(port), {"--timeout", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_keep_stopped (check FILE): timed out after 1 s (killed), expected exit 0\n1 passed, 1 failed\n");
  // The stopper ends once the supervisor is gone (kill fails), or at once
  // if the port never named it.
  if (fs::file_size(named) == 0) std::ofstream(named) << "none\n";
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  const auto stopper_runs = [&] {
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") == std::string::npos &&
          command_line(static_cast<pid_t>(std::stol(name))).find(script) != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  while (stopper_runs() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(stopper_runs());
}

// Found by a fresh-eyes attack: any signal but the few the helpers wait
// for ended them (SIGUSR1, SIGALRM, SIGSEGV sent by kill, the real-time
// ones), and what the port had started went to init. Both helpers block
// every signal that can be blocked; only SIGKILL, two levels up, is left
// (runner/supervisor.hpp).
TEST_F(Daemons, NoSignalButSigkillEndsTheHelpers) {
  const std::vector<std::string> signals = {"USR1", "USR2", "ALRM", "SEGV", "ABRT", "TRAP", "XCPU", "VTALRM", "RTMIN"};
  std::string port = background_sleep() + "read -r _ _ _ up _ < /proc/$PPID/stat; case $2 in ";
  for (const std::string& sig : signals) {
    add("y_" + sig, "{}\n", kOneMessage);
    port += "*/y_" + sig + "/*) kill -" + sig + " $PPID $up;; ";
  }
  port += "esac; printf '1 messages\\n'";
  const auto r = conform_or_give_up(dir_, shell_port(port), {"--timeout", "5"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(without_reproduce(r.out), std::to_string(signals.size()) + " passed, 0 failed\n");
  const auto pids = daemon_pids(pids_);
  EXPECT_EQ(pids.size(), 2 * signals.size());  // both checks of each vector
  EXPECT_EQ(survivors(pids), std::vector<pid_t>{});
}
// Found by a fresh-eyes attack: a chain of processes, each the child of
// the one before and in a session of its own, was killed one level per
// scan of /proc (each level's child became the helper's only when its
// parent died), while the chain grew at its end: it outlived the helper's
// grace, and the rest of it went to init. One scan now finds every
// descendant; what forks meanwhile is the next scan's.
TEST_F(Daemons, AGrowingChainOfSessionsIsKilledWhole) {
  add("y_chain", "{}\n", kOneMessage);
  const std::string marker = "agent_session_chain_" + std::to_string(::getpid());
  // Each level forks the next, which starts a session, and sleeps.
  const std::string port =
      "case $2 in */y_chain/*) perl -MPOSIX -e 'for (1..3000) { if (fork) { sleep 300; exit } setsid } "
      "sleep 300' " +
      marker + " </dev/null >/dev/null 2>&1 & exec sleep 300;; esac; printf '1 messages\\n'";
  const auto r = conform_or_give_up(dir_, shell_port(port), {"--timeout", "3"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_chain (check FILE): timed out after 3 s (killed), expected exit 0\n0 passed, 1 failed\n");
  // What is left alive of it (zombies are gone, if this machine's init
  // does not reap them), killed until none is left.
  const auto alive = [&] {
    std::vector<pid_t> pids;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const pid_t pid = static_cast<pid_t>(std::stol(name));
      const std::string stat = test_support::proc_text(pid, "stat");
      if (!stat.empty() && stat.find(") Z ") == std::string::npos &&
          command_line(pid).find(marker) != std::string::npos) {
        pids.push_back(pid);
      }
    }
    return pids;
  };
  const std::size_t left = alive().size();
  for (int round = 0; round < 200; ++round) {
    const auto pids = alive();
    if (pids.empty()) break;
    for (const pid_t pid : pids) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(left, 0u) << "processes of the chain outlived its run";
}
}  // namespace
}  // namespace agent_session
