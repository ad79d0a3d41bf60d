// The command-line protocol's exit codes, help and `append`, in process,
// plus one run of the real binary to prove main() wires it up.
#include "cli/cli.hpp"
#include "cli/kit_forward.hpp"

#include "agent_session/session.hpp"

#include "support/cli_run.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

using test_support::CliRun;

CliRun run(const std::vector<std::string>& args, const std::string& stdin_bytes = "") {
  return test_support::run_cli(args, stdin_bytes);
}

const std::string kUser = R"({"role":"user","content":"hi"})";

class CliFile : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    file_ = path("s.jsonl");
  }
  std::string contents() const { return read(file_); }
  fs::path file_;
};

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run({}).exit_code, cli::kUsage);
  EXPECT_EQ(run({"frobnicate", "-"}).exit_code, cli::kUsage);
  EXPECT_EQ(run({"check"}).exit_code, cli::kUsage);
  EXPECT_EQ(run({"trim", "-"}, kUser).exit_code, cli::kUsage);
  for (const char* bad : {"-1", "abc", "1.5", "", "+5", "1e3", " 7"}) {
    const CliRun r = run({"trim", "--max-chars", bad, "-"}, kUser);
    EXPECT_EQ(r.exit_code, cli::kUsage) << bad;
    EXPECT_EQ(r.out, "") << bad;
  }
}

TEST(Cli, BadBudgetIsAUsageErrorEvenForAnInvalidSession) {
  EXPECT_EQ(run({"trim", "--max-chars", "x", "-"}, "{bad").exit_code, cli::kUsage);
}

TEST(Cli, HugeBudgetSaturates) {
  const CliRun r = run({"trim", "--max-chars", "99999999999999999999999", "-"}, kUser + "\n");
  EXPECT_EQ(r.exit_code, cli::kOk) << r.err;
  EXPECT_EQ(r.out, kUser + "\n");
}

TEST(Cli, HelpExplainsEveryCommandWithAnExample) {
  const CliRun top = run({"--help"});
  EXPECT_EQ(top.exit_code, cli::kOk);
  for (const char* command : {"check", "estimate", "canon", "trim", "append"}) {
    EXPECT_NE(top.out.find(command), std::string::npos) << command;
    const CliRun help = run({command, "--help"});
    EXPECT_EQ(help.exit_code, cli::kOk) << command;
    EXPECT_NE(help.out.find("Example:"), std::string::npos) << command << ": " << help.out;
  }
  EXPECT_NE(run({"trim", "--help"}).out.find("UTF-16 code units"), std::string::npos);
}

// `agent-session conform ...` is agent-session-conform run in the
// command's place by main (cli/kit_forward.hpp; the real binaries:
// tests/conform_forwarding.sh): in process there is no kit to run, and
// cli::run says so rather than run anything.
TEST(Cli, ConformIsTheRunnersProgramNotRunInProcess) {
  const CliRun r = run({"conform", "fuzz", "--help"});
  EXPECT_EQ(r.exit_code, cli::kUsage);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("agent-session-conform"), std::string::npos) << r.err;
}

// Beside the command first (the installed layout, <prefix>/bin), then
// the build tree's conform/ folder.
TEST(Cli, TheRunnerIsLookedForBesideTheCommandThenInTheBuildTree) {
  EXPECT_EQ(
      cli::runner_places("/opt/tools/bin/agent-session"),
      (std::vector<fs::path>{"/opt/tools/bin/agent-session-conform", "/opt/tools/bin/conform/agent-session-conform"}));
}

TEST(Cli, ErrorsAreOneLineOnStderrWithTheSpecText) {
  const CliRun r = run({"check", "-"}, kUser + "\n{\"role\":\"nope\",\"content\":\"\"}\n");
  EXPECT_EQ(r.exit_code, cli::kInvalid);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "agent-session: invalid session record at line 2: unknown role \"nope\": "
            "a role is \"user\", \"assistant\" or \"tool\"\n");
}

TEST(Cli, OtherIoErrorsExitThree) {
  const CliRun r = run({"check", fs::temp_directory_path().string()});
  EXPECT_EQ(r.exit_code, cli::kIo);
  EXPECT_NE(r.err.find("Is a directory"), std::string::npos) << r.err;
}

