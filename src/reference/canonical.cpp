#include "reference/canonical.hpp"

#include "reference/canonical_value.hpp"

#include <cstddef>
#include <variant>

namespace agent_session::reference {

void append_canonical_line(std::string& out, const Message& message) {
  out += "{\"role\":\"";
  out += role_of(message);
  out += "\",\"content\":";
  std::visit([&](const auto& m) { append_json_string(out, m.content); }, message);
  if (const auto* assistant = std::get_if<AssistantMessage>(&message)) {
    out += ",\"toolCalls\":[";
    for (std::size_t i = 0; i < assistant->tool_calls.size(); ++i) {
      const ToolCall& call = assistant->tool_calls[i];
      out += i == 0 ? "{\"id\":" : ",{\"id\":";
      append_json_string(out, call.id);
      out += ",\"name\":";
      append_json_string(out, call.name);
      out += ",\"input\":";
      out += call.input.canonical_json_or_throw();  // SerializationError, as SPEC.md §4 asks
      out += '}';
    }
    out += ']';
  } else if (const auto* result = std::get_if<ToolResultMessage>(&message)) {
    out += ",\"toolCallId\":";
    append_json_string(out, result->tool_call_id);
    out += result->is_error ? ",\"isError\":true" : ",\"isError\":false";
  }
  out += '}';
}

}  // namespace agent_session::reference

namespace agent_session {

// SPEC.md §1's roles, as the canonical line prints them (message.hpp).
const char* role_of(const Message& message) noexcept {
  static constexpr const char* kRoles[] = {"user", "assistant", "tool"};
  return kRoles[message.index()];
}

}  // namespace agent_session
