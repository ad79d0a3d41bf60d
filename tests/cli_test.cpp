// The command-line protocol's exit codes, help and `append`, in process,
// plus one run of the real binary to prove main() wires it up.
#include "cli/cli.hpp"

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

CliRun run(std::vector<std::string> args, const std::string& stdin_bytes = "") {
  std::istringstream in(stdin_bytes);
  std::ostringstream out, err;
  const int code = cli::run(args, in, out, err);
  return {code, out.str(), err.str()};
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

TEST_F(CliFile, AppendValidatesEverythingBeforeWritingAnything) {
  ASSERT_EQ(run({"append", file_.string()}, kUser + "\n").exit_code, cli::kOk);
  const CliRun bad = run({"append", file_.string()}, R"({ "role" : "user", "content" : "ok" })" "\n{\"role\":\"tool\"}\n");
  EXPECT_EQ(bad.exit_code, cli::kInvalid);
  EXPECT_NE(bad.err.find("invalid session record at line 2"), std::string::npos) << bad.err;
  EXPECT_EQ(contents(), kUser + "\n");
  ASSERT_EQ(run({"append", file_.string()}, R"({ "role" : "user", "content" : "ok" })" "\n").exit_code, cli::kOk);
  EXPECT_EQ(contents(), kUser + "\n" + R"({"role":"user","content":"ok"})" + "\n");
  EXPECT_EQ(run({"check", file_.string()}).out, "2 messages\n");
}

TEST(Cli, AppendToStdinIsAUsageError) { EXPECT_EQ(run({"append", "-"}, kUser).exit_code, cli::kUsage); }

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
