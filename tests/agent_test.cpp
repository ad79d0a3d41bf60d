// agent.hpp: run_agent's session boundary (chapter's "The Responsibility
// Boundary between Session and Context"), mirroring what the chapter says
// agent.test.ts checks, through a fake client; then the scripted client and
// the `agent-session run` command, in process.
#include "agent_session/agent.hpp"

#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "cli/cli.hpp"
#include "cli/run_command.hpp"

#include "support/run_binary.hpp"
#include "support/temp_dir.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <deque>
#include <fstream>
#include <sstream>
#include <system_error>

#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::thrown;

// ---------------------------------------------------------------------------
// Message builders.

Message user(std::string content) { return UserMessage{std::move(content)}; }

AssistantMessage answer(std::string content) { return AssistantMessage{std::move(content), {}}; }

AssistantMessage calling(std::vector<ToolCall> calls, std::string content = "") {
  return AssistantMessage{std::move(content), std::move(calls)};
}

ToolCall call(std::string id, std::string name, Json input = Json::object()) {
  return ToolCall{std::move(id), std::move(name), std::move(input)};
}

Message result(std::string content, std::string id, bool is_error = false) {
  return ToolResultMessage{std::move(content), std::move(id), is_error};
}

// ---------------------------------------------------------------------------
// The fake client: replies from a queue, and keeps what it was sent.

struct Request {
  std::vector<Message> context;
  std::vector<ToolSpec> tools;
};

class FakeClient : public ModelClient {
 public:
  explicit FakeClient(std::vector<AssistantMessage> replies) : replies_(replies.begin(), replies.end()) {}

  AssistantMessage next_message(std::span<const Message> context, std::span<const ToolSpec> tools) override {
    requests.push_back({{context.begin(), context.end()}, {tools.begin(), tools.end()}});
    if (on_request) on_request(requests.size());
    if (replies_.empty()) throw std::runtime_error("fake client: no reply left");
    AssistantMessage reply = std::move(replies_.front());
    replies_.pop_front();
    return reply;
  }

  std::vector<Request> requests;
  // Runs inside each request, before the reply: sees the world as the
  // model would (the session file, ...). May throw, like a network error.
  std::function<void(std::size_t request)> on_request;

 private:
  std::deque<AssistantMessage> replies_;
};

std::map<std::string, Tool> echo_tools() {
  std::map<std::string, Tool> tools;
  tools["echo"] = {"returns input.text", [](const Json& input) { return input.at("text").get<std::string>(); }};
  return tools;
}

// ---------------------------------------------------------------------------
// A fresh directory per test.

class AgentDir : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    session_ = path("session.jsonl");
  }

  std::vector<Message> on_disk() const { return load_session(session_); }

  fs::path session_;
};

// ---------------------------------------------------------------------------
// Append and recovery through an explicit session path.

TEST_F(AgentDir, EveryRecordIsOnDiskBeforeTheNextStep) {
  FakeClient model({calling({call("c1", "echo", {{"text", "one"}}), call("c2", "echo", {{"text", "two"}})}),
                    answer("done")});
  // Without a budget the client receives the full record: the file must
  // already hold exactly that much at each request.
  model.on_request = [&](std::size_t) { EXPECT_EQ(on_disk(), model.requests.back().context); };
  std::map<std::string, Tool> tools;
  std::vector<std::size_t> lines_when_tool_ran;
  tools["echo"] = {"", [&](const Json& input) {
                     lines_when_tool_ran.push_back(on_disk().size());
                     return input.at("text").get<std::string>();
                   }};

  const AgentResult run = run_agent({.prompt = "go", .client = model, .tools = tools, .session_path = session_});

  // prompt, assistant on disk when c1 ran; plus c1's result when c2 ran.
  EXPECT_EQ(lines_when_tool_ran, (std::vector<std::size_t>{2, 3}));
  const std::vector<Message> expected = {user("go"),
                                         calling({call("c1", "echo", {{"text", "one"}}),
                                                  call("c2", "echo", {{"text", "two"}})}),
                                         result("one", "c1"), result("two", "c2"), answer("done")};
  EXPECT_EQ(run.messages, expected);
  EXPECT_EQ(on_disk(), expected);
  EXPECT_EQ(read(session_), to_canonical_jsonl(expected));
  EXPECT_EQ(run.stop_reason, StopReason::completed);
  EXPECT_EQ(run.requests, 2u);
  EXPECT_EQ(run.loaded, 0u);
}

