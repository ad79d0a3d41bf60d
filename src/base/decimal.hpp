// The one reader of decimal numbers: ASCII digits, nothing else (no sign,
// no space, no fraction). For array-index keys (SPEC.md §3), budgets
// (§6), the pending-sync mark, the runner's options and /proc's pids.
// Allocates nothing and throws nothing, so a forked child may call it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace agent_session::base {

// Whether `text` is one or more ASCII digits and nothing else.
constexpr bool is_decimal(std::string_view text) noexcept {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The value of `text` when it is_decimal and fits 64 bits; else nullopt.
// Leading zeros are the caller's rule (array indices and versions refuse
// them; a budget does not).
constexpr std::optional<std::uint64_t> parse_decimal(std::string_view text) noexcept {
  if (!is_decimal(text)) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : text) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// The run of digits that starts `text`, as far as it goes (a pid in
// /proc's text, a version's first number).
constexpr std::string_view leading_digits(std::string_view text) noexcept {
  std::size_t n = 0;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
  return text.substr(0, n);
}

}  // namespace agent_session::base
