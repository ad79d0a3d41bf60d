// Base64 for the harness protocol (corpus/conformance/harness.md §2): RFC
// 4648 §4, the standard alphabet, `=` padding, no line breaks; no bytes is
// "". Every byte value travels unchanged (invalid UTF-8, NUL, CR).
//
// Example:
//   base64_encode("hi\n") == "aGkK";  *base64_decode("/wo=") == "\xFF\n"
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agent_session::harness {

std::string base64_encode(std::string_view bytes);

// The bytes `text` encodes, or nothing when it is not canonical padded
// base64: a length that is not a multiple of 4, a character outside the
// alphabet (a line break, a space, the URL-safe `-` and `_`), padding
// anywhere but at the end, or padding bits that are not zero.
std::optional<std::string> base64_decode(std::string_view text);

// How many bytes `text` decodes to, from its length and padding alone
// (for a size check before decoding); 0 when its length is not a multiple of 4.
std::size_t base64_decoded_size(std::string_view text) noexcept;

}  // namespace agent_session::harness
