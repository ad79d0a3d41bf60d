#include "agent_session/context.hpp"

#include "reference/reference.hpp"
#include "reference/units.hpp"

#include <algorithm>
#include <string>

namespace agent_session {

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

std::vector<ContextUnit> context_units(std::span<const Message> messages) {
  const std::vector<std::optional<std::size_t>> declarer = declaring_assistants(messages);
  std::vector<ContextUnit> units;
  reference::for_each_unit_newest_first(
      messages.size(), [&](std::size_t p) { return declarer[p]; },
      [&](std::size_t p) { return reference::message_chars(messages, p, reference::measure); },
      [&](const ContextUnit& unit) {
        units.push_back(unit);
        return true;
      });
  std::reverse(units.begin(), units.end());
  return units;
}

}  // namespace agent_session
