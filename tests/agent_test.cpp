// agent.hpp: run_agent's session boundary (SPEC.md §9) through a fake
// client: what is on disk before each step, restarts, crashes, the budget,
// tool dispatch and where the loop ends. The scripted client and
// load_script: scripted_client_test.cpp; the demo tools and
// `agent-session run`: run_command_test.cpp.
#include "agent_session/agent.hpp"
#include "cli/scripted_client.hpp"

#include "agent_session/context.hpp"
#include "agent_session/session.hpp"

#include "support/message_builders.hpp"
#include "support/session_dir.hpp"
#include "support/temp_dir.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <fstream>
#include <new>

#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::answer;
using test_support::call;
using test_support::calling;
using test_support::result;
using test_support::thrown;
using test_support::user;

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
// A fresh directory per test, with its session file.

using AgentDir = test_support::SessionDirTest;

// ---------------------------------------------------------------------------
// Append and recovery through an explicit session path.

TEST_F(AgentDir, EveryRecordIsOnDiskBeforeTheNextStep) {
  FakeClient model(
      {calling({call("c1", "echo", {{"text", "one"}}), call("c2", "echo", {{"text", "two"}})}), answer("done")});
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
  const std::vector<Message> expected = {
      user("go"), calling({call("c1", "echo", {{"text", "one"}}), call("c2", "echo", {{"text", "two"}})}),
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
  const AgentResult run = run_agent(
      {.prompt = "go", .client = model, .tools = echo_tools(), .session_path = session_, .context_max_chars = budget});

  ASSERT_EQ(model.requests.size(), 2u);
  EXPECT_EQ(model.requests[0].context, prompt);
  EXPECT_EQ(model.requests[1].context, unit);  // the prompt no longer fits; the unit stays whole
  std::vector<Message> whole = prompt;
  whole.insert(whole.end(), unit.begin(), unit.end());
  whole.push_back(answer("done"));
  EXPECT_EQ(run.messages, whole);
  EXPECT_EQ(on_disk(), whole);
  // A budget of 1 cannot hold that unit (SPEC.md §5.2).
  EXPECT_EQ(thrown<ContextError>([&] { trim_context(unit, 1); }).kind(), ContextErrorKind::unit_exceeds_budget);
}

TEST_F(AgentDir, ABudgetTooSmallReachesTheCallerBeforeTheFirstRequest) {
  FakeClient model({answer("never")});
  const auto error = thrown<ContextError>(
      [&] { run_agent({.prompt = "go", .client = model, .session_path = session_, .context_max_chars = 1}); });
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
    run_agent(
        {.prompt = "go", .client = model, .tools = echo_tools(), .session_path = session_, .context_max_chars = 100});
  });
  EXPECT_EQ(error.kind(), ContextErrorKind::unit_exceeds_budget);
  EXPECT_EQ(model.requests.size(), 1u);
  EXPECT_EQ(on_disk(), (std::vector<Message>{user("go"), big, result(std::string(200, 'x'), "a")}));
}

TEST_F(AgentDir, VerboseReportsCountStoredAgainstSent) {
  FakeClient model({calling({call("a", "echo", {{"text", std::string(50, 'y')}})}), answer("done")});
  write(session_, to_canonical_jsonl(std::vector<Message>{user(std::string(400, 'o')), answer("old")}));
  std::vector<RequestReport> reports;
  const AgentResult run = run_agent({.prompt = "go",
                                     .client = model,
                                     .tools = echo_tools(),
                                     .session_path = session_,
                                     .context_max_chars = 300,
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

// Out of memory is this process's failure, not the tool's: never recorded
// as a result the model would read, always the caller's error (the CLI's
// exit 3, SPEC.md §6).
TEST_F(AgentDir, OutOfMemoryInAToolIsThrownNotRecorded) {
  std::map<std::string, Tool> tools;
  tools["greedy"] = {"", [](const Json&) -> std::string { throw std::bad_alloc(); }};
  FakeClient model({calling({call("a", "greedy")}), answer("never")});
  EXPECT_THROW(run_agent({.prompt = "go", .client = model, .tools = tools, .session_path = session_}), std::bad_alloc);
  ASSERT_EQ(on_disk().size(), 2U) << "the prompt and the assistant, no result";
  EXPECT_EQ(on_disk().at(1), Message(calling({call("a", "greedy")})));
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

TEST_F(AgentDir, WithoutAPromptARunResumesToolResultsThatAwaitAReply) {
  FakeClient first({calling({call("c", "echo", {{"text", "x"}})})});
  run_agent({.prompt = "go", .client = first, .tools = echo_tools(), .session_path = session_, .max_turns = 1});
  FakeClient second({answer("done")});
  const AgentResult run =
      run_agent({.prompt = std::nullopt, .client = second, .tools = echo_tools(), .session_path = session_});
  EXPECT_EQ(run.stop_reason, StopReason::completed);
  ASSERT_EQ(run.recorded().size(), 1u) << "no user message: the reply follows the results";
  EXPECT_EQ(on_disk().back(), Message(answer("done")));
  EXPECT_TRUE(awaits_reply(std::vector<Message>{user("go")}));
  EXPECT_FALSE(awaits_reply(on_disk()));
  EXPECT_THROW(run_agent({.prompt = std::nullopt, .client = second, .session_path = session_}), std::invalid_argument);
  EXPECT_EQ(on_disk().size(), 4u) << "nothing awaited a reply: nothing recorded";
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

}  // namespace
}  // namespace agent_session
