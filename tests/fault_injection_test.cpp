// I/O fault injection in the manner of SQLite's (SPEC.md §8): every system
// call that `append` (single and batch, with and without --sync, new and
// existing files) and `repair --apply` make on the session's directory is
// made to fail in turn, at every call site it has in that operation, by
// the LD_PRELOAD library tests/fault/fault_injection.cpp. After each
// failure the session file is byte-identical to before (or, when the
// operation says it got that far, exactly what it reports), the exit code
// is 3 with one line naming the system's reason, and nothing is left
// half-made: no temporary file, no backup under a final name that is not
// a complete copy.
#include "support/run_binary.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using Env = std::map<std::string, std::string>;

class FaultInjection : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    watched_ = path("watched");
    fs::create_directories(watched_);
    session_ = watched_ / "s.jsonl";
  }

  // Runs the real binary with the fault library preloaded. Standard
  // streams live outside the watched directory.
  Outcome cli(const std::vector<std::string>& args, const std::string& input, Env env) {
    env["LD_PRELOAD"] = AGENT_SESSION_FAULT_LIBRARY;
    env["FAULT_DIR"] = watched_.string();
    test_support::BinaryOptions options;
    options.input = input;
    options.env = env;
    const test_support::BinaryRun run = test_support::run_binary(args, dir_, options);
    EXPECT_EQ(run.signal, 0) << "killed by signal " << run.signal;
    return {run.exit_code, run.out, run.err};
  }

  // How many watched calls of each kind the operation makes, fault-free.
  std::map<std::string, long> counts(const std::vector<std::string>& args, const std::string& input, Env env = {}) {
    env["FAULT_COUNTS"] = path("counts").string();
    const Outcome run = cli(args, input, env);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    std::map<std::string, long> result;
    std::istringstream lines(read(path("counts")));
    std::string name;
    long count = 0;
    while (lines >> name >> count) result[name] = count;
    return result;
  }

  // Names in the watched directory other than the session.
  std::vector<std::string> others() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(watched_)) {
      if (entry.path() != session_) names.push_back(entry.path().filename().string());
    }
    return names;
  }

  void set_session(const std::optional<std::string>& bytes) {
    fs::remove_all(watched_);
    fs::create_directories(watched_);
    if (bytes) write(session_, *bytes);
  }

  std::optional<std::string> session_bytes() const {
    if (!fs::exists(session_)) return std::nullopt;
    return read(session_);
  }

  fs::path watched_;
  fs::path session_;
};

struct Scenario {
  std::string name;
  std::vector<std::string> args;  // "{}" stands for the session path
  std::optional<std::string> before;
  std::string input;
  std::string after;  // the session once the operation succeeds
  bool repair = false;
};

const std::string kA = R"({"role":"user","content":"a"})"
                       "\n";
const std::string kB = R"({"role":"assistant","content":"b","toolCalls":[{"id":"c1","name":"t","input":{}}]})"
                       "\n";
const std::string kC = R"({"role":"tool","content":"c","toolCallId":"c1","isError":false})"
                       "\n";
const std::string kTorn = R"({"role":"user","cont)";

std::vector<Scenario> scenarios() {
  const std::string valid_unterminated = kA + kB.substr(0, kB.size() - 1);
  return {
      {"append one", {"append", "{}"}, kA, kB, kA + kB},
      {"append a batch", {"append", "{}"}, kA, kB + kC + kA, kA + kB + kC + kA},
      {"append one --sync", {"append", "--sync", "{}"}, kA, kB, kA + kB},
      {"append a batch --sync", {"append", "--sync", "{}"}, kA, kB + kC, kA + kB + kC},
      {"append to a new file", {"append", "{}"}, std::nullopt, kA + kB, kA + kB},
      {"append to a new file --sync", {"append", "--sync", "{}"}, std::nullopt, kA + kB, kA + kB},
      {"append after a valid unterminated line",
       {"append", "{}"},
       valid_unterminated,
       kC,
       valid_unterminated + "\n" + kC},
      {"repair --apply", {"repair", "--apply", "{}"}, kA + kB + kTorn, "", kA + kB, true},
  };
}