TEST_F(CliFile, AFileNameFromOutsideNeverBreaksTheLineOrReachesTheTerminalRaw) {
  // A newline, an escape sequence and a bidi override in a file name: the
  // error stays one inert line; so does repair's report of its backup.
  const fs::path odd = path("dx\x1b[31m\n5 messages\xe2\x80\xae");
  fs::create_directories(odd);
  for (const char* command : {"check", "stats", "canon"}) {
    const CliRun r = run({command, odd.string()});
    EXPECT_EQ(r.exit_code, cli::kIo) << command;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("dx\\x1b[31m\\n5 messages\\u202e"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  }
  const fs::path torn = path("tx\x1b[31m\nq.jsonl");
  write(torn, kUser + "\n{\"x");
  const CliRun repaired = run({"repair", "--apply", torn.string()});
  EXPECT_EQ(repaired.exit_code, cli::kOk) << repaired.err;
  EXPECT_EQ(repaired.out.find('\x1b'), std::string::npos) << repaired.out;
  EXPECT_NE(repaired.out.find("backup: " + path("tx\\x1b[31m\\nq.jsonl.bak-").string()), std::string::npos)
      << repaired.out;
}

TEST_F(CliFile, AppendValidatesEverythingBeforeWritingAnything) {
  ASSERT_EQ(run({"append", file_.string()}, kUser + "\n").exit_code, cli::kOk);
  const CliRun bad = run({"append", file_.string()}, R"({ "role" : "user", "content" : "ok" })"
                                                     "\n{\"role\":\"tool\"}\n");
  EXPECT_EQ(bad.exit_code, cli::kInvalid);
  EXPECT_NE(bad.err.find("invalid session record at line 2: "), std::string::npos) << bad.err;
  // The line is standard input's, not the file's, and the file is untouched.
  EXPECT_NE(bad.err.find("(line 2 of standard input; nothing was appended to " + file_.string() + ")\n"),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(contents(), kUser + "\n");
  ASSERT_EQ(run({"append", file_.string()}, R"({ "role" : "user", "content" : "ok" })"
                                            "\n")
                .exit_code,
            cli::kOk);
  EXPECT_EQ(contents(), kUser + "\n" + R"({"role":"user","content":"ok"})" + "\n");
  EXPECT_EQ(run({"check", file_.string()}).out, "2 messages\n");
}

// SPEC.md §6: on the command line a FILE that does not exist is exit 3,
// never an empty session, while load_session keeps ENOENT as one (SPEC.md
// §2, session_test) and append creates the file.
TEST_F(CliFile, AMissingFileIsExitThreeNamingIt) {
  const fs::path absent = path("absent.jsonl");
  const std::vector<std::vector<std::string>> commands = {
      {"check"}, {"estimate"}, {"canon"}, {"trim", "--max-chars", "100"}, {"units"}, {"stats"}};
  for (std::vector<std::string> args : commands) {
    const std::string command = args.front();
    for (const std::string& file : {absent.string(), std::string()}) {
      args.push_back(file);
      const CliRun r = run(args);
      args.pop_back();
      EXPECT_EQ(r.exit_code, cli::kIo) << command << " '" << file << "': " << r.out << r.err;
      EXPECT_EQ(r.out, "") << command;
      EXPECT_EQ(r.err, "agent-session: cannot open session '" + file + "': No such file or directory\n") << command;
    }
  }
  EXPECT_FALSE(fs::exists(absent));
  EXPECT_EQ(load_session(absent).size(), 0u);  // the library's rule is unchanged
}

// One style for every I/O error of the command: the verb, what it acts
// on, the path in single quotes, the reason.
TEST_F(CliFile, EveryIoErrorNamesItsPathInQuotes) {
  const std::string folder = path("a folder").string();
  fs::create_directory(folder);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"check", folder}, "cannot read session '" + folder + "': "},
      {{"append", folder}, "cannot open session for append '" + folder + "'"},
      {{"repair", path("gone").string()}, "cannot repair session '" + path("gone").string() + "': "},
      {{"check", path("gone").string()}, "cannot open session '" + path("gone").string() + "': "},
  };
  for (const auto& [args, expected] : cases) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, cli::kIo) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err.rfind("agent-session: " + expected, 0), 0u) << r.err;
  }
}

TEST_F(CliFile, AppendCreatesAMissingFile) {
  ASSERT_FALSE(fs::exists(file_));
  const CliRun r = run({"append", file_.string()}, kUser + "\n");
  EXPECT_EQ(r.exit_code, cli::kOk) << r.err;
  EXPECT_EQ(contents(), kUser + "\n");
}

