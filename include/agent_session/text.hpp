// Text as the session layer shows it (SPEC.md §2.1, §6): UTF-8 validity,
// and untrusted text (a file name, a bad line's bytes, another program's
// output) made safe to print on one line of a terminal or a log. The
// bottom layer: it depends on nothing else of ours, so the conformance
// runner builds with it alone.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace agent_session {

// Bytes of the UTF-8 sequence that starts at text[i] (i < text.size()), or
// 0 when it is not a valid one (RFC 3629: no overlong forms, no surrogates,
// nothing past U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept;

// Length in bytes of the longest valid UTF-8 prefix of `text`.
std::size_t valid_utf8_prefix(std::string_view text) noexcept;

// `text` with nothing that can break a line or act on a terminal:
// - `\` and `"` are escaped, so an escape in the text never passes for
//   one of ours (and the result can be shown in double quotes);
// - \n, \r and \t by name; other C0 controls, DEL and every byte that is
//   not part of valid UTF-8 as \xNN;
// - the C1 controls (U+0080-U+009F: CSI, NEL...), the bidi controls
//   (Unicode's Bidi_Control: U+061C, U+200E, U+200F, U+202A-U+202E,
//   U+2066-U+2069, which reorder the text that follows them) and the line
//   and paragraph separators U+2028, U+2029 as \uNNNN.
// Everything else, printable ASCII and valid UTF-8, is kept as is.
std::string terminal_safe(std::string_view text);

// As terminal_safe, but `\` and `"` are kept: for a whole message that may
// already hold escaped or quoted parts (an error line naming a file), so
// that they are not escaped twice. Still one line, still inert.
std::string terminal_line(std::string_view text);

// Whether a terminal must not see the (valid, non-ASCII) code point `c`
// raw: a C1 control, a bidi control, U+2028 or U+2029, as listed above.
// For other escaping formats that must hide the same characters.
bool hidden_code_point(char32_t c) noexcept;

// `bytes` made safe to quote in a one-line error: printable ASCII and valid
// UTF-8 stay, everything else becomes `\xNN`, and so do the characters a
// terminal must not see raw (hidden_code_point); cut to about `limit`
// bytes, with "..." when cut.
std::string printable_excerpt(std::string_view bytes, std::size_t limit);

}  // namespace agent_session
