#include "internal/utf8.hpp"

namespace agent_session::internal {

// Every byte but a continuation byte (10xxxxxx) starts a character; a
// 4-byte lead (11110xxx) starts one outside the BMP, which JavaScript
// stores as a surrogate pair.
std::uint64_t utf16_length(std::string_view text) noexcept {
  std::uint64_t units = 0;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    units += static_cast<unsigned>((c & 0xC0) != 0x80) + static_cast<unsigned>(c >= 0xF0);
  }
  return units;
}

std::optional<std::uint64_t> json_string_units(std::string_view text) noexcept {
  std::uint64_t units = 2;  // the quotes
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence_length(text, i);
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

}  // namespace agent_session::internal