TEST_F(AgentDir, ARestartContinuesTheSession) {
  FakeClient first({answer("hello")});
  run_agent({.prompt = "hi", .client = first, .session_path = session_});

  FakeClient second({answer("you said hi")});
  const AgentResult run = run_agent({.prompt = "what did I say?", .client = second, .session_path = session_});

  const std::vector<Message> whole = {user("hi"), answer("hello"), user("what did I say?"), answer("you said hi")};
  ASSERT_EQ(second.requests.size(), 1u);
  EXPECT_EQ(second.requests[0].context, std::vector<Message>(whole.begin(), whole.end() - 1));
  EXPECT_EQ(run.loaded, 2u);
  EXPECT_EQ(run.messages, whole);
  EXPECT_EQ(std::vector<Message>(run.recorded().begin(), run.recorded().end()),
            std::vector<Message>(whole.begin() + 2, whole.end()));
  EXPECT_EQ(on_disk(), whole);
}

TEST_F(AgentDir, ACrashLeavesExactlyTheRecordsMadeAndARestartResumesThem) {
  FakeClient crashing({calling({call("c1", "echo", {{"text", "x"}})})});
  crashing.on_request = [](std::size_t request) {
    if (request == 2) throw std::runtime_error("connection reset");
  };
  const auto error = thrown<std::runtime_error>(
      [&] { run_agent({.prompt = "go", .client = crashing, .tools = echo_tools(), .session_path = session_}); });
  EXPECT_STREQ(error.what(), "connection reset");
  const std::vector<Message> recorded = {user("go"), calling({call("c1", "echo", {{"text", "x"}})}), result("x", "c1")};
  EXPECT_EQ(on_disk(), recorded);

  FakeClient resumed({answer("back")});
  run_agent({.prompt = "again", .client = resumed, .session_path = session_});
  std::vector<Message> expected = recorded;
  expected.push_back(user("again"));
  EXPECT_EQ(resumed.requests.at(0).context, expected);
}

TEST_F(AgentDir, ACorruptSessionIsRefusedBeforeAnythingIsAppended) {
  write(session_, "{\"role\":\"user\",\"content\":\"ok\"}\n{broken\n");
  FakeClient model({answer("never")});
  const auto error =
      thrown<SessionError>([&] { run_agent({.prompt = "go", .client = model, .session_path = session_}); });
  EXPECT_EQ(error.line(), 2u);
  EXPECT_TRUE(model.requests.empty());
  EXPECT_EQ(read(session_), "{\"role\":\"user\",\"content\":\"ok\"}\n{broken\n");
}

// ---------------------------------------------------------------------------
// The budget: the client gets the trimmed copy, the record keeps it all.

