// agent.hpp's scripted client: load_script reads assistant messages with
// the session loader (its lines, limits and errors, worded for a script),
// and ScriptedClient replays them from a position, the one
// count_assistant_messages gives for a session being resumed. The demo
// that drives `agent-session run` with it: run_command_test.cpp.
#include "cli/scripted_client.hpp"
#include "agent_session/agent.hpp"

#include "support/message_builders.hpp"
#include "support/temp_dir.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <string>
#include <system_error>
#include <vector>

namespace agent_session {
namespace {

using cli::count_assistant_messages;
using cli::load_script;
using cli::ScriptedClient;
using cli::ScriptError;
using test_support::answer;
using test_support::call;
using test_support::calling;
using test_support::result;
using test_support::thrown;
using test_support::user;

using AgentDir = test_support::TempDirTest;

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

// A script is read by the session loader, with its line limit: an endless
// one (/dev/zero) is an error after a bounded read, not all of memory.
TEST(LoadScript, AnEndlessScriptStopsAtTheSessionLineLimit) {
  const auto error = thrown<std::system_error>([] { load_script("/dev/zero"); });
  EXPECT_EQ(error.code(), std::errc::file_too_large) << error.what();
  EXPECT_NE(std::string(error.what()).find("cannot read script '/dev/zero'"), std::string::npos) << error.what();
}

TEST(ScriptedClient, TheScriptPositionIsTheNumberOfAssistantMessages) {
  const std::vector<Message> history = {user("a"), answer("b"), result("c", "x"), calling({call("x", "t")}), user("d")};
  EXPECT_EQ(count_assistant_messages(history), 2u);
  EXPECT_EQ(count_assistant_messages({}), 0u);
}

}  // namespace
}  // namespace agent_session
