// The canonical serialization (SPEC.md §3): what JavaScript's
// JSON.stringify prints for a normalized message. The message writer is a
// template over a sink, so that the estimate (SPEC.md §4) can count what
// would be printed without printing it (the fast path's counting sink):
// the estimate and the printed line can never disagree.
#pragma once

#include "agent_session/message.hpp"
#include "base/utf8.hpp"
#include "reference/tool_input_access.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace agent_session::reference {

// A tool call's input sits at nesting level 4: the message is 1, toolCalls
// 2, the call 3.
inline constexpr int kToolInputDepth = 4;

// Appends the JSON string literal JSON.stringify prints for `text`: `"`,
// `\` and U+0000..U+001F escaped (`\b \f \n \r \t`, the others as
// `\u00xx`), everything else raw UTF-8. `Text` is std::string or another
// byte buffer with append(std::string_view) and push_back(char).
// Throws SerializationError when `text` is not valid UTF-8.
template <class Text>
void append_json_string(Text& out, std::string_view text) {
  out.push_back('"');
  std::size_t run = 0;  // start of the pending run of raw bytes
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = base::utf8_sequence_length(text, i);
      if (length == 0) throw SerializationError("string is not valid UTF-8");
      i += length;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    out.append(text.substr(run, i - run));
    static constexpr char kShort[] = {'b', 't', 'n', 0, 'f', 'r'};  // for \b \t \n \v \f \r
    static constexpr char kHex[] = "0123456789abcdef";
    if (c == '"' || c == '\\') {
      out.append(c == '"' ? "\\\"" : "\\\\");
    } else if (c >= '\b' && c <= '\r' && kShort[c - '\b'] != 0) {
      const char escape[] = {'\\', kShort[c - '\b']};
      out.append(std::string_view(escape, 2));
    } else {
      const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out.append(std::string_view(escape, 6));
    }
    run = ++i;
  }
  out.append(text.substr(run));
  out.push_back('"');
}

// Appends the canonical text of `value` to `out`: no whitespace, numbers
// as Number::toString prints them, object members in JavaScript's order
// (array-index keys first, ascending, then the others as they come). `depth` is the nesting level `value` occupies if
// it is an array or object, for the limit of SPEC.md §2.1. Throws SerializationError (invalid UTF-8, a non-finite
// number, a binary value, nesting past kMaxNestingDepth).
void append_canonical_value(std::string& out, const Json& value, int depth);

// A sink of canonical text: ascii(t) for our own ASCII punctuation and
// keys, utf8(t) for text already canonical (a tool input), string(t) for a
// string value to print as a JSON string literal.
struct StringSink {
  std::string& out;
  void ascii(std::string_view text) { out.append(text); }
  void utf8(std::string_view text) { out.append(text); }
  void string(std::string_view text) { append_json_string(out, text); }
};

// Writes the canonical line of `message` (no newline) into `sink`, keys in
// the normalized order of SPEC.md §1. An input printed when it was built
// is copied; one that could not be printed is printed again from its
// value, which throws the SerializationError its message must raise.
template <class Sink>
void write_message(Sink& sink, const Message& message) {
  sink.ascii("{\"role\":\"");
  sink.ascii(role_of(message));
  sink.ascii("\",\"content\":");
  std::visit([&](const auto& m) { sink.string(m.content); }, message);
  if (const auto* assistant = std::get_if<AssistantMessage>(&message)) {
    sink.ascii(",\"toolCalls\":[");
    for (std::size_t i = 0; i < assistant->tool_calls.size(); ++i) {
      const ToolCall& call = assistant->tool_calls[i];
      sink.ascii(i == 0 ? "{\"id\":" : ",{\"id\":");
      sink.string(call.id);
      sink.ascii(",\"name\":");
      sink.string(call.name);
      sink.ascii(",\"input\":");
      if (const auto& value = ToolInputAccess::unprintable(call.input)) {
        std::string text;
        append_canonical_value(text, *value, kToolInputDepth);  // throws
        sink.utf8(text);
      } else {
        sink.utf8(ToolInputAccess::canonical_json(call.input));
      }
      sink.ascii("}");
    }
    sink.ascii("]");
  } else if (const auto* result = std::get_if<ToolResultMessage>(&message)) {
    sink.ascii(",\"toolCallId\":");
    sink.string(result->tool_call_id);
    sink.ascii(result->is_error ? ",\"isError\":true" : ",\"isError\":false");
  }
  sink.ascii("}");
}

}  // namespace agent_session::reference
