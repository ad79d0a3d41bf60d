#include "reference/discriminate.hpp"

#include "base/printable.hpp"
#include "base/utf8.hpp"
#include "reference/json_teardown.hpp"

#include <string_view>
#include <utility>

namespace agent_session::reference {
namespace {

// The member `key` of `object`, or nullptr when it has none. A loaded
// object never holds a key twice (repeated keys merge as they are read,
// SPEC.md §2), nor does one built in memory.
const Json* member(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

bool is_string(const Json* value) { return value != nullptr && value->is_string(); }

// "found an array", "found null", or for no value "it is missing".
std::string found(const Json* value) {
  if (value == nullptr) return "it is missing";
  if (value->is_null()) return "found null";
  if (value->is_boolean()) return "found a boolean";
  if (value->is_string()) return "found a string";
  if (value->is_array()) return "found an array";
  if (value->is_object()) return "found an object";
  return "found a number";  // or a binary value, which never comes from JSON text
}

// A role as a reason quotes it: escaped for a terminal, its first bytes
// only when long, enough to recognise it and never cut inside a character.
std::string shown_role(std::string_view role) {
  constexpr std::size_t kShownRoleBytes = 64;
  if (role.size() <= kShownRoleBytes) return "\"" + base::terminal_safe(role) + "\"";
  const std::size_t cut = base::character_boundary_before(role, kShownRoleBytes);
  return "\"" + base::terminal_safe(role.substr(0, cut)) + "\"... (" + std::to_string(role.size()) + " bytes)";
}

// "tool call 2 of 3": which call a reason is about, counted from 1.
std::string which_call(std::size_t index, std::size_t count) {
  return "tool call " + std::to_string(index + 1) + " of " + std::to_string(count);
}

// Why the `index`th (0-based) of `count` tool calls is not one (SPEC.md
// §1.1: an object with a string id, a string name and an input of any
// value), or nullopt.
std::optional<std::string> tool_call_problem(const Json& call, std::size_t index, std::size_t count) {
  if (!call.is_object()) return which_call(index, count) + " must be an object: " + found(&call);
  const Json* id = member(call, "id");
  if (!is_string(id)) return which_call(index, count) + ": id must be a string: " + found(id);
  const Json* name = member(call, "name");
  if (!is_string(name)) return which_call(index, count) + ": name must be a string: " + found(name);
  if (member(call, "input") == nullptr) return which_call(index, count) + " requires input";
  return std::nullopt;
}

// A string member of a value known to be a message, moved out of it.
std::string take_string(Json& object, const char* key) { return std::move(object.find(key)->get_ref<std::string&>()); }

// The message of a value why_not_a_message accepts: its role's
// fields, moved out of it. Every other field is dropped and `input` is
// kept whole (SPEC.md §1.1, rule 3).
Message message_of(Json& value) {
  const std::string& role = value.find("role")->get_ref<const std::string&>();
  std::string content = take_string(value, "content");
  if (role == "user") return UserMessage{std::move(content)};
  if (role == "tool") {
    std::string call_id = take_string(value, "toolCallId");
    return ToolResultMessage{std::move(content), std::move(call_id), value.find("isError")->get<bool>()};
  }
  Json& calls = *value.find("toolCalls");
  AssistantMessage message{std::move(content), {}};
  message.tool_calls.reserve(calls.size());
  for (Json& call : calls) {
    message.tool_calls.push_back(
        ToolCall{take_string(call, "id"), take_string(call, "name"), ToolInput(std::move(*call.find("input")))});
  }
  return message;
}

}  // namespace

// SPEC.md §1.1's table, read top to bottom: the first row that applies
// decides.
std::optional<std::string> why_not_a_message(const Json& json) {
  // The shared preconditions come first, for every role.
  if (!json.is_object()) return "not a JSON object: " + found(&json);
  const Json* role = member(json, "role");
  if (!is_string(role)) return "role must be a string: " + found(role);
  const Json* content = member(json, "content");
  if (!is_string(content)) return "content must be a string: " + found(content);

  const std::string& role_name = role->get_ref<const std::string&>();
  if (role_name == "user") return std::nullopt;
  if (role_name == "assistant") {
    const Json* calls = member(json, "toolCalls");
    if (calls == nullptr) return "assistant requires toolCalls: it is missing ([] when it calls no tool)";
    if (!calls->is_array()) return "toolCalls must be an array: " + found(calls);
    // Every item, not only the first.
    for (std::size_t i = 0; i < calls->size(); ++i) {
      if (auto problem = tool_call_problem((*calls)[i], i, calls->size())) return problem;
    }
    return std::nullopt;
  }
  if (role_name == "tool") {
    const Json* call_id = member(json, "toolCallId");
    if (!is_string(call_id)) return "tool result requires a string toolCallId: " + found(call_id);
    const Json* is_error = member(json, "isError");
    if (is_error == nullptr || !is_error->is_boolean()) {
      return "tool result requires a boolean isError: " + found(is_error);
    }
    return std::nullopt;
  }
  return "unknown role " + shown_role(role_name) + ": a role is \"user\", \"assistant\" or \"tool\"";
}

// Nothing is taken from the value until it is known to be a message.
Verdict discriminate_record(Json&& json) {
  if (auto reason = why_not_a_message(json)) return std::move(*reason);
  return message_of(json);
}

// A copy of a tree built in memory is torn down as the loader's own are
// (json_teardown.hpp).
Verdict discriminate_record(const Json& json) {
  if (auto reason = why_not_a_message(json)) return std::move(*reason);
  Json copy = json;
  const TornDownOnExit torn_down(copy);
  return message_of(copy);
}

}  // namespace agent_session::reference
