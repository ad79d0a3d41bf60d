// UTF-8 as the session format needs it (SPEC.md §2.1 strictness, §4 the
// estimate in UTF-16 code units): validating, and counting UTF-16 code units.
// The reference versions, one character at a time; the fast path's kernels
// (src/fast/utf8_kernels.hpp) must give the same answers. Validation
// itself is in agent_session/text.hpp.
#pragma once

#include "agent_session/text.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace agent_session::internal {

// UTF-16 code units of `text`, which must be valid UTF-8: one per
// character, two for a character outside the BMP (a 4-byte sequence), as
// JavaScript's `.length` counts. On invalid UTF-8 the result is
// meaningless, never undefined behaviour.
std::uint64_t utf16_length(std::string_view text) noexcept;

// UTF-16 code units of the JSON string literal JSON.stringify prints for
// `text`, quotes and escapes included (SPEC.md §3, §4), or nullopt when
// `text` is not valid UTF-8.
std::optional<std::uint64_t> json_string_units(std::string_view text) noexcept;

// The largest cut at or before byte `at` (at most text.size()) that falls
// between characters: a prefix that is cut there never ends in half a
// UTF-8 sequence (continuation bytes are 10xxxxxx).
inline std::size_t character_boundary_before(std::string_view text, std::size_t at) noexcept {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace agent_session::internal