TEST_F(AgentDir, AMultiToolUnitTravelsWholeWithItsResultsUnderATightBudget) {
  const AssistantMessage two_calls =
      calling({call("a", "echo", {{"text", "first result"}}), call("b", "echo", {{"text", "second result"}})});
  const std::vector<Message> unit = {two_calls, result("first result", "a"), result("second result", "b")};
  const std::uint64_t budget = estimate_context_chars(unit);  // the unit, and nothing more
  const std::vector<Message> prompt = {user("go")};
  ASSERT_LT(estimate_context_chars(prompt), budget);

  FakeClient model({two_calls, answer("done")});
  const AgentResult run = run_agent({.prompt = "go", .client = model, .tools = echo_tools(),
                                     .session_path = session_, .context_max_chars = budget});

  ASSERT_EQ(model.requests.size(), 2u);
  EXPECT_EQ(model.requests[0].context, prompt);
  EXPECT_EQ(model.requests[1].context, unit);  // the prompt no longer fits; the unit stays whole
  std::vector<Message> whole = prompt;
  whole.insert(whole.end(), unit.begin(), unit.end());
  whole.push_back(answer("done"));
  EXPECT_EQ(run.messages, whole);
  EXPECT_EQ(on_disk(), whole);
  // The chapter's check: a budget of 1 cannot hold that unit.
  EXPECT_EQ(thrown<ContextError>([&] { trim_context(unit, 1); }).kind(), ContextErrorKind::unit_exceeds_budget);
}

TEST_F(AgentDir, ABudgetTooSmallReachesTheCallerBeforeTheFirstRequest) {
  FakeClient model({answer("never")});
  const auto error = thrown<ContextError>([&] {
    run_agent({.prompt = "go", .client = model, .session_path = session_, .context_max_chars = 1});
  });
  EXPECT_EQ(error.kind(), ContextErrorKind::unit_exceeds_budget);
  EXPECT_STREQ(error.what(),
               "context budget cannot contain the smallest consistent message unit: the newest unit, message 0, "
               "is 31 characters; the budget is 1");
  EXPECT_TRUE(model.requests.empty());
  EXPECT_EQ(on_disk(), std::vector<Message>{user("go")});  // the prompt is part of the record; nothing more
}

TEST_F(AgentDir, ABudgetErrorMidRunAppendsNothingMore) {
  const AssistantMessage big = calling({call("a", "echo", {{"text", std::string(200, 'x')}})});
  FakeClient model({big, answer("never")});
  // Holds the prompt, not the unit that the tool's long result makes.
  const auto error = thrown<ContextError>([&] {
    run_agent({.prompt = "go", .client = model, .tools = echo_tools(), .session_path = session_,
               .context_max_chars = 100});
  });
  EXPECT_EQ(error.kind(), ContextErrorKind::unit_exceeds_budget);
  EXPECT_EQ(model.requests.size(), 1u);
  EXPECT_EQ(on_disk(), (std::vector<Message>{user("go"), big, result(std::string(200, 'x'), "a")}));
}

TEST_F(AgentDir, VerboseReportsCountStoredAgainstSent) {
  FakeClient model({calling({call("a", "echo", {{"text", std::string(50, 'y')}})}), answer("done")});
  write(session_, to_canonical_jsonl(std::vector<Message>{user(std::string(400, 'o')), answer("old")}));
  std::vector<RequestReport> reports;
  const AgentResult run = run_agent({.prompt = "go", .client = model, .tools = echo_tools(),
                                     .session_path = session_, .context_max_chars = 300,
                                     .on_request = [&](const RequestReport& r) { reports.push_back(r); }});
  ASSERT_EQ(reports.size(), 2u);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const std::vector<Message>& sent = model.requests[i].context;
    const std::span<const Message> stored(run.messages.data(), reports[i].stored_messages);
    EXPECT_EQ(reports[i].request, i + 1);
    EXPECT_EQ(reports[i].sent_messages, sent.size());
    EXPECT_EQ(reports[i].sent_chars, estimate_context_chars(sent));
    EXPECT_EQ(reports[i].stored_chars, estimate_context_chars(stored));
    EXPECT_LT(reports[i].sent_chars, reports[i].stored_chars);
  }
  EXPECT_EQ(reports[0].stored_messages, 3u);  // two loaded, the prompt
  EXPECT_EQ(reports[1].stored_messages, 5u);  // + the assistant and its result
}

// ---------------------------------------------------------------------------
// Tool dispatch: in order, and never fatal.

