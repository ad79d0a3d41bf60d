// README.md teaches the session format by example: a person who copies its
// record block (and the answer line it shows) into a file must get a session
// that loads. This test reads the README itself, so the example cannot rot.
#include "agent_session/session.hpp"
#include "support/cli_run.hpp"
#include "support/run_binary.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace agent_session {
namespace {

std::string readme(const std::string& name = "README.md") {
  std::ifstream in(std::string(AGENT_SESSION_SOURCE_DIR) + "/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The body of the first fenced block after the line that ends with
// `marker` (as .ci/stages/40-readme-agent-demo.sh finds the demo), or "".
std::string block_after(const std::string& text, const std::string& marker) {
  const std::size_t at = text.find(marker + "\n");
  if (at == std::string::npos) return "";
  const std::size_t fence = text.find("\n```", at);
  if (fence == std::string::npos) return "";
  const std::size_t body = text.find('\n', fence + 1);
  const std::size_t end = text.find("\n```", body);
  if (body == std::string::npos || end == std::string::npos) return "";
  return text.substr(body + 1, end - body);
}

// The first `code span` after `marker`, or "".
std::string code_after(const std::string& text, const std::string& marker) {
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) return "";
  const std::size_t open = text.find('`', at + marker.size());
  const std::size_t close = open == std::string::npos ? open : text.find('`', open + 1);
  if (close == std::string::npos) return "";
  return text.substr(open + 1, close - open - 1);
}

const std::string kRecordsMarker = "Three records, one of each role:";

TEST(Readme, TheRecordBlockIsASessionOfOneMessageOfEachRole) {
  const std::string block = block_after(readme(), kRecordsMarker);
  ASSERT_FALSE(block.empty()) << "no fenced block after '" << kRecordsMarker << "' in README.md";
  const std::vector<Message> messages = load_session_from_memory(block);
  ASSERT_EQ(messages.size(), 3u) << block;
  EXPECT_TRUE(std::holds_alternative<UserMessage>(messages[0])) << block;
  ASSERT_TRUE(std::holds_alternative<AssistantMessage>(messages[1])) << block;
  ASSERT_TRUE(std::holds_alternative<ToolResultMessage>(messages[2])) << block;
  // The result answers the call shown, so the block is one whole turn.
  const auto& assistant = std::get<AssistantMessage>(messages[1]);
  ASSERT_EQ(assistant.tool_calls.size(), 1u);
  EXPECT_EQ(std::get<ToolResultMessage>(messages[2]).tool_call_id, assistant.tool_calls[0].id);
  // Written as a person would copy it: each line already canonical.
  EXPECT_EQ(to_canonical_jsonl(messages), block);
}

TEST(Readme, TheClosingAnswerLoadsAfterTheBlockAsAnAssistantWithoutToolCalls) {
  const std::string text = readme();
  const std::string answer = code_after(text, "answer that closes this turn would:");
  ASSERT_NE(answer.find("\"toolCalls\":[]"), std::string::npos) << answer;
  const std::vector<Message> messages = load_session_from_memory(block_after(text, kRecordsMarker) + answer + "\n");
  ASSERT_EQ(messages.size(), 4u);
  ASSERT_TRUE(std::holds_alternative<AssistantMessage>(messages[3]));
  EXPECT_TRUE(std::get<AssistantMessage>(messages[3]).tool_calls.empty());
}

// The versions the READMEs show are the ones the commands print.
TEST(Readme, TheVersionExamplesAreWhatTheCommandsPrint) {
  const std::string conformance = readme("corpus/conformance/README.md");
  const std::string shown =
      block_after(conformance, "`conform --version` prints both versions, without running anything:");
  ASSERT_FALSE(shown.empty()) << "no --version example in corpus/conformance/README.md";
  // The real command, which runs agent-session-conform in its place, from
  // the root as the README runs it.
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() / ("agent_session_readme_" + std::to_string(::getpid()));
  std::filesystem::create_directories(scratch);
  test_support::BinaryOptions options;
  options.in_child = [] {
    if (::chdir(AGENT_SESSION_SOURCE_DIR) != 0) ::_exit(125);
  };
  const test_support::BinaryRun run =
      test_support::run_binary({"conform", "--vectors", "corpus/conformance", "--version"}, scratch, options);
  std::filesystem::remove_all(scratch);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(shown, run.out);
  const std::string version = test_support::run_cli({"--version"}).out;
  EXPECT_NE(
      readme().find("agent-session --version                   # \"" + version.substr(0, version.size() - 1) + "\""),
      std::string::npos)
      << version;
}

}  // namespace
}  // namespace agent_session
