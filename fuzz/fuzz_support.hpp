// What every fuzz target shares: a check that stops the run with a readable
// message (libFuzzer then saves the input), and slow, obviously-correct
// references that share no code with the library, so that a bug in the
// library's fast paths cannot hide behind the same bug in the check.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::fuzz {

// Aborts (libFuzzer and the replay driver both report the input) when an
// invariant does not hold. Not assert(): it must also hold in Release.
[[noreturn]] inline void fail(const char* file, int line, const char* condition, const std::string& detail) {
  std::fprintf(stderr, "%s:%d: invariant failed: %s\n  %s\n", file, line, condition, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

#define FUZZ_CHECK(condition, detail)                                                           \
  do {                                                                                          \
    if (!(condition)) ::agent_session::fuzz::fail(__FILE__, __LINE__, #condition, (detail));     \
  } while (false)

// Unicode code points of `text` decoded straight from the UTF-8 definition
// (RFC 3629): the lead byte gives the length, each continuation byte
// carries six bits; overlong forms, surrogates and anything past U+10FFFF
// are rejected by checking the decoded value, not by a byte table.
// nullopt when `text` is not valid UTF-8.
inline std::optional<std::vector<char32_t>> decode_utf8(std::string_view text) {
  std::vector<char32_t> code_points;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    char32_t value = 0;
    char32_t smallest = 0;  // below this, the same length is an overlong form
    if (lead < 0x80) {
      length = 1, value = lead, smallest = 0;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2, value = lead & 0x1F, smallest = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, value = lead & 0x0F, smallest = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, value = lead & 0x07, smallest = 0x10000;
    } else {
      return std::nullopt;  // a continuation byte or 0xF8..0xFF as a lead
    }
    if (text.size() - i < length) return std::nullopt;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return std::nullopt;
      value = (value << 6) | (next & 0x3F);
    }
    if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return std::nullopt;
    code_points.push_back(value);
    i += length;
  }
  return code_points;
}

// What JavaScript's `.length` says of `text`: one UTF-16 code unit per
// code point, two (a surrogate pair) past U+FFFF. nullopt for invalid UTF-8.
inline std::optional<std::uint64_t> utf16_length(std::string_view text) {
  const auto code_points = decode_utf8(text);
  if (!code_points) return std::nullopt;
  std::uint64_t units = 0;
  for (const char32_t c : *code_points) units += c > 0xFFFF ? 2 : 1;
  return units;
}

// Lines as decisions §2 splits them: on `\n`, the last one kept even when
// empty only if bytes follow the last `\n`. Line i is lines[i - 1].
inline std::vector<std::string_view> split_lines(std::string_view bytes) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < bytes.size()) {
    std::size_t end = bytes.find('\n', start);
    if (end == std::string_view::npos) end = bytes.size();
    lines.push_back(bytes.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// `bytes` with everything but printable ASCII as \xNN, for failure messages.
inline std::string escaped(std::string_view bytes, std::size_t limit = 300) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
  }
  if (bytes.size() > limit) out += "...";
  return out;
}

}  // namespace agent_session::fuzz
