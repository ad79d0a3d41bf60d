// The portable kernel: 8 bytes at a time in a 64-bit word (SWAR).
#include "fast/utf8_swar.hpp"
#include "base/utf8.hpp"

#include <cstring>

namespace agent_session::fast::swar {
namespace {

// True when none of the 8 bytes of `word` is non-ASCII, a control, `"` or
// `\` (the bit tricks of "Bit Twiddling Hacks": a byte below n sets its top
// bit in (x - n) & ~x; they may report a byte the lowest true hit borrows
// from, never miss one, and a false report only takes the slow path).
constexpr bool plain_ascii_word(std::uint64_t word) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const auto below = [](std::uint64_t x, std::uint64_t n) { return (x - kOnes * n) & ~x & kHigh; };
  return ((word & kHigh) | below(word, 0x20) | below(word ^ (kOnes * '"'), 1) | below(word ^ (kOnes * '\\'), 1)) == 0;
}

}  // namespace

// Plain ASCII words (the bulk of most text) cost one test per 8 bytes;
// anything else goes one character at a time.
std::uint64_t json_string_units(std::string_view text) noexcept {
  std::uint64_t units = 2;  // the quotes
  std::size_t i = 0;
  while (i < text.size()) {
    if (std::uint64_t word = 0;
        i + 8 <= text.size() && (std::memcpy(&word, text.data() + i, 8), plain_ascii_word(word))) {
      units += 8;
      i += 8;
      continue;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      units += 1 + kEscapeExtraUnits[c];
      ++i;
      continue;
    }
    const std::size_t length = base::utf8_sequence_length(text, i);
    if (length == 0) return kInvalid;
    units += length == 4 ? 2 : 1;
    i += length;
  }
  return units;
}

// The reference's loop: compilers vectorize it for the baseline
// instruction set.
std::uint64_t utf16_length(std::string_view text) noexcept { return base::utf16_length(text); }

}  // namespace agent_session::fast::swar
