// UTF-8 as the session format needs it (SPEC.md §2.1 strictness, §4 the
// estimate in UTF-16 code units): validating, decoding, and counting
// UTF-16 code units. The reference versions, one character at a time; the
// fast path's kernels (src/fast/utf8_kernels.hpp) must give the same
// answers. The one decoder: escaping for a terminal (base/printable.hpp)
// uses it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace agent_session::base {

// Bytes of the UTF-8 sequence that starts at text[i] (i < text.size()), or
// 0 when it is not a valid one (RFC 3629: no overlong forms, no surrogates,
// nothing past U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept;

// Length in bytes of the longest valid UTF-8 prefix of `text`.
std::size_t valid_utf8_prefix(std::string_view text) noexcept;

// The code point of `sequence`, one whole valid UTF-8 sequence (as
// utf8_sequence_length measured it).
char32_t decode_utf8(std::string_view sequence) noexcept;

// Appends the UTF-8 encoding of `code_point`, a Unicode scalar value (no
// surrogates, at most U+10FFFF): the one encoder, for the generators of
// the fuzzer and the tests.
void append_utf8(std::string& out, char32_t code_point);

// UTF-16 code units of `text`, which must be valid UTF-8: one per
// character, two for a character outside the BMP (a 4-byte sequence), as
// JavaScript's `.length` counts. On invalid UTF-8 the result is
// meaningless, never undefined behaviour.
std::uint64_t utf16_length(std::string_view text) noexcept;

// The largest cut at or before byte `at` (at most text.size()) that falls
// between characters: a prefix that is cut there never ends in half a
// UTF-8 sequence (continuation bytes are 10xxxxxx).
inline std::size_t character_boundary_before(std::string_view text, std::size_t at) noexcept {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace agent_session::base
