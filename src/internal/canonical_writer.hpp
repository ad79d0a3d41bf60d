// The canonical JSON writer (decisions §4), written once for two sinks:
// StringSink prints the bytes, Utf16CountSink only counts the UTF-16 code
// units those bytes would be in JavaScript. The estimator (decisions §5)
// uses the counting sink, so the estimate and the printed line can never
// disagree and estimating allocates nothing per message.
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace agent_session::internal {

// The deepest array/object nesting one line may hold; the message object
// itself is level 1 (decisions §3).
inline constexpr int kMaxNestingDepth = 512;

struct StringSink {
  std::string& out;
  void ascii(std::string_view text) { out.append(text); }
  void ascii(char c) { out.push_back(c); }
  // Already-validated UTF-8 text, printed raw.
  void utf8(std::string_view text) { out.append(text); }
};

struct Utf16CountSink {
  std::uint64_t units = 0;
  void ascii(std::string_view text) { units += text.size(); }
  void ascii(char) { ++units; }
};

// ECMAScript Number::toString of a finite double: shortest round-trip
// digits, `1e+21` / `1e-7` thresholds, `-0` as `0`. Writes into `buffer`
// (at least 32 bytes) and returns the printed text.
std::string_view format_js_number(double value, char* buffer) noexcept;

// The bytes write_js_number may write: it prints at most 25
// (`-1.2345678901234567e-308`), the rest is room for fixed-size copies.
inline constexpr std::size_t kJsNumberRoom = 48;

// format_js_number's text written at `out`, which must have kJsNumberRoom
// writable bytes (past the text they hold garbage); returns the text's end.
char* write_js_number(char* out, double value) noexcept;

// write_js_number(out, static_cast<double>(value)), for an integer token
// (decisions §4: every number is a double, an integer rounded to one),
// without the checks a double needs to find out it is an integer.
char* write_js_integer(char* out, std::int64_t value) noexcept;

// A growable byte buffer printed into in place: room() makes bytes
// writable at the end without initialising them (std::string's resize
// zeroes them) and advance_to() keeps what was written. The loader prints
// tool inputs into one, reused from input to input (issue 6).
class TextBuffer {
 public:
  // Pointer to `bytes` writable bytes at the end of the text.
  char* room(std::size_t bytes) {
    if (capacity_ - size_ < bytes || data_ == nullptr) grow(bytes);
    return data_.get() + size_;
  }
  // Keeps the bytes written from the end up to `end` (within the room).
  void advance_to(const char* end) noexcept { size_ = static_cast<std::size_t>(end - data_.get()); }
  void append(std::string_view text) {
    std::memcpy(room(text.size()), text.data(), text.size());
    size_ += text.size();
  }
  void push_back(char c) {
    *room(1) = c;
    ++size_;
  }
  std::string_view view() const noexcept { return {data_.get(), size_}; }
  void clear() noexcept { size_ = 0; }

 private:
  void grow(std::size_t bytes);
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// True for the canonical decimal form of an integer 0..4294967294:
// the keys JavaScript orders first, ascending.
bool is_array_index(std::string_view key) noexcept;

// A tool call's input sits at nesting level 4: the message is 1, toolCalls
// 2, the call 3.
inline constexpr int kToolInputDepth = 4;

// What the library may see of a ToolInput beyond its public interface.
struct ToolInputAccess {
  static const std::string& canonical_json(const ToolInput& input) noexcept { return input.canonical_json_; }
  static const std::optional<Json>& unprintable(const ToolInput& input) noexcept { return input.unprintable_; }
  // `text` must be canonical JSON text this library printed (for the
  // loader, which prints inputs straight from simdjson's tape).
  static ToolInput from_canonical_json(std::string text) {
    ToolInput input;
    input.canonical_json_ = std::move(text);
    return input;
  }
};

// Appends the canonical JSON text of `value`, an array or object at nesting
// level `depth` (for the depth limit), to `out`. Throws SerializationError.
void append_canonical_value(std::string& out, const Json& value, int depth);

// Append one canonical JSON string literal (escaped as JSON.stringify
// escapes) or number (as Number::toString prints it) to `out`: the pieces
// of a canonical text for writers that walk other trees than Json.
// Throw SerializationError for invalid UTF-8 or a non-finite number.
void append_json_string(TextBuffer& out, std::string_view text);
void append_json_number(TextBuffer& out, double value);

// Writes the canonical line of `message` (no newline) into `sink`.
// Throws SerializationError. Defined for StringSink and Utf16CountSink.
template <class Sink>
void write_message(Sink& sink, const Message& message);

extern template void write_message(StringSink&, const Message&);
extern template void write_message(Utf16CountSink&, const Message&);

}  // namespace agent_session::internal
