#include "agent_session/message.hpp"

#include "reference/canonical.hpp"
#include "reference/discriminate.hpp"

#include <type_traits>
#include <utility>

namespace agent_session {

namespace {

std::optional<Message> to_optional(reference::Verdict&& verdict) {
  if (auto* message = std::get_if<Message>(&verdict)) return std::move(*message);
  return std::nullopt;
}

}  // namespace

std::optional<Message> parse_session_message(const Json& json) {
  return to_optional(reference::discriminate_record(json));
}

std::optional<Message> parse_session_message(Json&& json) {
  return to_optional(reference::discriminate_record(std::move(json)));
}

std::string to_canonical_json(const Message& message) {
  std::string out;
  reference::append_canonical_line(out, message);
  return out;
}

std::string to_canonical_jsonl(std::span<const Message> messages) {
  std::string text;
  for (const auto& message : messages) {
    reference::append_canonical_line(text, message);
    text.push_back('\n');
  }
  return text;
}

}  // namespace agent_session