// CLI11's own wording ("At Most 1 required but received 2", "The
// following argument was not expected") is translated into ours.
TEST(Cli, ParserErrorsAreWordedLikeOurOwn) {
  const auto err = [](const std::vector<std::string>& args) { return run(args).err; };
  EXPECT_EQ(err({"trim", "--max-chars", "1", "--max-chars", "2", "f"}),
            "agent-session: trim: --max-chars is given 2 times; it takes one value "
            "(agent-session trim --help shows the usage)\n");
  EXPECT_EQ(err({"check", "a", "b"}),
            "agent-session: check: unexpected extra argument \"b\" (agent-session check --help shows the usage)\n");
  EXPECT_EQ(err({"check", "--frob", "a"}),
            "agent-session: check: unknown option \"--frob\" (agent-session check --help shows the usage)\n");
  EXPECT_EQ(err({"trim", "f", "--max-chars"}),
            "agent-session: trim: --max-chars needs a value (N) (agent-session trim --help shows the usage)\n");
  EXPECT_EQ(run({"check", "a", "b"}).exit_code, cli::kUsage);
}

TEST(Cli, AppendToStdinIsAUsageError) { EXPECT_EQ(run({"append", "-"}, kUser).exit_code, cli::kUsage); }

// A usage error is one line on standard error (SPEC.md §6): no "Run with
// --help" second line, nothing on standard output, exit 2; argument bytes
// that could break the line or act on a terminal are escaped.
void expect_one_line_usage_error(const CliRun& r, const std::string& what) {
  EXPECT_EQ(r.exit_code, cli::kUsage) << what << ": " << r.err;
  EXPECT_EQ(r.out, "") << what;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
  EXPECT_EQ(r.err.rfind("agent-session: ", 0), 0u) << what << ": " << r.err;
  EXPECT_EQ(r.err.back(), '\n') << what;
  EXPECT_EQ(r.err.find("\x1b"), std::string::npos) << what << ": " << r.err;
}

TEST(Cli, UsageErrorsAreOneLine) {
  expect_one_line_usage_error(run({}), "no command");
  expect_one_line_usage_error(run({"check", "--bogus", "-"}, kUser), "unknown option");
  expect_one_line_usage_error(run({"check", "--bo\ngus\x1b[2J", "-"}, kUser), "unknown option with a newline");
  expect_one_line_usage_error(run({"check"}), "missing FILE");
  expect_one_line_usage_error(run({"check", "a", "b"}), "extra argument");
  expect_one_line_usage_error(run({"trim", "--max-chars", "abc", "-"}, kUser), "bad --max-chars");
  expect_one_line_usage_error(run({"trim", "--max-chars", "1\n2\x1b[2J", "-"}, kUser), "--max-chars with a newline");
  expect_one_line_usage_error(run({"frobnicate"}), "unknown command");
  expect_one_line_usage_error(run({"fr\nob\x1b[2J", "-"}), "unknown command with a newline");
  expect_one_line_usage_error(run({"--bogus"}), "unknown top-level option");
}

TEST(Cli, AnUnknownCommandIsNamedWithTheCommandsThereAre) {
  const CliRun r = run({"frobnicate", "-"});
  EXPECT_EQ(r.exit_code, cli::kUsage);
  EXPECT_EQ(r.err.find("A subcommand is required"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unknown command \"frobnicate\""), std::string::npos) << r.err;
  for (const char* command : {"check", "trim", "append", "run", "units", "stats", "conform"}) {
    EXPECT_NE(r.err.find(command), std::string::npos) << command << ": " << r.err;
  }
  const CliRun none = run({});
  EXPECT_NE(none.err.find("a command is required"), std::string::npos) << none.err;
  const CliRun option = run({"--bogus", "check", "-"});
  EXPECT_NE(option.err.find("unknown option \"--bogus\""), std::string::npos) << option.err;
  EXPECT_EQ(option.exit_code, cli::kUsage);
}

// The version is CMake's project(VERSION), never a second copy in the code.
TEST(Cli, VersionIsTheProjectVersion) {
  std::ifstream cmake(std::string(AGENT_SESSION_SOURCE_DIR) + "/CMakeLists.txt");
  const std::string text((std::istreambuf_iterator<char>(cmake)), std::istreambuf_iterator<char>());
  std::smatch match;
  ASSERT_TRUE(std::regex_search(text, match, std::regex(R"(project\(agent_session VERSION ([0-9.]+))")));
  const CliRun r = run({"--version"});
  EXPECT_EQ(r.exit_code, cli::kOk) << r.err;
  EXPECT_EQ(r.out, "agent-session " + match[1].str() + "\n");
  EXPECT_EQ(r.err, "");
}

