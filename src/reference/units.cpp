#include "reference/units.hpp"

#include <string_view>
#include <unordered_map>
#include <variant>

namespace agent_session {

// SPEC.md §5.1, beside the walk that asks for it (units.hpp).
std::vector<std::optional<std::size_t>> declaring_assistants(std::span<const Message> messages) {
  // One forward pass: the latest assistant seen declaring an id is the
  // nearest earlier one for what follows.
  reference::work_counters().declarer_steps += messages.size();
  std::vector<std::optional<std::size_t>> declarer(messages.size());
  std::unordered_map<std::string_view, std::size_t> latest;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (const auto* assistant = std::get_if<AssistantMessage>(&messages[i])) {
      for (const auto& call : assistant->tool_calls) latest[call.id] = i;
    } else if (const auto* result = std::get_if<ToolResultMessage>(&messages[i])) {
      if (auto it = latest.find(result->tool_call_id); it != latest.end()) declarer[i] = it->second;
    }
  }
  return declarer;
}

}  // namespace agent_session
