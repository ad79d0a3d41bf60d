// What a person sees of untrusted text (a file name, a bad line's bytes,
// another program's output): made safe to print on one line of a terminal
// or a log. The one escaping module of the library, the command and the
// conformance runner: one decoder (base/utf8.hpp), one hex case
// (lowercase), one rule for which characters a terminal must not see raw.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace agent_session::base {

// `text` with nothing that can break a line or act on a terminal:
// - `\` and `"` are escaped, so an escape in the text never passes for
//   one of ours (and the result can be shown in double quotes);
// - \n, \r and \t by name; other C0 controls, DEL and every byte that is
//   not part of valid UTF-8 as \xnn;
// - the hidden code points (hidden_code_point) as \unnnn.
// Everything else, printable ASCII and valid UTF-8, is kept as is.
std::string terminal_safe(std::string_view text);

// As terminal_safe, but `\` and `"` are kept: for a whole message that may
// already hold escaped or quoted parts (an error line naming a file), so
// that they are not escaped twice. Still one line, still inert.
std::string terminal_line(std::string_view text);

// Whether a terminal must not see the code point `c` raw although it is
// valid non-ASCII UTF-8: a C1 control (U+0080-U+009F: CSI, NEL...), a bidi
// control (Unicode's Bidi_Control: U+061C, U+200E, U+200F, U+202A-U+202E,
// U+2066-U+2069, which reorder the text that follows them), or the line
// and paragraph separators U+2028, U+2029. ASCII is never hidden: its
// controls are escaped by name or as \xnn.
bool hidden_code_point(char32_t c) noexcept;

// Bytes of the character at text[i] (i < text.size()) when a terminal may
// see it raw: printable ASCII, or valid UTF-8 whose code point is not
// hidden; 0 otherwise (a control, DEL, a byte that is not UTF-8, a hidden
// code point). For escaping formats of their own (XML, shell words).
std::size_t printable_length(std::string_view text, std::size_t i) noexcept;

// Appends `\xnn` (kind 'x', a byte) or `\unnnn` (kind 'u', a code point
// of the BMP), lowercase hex.
void append_escape(std::string& out, char kind, char32_t value);

// `bytes` made safe to quote in a one-line error: what printable_length
// keeps stays, every other byte becomes `\xnn` (a hidden code point too:
// each of its bytes); cut to about `limit` bytes, with "..." when cut.
std::string printable_excerpt(std::string_view bytes, std::size_t limit);

// How every error line names a file: 'NAME', in single quotes, so a name
// with spaces, or one ending in a colon, reads as one name.
std::string quoted(std::string_view name);

// "1 message", "2 messages": a count with its noun in the number it takes
// (`plural` when the noun does not just add "s").
std::string counted(std::size_t count, std::string_view noun, std::string_view plural = {});

}  // namespace agent_session::base
