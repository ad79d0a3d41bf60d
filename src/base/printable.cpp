#include "base/printable.hpp"

#include "base/utf8.hpp"

namespace agent_session::base {

bool hidden_code_point(char32_t c) noexcept {
  return (c >= 0x80 && c <= 0x9F) || c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x2028 && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
}

std::size_t printable_length(std::string_view text, std::size_t i) noexcept {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return c >= 0x20 && c < 0x7F ? 1 : 0;
  const std::size_t n = utf8_sequence_length(text, i);
  if (n == 0 || hidden_code_point(decode_utf8(text.substr(i, n)))) return 0;
  return n;
}

void append_escape(std::string& out, char kind, char32_t value) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += {'\\', kind};
  for (int shift = kind == 'u' ? 12 : 4; shift >= 0; shift -= 4) out.push_back(kHex[(value >> shift) & 0xF]);
}

namespace {

std::string escaped(std::string_view text, bool quotes) {
  std::string shown;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (quotes && (c == '"' || c == '\\')) {
      shown += {'\\', static_cast<char>(c)};
    } else if (c == '\n') {
      shown += "\\n";
    } else if (c == '\r') {
      shown += "\\r";
    } else if (c == '\t') {
      shown += "\\t";
    } else if (const std::size_t n = printable_length(text, i); n > 0) {
      shown.append(text.substr(i, n));
      i += n;
      continue;
    } else if (const std::size_t hidden = c >= 0x80 ? utf8_sequence_length(text, i) : 0; hidden > 0) {
      append_escape(shown, 'u', decode_utf8(text.substr(i, hidden)));  // every hidden code point is in the BMP
      i += hidden;
      continue;
    } else {
      append_escape(shown, 'x', c);  // a control byte, or one that is not UTF-8
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
    if (const std::size_t n = printable_length(bytes, i); n > 0) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      append_escape(out, 'x', static_cast<unsigned char>(bytes[i]));
      ++i;
    }
  }
  if (i < bytes.size()) out += "...";
  return out;
}

std::string quoted(std::string_view name) { return "'" + std::string(name) + "'"; }

std::string counted(std::size_t count, std::string_view noun, std::string_view plural) {
  std::string text = std::to_string(count) + ' ';
  if (count == 1) return text.append(noun);
  return plural.empty() ? text.append(noun).append("s") : text.append(plural);
}

}  // namespace agent_session::base
