// Differential: the fast path's number printer (fast::write_js_number,
// fast::write_js_integer: Dragonbox or the 15-digit check, SWAR layout)
// against the reference printer (reference::append_js_number: std::to_chars
// digits laid out as Number::toString, SPEC.md §3). The bytes are read 8
// at a time (a shorter tail padded with zeros), each 8 as the bits of a
// double (every finite one, subnormals and -0 included; NaN and infinities
// are not printed, the writer refuses them first) and as an int64, which
// write_js_integer prints as the double it rounds to. The same text, byte
// for byte.
// Built with the fast path only (AGENT_SESSION_FAST).
#include "fast/js_number.hpp"
#include "fuzz_support.hpp"
#include "reference/js_number.hpp"

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace agent_session::fuzz {
namespace {

std::string bits_of(std::uint64_t bits) {
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%016llx", static_cast<unsigned long long>(bits));
  return hex;
}

void check_double(std::uint64_t bits) {
  const double value = std::bit_cast<double>(bits);
  if (!std::isfinite(value)) return;
  std::string expected;
  reference::append_js_number(expected, value);
  char out[fast::kJsNumberRoom];
  const std::string_view got(out, static_cast<std::size_t>(fast::write_js_number(out, value) - out));
  FUZZ_CHECK(got == expected,
             "write_js_number(" + bits_of(bits) + ") = " + std::string(got) + ", reference " + expected);
}

void check_integer(std::uint64_t bits) {
  const auto value = std::bit_cast<std::int64_t>(bits);
  std::string expected;
  reference::append_js_number(expected, static_cast<double>(value));
  char out[fast::kJsNumberRoom];
  const std::string_view got(out, static_cast<std::size_t>(fast::write_js_integer(out, value) - out));
  FUZZ_CHECK(got == expected,
             "write_js_integer(" + std::to_string(value) + ") = " + std::string(got) + ", reference " + expected);
}

}  // namespace
}  // namespace agent_session::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (std::size_t at = 0; at < size; at += 8) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, data + at, size - at < 8 ? size - at : 8);
    agent_session::fuzz::check_double(bits);
    agent_session::fuzz::check_integer(bits);
  }
  return 0;
}
