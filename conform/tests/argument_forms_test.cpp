// SPEC.md §6.1's argument forms as the runner's gate (src/harness/argument_forms.hpp):
// a vector's `args` are data, checked before any port sees them, in exec
// and in harness mode; a harness server runs only the port's own commands;
// a check the system refuses to start fails alone and the run goes on.
#include "harness/argument_forms.hpp"
#include "conform/runner/harness_client.hpp"
#include "harness/server.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using harness::argument_form_problem;
using test_support::conform;
using test_support::conform_binary;
using test_support::FakeVectors;
using test_support::kOneMessage;

using Words = std::vector<std::string>;

TEST(ArgumentForms, EveryFormOfTheTableIsAccepted) {
  for (const Words& args :
       {Words{"check"}, Words{"estimate"}, Words{"canon"}, Words{"trim", "--max-chars", "10"},
        Words{"trim", "--max-chars", ""}, Words{"trim", "--max-chars", "1\n2 x"}, Words{"trim"}, Words{"frobnicate"}}) {
    EXPECT_EQ(argument_form_problem(args, false), std::nullopt) << args[0];
  }
  EXPECT_EQ(argument_form_problem({"append"}, true), std::nullopt);
}

TEST(ArgumentForms, AnythingElseIsRefusedWithTheWordsShown) {
  for (const Words& args :
       {Words{}, Words{"conform", "--vectors", "v", "--report", "json=/x", "--", "sh", "-c", "touch X"},
        Words{"check", "--", "x"}, Words{"trim", "--max-chars"}, Words{"trim", "--max-chars=5"},
        Words{"trim", "--max-chars", "5", "extra"}, Words{"trim", "-m", "5"}, Words{"harness"}, Words{"run"},
        Words{"append"}, Words{"Check"}, Words{"check "}}) {
    const auto problem = argument_form_problem(args, false);
    ASSERT_TRUE(problem) << (args.empty() ? "(none)" : args[0]);
    EXPECT_NE(problem->find("are not one of SPEC.md §6.1's argument forms"), std::string::npos) << *problem;
  }
  // A file check's one form is append, and append is a file check's only.
  EXPECT_TRUE(argument_form_problem({"check"}, true));
  EXPECT_TRUE(argument_form_problem({"append", "x"}, true));
  const auto shown = argument_form_problem({"conform", "--", "sh"}, false);
  ASSERT_TRUE(shown);
  EXPECT_NE(shown->find("args 'conform -- sh' (3 words) are not"), std::string::npos) << *shown;
}

TEST(ArgumentForms, AWordWithANulByteIsRefusedWhateverTheForm) {
  for (const Words& args : {Words{std::string("check\0junk", 10)}, Words{"trim", "--max-chars", std::string("5\0", 2)},
                            Words{std::string("append\0", 7)}}) {
    const auto problem = argument_form_problem(args, args[0].starts_with("append"));
    ASSERT_TRUE(problem);
    EXPECT_NE(problem->find("holds a NUL byte"), std::string::npos) << *problem;
  }
}

TEST(ArgumentForms, AHugeArgumentListIsShownShort) {
  const auto problem = argument_form_problem(Words(300000, "x"), false);
  ASSERT_TRUE(problem);
  EXPECT_LT(problem->size(), 400u);
  EXPECT_NE(problem->find("(300000 words)"), std::string::npos) << *problem;
}