TEST(Cli, HelpNamesValuesAndOnlyPromisesWhatWorks) {
  EXPECT_NE(run({"trim", "--help"}).out.find("--max-chars N "), std::string::npos) << run({"trim", "--help"}).out;
  // append reads the messages from standard input, so FILE cannot be -.
  const CliRun append = run({"append", "--help"});
  EXPECT_EQ(append.out.find("or - for standard input"), std::string::npos) << append.out;
  EXPECT_NE(append.out.find("not -"), std::string::npos) << append.out;
  EXPECT_EQ(run({"check", "--help"}).out.find("FILE TEXT"), std::string::npos) << run({"check", "--help"}).out;
}

// `run`'s arguments are checked before anything is read or recorded.
class RunUsage : public CliFile {
 protected:
  CliRun run_demo(std::vector<std::string> extra, const std::string& prompt = "go") const {
    const fs::path demo = fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus" / "demo";
    std::vector<std::string> args = {"run", "--session", file_.string(), "--script", (demo / "replies.jsonl").string()};
    if (std::find(extra.begin(), extra.end(), "--root") == extra.end()) {
      extra.insert(extra.end(), {"--root", demo.string()});
    }
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(prompt);
    return run(args);
  }
};

TEST_F(RunUsage, MaxTurnsZeroSaysItMustBeAtLeastOne) {
  const CliRun zero = run_demo({"--max-turns", "0"});
  expect_one_line_usage_error(zero, "--max-turns 0");
  EXPECT_NE(zero.err.find("--max-turns: must be at least 1, not 0"), std::string::npos) << zero.err;
  EXPECT_LT(zero.err.size(), 120u) << zero.err;  // no 300-digit range
  for (const char* bad : {"-1", "abc", "1.5", "", "99999999999999999999999"}) {
    const CliRun r = run_demo({"--max-turns", bad});
    expect_one_line_usage_error(r, std::string("--max-turns ") + bad);
    EXPECT_NE(r.err.find("--max-turns"), std::string::npos) << bad << ": " << r.err;
    EXPECT_LT(r.err.size(), 160u) << r.err;
  }
  // The value is shown once, as typed: escaped by the CLI, not twice.
  const CliRun negative = run_demo({"--max-turns", "-1"});
  EXPECT_NE(negative.err.find("takes a whole number of model requests, not '-1'"), std::string::npos) << negative.err;
  EXPECT_EQ(negative.err.find('\\'), std::string::npos) << negative.err;
  EXPECT_FALSE(fs::exists(file_));
}

TEST_F(RunUsage, RootMustBeADirectory) {
  write(path("file.txt"), "x");
  for (const fs::path& root : {path("missing"), path("file.txt")}) {
    const CliRun r = run_demo({"--root", root.string()});
    expect_one_line_usage_error(r, root.string());
    EXPECT_NE(r.err.find("--root: " + root.string() + " is not a directory"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(file_));
}

TEST_F(RunUsage, AnEmptyPromptIsRefused) {
  for (const char* prompt : {"", " ", "\t\n", "\r\n  "}) {
    const CliRun r = run_demo({}, prompt);
    expect_one_line_usage_error(r, "empty prompt");
    EXPECT_NE(r.err.find("PROMPT: empty"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(file_));
  EXPECT_EQ(run_demo({}, " hi ").exit_code, cli::kOk);
}

TEST_F(RunUsage, APromptThatIsNotUtf8IsOneLine) {
  expect_one_line_usage_error(run_demo({}, "caf\xc3\xa9 \xff!"), "invalid UTF-8");
  EXPECT_FALSE(fs::exists(file_));
}

TEST_F(CliFile, BinaryReportsThroughExitCodeAndStreams) {
  std::ofstream(file_, std::ios::binary) << kUser << "\n{bad\n";
  FILE* pipe = ::popen((std::string(AGENT_SESSION_CLI) + " check " + file_.string() + " 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), cli::kInvalid);
  EXPECT_EQ(output.rfind("agent-session: invalid session JSON at line 2: ", 0), 0u) << output;
}

}  // namespace
}  // namespace agent_session
