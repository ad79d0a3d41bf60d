#include "reference/reference.hpp"

#include "agent_session/context.hpp"
#include "base/utf8.hpp"
#include "reference/units.hpp"

#include <optional>
#include <vector>

namespace agent_session::reference {

// SPEC.md §4's L(canonical(m)): the canonical line, printed, measured.
std::uint64_t measure(const Message& message) { return base::utf16_length(to_canonical_json(message)); }

std::uint64_t estimate_context_chars(std::span<const Message> messages) {
  std::uint64_t chars = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) chars += reference::message_chars(messages, i, measure);
  return chars;
}

std::span<const Message> trim_context(std::span<const Message> messages, std::uint64_t max_chars) {
  const std::vector<std::optional<std::size_t>> declarer = declaring_assistants(messages);
  return trim_context_given_declarers(messages, declarer, max_chars);
}

std::span<const Message> trim_context_given_declarers(std::span<const Message> messages,
                                                      std::span<const std::optional<std::size_t>> declarer,
                                                      std::uint64_t max_chars) {
  return messages.subspan(reference::kept_from(
      messages.size(), max_chars, [&](std::size_t p) { return declarer[p]; },
      [&](std::size_t p) { return reference::message_chars(messages, p, measure); }));
}

}  // namespace agent_session::reference
