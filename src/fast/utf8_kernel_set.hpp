// What the UTF-8 kernels of utf8_kernels.hpp share; each kernel is one
// namespace per instruction set (as simdjson lays its kernels out), in its
// own pair of files (utf8_swar, utf8_avx2, utf8_avx512), and returns
// json_string_units_or_zero's and utf16_length's answers.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace agent_session::fast {

// UTF-16 units JSON.stringify adds by escaping ASCII byte c, beyond the one
// the byte itself counts: `\"` `\\` `\b` `\f` `\n` `\r` `\t` add 1, the
// other controls (`\u00xx`) add 5.
inline constexpr std::array<std::uint8_t, 128> kEscapeExtraUnits = [] {
  std::array<std::uint8_t, 128> extra{};
  for (int c = 0; c < 0x20; ++c) extra[static_cast<std::size_t>(c)] = 5;
  for (const char c : {'"', '\\', '\b', '\f', '\n', '\r', '\t'}) extra[static_cast<unsigned char>(c)] = 1;
  return extra;
}();

// The kernels' answer for invalid UTF-8 (a literal has at least its two
// quotes, so 0 is never a length).
inline constexpr std::uint64_t kInvalid = 0;

}  // namespace agent_session::fast

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define AGENT_SESSION_HAS_X86_KERNELS 1
#endif
