#include "agent_session/message.hpp"

#include "internal/canonical_writer.hpp"
#include "internal/json_line.hpp"
#include "internal/record.hpp"

#include <type_traits>
#include <utility>

namespace agent_session {
namespace {

// Either the message or why the value is not one. One discriminator serves
// both parse_session_message and describe_invalid_record, so the reasons
// can never drift from the verdict.
using Verdict = std::variant<Message, const char*>;

// Copies from a const value, moves from an rvalue: the same code path for
// the pure API and for the loader, which owns its parsed values.
template <class J>
auto take(J& value) -> std::conditional_t<std::is_const_v<J>, const Json&, Json&&> {
  if constexpr (std::is_const_v<J>) {
    return value;
  } else {
    return std::move(value);
  }
}

template <class J>
std::string take_string(J& value) {
  if constexpr (std::is_const_v<J>) {
    return value.template get_ref<const std::string&>();
  } else {
    return std::move(value.template get_ref<std::string&>());
  }
}

// The member `key` of an object, or nullptr. Loaded objects never hold a
// key twice (duplicates collapse, decisions §2), so the first match is it.
template <class J>
J* member(J& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

template <class J>
const char* tool_call_problem(J& call) {
  if (!call.is_object()) return "each tool call must be an object";
  auto* id = member(call, "id");
  if (id == nullptr || !id->is_string()) return "tool call id must be a string";
  auto* name = member(call, "name");
  if (name == nullptr || !name->is_string()) return "tool call name must be a string";
  if (member(call, "input") == nullptr) return "tool call requires input";
  return nullptr;
}

// Every call is checked before any is taken, so a rejected value is left
// untouched even when its strings would otherwise be moved out.
template <class J>
std::variant<std::vector<ToolCall>, const char*> discriminate_tool_calls(J* calls) {
  if (calls == nullptr) return "assistant requires toolCalls";
  if (!calls->is_array()) return "toolCalls must be an array";
  for (auto& call : *calls) {
    if (const char* problem = tool_call_problem(call)) return problem;
  }
  std::vector<ToolCall> result;
  result.reserve(calls->size());
  for (auto& call : *calls) {
    result.push_back(ToolCall{take_string(*member(call, "id")), take_string(*member(call, "name")),
                              take(*member(call, "input"))});
  }
  return result;
}

template <class J>
Verdict discriminate(J& json) {
  // The shared preconditions come first, for every role (chapter's table).
  if (!json.is_object()) return "not a JSON object";
  auto* role = member(json, "role");
  if (role == nullptr || !role->is_string()) return "role must be a string";
  auto* content = member(json, "content");
  if (content == nullptr || !content->is_string()) return "content must be a string";

  const auto& role_name = role->template get_ref<const std::string&>();
  if (role_name == "user") return UserMessage{take_string(*content)};
  if (role_name == "assistant") {
    auto calls = discriminate_tool_calls(member(json, "toolCalls"));
    if (auto* reason = std::get_if<const char*>(&calls)) return *reason;
    return AssistantMessage{take_string(*content),
                            std::move(std::get<std::vector<ToolCall>>(calls))};
  }
  if (role_name == "tool") {
    auto* call_id = member(json, "toolCallId");
    if (call_id == nullptr || !call_id->is_string()) return "tool result requires a string toolCallId";
    auto* is_error = member(json, "isError");
    if (is_error == nullptr || !is_error->is_boolean()) return "tool result requires a boolean isError";
    return ToolResultMessage{take_string(*content), take_string(*call_id), is_error->template get<bool>()};
  }
  return "unknown role";
}

// The canonical text of a tool call's input, or nullopt when it has none.
std::optional<std::string> printed_input(const Json& value) {
  std::string text;
  try {
    internal::append_canonical_value(text, value, internal::kToolInputDepth);
  } catch (const SerializationError&) {
    return std::nullopt;
  }
  return text;
}

std::optional<Message> to_optional(Verdict&& verdict) {
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

ToolInput& ToolInput::operator=(ToolInput&& other) noexcept {
  if (this != &other) {
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
  return std::get<Json>(internal::parse_json_line(canonical_json_));
}

std::optional<std::string_view> ToolInput::canonical_json() const noexcept {
  if (unprintable_) return std::nullopt;
  return canonical_json_;
}

bool operator==(const ToolInput& a, const ToolInput& b) {
  if (a.unprintable_ || b.unprintable_) return a.unprintable_ == b.unprintable_;
  return a.canonical_json_ == b.canonical_json_;
}

const char* role_of(const Message& message) noexcept {
  static constexpr const char* kRoles[] = {"user", "assistant", "tool"};
  return kRoles[message.index()];
}

std::optional<Message> parse_session_message(const Json& json) {
  return to_optional(discriminate(json));
}

std::optional<Message> parse_session_message(Json&& json) {
  return to_optional(discriminate(json));
}

std::optional<std::string> describe_invalid_record(const Json& json) {
  auto verdict = discriminate(json);
  if (auto* reason = std::get_if<const char*>(&verdict)) return std::string(*reason);
  return std::nullopt;
}

namespace internal {

std::variant<Message, std::string_view> discriminate_record(Json&& json) {
  auto verdict = discriminate(json);
  if (auto* reason = std::get_if<const char*>(&verdict)) return std::string_view(*reason);
  return std::move(std::get<Message>(verdict));
}

}  // namespace internal

void append_canonical_json(std::string& out, const Message& message) {
  internal::StringSink sink{out};
  internal::write_message(sink, message);
}

std::string to_canonical_json(const Message& message) {
  std::string out;
  append_canonical_json(out, message);
  return out;
}

std::string to_canonical_jsonl(std::span<const Message> messages) {
  std::string text;
  for (const auto& message : messages) {
    append_canonical_json(text, message);
    text.push_back('\n');
  }
  return text;
}

}  // namespace agent_session
