#include "agent_session/message.hpp"

#include "reference/canonical.hpp"
#include "reference/discriminate.hpp"
#include "reference/json_line.hpp"
#include "reference/json_teardown.hpp"

#include <type_traits>
#include <utility>

namespace agent_session {

namespace {

// The canonical text of a tool call's input, or nullopt when it has none.
std::optional<std::string> printed_input(const Json& value) {
  std::string text;
  try {
    reference::append_canonical_value(text, value, reference::kToolInputDepth);
  } catch (const SerializationError&) {
    return std::nullopt;
  }
  return text;
}

std::optional<Message> to_optional(reference::Verdict&& verdict) {
  if (auto* message = std::get_if<Message>(&verdict)) return std::move(*message);
  return std::nullopt;
}

}  // namespace

ToolInput::ToolInput(const Json& value) {
  if (auto text = printed_input(value)) {
    canonical_json_ = std::move(*text);
  } else {
    unprintable_ = value;
  }
}

ToolInput::ToolInput(Json&& value) {
  if (auto text = printed_input(value)) {
    canonical_json_ = std::move(*text);
  } else {
    unprintable_ = std::move(value);
  }
}

ToolInput::ToolInput(ToolInput&& other) noexcept
    : canonical_json_(std::move(other.canonical_json_)), unprintable_(std::move(other.unprintable_)) {
  other.become_null();
}

// An unprintable value is a tree built in memory: destroyed without
// allocating (json_teardown.hpp), as noexcept and destructors must.
ToolInput::~ToolInput() {
  if (unprintable_) reference::tear_down(*unprintable_);
}

ToolInput& ToolInput::operator=(ToolInput&& other) noexcept {
  if (this != &other) {
    if (unprintable_) reference::tear_down(*unprintable_);
    canonical_json_ = std::move(other.canonical_json_);
    unprintable_ = std::move(other.unprintable_);
    other.become_null();
  }
  return *this;
}

// "null" fits the string's inline buffer: no allocation, so no throw.
void ToolInput::become_null() noexcept {
  canonical_json_.assign("null");
  unprintable_.reset();
}

Json ToolInput::value() const {
  if (unprintable_) return *unprintable_;
  // Canonical text is JSON that parse_json_line always accepts.
  return std::get<Json>(reference::parse_json_line(canonical_json_));
}

std::optional<std::string_view> ToolInput::canonical_json() const noexcept {
  if (unprintable_) return std::nullopt;
  return canonical_json_;
}

bool operator==(const ToolInput& a, const ToolInput& b) {
  if (a.unprintable_ || b.unprintable_) return a.unprintable_ == b.unprintable_;
  return a.canonical_json_ == b.canonical_json_;
}

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
