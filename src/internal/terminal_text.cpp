#include "internal/terminal_text.hpp"

#include "internal/utf8.hpp"

namespace agent_session::internal {
namespace {

char32_t decode(std::string_view sequence) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(sequence[i]); };
  char32_t c = byte(0) & (0x7F >> sequence.size());
  for (std::size_t i = 1; i < sequence.size(); ++i) c = (c << 6) | (byte(i) & 0x3F);
  return c;
}

}  // namespace

bool hidden_code_point(char32_t c) {
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

}  // namespace agent_session::internal
