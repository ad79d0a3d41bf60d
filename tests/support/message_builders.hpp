// Short builders for the messages a test history is made of, so a test
// reads as the conversation it stands for: user("go"),
// calling({call("c1", "echo", {{"text", "x"}})}), result("x", "c1"),
// answer("done").
#pragma once

#include "agent_session/message.hpp"

#include <string>
#include <utility>
#include <vector>

namespace agent_session::test_support {

inline Message user(std::string content) { return UserMessage{std::move(content)}; }

// An assistant message that calls no tool: the end of a turn.
inline AssistantMessage answer(std::string content) { return AssistantMessage{std::move(content), {}}; }

inline AssistantMessage calling(std::vector<ToolCall> calls, std::string content = "") {
  return AssistantMessage{std::move(content), std::move(calls)};
}

inline ToolCall call(std::string id, std::string name, Json input = Json::object()) {
  return ToolCall{std::move(id), std::move(name), std::move(input)};
}

inline Message result(std::string content, std::string id, bool is_error = false) {
  return ToolResultMessage{std::move(content), std::move(id), is_error};
}

}  // namespace agent_session::test_support
