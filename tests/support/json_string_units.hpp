// UTF-16 code units of the JSON string literal JSON.stringify prints for
// `text`, quotes and escapes included (SPEC.md §3, §4), or nullopt when
// `text` is not valid UTF-8: SPEC's sentence written out one character at a
// time, the oracle the fast path's string kernels are checked against
// (tests, fuzz targets, benchmarks). The library never needs it: it
// measures a message's canonical line whole.
#pragma once

#include "base/utf8.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace agent_session::test_support {

inline std::optional<std::uint64_t> json_string_units(std::string_view text) noexcept {
  std::uint64_t units = 2;  // the quotes
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = base::utf8_sequence_length(text, i);
      if (length == 0) return std::nullopt;
      units += length == 4 ? 2 : 1;
      i += length;
      continue;
    }
    // As printed: `\"` `\\` `\b` `\f` `\n` `\r` `\t` are 2, other controls
    // `\u00xx` are 6, everything else is itself.
    const bool short_escape = c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t';
    units += short_escape ? 2 : c < 0x20 ? 6 : 1;
    ++i;
  }
  return units;
}

}  // namespace agent_session::test_support
