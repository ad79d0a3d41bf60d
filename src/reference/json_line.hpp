// Reading one JSONL line as JavaScript's JSON.parse would, with the
// deliberate strictness of SPEC.md §2.1. nlohmann's lexer does the
// tokenizing; this layer adds what JavaScript (or our stricter contract)
// needs on top of it.
#pragma once

#include "agent_session/json.hpp"

#include <string>
#include <string_view>
#include <variant>

namespace agent_session::reference {

// Parses `line` (one line, without its `\n`) into a JSON value, or returns
// why it is not JSON (a one-line, printable detail).
//
// As in JavaScript: only space, tab, CR and LF are whitespace (a byte-order
// mark is not); every number becomes a double; a duplicate key keeps its
// first position and takes the last value; objects hold array-index keys
// first, ascending, then the others in insertion order.
// Stricter (SPEC.md §2.1): invalid UTF-8, escaped lone surrogates, numbers
// that overflow a double and nesting deeper than 512 levels are errors.
std::variant<Json, std::string> parse_json_line(std::string_view line);

}  // namespace agent_session::reference
