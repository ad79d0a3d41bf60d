// run_command.hpp: the demo tools and `agent-session run` (run_agent driven
// from the command line by a scripted model), in process and, where only a
// process shows it, as the real binary.
#include "cli/run_command.hpp"
#include "agent_session/agent.hpp"
#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "cli/scripted_client.hpp"

#include "support/cli_run.hpp"
#include "support/message_builders.hpp"
#include "support/run_binary.hpp"
#include "support/session_dir.hpp"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

using test_support::result;
using test_support::user;
using RunDir = test_support::SessionDirTest;

// ---------------------------------------------------------------------------
// The demo tools.

class DemoTools : public RunDir {
 protected:
  std::string read_file(const std::string& path) const {
    return demo_tools(root()).at("read_file").run(Json{{"path", path}});
  }
  // The tool's refusal text, or a failure when it did not refuse.
  std::string refusal(const std::string& path) const {
    try {
      read_file(path);
    } catch (const std::exception& error) {
      return error.what();
    }
    ADD_FAILURE() << "read_file accepted " << path;
    return "";
  }
  fs::path root() const { return dir_ / "root"; }
  static std::map<std::string, Tool> demo_tools(const fs::path& root) { return cli::demo_tools(root); }
};

TEST_F(DemoTools, EchoReturnsItsTextAndRefusesAnythingElse) {
  const auto tools = demo_tools(dir_);
  EXPECT_EQ(tools.at("echo").run(Json{{"text", "hi \u4e2d"}}), "hi \u4e2d");
  EXPECT_THROW(tools.at("echo").run(Json{{"text", 1}}), std::invalid_argument);
  EXPECT_THROW(tools.at("echo").run(nullptr), std::invalid_argument);
}

TEST_F(DemoTools, ReadFileReadsTextUnderItsRoot) {
  fs::create_directories(root() / "sub");
  write(root() / "a.txt", "alpha\n");
  write(root() / "sub" / "b.txt", "beta \xc3\xa9");
  EXPECT_EQ(read_file("a.txt"), "alpha\n");
  EXPECT_EQ(read_file("sub/b.txt"), "beta \xc3\xa9");
  EXPECT_EQ(read_file("sub/../a.txt"), "alpha\n");   // `..` that stays inside is fine
  fs::create_symlink("a.txt", root() / "link.txt");  // relative: an absolute one is refused (SPEC.md §9)
  EXPECT_EQ(read_file("link.txt"), "alpha\n");
}

TEST_F(DemoTools, ReadFileRefusesEveryWayOut) {
  fs::create_directories(root() / "sub");
  write(dir_ / "secret.txt", "outside");
  fs::create_symlink(dir_ / "secret.txt", root() / "escape.txt");
  fs::create_directory_symlink(dir_, root() / "up");
  EXPECT_NE(refusal("../secret.txt").find("outside the directory"), std::string::npos);
  EXPECT_NE(refusal("sub/../../secret.txt").find("outside the directory"), std::string::npos);
  EXPECT_NE(refusal("escape.txt").find("outside the directory"), std::string::npos);
  EXPECT_NE(refusal("up/secret.txt").find("outside the directory"), std::string::npos);
  EXPECT_NE(refusal((dir_ / "secret.txt").string()).find("absolute paths are refused"), std::string::npos);
  EXPECT_NE(refusal("").find("empty"), std::string::npos);
}

TEST_F(DemoTools, ReadFileRefusesWhatIsNotASmallTextFile) {
  fs::create_directories(root() / "dir");
  write(root() / "binary.bin", std::string("\x7f"
                                           "ELF\xff\xfe",
                                           6));
  write(root() / "big.txt", std::string(64 * 1024 + 1, 'x'));
  write(root() / "limit.txt", std::string(64 * 1024, 'x'));
  EXPECT_NE(refusal("binary.bin").find("not UTF-8 text"), std::string::npos);
  EXPECT_NE(refusal("big.txt").find("larger than 65536 bytes"), std::string::npos);
  EXPECT_EQ(read_file("limit.txt").size(), 64u * 1024u);
  EXPECT_NE(refusal("dir").find("not a regular file"), std::string::npos);
  EXPECT_NE(refusal("missing.txt").find("missing.txt"), std::string::npos);
  const auto tools = demo_tools(root());
  EXPECT_THROW(tools.at("read_file").run(Json{{"file", "a.txt"}}), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// `agent-session run`, in process.

using test_support::CliRun;
using test_support::run_cli;

const fs::path kDemo = fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus" / "demo";

// One "request N: stored messages=M chars=C; sent messages=M' chars=C'"
// line of --verbose.
struct VerboseLine {
  std::size_t stored_messages, sent_messages;
  std::uint64_t stored_chars, sent_chars;
};

std::vector<VerboseLine> verbose_lines(const std::string& err) {
  std::vector<VerboseLine> lines;
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line)) {
    VerboseLine v{};
    std::size_t request = 0;
    if (std::sscanf(line.c_str(),
                    "request %zu: stored messages=%zu chars=%" SCNu64 "; sent messages=%zu chars=%" SCNu64, &request,
                    &v.stored_messages, &v.stored_chars, &v.sent_messages, &v.sent_chars) == 5) {
      EXPECT_EQ(request, lines.size() + 1) << line;
      lines.push_back(v);
    }
  }
  return lines;
}

