// Text from outside (file names, another program's output, bytes of a bad
// line) made safe to print on one line of a terminal or a log.
#pragma once

#include <string>
#include <string_view>

namespace agent_session::internal {

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
bool hidden_code_point(char32_t c);

// `bytes` made safe to quote in a one-line error: printable ASCII and valid
// UTF-8 stay, everything else becomes `\xNN`, and so do the characters a
// terminal must not see raw (hidden_code_point); cut to about `limit`
// bytes, with "..." when cut.
std::string printable_excerpt(std::string_view bytes, std::size_t limit);

}  // namespace agent_session::internal
