// UTF-8 validation and UTF-16 counting: the estimator's innermost loop
// (decisions §3 strictness, §5 the estimate in UTF-16 code units).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace agent_session::internal {

// Bytes of the UTF-8 sequence that starts at text[i] (i < text.size()), or
// 0 when it is not a valid one (RFC 3629: no overlong forms, no surrogates,
// nothing past U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept;

// UTF-16 code units of the JSON string literal JSON.stringify prints for
// `text` (quotes and escapes included), or nullopt when `text` is not valid
// UTF-8 (decisions §3). The estimator's hot path: on x86-64 with AVX2 it
// validates and counts 32 bytes at a time; json_string_units_plain is the
// byte-at-a-time reference it must always agree with (tested).
std::optional<std::uint64_t> json_string_units(std::string_view text) noexcept;
std::optional<std::uint64_t> json_string_units_plain(std::string_view text) noexcept;

// Number of UTF-16 code units of valid UTF-8 `text`: one per character,
// two for a character outside the BMP (a 4-byte sequence).
std::uint64_t utf16_length(std::string_view text) noexcept;

// Length of the longest valid UTF-8 prefix of `text`.
std::size_t valid_utf8_prefix(std::string_view text) noexcept;

}  // namespace agent_session::internal
