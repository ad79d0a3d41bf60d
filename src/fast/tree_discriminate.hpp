// SPEC.md §1.1's discrimination over a tree the fast path reads in place
// (simdjson's, simd_line_parser.cpp), without building a Json first: the
// fast path's own copy of the reference's rules (reference/discriminate.cpp),
// the same rows in the same order, each reason word for word. The
// differential tests hold it to the reference, reason by reason
// (tests/fast/simd_line_parser_test.cpp, fuzz/fuzz_simd_line_parser.cpp).
// A Tree is how to look at one tree's values:
//
//   JsonKind kind(V v)                     what v is
//   std::optional<V> member(V v, key)      the member `key` of object v (a
//                                          repeated key: the last one, as
//                                          JSON.parse keeps it, SPEC.md §2)
//   std::size_t size(V v); V item(V v, i)  array v's items
//   std::string_view view(V v)             string v, looked at
//   std::string text(V v)                  string v, copied out
//   bool flag(V v)                         boolean v
//   ToolInput input(V v)                   v as a tool call's input
//
// where V is the tree's handle to a value (a pointer, an element).
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace agent_session::fast {

enum class JsonKind { null, boolean, number, string, array, object };

// The message, or why the value is not one: the detail after "invalid
// session record at line N: " (SPEC.md §2).
using Verdict = std::variant<Message, std::string>;

// "found an array", "found null", or for no value "it is missing".
std::string found(std::optional<JsonKind> kind);

// A role as a reason quotes it: escaped for a terminal, its first 64 bytes
// only when long, never cut inside a character.
std::string shown_role(std::string_view role);

template <class Tree, class V>
std::optional<JsonKind> kind_of(Tree& tree, const std::optional<V>& value) {
  if (!value) return std::nullopt;
  return tree.kind(*value);
}

// Why the `index`th (0-based) of `count` tool calls is not one, or "".
template <class Tree, class V>
std::string tool_call_problem(Tree& tree, V call, std::size_t index, std::size_t count) {
  const auto which = [&] { return "tool call " + std::to_string(index + 1) + " of " + std::to_string(count); };
  if (tree.kind(call) != JsonKind::object) return which() + " must be an object: " + found(tree.kind(call));
  const auto id = tree.member(call, "id");
  if (kind_of(tree, id) != JsonKind::string) return which() + ": id must be a string: " + found(kind_of(tree, id));
  const auto name = tree.member(call, "name");
  if (kind_of(tree, name) != JsonKind::string) {
    return which() + ": name must be a string: " + found(kind_of(tree, name));
  }
  if (!tree.member(call, "input")) return which() + " requires input";
  return {};
}

template <class Tree, class V>
Verdict discriminate_assistant(Tree& tree, V content, const std::optional<V>& calls) {
  if (!calls) return std::string("assistant requires toolCalls: it is missing ([] when it calls no tool)");
  if (tree.kind(*calls) != JsonKind::array) return "toolCalls must be an array: " + found(tree.kind(*calls));
  // Every call is checked before any is taken: nothing is copied out of a
  // value that is not a message.
  const std::size_t count = tree.size(*calls);
  for (std::size_t i = 0; i < count; ++i) {
    std::string problem = tool_call_problem(tree, tree.item(*calls, i), i, count);
    if (!problem.empty()) return problem;
  }
  AssistantMessage message{tree.text(content), {}};
  message.tool_calls.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const V call = tree.item(*calls, i);
    message.tool_calls.push_back(ToolCall{tree.text(*tree.member(call, "id")), tree.text(*tree.member(call, "name")),
                                          tree.input(*tree.member(call, "input"))});
  }
  return message;
}

// The first row of SPEC.md §1.1's table that applies to `value` decides.
template <class Tree, class V>
Verdict discriminate(Tree& tree, V value) {
  // The shared preconditions come first, for every role.
  if (tree.kind(value) != JsonKind::object) return "not a JSON object: " + found(tree.kind(value));
  const auto role = tree.member(value, "role");
  if (kind_of(tree, role) != JsonKind::string) return "role must be a string: " + found(kind_of(tree, role));
  const auto content = tree.member(value, "content");
  if (kind_of(tree, content) != JsonKind::string) return "content must be a string: " + found(kind_of(tree, content));

  // Nothing is taken from the value until it is known to be a message.
  const std::string_view role_name = tree.view(*role);
  if (role_name == "user") return UserMessage{tree.text(*content)};
  if (role_name == "assistant") return discriminate_assistant(tree, *content, tree.member(value, "toolCalls"));
  if (role_name == "tool") {
    const auto call_id = tree.member(value, "toolCallId");
    if (kind_of(tree, call_id) != JsonKind::string) {
      return "tool result requires a string toolCallId: " + found(kind_of(tree, call_id));
    }
    const auto is_error = tree.member(value, "isError");
    if (kind_of(tree, is_error) != JsonKind::boolean) {
      return "tool result requires a boolean isError: " + found(kind_of(tree, is_error));
    }
    return ToolResultMessage{tree.text(*content), tree.text(*call_id), tree.flag(*is_error)};
  }
  return "unknown role " + shown_role(role_name) + ": a role is \"user\", \"assistant\" or \"tool\"";
}

}  // namespace agent_session::fast
