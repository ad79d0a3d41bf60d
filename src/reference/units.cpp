#include "reference/units.hpp"

#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>

namespace agent_session {

// The errors the walk throws (units.hpp), with the text SPEC.md §5 gives
// them, beside it: context.hpp declares them.
ContextError::ContextError(ContextErrorKind kind, std::optional<std::size_t> message_index, const std::string& what)
    : std::runtime_error(what), kind_(kind), message_index_(message_index) {}

namespace {

std::string unit_exceeds_text(const ContextUnit& unit, std::uint64_t budget) {
  const std::string messages = unit.end - unit.begin == 1
                                   ? "message " + std::to_string(unit.begin)
                                   : "messages " + std::to_string(unit.begin) + "-" + std::to_string(unit.end - 1);
  return "context budget cannot contain the smallest consistent message unit: the newest unit, " + messages + ", is " +
         std::to_string(unit.chars) + " characters; the budget is " + std::to_string(budget);
}

}  // namespace

ContextError::ContextError(const ContextUnit& unit, std::uint64_t budget)
    : std::runtime_error(unit_exceeds_text(unit, budget)),
      kind_(ContextErrorKind::unit_exceeds_budget),
      unit_(unit),
      budget_(budget) {}

// SPEC.md §5.1, beside the walk that asks for it (units.hpp).
std::vector<std::optional<std::size_t>> declaring_assistants(std::span<const Message> messages) {
  // One forward pass: the latest assistant seen declaring an id is the
  // nearest earlier one for what follows.
  reference::work_counters().declarer_steps += messages.size();  // mechanics: counted for the cost tests
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