std::vector<std::string> with_session(std::vector<std::string> args, const fs::path& session) {
  for (std::string& arg : args) {
    if (arg == "{}") arg = session.string();
  }
  return args;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// One line, the CLI's prefix, and the reason the fault gave.
void expect_one_line_naming(const Outcome& run, const std::string& reason, const std::string& where) {
  EXPECT_EQ(run.exit_code, 3) << where << ": " << run.err;
  EXPECT_TRUE(starts_with(run.err, "agent-session: ")) << where << ": " << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << where << ": " << run.err;
  EXPECT_NE(run.err.find(reason), std::string::npos) << where << ": " << run.err;
  EXPECT_EQ(run.out.find("repaired"), std::string::npos) << where << ": " << run.out;
}

TEST_F(FaultInjection, EveryFailingCallLeavesTheSessionAsBeforeOrAsReported) {
  long points = 0;
  std::map<std::string, long> points_per_call;
  // New files are made with O_TMPFILE, or, on a filesystem without it,
  // under a temporary name: both ways are failed call by call.
  for (const bool no_tmpfile : {false, true}) {
    const Env base = no_tmpfile ? Env{{"FAULT_NO_TMPFILE", "1"}} : Env{};
    for (Scenario scenario : scenarios()) {
      if (no_tmpfile) scenario.name += " (no O_TMPFILE)";
      const std::vector<std::string> args = with_session(scenario.args, session_);
      set_session(scenario.before);
      const std::map<std::string, long> calls = counts(args, scenario.input, base);
      ASSERT_EQ(session_bytes(), scenario.after) << scenario.name << ": the fault-free run";
      // Each operation needs at least these; a count of 0 would mean the
      // library stopped seeing the calls and the test checked nothing.
      for (const char* needed : {"open", "fstat", "flock", "write"}) {
        ASSERT_GT(calls.at(needed), 0) << scenario.name << " makes no watched " << needed;
      }
      for (const auto& [call, count] : calls) {
        for (long nth = 1; nth <= count; ++nth) {
          for (const bool partial : {false, true}) {
            if (partial && call != "write") continue;
            const std::string where =
                scenario.name + ", " + call + " #" + std::to_string(nth) + (partial ? " (half written)" : "");
            set_session(scenario.before);
            Env env = base;
            env["FAULT_CALL"] = call;
            env["FAULT_NTH"] = std::to_string(nth);
            if (partial) env["FAULT_PARTIAL"] = "1";
            const Outcome run = cli(args, scenario.input, env);
            ++points;
            ++points_per_call[call];
            const std::optional<std::string> now = session_bytes();
            if (run.exit_code == 0) {
              EXPECT_EQ(now, scenario.after) << where;
              continue;
            }
            expect_one_line_naming(run, partial ? std::strerror(ENOSPC) : std::strerror(EIO), where);
            const bool cut = scenario.repair && run.err.find("cut to") != std::string::npos;
            if (cut) {
              EXPECT_EQ(now, scenario.after) << where;
            } else if (scenario.before) {
              EXPECT_EQ(now, scenario.before) << where;
            } else {
              // A failed first append may leave the empty file it created
              // (an empty session): never a line.
              EXPECT_TRUE(!now || now->empty()) << where << ": " << now.value_or("");
            }
            for (const std::string& other : others()) {
              EXPECT_EQ(other.find(".tmp-"), std::string::npos) << where << ": left " << other;
              EXPECT_EQ(read(watched_ / other), *scenario.before) << where << ": " << other << " is not a whole backup";
              // A backup stays only once the cut began, and the error names it
              // (posix_file.hpp: no final name on failure).
              EXPECT_NE(run.err.find("holds the file as it was"), std::string::npos) << where << ": left " << other;
            }
          }
        }
      }
    }
  }
  std::cout << "fault injection: " << points << " injection points covered:";
  for (const auto& [call, n] : points_per_call) std::cout << ' ' << call << ' ' << n;
  std::cout << '\n';
  RecordProperty("injection_points", static_cast<int>(points));
  // Every kind of call the issue names was failed somewhere.
  for (const char* call :
       {"open", "flock", "fstat", "fchmod", "read", "pread", "write", "fdatasync", "fsync", "ftruncate"}) {
    EXPECT_GT(points_per_call[call], 0) << call << " was never failed";
  }
  // New files get their names by linkat (O_TMPFILE), or by rename where
  // the filesystem has no O_TMPFILE.
  EXPECT_GT(points_per_call["link"], 0) << "linking an O_TMPFILE file was never failed";
  EXPECT_GT(points_per_call["rename"], 0) << "renaming a temporary file was never failed";
}

TEST_F(FaultInjection, AFailedRollbackSaysSoAndRepairRestoresTheFileAsItWas) {
  // The write stops half-way (disk full) and every call after it fails,
  // the rollback's ftruncate included: the one case where a torn line
  // stays, and the error must say so and name the repair.
  const std::string before = kA;
  set_session(before);
  const std::vector<std::string> args = with_session({"append", "{}"}, session_);
  const Outcome run =
      cli(args, kB + kC, {{"FAULT_CALL", "write"}, {"FAULT_NTH", "1"}, {"FAULT_PARTIAL", "1"}, {"FAULT_PERSIST", "1"}});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.err.find("the rollback failed too"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("agent-session repair"), std::string::npos) << run.err;
  const std::string torn = read(session_);
  ASSERT_TRUE(starts_with(torn, before));
  ASSERT_TRUE(starts_with(before + kB + kC, torn)) << "only a prefix of the batch, never other bytes";
  ASSERT_NE(torn.back(), '\n');
  const Outcome repaired = cli(with_session({"repair", "--apply", "{}"}, session_), "", {});
  EXPECT_EQ(repaired.exit_code, 0) << repaired.err;
  // Half of kB + kC holds no complete line of the batch: the cut restores
  // the file exactly.
  EXPECT_EQ(read(session_), before);
}

TEST_F(FaultInjection, AFailedSyncThenARetryLeavesEachMessageOnceEvenWhenItsRollbackFailed) {
  // A failed sync whose rollback also failed was reported as a plain sync
  // error, the batch stayed, and a retry appended it a second time. Each
  // failed sync (the file's fdatasync, the new file's directory fsync),
  // alone and with every call after it failing (its rollback's ftruncate
  // included), then a fault-free retry, or a repair and then the retry.
  struct Case {
    std::string name;
    std::optional<std::string> before;
    std::string call;
  };
  const std::vector<Case> cases = {
      {"fdatasync", kA, "fdatasync"},
      {"fdatasync of a new file", std::nullopt, "fdatasync"},
      {"fdatasync after a valid unterminated line", kA + kB.substr(0, kB.size() - 1), "fdatasync"},
      {"directory fsync of a new file", std::nullopt, "fsync"}};
  const std::vector<std::string> append = with_session({"append", "--sync", "{}"}, session_);
  const std::vector<std::string> repair = with_session({"repair", "--apply", "{}"}, session_);
  for (const Case& c : cases) {
    const std::string old = c.before.value_or("");
    const std::string expected = old + (old.empty() || old.back() == '\n' ? "" : "\n") + kB + kC;
    for (const bool rollback_fails : {false, true}) {
      for (const bool repair_first : {false, true}) {
        const std::string where =
            c.name + (rollback_fails ? ", rollback failing" : "") + (repair_first ? ", repaired first" : "");
        set_session(c.before);
        Env fault{{"FAULT_CALL", c.call}, {"FAULT_NTH", "1"}};
        if (rollback_fails) fault["FAULT_PERSIST"] = "1";
        const Outcome failed = cli(append, kB + kC, fault);
        expect_one_line_naming(failed, std::strerror(EIO), where);
        if (rollback_fails) {
          EXPECT_NE(failed.err.find("rollback failed"), std::string::npos) << where << ": " << failed.err;
          EXPECT_NE(failed.err.find("agent-session repair"), std::string::npos) << where << ": " << failed.err;
        } else {
          EXPECT_EQ(session_bytes().value_or(""), old) << where;
        }
        if (repair_first) {
          const Outcome repaired = cli(repair, "", {});
          EXPECT_EQ(repaired.exit_code, 0) << where << ": " << repaired.err << repaired.out;
          EXPECT_EQ(session_bytes().value_or(""), old) << where << ": the repair keeps what was there before";
        }
        const Outcome retry = cli(append, kB + kC, {});
        EXPECT_EQ(retry.exit_code, 0) << where << ": " << retry.err;
        EXPECT_EQ(session_bytes(), expected) << where << ": each message exactly once";
      }
    }
  }
}

TEST_F(FaultInjection, EveryFailingCallOfALoadIsAnIoErrorNeverAnAnswer) {
  // A read that fails part-way must not look like a shorter session.
  std::string big;
  for (int i = 0; i < 3000; ++i) big += kA + kB + kC;  // several read pieces
  set_session(big);
  for (const char* command : {"check", "estimate", "canon"}) {
    const std::vector<std::string> args = with_session({command, "{}"}, session_);
    const std::map<std::string, long> calls = counts(args, "");
    ASSERT_GT(calls.at("read"), 1) << command;
    for (const auto& [call, count] : calls) {
      for (long nth = 1; nth <= count; ++nth) {
        const Outcome run = cli(args, "", {{"FAULT_CALL", call}, {"FAULT_NTH", std::to_string(nth)}});
        const std::string where = std::string(command) + ", " + call + " #" + std::to_string(nth);
        expect_one_line_naming(run, std::strerror(EIO), where);
        EXPECT_EQ(run.out, "") << where;
      }
    }
  }
}

TEST_F(FaultInjection, ALoadSkipsTheLockOnlyWhereTheFilesystemHasNone) {
  // Unsupported flock (ENOLCK, EOPNOTSUPP, ENOSYS, EINVAL) loads unlocked,
  // as before locks existed; any other failure is an I/O error, never a
  // load that silently went without its lock.
  set_session(kA + kB + kC);
  const std::vector<std::string> check = with_session({"check", "{}"}, session_);
  for (const int unsupported : {ENOLCK, EOPNOTSUPP, ENOSYS, EINVAL}) {
    const Outcome run =
        cli(check, "", {{"FAULT_CALL", "flock"}, {"FAULT_NTH", "1"}, {"FAULT_ERRNO", std::to_string(unsupported)}});
    EXPECT_EQ(run.exit_code, 0) << std::strerror(unsupported) << ": " << run.err;
    EXPECT_EQ(run.out, "3 messages\n") << std::strerror(unsupported);
  }
  for (const int failure : {EIO, ENOMEM, EBADF}) {
    const Outcome run =
        cli(check, "", {{"FAULT_CALL", "flock"}, {"FAULT_NTH", "1"}, {"FAULT_ERRNO", std::to_string(failure)}});
    expect_one_line_naming(run, std::strerror(failure), std::strerror(failure));
    EXPECT_EQ(run.out, "");
  }
  // An interrupted flock is retried, not reported.
  const Outcome interrupted =
      cli(check, "", {{"FAULT_CALL", "flock"}, {"FAULT_NTH", "1"}, {"FAULT_ERRNO", std::to_string(EINTR)}});
  EXPECT_EQ(interrupted.exit_code, 0) << interrupted.err;
  // A writer never writes unlocked, whatever flock's reason.
  const std::string before = read(session_);
  for (const int unsupported : {ENOLCK, EOPNOTSUPP}) {
    const Outcome run =
        cli(with_session({"append", "{}"}, session_), kA,
            {{"FAULT_CALL", "flock"}, {"FAULT_NTH", "1"}, {"FAULT_ERRNO", std::to_string(unsupported)}});
    expect_one_line_naming(run, std::strerror(unsupported), "append");
    EXPECT_EQ(read(session_), before);
  }
}

}  // namespace
}  // namespace agent_session