TEST(RunAgent, ToolCallsRunInOrderWithTheirInputsAndIds) {
  std::vector<std::string> ran;
  std::map<std::string, Tool> tools;
  tools["upper"] = {"upper-cases input.text", [&](const Json& input) {
                      ran.push_back("upper");
                      std::string text = input.at("text").get<std::string>();
                      for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
                      return text;
                    }};
  tools["count"] = {"counts input.items", [&](const Json& input) {
                      ran.push_back("count");
                      return std::to_string(input.at("items").size());
                    }};
  FakeClient model({calling({call("1", "upper", {{"text", "abc"}}), call("2", "count", {{"items", {1, 2, 3}}}),
                             call("3", "upper", {{"text", "z"}})}),
                    answer("ok")});
  const AgentResult run = run_agent({.prompt = "go", .client = model, .tools = tools});
  EXPECT_EQ(ran, (std::vector<std::string>{"upper", "count", "upper"}));
  const std::vector<Message> results(run.messages.begin() + 2, run.messages.begin() + 5);
  EXPECT_EQ(results, (std::vector<Message>{result("ABC", "1"), result("3", "2"), result("Z", "3")}));
  // The model is told every tool, in name order.
  EXPECT_EQ(model.requests.at(0).tools,
            (std::vector<ToolSpec>{{"count", "counts input.items"}, {"upper", "upper-cases input.text"}}));
}

TEST(RunAgent, AnUnknownToolBecomesAnErrorResultAndTheLoopGoesOn) {
  FakeClient model({calling({call("c1", "nope"), call("c2", "echo", {{"text", "still runs"}})}), answer("ok")});
  const AgentResult run = run_agent({.prompt = "go", .client = model, .tools = echo_tools()});
  EXPECT_EQ(run.messages.at(2), result("unknown tool: nope", "c1", true));
  EXPECT_EQ(run.messages.at(3), result("still runs", "c2"));
  EXPECT_EQ(model.requests.at(1).context.back(), run.messages.at(3));
  EXPECT_EQ(run.stop_reason, StopReason::completed);
}

TEST(RunAgent, AFailingToolBecomesAnErrorResultWithItsMessage) {
  std::map<std::string, Tool> tools;
  tools["fails"] = {"", [](const Json&) -> std::string { throw std::runtime_error("disk on fire"); }};
  tools["throws_int"] = {"", [](const Json&) -> std::string { throw 42; }};
  tools["json_error"] = {"", [](const Json& input) { return input.at("missing").get<std::string>(); }};
  FakeClient model(
      {calling({call("a", "fails"), call("b", "throws_int"), call("c", "json_error")}), answer("recovered")});
  const AgentResult run = run_agent({.prompt = "go", .client = model, .tools = tools});
  EXPECT_EQ(run.messages.at(2), result("disk on fire", "a", true));
  const auto& odd = std::get<ToolResultMessage>(run.messages.at(3));
  EXPECT_TRUE(odd.is_error);
  EXPECT_EQ(odd.tool_call_id, "b");
  EXPECT_NE(odd.content.find("throws_int"), std::string::npos) << odd.content;
  const auto& json = std::get<ToolResultMessage>(run.messages.at(4));
  EXPECT_TRUE(json.is_error);
  EXPECT_NE(json.content.find("missing"), std::string::npos) << json.content;
  EXPECT_EQ(std::get<AssistantMessage>(run.messages.back()), answer("recovered"));
}

TEST_F(AgentDir, ToolTextThatIsNotUtf8CannotCorruptTheRecord) {
  std::map<std::string, Tool> tools;
  tools["binary"] = {"", [](const Json&) { return std::string("ok\xff\xc3(", 5); }};
  tools["binary_error"] = {"", [](const Json&) -> std::string { throw std::runtime_error("bad \xc3"); }};
  FakeClient model({calling({call("a", "binary"), call("b", "binary_error")}), answer("done")});
  const AgentResult run = run_agent({.prompt = "go", .client = model, .tools = tools, .session_path = session_});
  EXPECT_EQ(run.messages.at(2), result("ok\uFFFD\uFFFD(", "a"));
  EXPECT_EQ(run.messages.at(3), result("bad \uFFFD", "b", true));
  EXPECT_EQ(on_disk(), run.messages);
}

