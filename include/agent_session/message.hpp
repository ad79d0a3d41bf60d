// The session message model and its two pure operations: discriminating an
// untrusted JSON value into a message, and printing a message canonically.
//
// Spec: SPEC.md §1 (the messages and their discrimination) and §3 (the
// canonical serialization).
//
// Example:
//   auto json = agent_session::Json::parse(R"({"role":"user","content":"hi"})");
//   if (auto message = agent_session::parse_session_message(json)) {
//     std::string line = agent_session::to_canonical_json(*message);
//     // line == R"({"role":"user","content":"hi"})"
//   }
#pragma once

#include "agent_session/json.hpp"

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agent_session {

// Json (json.hpp): values loaded by this library hold every number as a
// double (as in JavaScript) and object keys in JavaScript's property order.

// A tool call's `input`: any JSON value, `null` included, held as its
// canonical JSON text (SPEC.md §3), printed the moment it is built.
//
// Why text: the session layer never looks inside an input (SPEC.md §1
// keeps it whole), but it prints and measures it on every estimate and
// trim. Held as canonical UTF-8 text, an input is measured by counting
// its UTF-16 code units and printed by copying bytes, with no tree walk and
// no number formatting, and it takes less memory than a tree.
//
// An input that cannot be printed (a string that is not valid UTF-8, a
// non-finite number, a binary value, nesting past the limit: 509 levels of
// its own, as the message, toolCalls and the call take 3 of the 512) is kept as
// the given value instead, and printing its message throws
// SerializationError then, as SPEC.md §4 asks (the estimate names the
// message's index), not here.
//
// Example:
//   ToolInput input = Json{{"path", "a.txt"}, {"n", 1.0}};
//   input.canonical_json();  // R"({"path":"a.txt","n":1})"
//   input.value();           // Json {"path":"a.txt","n":1.0}
class ToolInput {
 public:
  // JSON null.
  ToolInput() = default;
  // Implicit, so `ToolCall{"id", "name", Json{...}}` reads naturally.
  // Never throws but std::bad_alloc.
  ToolInput(const Json& value);  // NOLINT(google-explicit-constructor)
  ToolInput(Json&& value);       // NOLINT(google-explicit-constructor)

  // A moved-from input is JSON null, as a moved-from Json is, so a message
  // whose tool call was moved out still prints a valid line.
  ToolInput(const ToolInput&) = default;
  ToolInput& operator=(const ToolInput&) = default;
  ToolInput(ToolInput&& other) noexcept;
  ToolInput& operator=(ToolInput&& other) noexcept;
  ~ToolInput();

  // The value, parsed anew from the canonical text on every call (every
  // number a double, keys in JavaScript's order): keep the result. For an
  // input that cannot be printed, a copy of the value it was built from.
  Json value() const;

  // The canonical JSON text (UTF-8 bytes, valid by construction), or
  // nullopt for an input that cannot be printed.
  std::optional<std::string_view> canonical_json() const noexcept;

  // The canonical JSON text, as canonical_json() gives it; for an input
  // that cannot be printed, throws the SerializationError that printing
  // its value gave when the input was built (invalid UTF-8, a non-finite
  // number, a binary value, nesting past the limit), without walking the
  // value again: what printing its message's line throws (SPEC.md §3, §4).
  std::string_view canonical_json_or_throw() const;

  // Equal canonical texts (so `1.0` equals `1`, as in JavaScript after a
  // round trip); inputs that cannot be printed compare their values.
  friend bool operator==(const ToolInput& a, const ToolInput& b);

 private:
  void become_null() noexcept;
  std::string canonical_json_ = "null";  // when unprintable_ is set: why printing failed
  std::optional<Json> unprintable_;      // set only when printing failed
};

// One tool call an assistant declares: `{"id":S,"name":S,"input":J}`.
// `input` is any JSON value, `null` included. Strings are UTF-8.
struct ToolCall {
  std::string id;
  std::string name;
  ToolInput input;

  friend bool operator==(const ToolCall&, const ToolCall&) = default;
};

// `{"role":"user","content":S}`
struct UserMessage {
  std::string content;

  friend bool operator==(const UserMessage&, const UserMessage&) = default;
};

// `{"role":"assistant","content":S,"toolCalls":[...]}`; `tool_calls` may be
// empty.
struct AssistantMessage {
  std::string content;
  std::vector<ToolCall> tool_calls;

  friend bool operator==(const AssistantMessage&, const AssistantMessage&) = default;
};

// `{"role":"tool","content":S,"toolCallId":S,"isError":B}`: the result of
// the tool call whose id is `tool_call_id`.
struct ToolResultMessage {
  std::string content;
  std::string tool_call_id;
  bool is_error = false;

  friend bool operator==(const ToolResultMessage&, const ToolResultMessage&) = default;
};

// One line of a session: a user message, an assistant message (with its
// tool calls), or a tool result.
using Message = std::variant<UserMessage, AssistantMessage, ToolResultMessage>;

// The role string of a message (SPEC.md §1): "user", "assistant" or "tool".
const char* role_of(const Message& message) noexcept;

// Discriminates one parsed JSON value into a message, or nullopt when it is
// not one. Pure; never throws (except std::bad_alloc).
//
// Order (SPEC.md §1.1): the shared preconditions first
// (an object, a string `role`, a string `content`), then dispatch on role:
//   "user"      -> valid;
//   "assistant" -> `toolCalls` must be an array whose every item is an
//                  object with a string `id`, a string `name` and an
//                  `input` key (any value);
//   "tool"      -> a string `toolCallId` and a boolean `isError`.
// Anything else, unknown roles included, is nullopt. Fields not listed are
// dropped, at the top level and inside each tool call (SPEC.md §1);
// `input` is kept whole.
std::optional<Message> parse_session_message(const Json& json);

// As above, but moves strings and inputs out of `json` instead of copying
// them (used by the loader). `json` is left valid but unspecified.
std::optional<Message> parse_session_message(Json&& json);

// Thrown when a message built in memory cannot be printed as JSON: a string
// that is not valid UTF-8, a non-finite number, a binary value, or `input`
// nesting past the 512-level limit (SPEC.md §2.1, §4).
class SerializationError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The canonical serialization of `message` (SPEC.md §3), without a
// trailing newline: byte for byte what JavaScript's `JSON.stringify` prints
// for the normalized message. Returns UTF-8 bytes.
// Throws SerializationError (see above).
std::string to_canonical_json(const Message& message);

// The canonical JSONL text of `messages` (SPEC.md §3), UTF-8 bytes: each
// canonical line followed by `\n` (what append_session writes, what
// `agent-session canon` prints). Empty for no messages.
// Throws SerializationError for the first message that cannot be printed.
std::string to_canonical_jsonl(std::span<const Message> messages);

}  // namespace agent_session
