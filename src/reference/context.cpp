#include "agent_session/context.hpp"

#include "reference/reference.hpp"
#include "reference/units.hpp"

#include <algorithm>

namespace agent_session {

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