// ---------------------------------------------------------------------------
// Where the loop ends.

TEST(RunAgent, StopsAtMaxTurnsWithTheLastResultsRecorded) {
  std::vector<AssistantMessage> endless;
  for (int i = 0; i < 10; ++i) endless.push_back(calling({call("c" + std::to_string(i), "echo", {{"text", "again"}})}));
  FakeClient model(endless);
  const AgentResult run = run_agent({.prompt = "go", .client = model, .tools = echo_tools(), .max_turns = 3});
  EXPECT_EQ(run.stop_reason, StopReason::max_turns);
  EXPECT_EQ(run.requests, 3u);
  EXPECT_EQ(model.requests.size(), 3u);
  ASSERT_EQ(run.messages.size(), 1u + 3u * 2u);
  EXPECT_EQ(run.messages.back(), result("again", "c2"));
}

TEST(RunAgent, AnAnswerOnTheLastAllowedTurnCompletes) {
  FakeClient model({calling({call("c", "echo", {{"text", "x"}})}), answer("just in time")});
  const AgentResult run = run_agent({.prompt = "go", .client = model, .tools = echo_tools(), .max_turns = 2});
  EXPECT_EQ(run.stop_reason, StopReason::completed);
  EXPECT_EQ(run.requests, 2u);
}

TEST_F(AgentDir, ZeroMaxTurnsIsRefusedBeforeAnythingHappens) {
  FakeClient model({answer("never")});
  EXPECT_THROW(run_agent({.prompt = "go", .client = model, .session_path = session_, .max_turns = 0}),
               std::invalid_argument);
  EXPECT_FALSE(fs::exists(session_));
  EXPECT_TRUE(model.requests.empty());
}

TEST_F(AgentDir, AClientMessageThatCannotBeSerializedIsNotRecorded) {
  FakeClient model({answer("bad \xff")});
  EXPECT_THROW(run_agent({.prompt = "go", .client = model, .session_path = session_}), SerializationError);
  EXPECT_EQ(on_disk(), std::vector<Message>{user("go")});
}

TEST_F(AgentDir, AClientMessageThatCannotBeSerializedIsRefusedWithoutASessionPathToo) {
  // Memory holds only what a file could, so a run without a file does not
  // hand back a record that `agent-session` could never write.
  FakeClient model({answer("bad \xff")});
  EXPECT_THROW(run_agent({.prompt = "go", .client = model}), SerializationError);
}

// ---------------------------------------------------------------------------
// Without a session path, nothing is written.

TEST_F(AgentDir, WithoutASessionPathNothingTouchesTheDisk) {
  // Run from an empty directory: any file the loop created would land in
  // it (a relative default path) or in the only path it was ever shown.
  const fs::path previous = fs::current_path();
  fs::current_path(dir_);
  FakeClient model({calling({call("c", "echo", {{"text", "x"}})}), answer("done")});
  AgentResult run;
  try {
    run = run_agent({.prompt = "go", .client = model, .tools = echo_tools(), .context_max_chars = 10000});
  } catch (...) {
    fs::current_path(previous);
    throw;
  }
  fs::current_path(previous);
  EXPECT_TRUE(fs::is_empty(dir_));
  EXPECT_EQ(run.messages.size(), 4u);
  EXPECT_EQ(run.loaded, 0u);
  EXPECT_EQ(model.requests.at(0).context, std::vector<Message>{user("go")});
}

// ---------------------------------------------------------------------------
// The scripted client.

