#include "internal/utf8.hpp"

namespace agent_session::internal {

// RFC 3629 table 3-7: the second byte's range depends on the first, which
// rules out overlong forms and surrogates.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (text.size() - i < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
  }
  return length;
}

std::size_t valid_utf8_prefix(std::string_view text) noexcept {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) break;
    i += length;
  }
  return i;
}

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
