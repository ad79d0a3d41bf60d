// The canonical JSON writer (decisions §4), written once for two sinks:
// StringSink prints the bytes, Utf16CountSink only counts the UTF-16 code
// units those bytes would be in JavaScript. The estimator (decisions §5)
// uses the counting sink, so the estimate and the printed line can never
// disagree and estimating allocates nothing per message.
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <cstdint>
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
  void utf8(std::string_view text) noexcept;
};

// UTF-16 code units of the JSON string literal JSON.stringify prints for
// `text` (quotes and escapes included), or nullopt when `text` is not valid
// UTF-8 (decisions §3). The estimator's hot path: on x86-64 with AVX2 it
// validates and counts 32 bytes at a time; json_string_units_plain is the
// byte-at-a-time reference it must always agree with (tested).
std::optional<std::uint64_t> json_string_units(std::string_view text) noexcept;
std::optional<std::uint64_t> json_string_units_plain(std::string_view text) noexcept;

// Number of UTF-16 code units of valid UTF-8 `text`: one per character,
// two for a character outside the BMP (a 4-byte sequence).
std::uint64_t utf16_length(std::string_view text) noexcept;

// Length of the longest valid UTF-8 prefix of `text` (decisions §3:
// no overlong forms, no surrogates, nothing past U+10FFFF).
std::size_t valid_utf8_prefix(std::string_view text) noexcept;

// ECMAScript Number::toString of a finite double: shortest round-trip
// digits, `1e+21` / `1e-7` thresholds, `-0` as `0`. Writes into `buffer`
// (at least 32 bytes) and returns the printed text.
std::string_view format_js_number(double value, char* buffer) noexcept;

// True for the canonical decimal form of an integer 0..4294967294:
// the keys JavaScript orders first, ascending.
bool is_array_index(std::string_view key) noexcept;

// Writes the canonical line of `message` (no newline) into `sink`.
// Throws SerializationError. Defined for StringSink and Utf16CountSink.
template <class Sink>
void write_message(Sink& sink, const Message& message);

extern template void write_message(StringSink&, const Message&);
extern template void write_message(Utf16CountSink&, const Message&);

}  // namespace agent_session::internal
