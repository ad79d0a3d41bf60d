// Strict UTF-8 decoding one code point at a time (and plain encoding), written from RFC 3629
// alone: the tests' reference for the library's validators and UTF-16
// counters (decisions §3 strictness, §5 UTF-16 code units). Slow and
// obvious on purpose; it shares no code with src/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agent_session::test_support {

// The code point of the UTF-8 sequence at text[i], advancing i past it, or
// nullopt when the bytes there are not a valid sequence: decoded bit by
// bit, then checked against the shortest form, the surrogate range and
// U+10FFFF (RFC 3629 §3).
inline std::optional<char32_t> decode_utf8(std::string_view text, std::size_t& i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = 0;
  char32_t code_point = 0;
  if (lead < 0x80) {
    length = 1, code_point = lead;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, code_point = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, code_point = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, code_point = lead & 0x07;
  } else {
    return std::nullopt;  // a continuation byte, or F8..FF
  }
  if (text.size() - i < length) return std::nullopt;
  for (std::size_t k = 1; k < length; ++k) {
    const auto byte = static_cast<unsigned char>(text[i + k]);
    if ((byte & 0xC0) != 0x80) return std::nullopt;
    code_point = (code_point << 6) | (byte & 0x3F);
  }
  constexpr char32_t kShortest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code_point < kShortest[length]) return std::nullopt;                // overlong
  if (code_point >= 0xD800 && code_point <= 0xDFFF) return std::nullopt;  // surrogate
  if (code_point > 0x10FFFF) return std::nullopt;
  i += length;
  return code_point;
}

// UTF-16 code units of `text` (two for a code point past the BMP, one
// otherwise), or nullopt when it is not valid UTF-8.
inline std::optional<std::uint64_t> utf16_length(std::string_view text) {
  std::uint64_t units = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = decode_utf8(text, i);
    if (!c) return std::nullopt;
    units += *c >= 0x10000 ? 2 : 1;
  }
  return units;
}

// Appends code point `c` (at most U+10FFFF) to `out` in UTF-8, the
// shortest form; surrogates are encoded as any other value (generators use
// that to make invalid text on purpose).
inline void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace agent_session::test_support
