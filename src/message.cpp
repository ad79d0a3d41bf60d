#include "agent_session/message.hpp"

#include "internal/canonical_writer.hpp"
#include "internal/json_line.hpp"
#include "internal/record.hpp"
#include "internal/terminal_text.hpp"

#include <type_traits>
#include <utility>

namespace agent_session {
namespace {

// Either the message or why the value is not one. One discriminator serves
// both parse_session_message and describe_invalid_record, so the reasons
// can never drift from the verdict. A reason names what was found (a
// type, the role, which tool call): it is the detail after the spec's
// "invalid session record at line N: " (SPEC.md §2).
using Verdict = std::variant<Message, std::string>;

// The longest role shown in a reason, in bytes: enough to recognise it,
// short enough that a huge one cannot flood the line.
constexpr std::size_t kShownRoleBytes = 64;

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

// What a JSON value is, as a reason says it ("found an array").
std::string found(const Json* value) {
  if (value == nullptr) return "it is missing";
  switch (value->type()) {
    case Json::value_t::null: return "found null";
    case Json::value_t::boolean: return "found a boolean";
    case Json::value_t::string: return "found a string";
    case Json::value_t::array: return "found an array";
    case Json::value_t::object: return "found an object";
    default: return "found a number";  // integer, unsigned, float (a binary value never comes from JSON text)
  }
}

// The role, quoted and escaped for a terminal (it comes from the file), its
// first kShownRoleBytes bytes when longer, never cut inside a character.
std::string shown_role(const std::string& role) {
  if (role.size() <= kShownRoleBytes) return "\"" + internal::terminal_safe(role) + "\"";
  std::size_t cut = kShownRoleBytes;
  while (cut > 0 && (static_cast<unsigned char>(role[cut]) & 0xC0) == 0x80) --cut;  // a continuation byte
  return "\"" + internal::terminal_safe(std::string_view(role).substr(0, cut)) + "\"... (" +
         std::to_string(role.size()) + " bytes)";
}

// Why the `index`th (0-based) of `count` tool calls is not one, or "".
// The position is spelled out only on failure: valid calls cost nothing.
template <class J>
std::string tool_call_problem(J& call, std::size_t index, std::size_t count) {
  const auto which = [&] { return "tool call " + std::to_string(index + 1) + " of " + std::to_string(count); };
  if (!call.is_object()) return which() + " must be an object: " + found(&call);
  auto* id = member(call, "id");
  if (id == nullptr || !id->is_string()) return which() + ": id must be a string: " + found(id);
  auto* name = member(call, "name");
  if (name == nullptr || !name->is_string()) return which() + ": name must be a string: " + found(name);
  if (member(call, "input") == nullptr) return which() + " requires input";
  return {};
}

// Every call is checked before any is taken, so a rejected value is left
// untouched even when its strings would otherwise be moved out.
template <class J>
std::variant<std::vector<ToolCall>, std::string> discriminate_tool_calls(J* calls) {
  if (calls == nullptr) return std::string("assistant requires toolCalls: it is missing ([] when it calls no tool)");
  if (!calls->is_array()) return "toolCalls must be an array: " + found(calls);
  for (std::size_t i = 0; i < calls->size(); ++i) {
    std::string problem = tool_call_problem((*calls)[i], i, calls->size());
    if (!problem.empty()) return problem;
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
  if (!json.is_object()) return "not a JSON object: " + found(&json);
  auto* role = member(json, "role");
  if (role == nullptr || !role->is_string()) return "role must be a string: " + found(role);
  auto* content = member(json, "content");
  if (content == nullptr || !content->is_string()) return "content must be a string: " + found(content);

  const auto& role_name = role->template get_ref<const std::string&>();
  if (role_name == "user") return UserMessage{take_string(*content)};
  if (role_name == "assistant") {
    auto calls = discriminate_tool_calls(member(json, "toolCalls"));
    if (auto* reason = std::get_if<std::string>(&calls)) return std::move(*reason);
    return AssistantMessage{take_string(*content),
                            std::move(std::get<std::vector<ToolCall>>(calls))};
  }
  if (role_name == "tool") {
    auto* call_id = member(json, "toolCallId");
    if (call_id == nullptr || !call_id->is_string()) {
      return "tool result requires a string toolCallId: " + found(call_id);
    }
    auto* is_error = member(json, "isError");
    if (is_error == nullptr || !is_error->is_boolean()) {
      return "tool result requires a boolean isError: " + found(is_error);
    }
    return ToolResultMessage{take_string(*content), take_string(*call_id), is_error->template get<bool>()};
  }
  return "unknown role " + shown_role(role_name) + ": a role is \"user\", \"assistant\" or \"tool\"";
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
  if (auto* reason = std::get_if<std::string>(&verdict)) return std::move(*reason);
  return std::nullopt;
}

namespace internal {

std::variant<Message, std::string> discriminate_record(Json&& json) { return discriminate(json); }

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