// The attack SPEC.md §6.1 "What the runner refuses" closes: a vector whose args would make `conform --
// agent-session` (the README's self-test) run a shell and write a report
// where the vector says. It must fail as unusable, run nothing, write
// nothing, and the run must go on to its summary.
class HostileArgs : public FakeVectors {
 protected:
  void plant() {
    marker_ = dir_ / "ran";
    stolen_report_ = dir_ / "stolen.json";
    const std::string expect = R"({"checks":[{"args":["conform","--vectors",")" + dir_.string() +
                               R"(","--report","json=)" + stolen_report_.string() + R"(","--","sh","-c","touch )" +
                               marker_.string() + R"("],"exit":0,"stdout":""}]})";
    add("a_hostile", "{\"role\":\"user\",\"content\":\"hi\"}\n", expect);
    add("b_nul", "{\"role\":\"user\",\"content\":\"hi\"}\n",
        R"({"checks":[{"args":["check\u0000junk"],"exit":0,"stdout":"1 messages\n"}]})");
    add("c_fine", "{\"role\":\"user\",\"content\":\"hi\"}\n", kOneMessage);
  }
  void expect_refused(const test_support::ConformRun& r) {
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_FALSE(fs::exists(marker_)) << "a vector's args ran a command";
    EXPECT_FALSE(fs::exists(stolen_report_)) << "a vector's args wrote a report";
    EXPECT_NE(r.out.find("FAIL a_hostile: unusable vector: args 'conform --vectors "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("FAIL b_nul: unusable vector: args word 1 holds a NUL byte"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("c_fine"), std::string::npos) << r.out;  // it passed
    EXPECT_NE(r.out.find("1 passed, 2 failed\n"), std::string::npos) << r.out;
  }
  fs::path marker_, stolen_report_;
};

TEST_F(HostileArgs, AVectorsArgsNeverReachThePortInExecMode) {
  plant();
  expect_refused(conform_binary(dir_, {AGENT_SESSION_CLI}));
}

TEST_F(HostileArgs, AVectorsArgsNeverReachThePortInHarnessMode) {
  plant();
  expect_refused(conform_binary(dir_, {AGENT_SESSION_CLI}, {"--harness"}));
}

// The server side: whatever a request's argv holds, `agent-session harness`
// and the exec adapter run only check, estimate, canon, trim and append:
// an argv outside SPEC.md §6.1's forms is an error answer, a form whose
// command is not the port's (frobnicate FILE) exit 2, unknown command.
TEST(HarnessServer, ARunRequestRunsOnlyThePortsOwnCommands) {
  const fs::path dir = fs::temp_directory_path() / ("agent-session-forms-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string marker = (dir / "ran").string();
  const std::vector<std::vector<std::string>> servers = {
      {AGENT_SESSION_CLI}, {AGENT_SESSION_CLI, "conform", "exec-adapter", "--", AGENT_SESSION_CLI}};
  for (const auto& server : servers) {
    conform::runner::HarnessClient port({server, std::chrono::seconds(20), 1 << 20, {}});
    ASSERT_EQ(port.start(), std::nullopt);
    for (const Words& argv : {Words{"conform", "--", "sh", "-c", "touch " + marker},
                              Words{"conform", "exec-adapter", "--", "sh", "-c", "touch " + marker}, Words{"run"},
                              Words{"units", "-"}, Words{}}) {
      const auto r = port.run(argv, "");
      EXPECT_EQ(r.end, conform::runner::ProcessEnd::harness_failure) << (argv.empty() ? "(none)" : argv[0]);
      EXPECT_NE(r.error.find(argv.empty() ? "no command" : "word 1 '" + argv[0] + "'"), std::string::npos) << r.error;
    }
    const auto unknown = port.run({"frobnicate", "-"}, "");
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_TRUE(unknown.out.empty());
    EXPECT_NE(unknown.err.find("unknown command 'frobnicate'"), std::string::npos) << unknown.err;
    EXPECT_EQ(port.run({"check", "-"}, "{\"role\":\"user\",\"content\":\"hi\"}\n").out, "1 messages\n");
  }
  EXPECT_FALSE(fs::exists(marker)) << "a run request ran a command";
  fs::remove_all(dir);
}

// The whole argv, not its first word: a run request whose command is the
// port's own but whose words are none of SPEC.md §6.1's forms is an error
// answer naming the refused word, and nothing runs. The exec adapter's
// port here is a script that logs every run: its log must stay empty.
TEST(HarnessServer, ARunRequestIsCheckedWordByWordAgainstTheFormsNeverRun) {
  const fs::path dir = fs::temp_directory_path() / ("agent-session-forms-argv-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string marker = (dir / "ran").string(), log = (dir / "log").string();
  const std::vector<std::vector<std::string>> servers = {{AGENT_SESSION_CLI},
                                                         {AGENT_SESSION_CLI, "conform", "exec-adapter", "--", "sh",
                                                          "-c", "echo \"$*\" >> '" + log + "'; echo ok", "port"}};
  const struct {
    Words argv;
    std::string refused;  // what the answer names
  } requests[] = {
      {{"check", "-", "conform", "--", "sh", "-c", "touch " + marker}, "word 3 'conform'"},
      {{"check", "/etc/hostname", "-"}, "word 3 '-'"},
      {{"trim", "--max-chars", "5", "-", "x"}, "word 5 'x'"},
      {{"append", "-", "--", "sh"}, "word 3 '--'"},
      {{"check"}, "no FILE after 'check'"},
      {{"trim", "--max-chars", "5"}, "no FILE after 'trim --max-chars 5'"},
      {{"conform", "--", "sh", "-c", "touch " + marker}, "word 1 'conform'"},
      {{"harness"}, "word 1 'harness'"},
      {{}, "no command"},
  };
  for (const auto& server : servers) {
    conform::runner::HarnessClient port({server, std::chrono::seconds(20), 1 << 20, {}});
    for (const auto& request : requests) {
      ASSERT_EQ(port.start(), std::nullopt);
      const auto r = port.run(request.argv, "");
      EXPECT_EQ(r.end, conform::runner::ProcessEnd::harness_failure) << request.refused << ": exit " << r.exit_code;
      EXPECT_NE(r.error.find(": not one of SPEC.md §6.1's argument forms"), std::string::npos) << r.error;
      EXPECT_NE(r.error.find(request.refused), std::string::npos) << r.error;
    }
    // The forms of the table still run (frobnicate FILE: exit 2, unknown).
    ASSERT_EQ(port.start(), std::nullopt);
    EXPECT_EQ(port.run({"frobnicate", "-"}, "").exit_code, 2);
    EXPECT_EQ(port.run({"trim", "--max-chars", "", "-"}, "").end, conform::runner::ProcessEnd::exited);
  }
  EXPECT_FALSE(fs::exists(marker)) << "a run request ran a command";
  std::ifstream logged(log);
  const std::string runs{std::istreambuf_iterator<char>(logged), {}};
  // frobnicate is no command of the adapter's port: exit 2, never run.
  EXPECT_EQ(runs, "trim --max-chars  -\n") << "the port ran words outside the forms";
  fs::remove_all(dir);
}

TEST(ArgumentForms, AWordLongerThanAProcessArgumentMayBeIsRefused) {
  EXPECT_EQ(argument_form_problem({"trim", "--max-chars", std::string(harness::kMaxArgumentBytes, '7')}, false),
            std::nullopt);
  const auto problem =
      argument_form_problem({"trim", "--max-chars", std::string(harness::kMaxArgumentBytes + 1, '7')}, false);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("args word 3 is 131072 bytes long, more than the 131071"), std::string::npos) << *problem;
}

// A NUL in any argv word of a run request is an error answer: the run
// would otherwise be judged on the word cut at the NUL.
TEST(HarnessServer, AnArgvWordWithANulByteIsAnErrorNeverARun) {
  const std::vector<std::vector<std::string>> servers = {
      {AGENT_SESSION_CLI}, {AGENT_SESSION_CLI, "conform", "exec-adapter", "--", AGENT_SESSION_CLI}};
  for (const auto& server : servers) {
    conform::runner::HarnessClient port({server, std::chrono::seconds(20), 1 << 20, {}});
    ASSERT_EQ(port.start(), std::nullopt);
    const auto r = port.run({"check", std::string("/etc/hostname\0x", 15)}, "");
    EXPECT_EQ(r.end, conform::runner::ProcessEnd::harness_failure);
    EXPECT_NE(r.error.find("an argv word holds a NUL byte"), std::string::npos) << r.error;
  }
}

// A request line of any length costs the server bounded memory: past the
// limit it is read to its end and dropped, answered with an error, and the
// server goes on.
TEST(HarnessServer, ARequestLineLongerThanTheLimitIsAnErrorAndTheServerGoesOn) {
  // A stream of `size` bytes of 'a', a newline, then a stop request, made
  // as it is read: the test holds none of it.
  class Endless : public std::streambuf {
   public:
    explicit Endless(std::size_t size) : left_(size) {}

   protected:
    int_type underflow() override {
      if (left_ > 0) {
        const std::size_t n = std::min(left_, chunk_.size());
        std::fill_n(chunk_.begin(), n, 'a');
        left_ -= n;
        setg(chunk_.data(), chunk_.data(), chunk_.data() + n);
      } else if (!tail_done_) {
        tail_done_ = true;
        static const std::string tail = "\n{\"op\":\"stop\"}\n";
        std::copy(tail.begin(), tail.end(), chunk_.begin());
        setg(chunk_.data(), chunk_.data(), chunk_.data() + tail.size());
      } else {
        return traits_type::eof();
      }
      return traits_type::to_int_type(*gptr());
    }

   private:
    std::size_t left_;
    bool tail_done_ = false;
    std::array<char, 1 << 16> chunk_{};
  };
  Endless source(std::size_t{200} << 20);  // past the limit, a vector file's base64 and 1 MiB
  std::istream in(&source);
  std::ostringstream out;
  const int code = harness::serve_harness(in, out, {"p", "1", "C++", {"check"}}, [](const auto&, std::string_view) {
    return harness::HarnessRun{0, "", "", ""};
  });
  EXPECT_EQ(code, 0);
  EXPECT_NE(out.str().find("{\"op\":\"error\",\"message\":\"request longer than "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("{\"op\":\"stop\"}\n"), std::string::npos) << out.str();
}

// One check that the system refuses to start for its arguments (E2BIG:
// with an environment that leaves less room than its `--max-chars` value
// takes) fails that check; the other checks run and the summary and
// report are written.
TEST_F(FakeVectors, ACheckThatCannotBeStartedFailsAloneAndTheRunGoesOn) {
  const long arg_max = ::sysconf(_SC_ARG_MAX);
  ASSERT_GT(arg_max, 200000);
  const std::string budget(100000, '7');
  add("a_huge_budget", "{\"role\":\"user\",\"content\":\"hi\"}\n",
      R"({"checks":[{"args":["trim","--max-chars",")" + budget + R"("],"exit":0,"stdout":""}]})");
  add("b_fine", "{\"role\":\"user\",\"content\":\"hi\"}\n", kOneMessage);
  const fs::path report = dir_ / "report.json";
  // Room for every check but the one with the 100,000-byte word: an
  // environment of ARG_MAX less 60,000 bytes, in variables of 100,000 (no
  // one string may pass 128 KiB).
  std::vector<std::string> prefix = {"env"};
  for (std::size_t left = static_cast<std::size_t>(arg_max) - 60000, n = 0; left > 0; ++n) {
    const std::size_t size = std::min<std::size_t>(left, 100000);
    prefix.push_back("FILLER" + std::to_string(n) + "=" + std::string(size, 'x'));
    left -= size;
  }
  const auto r = conform_binary(dir_, {AGENT_SESSION_CLI}, {"--report", "json=" + report.string()}, prefix);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL a_huge_budget (trim --max-chars 7777"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Argument list too long"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 passed, 1 failed\n"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(report));
}

}  // namespace
}  // namespace agent_session
