#include "agent_session/text.hpp"

namespace agent_session {

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

namespace {

char32_t decode(std::string_view sequence) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(sequence[i]); };
  char32_t c = byte(0) & (0x7F >> sequence.size());
  for (std::size_t i = 1; i < sequence.size(); ++i) c = (c << 6) | (byte(i) & 0x3F);
  return c;
}

}  // namespace

bool hidden_code_point(char32_t c) noexcept {
  return c <= 0x9F || c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x2028 && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
}

namespace {

std::string escaped(std::string_view text, bool quotes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string shown;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c >= 0x80 ? utf8_sequence_length(text, i) : 1;
    if (quotes && (c == '"' || c == '\\')) {
      shown += {'\\', static_cast<char>(c)};
    } else if (c == '\n') {
      shown += "\\n";
    } else if (c == '\r') {
      shown += "\\r";
    } else if (c == '\t') {
      shown += "\\t";
    } else if (c >= 0x20 && c < 0x7F) {
      shown += static_cast<char>(c);
    } else if (c >= 0x80 && n > 0) {
      const char32_t code_point = decode(text.substr(i, n));
      if (hidden_code_point(code_point)) {
        shown += {'\\', 'u', kHex[(code_point >> 12) & 0xF], kHex[(code_point >> 8) & 0xF], kHex[(code_point >> 4) & 0xF],
                  kHex[code_point & 0xF]};
      } else {
        shown.append(text.substr(i, n));
      }
      i += n;
      continue;
    } else {
      shown += {'\\', 'x', kHex[c >> 4], kHex[c & 0xF]};  // a control byte, or one that is not UTF-8
    }
    ++i;
  }
  return shown;
}

}  // namespace

std::string terminal_safe(std::string_view text) { return escaped(text, /*quotes=*/true); }

std::string terminal_line(std::string_view text) { return escaped(text, /*quotes=*/false); }

std::string printable_excerpt(std::string_view bytes, std::size_t limit) {
  std::string out;
  std::size_t i = 0;
  while (i < bytes.size() && out.size() < limit) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    // A valid non-ASCII character is shown raw unless a terminal must not see it.
    std::size_t shown = c >= 0x80 ? utf8_sequence_length(bytes, i) : 0;
    if (shown > 0 && hidden_code_point(decode(bytes.substr(i, shown)))) shown = 0;
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (shown > 0) {
      out.append(bytes.substr(i, shown));
      i += shown;
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 0xF]};
      ++i;
    }
  }
  if (i < bytes.size()) out += "...";
  return out;
}

}  // namespace agent_session
