#include "fast/measure.hpp"

#include "fast/message_sink.hpp"
#include "fast/simd_line_parser.hpp"
#include "fast/utf8_kernels.hpp"
#include "reference/units.hpp"

namespace agent_session::fast {
namespace {

// The canonical writer's sink (message_sink.hpp) that only counts
// the UTF-16 code units the line would be.
struct Utf16CountSink {
  std::uint64_t units = 0;
  void ascii(std::string_view text) { units += text.size(); }
  void utf8(std::string_view text) { units += utf16_length(text); }
  void string(std::string_view text) {
    const std::uint64_t literal = json_string_units_or_zero(text);
    if (literal == 0) throw SerializationError("string is not valid UTF-8");
    units += literal;
  }
};

}  // namespace

std::uint64_t measure(const Message& message) {
  Utf16CountSink sink;
  write_message(sink, message);
  return sink.units;
}

std::uint64_t estimate_context_chars(std::span<const Message> messages) {
  std::uint64_t chars = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) chars += reference::message_chars(messages, i, measure);
  return chars;
}

}  // namespace agent_session::fast