TEST_F(AgentDir, AScriptReplaysAssistantMessagesFromWhereItIsTold) {
  write(dir_ / "replies.jsonl",
        "{\"role\":\"assistant\",\"content\":\"one\",\"toolCalls\":[]}\n\n"
        "{\"role\":\"assistant\",\"content\":\"two\","
        "\"toolCalls\":[{\"id\":\"c\",\"name\":\"echo\",\"input\":null}]}\n");
  const std::vector<AssistantMessage> replies = load_script(dir_ / "replies.jsonl");
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[1], calling({call("c", "echo", nullptr)}, "two"));

  ScriptedClient model(replies, 1);
  EXPECT_EQ(model.remaining(), 1u);
  EXPECT_EQ(model.next_message({}, {}), replies[1]);
  EXPECT_EQ(model.remaining(), 0u);
  const auto error = thrown<ScriptError>([&] { model.next_message({}, {}); });
  EXPECT_NE(std::string(error.what()).find("no reply left"), std::string::npos) << error.what();
}

TEST_F(AgentDir, AScriptLineThatIsNotAnAssistantMessageIsNamedByItsLine) {
  write(dir_ / "user.jsonl",
        "{\"role\":\"assistant\",\"content\":\"\",\"toolCalls\":[]}\n\n{\"role\":\"user\",\"content\":\"x\"}\n");
  auto error = thrown<ScriptError>([&] { load_script(dir_ / "user.jsonl"); });
  EXPECT_NE(std::string(error.what()).find("line 3: a user message, not an assistant message"), std::string::npos)
      << error.what();

  write(dir_ / "broken.jsonl", "{\"role\":");
  error = thrown<ScriptError>([&] { load_script(dir_ / "broken.jsonl"); });
  EXPECT_NE(std::string(error.what()).find("line 1: not JSON"), std::string::npos) << error.what();

  write(dir_ / "tool_calls_missing.jsonl", "{\"role\":\"assistant\",\"content\":\"\"}\n");
  error = thrown<ScriptError>([&] { load_script(dir_ / "tool_calls_missing.jsonl"); });
  EXPECT_NE(std::string(error.what()).find("line 1: not a message"), std::string::npos) << error.what();
}

TEST_F(AgentDir, AMissingScriptIsAnIoErrorNotAnEmptyScript) {
  const auto error = thrown<std::system_error>([&] { load_script(dir_ / "absent.jsonl"); });
  EXPECT_EQ(error.code(), std::errc::no_such_file_or_directory);
  EXPECT_NE(std::string(error.what()).find("script"), std::string::npos) << error.what();
}

TEST(ScriptedClient, TheScriptPositionIsTheNumberOfAssistantMessages) {
  const std::vector<Message> history = {user("a"), answer("b"), result("c", "x"), calling({call("x", "t")}),
                                        user("d")};
  EXPECT_EQ(count_assistant_messages(history), 2u);
  EXPECT_EQ(count_assistant_messages({}), 0u);
}

// ---------------------------------------------------------------------------
// The demo tools.

class DemoTools : public AgentDir {
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
  EXPECT_EQ(read_file("sub/../a.txt"), "alpha\n");  // `..` that stays inside is fine
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
  write(root() / "binary.bin", std::string("\x7f" "ELF\xff\xfe", 6));
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

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

CliRun run_cli(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out, err;
  const int code = cli::run(args, in, out, err);
  return {code, out.str(), err.str()};
}

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

class RunCommand : public AgentDir {
 protected:
  std::vector<std::string> demo_args(const std::string& prompt, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"run",    "--session", session_.string(), "--script",
                                     (kDemo / "replies.jsonl").string(), "--root", kDemo.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(prompt);
    return args;
  }
};

TEST_F(RunCommand, TwoRunsResumeOneSessionWhereTheScriptLeftOff) {
  const std::vector<AssistantMessage> script = load_script(kDemo / "replies.jsonl");
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
  EXPECT_EQ(on_disk().size(), 4u);  // the prompt, reply 1 and its two results
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
  EXPECT_EQ(run_cli({"run", "--session", session_.string(), "--script", script}).exit_code, cli::kUsage);
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
  EXPECT_EQ(run_cli(demo_args("\xc3")).exit_code, cli::kUsage);  // cut short
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