class RunCommand : public RunDir {
 protected:
  std::vector<std::string> demo_args(const std::string& prompt, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {
        "run",    "--session",   session_.string(), "--script", (kDemo / "replies.jsonl").string(),
        "--root", kDemo.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(prompt);
    return args;
  }
};

TEST_F(RunCommand, TwoRunsResumeOneSessionWhereTheScriptLeftOff) {
  const std::vector<AssistantMessage> script = cli::load_script(kDemo / "replies.jsonl");
  ASSERT_EQ(script.size(), 4u);

  const CliRun first = run_cli(demo_args("What do the notes say?"));
  ASSERT_EQ(first.exit_code, cli::kOk) << first.err;
  EXPECT_EQ(read(session_), first.out);  // stdout is what was appended
  const std::vector<Message> one = load_session_from_memory(first.out);
  ASSERT_EQ(one.size(), 5u);
  EXPECT_EQ(one[0], user("What do the notes say?"));
  EXPECT_EQ(one[1], Message(script[0]));
  EXPECT_EQ(one[2], result(read(kDemo / "notes.txt"), "call_1"));
  EXPECT_EQ(one[3], result("reading notes.txt", "call_2"));
  EXPECT_EQ(one[4], Message(script[1]));

  const CliRun second = run_cli(demo_args("Can you read /etc/passwd too?"));
  ASSERT_EQ(second.exit_code, cli::kOk) << second.err;
  EXPECT_EQ(read(session_), first.out + second.out);
  const std::vector<Message> two = load_session_from_memory(second.out);
  ASSERT_EQ(two.size(), 5u);
  EXPECT_EQ(two[1], Message(script[2]));  // continues with reply 3
  const auto& refused = std::get<ToolResultMessage>(two[2]);
  EXPECT_TRUE(refused.is_error);
  EXPECT_NE(refused.content.find("outside the directory"), std::string::npos) << refused.content;
  EXPECT_EQ(two[3], result("unknown tool: search", "call_4", true));
  EXPECT_EQ(two[4], Message(script[3]));

  // The script is used up: refused before anything is recorded.
  const std::string before = read(session_);
  const CliRun third = run_cli(demo_args("And now?"));
  EXPECT_EQ(third.exit_code, cli::kInvalid);
  EXPECT_NE(third.err.find("add this run's replies to the script"), std::string::npos) << third.err;
  EXPECT_EQ(third.out, "");
  EXPECT_EQ(read(session_), before);
}

TEST_F(RunCommand, VerboseShowsStoredAgainstSentAndTheBudgetTrims) {
  const std::uint64_t budget = 600;  // as in the README's demo
  const std::string max_chars = std::to_string(budget);
  const CliRun first = run_cli(demo_args("What do the notes say?", {"--verbose", "--max-chars", max_chars}));
  ASSERT_EQ(first.exit_code, cli::kOk) << first.err;
  const CliRun second = run_cli(demo_args("Can you read /etc/passwd too?", {"--verbose", "--max-chars", max_chars}));
  ASSERT_EQ(second.exit_code, cli::kOk) << second.err;

  std::vector<VerboseLine> lines = verbose_lines(first.err);
  ASSERT_EQ(lines.size(), 2u) << first.err;
  const std::vector<VerboseLine> later = verbose_lines(second.err);
  ASSERT_EQ(later.size(), 2u) << second.err;
  lines.insert(lines.end(), later.begin(), later.end());
  // Each line tells the truth about the record at that request: the file's
  // first `stored` messages, and their trimmed copy.
  const std::vector<Message> record = on_disk();
  bool trimmed = false;
  for (const VerboseLine& line : lines) {
    ASSERT_LE(line.stored_messages, record.size());
    const std::span<const Message> stored = std::span<const Message>(record).first(line.stored_messages);
    const std::span<const Message> sent = trim_context(stored, budget);
    EXPECT_EQ(line.stored_chars, estimate_context_chars(stored));
    EXPECT_EQ(line.sent_messages, sent.size());
    EXPECT_EQ(line.sent_chars, estimate_context_chars(sent));
    EXPECT_LE(line.sent_chars, budget);
    trimmed = trimmed || line.sent_messages < line.stored_messages;
  }
  EXPECT_TRUE(trimmed) << first.err << second.err;
  // The file keeps everything; the last request had all but its answer.
  EXPECT_EQ(lines.back().stored_messages + 1, record.size());
  EXPECT_EQ(lines.front().stored_messages, 1u);
  EXPECT_NE(second.err.find("next reply is line 3 of 4"), std::string::npos) << second.err;
}

TEST_F(RunCommand, WithoutABudgetTheModelIsSentEverything) {
  const CliRun run = run_cli(demo_args("What do the notes say?", {"--verbose"}));
  ASSERT_EQ(run.exit_code, cli::kOk) << run.err;
  const std::vector<VerboseLine> lines = verbose_lines(run.err);
  ASSERT_EQ(lines.size(), 2u) << run.err;
  for (const VerboseLine& line : lines) {
    EXPECT_EQ(line.sent_messages, line.stored_messages);
    EXPECT_EQ(line.sent_chars, line.stored_chars);
  }
  EXPECT_EQ(lines[1].stored_chars, estimate_context_chars(std::span<const Message>(on_disk()).first(4)));
}

TEST_F(RunCommand, ABudgetErrorExitsOneAndRecordsOnlyThePrompt) {
  const CliRun run = run_cli(demo_args("What do the notes say?", {"--max-chars", "10"}));
  EXPECT_EQ(run.exit_code, cli::kInvalid);
  EXPECT_EQ(run.err,
            "agent-session: context budget cannot contain the smallest consistent message unit: the newest unit, "
            "message 0, is 51 characters; the budget is 10\n");
  EXPECT_EQ(on_disk(), std::vector<Message>{user("What do the notes say?")});
}

TEST_F(RunCommand, StoppingAtMaxTurnsIsANoteNotAnError) {
  const CliRun run = run_cli(demo_args("What do the notes say?", {"--max-turns", "1"}));
  EXPECT_EQ(run.exit_code, cli::kOk) << run.err;
  EXPECT_NE(run.err.find("stopped at --max-turns 1"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("run again without PROMPT to continue"), std::string::npos) << run.err;
  EXPECT_EQ(on_disk().size(), 4u);  // the prompt, reply 1 and its two results
}

// README: after --max-turns "the next run continues from them": a run
// without PROMPT, and a PROMPT then is refused (it would come between the
// results and the reply scripted for them).
TEST_F(RunCommand, WithoutAPromptARunContinuesFromTheResultsMaxTurnsLeft) {
  ASSERT_EQ(run_cli(demo_args("What do the notes say?", {"--max-turns", "1"})).exit_code, cli::kOk);
  std::vector<std::string> resume = demo_args("");
  resume.pop_back();
  const CliRun run = run_cli(resume);
  ASSERT_EQ(run.exit_code, cli::kOk) << run.err;
  const std::vector<AssistantMessage> script = cli::load_script(kDemo / "replies.jsonl");
  EXPECT_EQ(load_session_from_memory(run.out), std::vector<Message>{Message(script[1])});
  EXPECT_EQ(on_disk().size(), 5u);
}

TEST_F(RunCommand, APromptIsRefusedWhileToolResultsAwaitTheReply) {
  ASSERT_EQ(run_cli(demo_args("What do the notes say?", {"--max-turns", "1"})).exit_code, cli::kOk);
  const std::string before = read(session_);
  const CliRun run = run_cli(demo_args("again"));
  EXPECT_EQ(run.exit_code, cli::kUsage);
  EXPECT_NE(run.err.find("ends in tool results that await the model's reply: run again without PROMPT"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(read(session_), before);
}

TEST_F(RunCommand, WithoutAPromptASessionThatAwaitsNothingIsAUsageError) {
  std::vector<std::string> resume = demo_args("");
  resume.pop_back();
  CliRun run = run_cli(resume);
  EXPECT_EQ(run.exit_code, cli::kUsage);
  EXPECT_NE(run.err.find("a PROMPT is required: session"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("holds no messages yet"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(session_));
  ASSERT_EQ(run_cli(demo_args("What do the notes say?")).exit_code, cli::kOk);
  const std::string before = read(session_);
  run = run_cli(resume);
  EXPECT_EQ(run.exit_code, cli::kUsage);
  EXPECT_NE(run.err.find("ends in the model's answer"), std::string::npos) << run.err;
  EXPECT_EQ(read(session_), before);
}

TEST_F(RunCommand, ScriptProblemsAreReportedBeforeAnythingIsRecorded) {
  auto args = [&](const fs::path& script) {
    return std::vector<std::string>{"run", "--session", session_.string(), "--script", script.string(), "go"};
  };
  CliRun run = run_cli(args(dir_ / "missing.jsonl"));
  EXPECT_EQ(run.exit_code, cli::kIo);
  EXPECT_NE(run.err.find("cannot read script"), std::string::npos) << run.err;

  write(dir_ / "user.jsonl", "{\"role\":\"user\",\"content\":\"x\"}\n");
  run = run_cli(args(dir_ / "user.jsonl"));
  EXPECT_EQ(run.exit_code, cli::kInvalid);
  EXPECT_NE(run.err.find("line 1: a user message, not an assistant message"), std::string::npos) << run.err;

  write(dir_ / "empty.jsonl", "");
  run = run_cli(args(dir_ / "empty.jsonl"));
  EXPECT_EQ(run.exit_code, cli::kInvalid);
  EXPECT_FALSE(fs::exists(session_));
}

TEST_F(RunCommand, AnInvalidSessionExitsOneAndIsLeftAlone) {
  write(session_, "{oops\n");
  const CliRun run = run_cli(demo_args("go"));
  EXPECT_EQ(run.exit_code, cli::kInvalid);
  EXPECT_NE(run.err.find("invalid session JSON at line 1"), std::string::npos) << run.err;
  EXPECT_EQ(read(session_), "{oops\n");
}

TEST_F(RunCommand, ASessionThatCannotBeReadExitsThree) {
  fs::create_directory(session_);
  const CliRun run = run_cli(demo_args("go"));
  EXPECT_EQ(run.exit_code, cli::kIo);
  EXPECT_TRUE(fs::is_empty(session_));
}

TEST_F(RunCommand, UsageErrorsExitTwoAndTouchNothing) {
  const std::string script = (kDemo / "replies.jsonl").string();
  EXPECT_EQ(run_cli({"run", "--session", session_.string(), "--script", script}).exit_code,
            cli::kUsage);  // no PROMPT, nothing to resume
  EXPECT_EQ(run_cli({"run", "--session", session_.string(), "go"}).exit_code, cli::kUsage);
  EXPECT_EQ(run_cli({"run", "--script", script, "go"}).exit_code, cli::kUsage);
  EXPECT_EQ(run_cli(demo_args("go", {"--max-chars", "abc"})).exit_code, cli::kUsage);
  EXPECT_EQ(run_cli(demo_args("go", {"--max-chars", ""})).exit_code, cli::kUsage);
  EXPECT_EQ(run_cli(demo_args("go", {"--max-turns", "0"})).exit_code, cli::kUsage);
  EXPECT_FALSE(fs::exists(session_));
}

TEST_F(RunCommand, APromptThatIsNotUtf8IsAUsageErrorNamingTheByteOffset) {
  const std::vector<std::string> args = demo_args("caf\xc3\xa9 \xff!");
  const test_support::BinaryRun binary = test_support::run_binary(args, dir_);  // an abort shows only in a process
  EXPECT_EQ(binary.signal, 0) << binary.err;
  EXPECT_EQ(binary.exit_code, cli::kUsage) << binary.err;
  EXPECT_NE(binary.err.find("not valid UTF-8: the first invalid byte is at offset 6 of 8 bytes"), std::string::npos)
      << binary.err;
  EXPECT_EQ(binary.out, "");
  EXPECT_FALSE(fs::exists(session_));
  EXPECT_EQ(run_cli(demo_args("\xc3")).exit_code, cli::kUsage);          // cut short
  EXPECT_EQ(run_cli(demo_args("\xed\xa0\x80")).exit_code, cli::kUsage);  // a surrogate
}

TEST(RunCommandHelp, ExplainsResumingWithAnExample) {
  const CliRun top = run_cli({"--help"});
  EXPECT_EQ(top.exit_code, cli::kOk);
  EXPECT_NE(top.out.find("run"), std::string::npos);
  const CliRun help = run_cli({"run", "--help"});
  EXPECT_EQ(help.exit_code, cli::kOk);
  for (const char* text : {"Example:", "agent-session run --session", "--max-chars", "--verbose", "--max-turns",
                           "continues", "read_file"}) {
    EXPECT_NE(help.out.find(text), std::string::npos) << text << "\n" << help.out;
  }
}

}  // namespace
}  // namespace agent_session
