// The canonical line of a message (SPEC.md §3) written into a sink instead
// of a string, so that the fast estimate (measure.cpp) counts what would
// be printed without printing it (SPEC.md §4). The fast path's own copy of
// the reference's writer (reference::append_canonical_line): the same
// keys in the same order. tests/fast/measure_test.cpp holds the two equal
// byte for byte, through a sink that prints.
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

namespace agent_session::fast {

// Writes the canonical line of `message` (no newline) into `sink`, which
// takes three kinds of text:
//
//   ascii(t)   our own ASCII punctuation and keys
//   utf8(t)    text already canonical (a tool input)
//   string(t)  a string value, to print as a JSON string literal (throws
//              SerializationError when it is not UTF-8)
//
// An input printed when it was built is copied; one that could not be
// printed is printed again from its value, which throws the
// SerializationError its message must raise.
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
      sink.utf8(call.input.canonical_json_or_throw());  // SerializationError, as SPEC.md §4 asks
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

}  // namespace agent_session::fast
