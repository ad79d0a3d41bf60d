// Reading one JSONL line as JavaScript's JSON.parse would, with the
// deliberate strictness of decisions §3. nlohmann's lexer does the
// tokenizing; this layer adds what JavaScript (or our stricter contract)
// needs on top of it.
#pragma once

#include "agent_session/message.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace agent_session::internal {

// Parses `line` (one line, without its `\n`) into a JSON value, or returns
// why it is not JSON (a one-line, printable detail).
//
// As in JavaScript: only space, tab, CR and LF are whitespace (a byte-order
// mark is not); every number becomes a double; a duplicate key keeps its
// first position and takes the last value; objects hold array-index keys
// first, ascending, then the others in insertion order.
// Stricter (decisions §3): invalid UTF-8, escaped lone surrogates, numbers
// that overflow a double and nesting deeper than 512 levels are errors.
std::variant<Json, std::string> parse_json_line(std::string_view line);

// Puts `object`'s members in JavaScript's property order: array-index keys
// first, ascending, then the others in insertion order.
void put_in_javascript_order(Json& object);

// Objects are built as JSON.parse builds them (SPEC §2): a repeated key
// keeps the position of its first occurrence and takes the last value,
// and array-index keys come first. Both builders (parse_json_line's and
// the fast path's) go through these two calls, which cost O(n log n) key
// comparisons for an object of n members whatever its keys (SPEC.md §2, linear loading):
// Json's own operator[] searches the members one by one, n^2/2
// comparisons for n distinct keys.
//
// The slot for the value of the member `key` of `object`, an object being
// built, which the caller then assigns (before adding the next member).
Json& object_member_slot(Json& object, std::string_view key);

// Completes an object built with object_member_slot: merges the repeated
// keys it has not merged yet, then puts it in JavaScript's order.
void finish_object(Json& object);

// The key comparisons object_member_slot, finish_object and the loader's
// other key checks (add_key_comparisons) have made on this thread since it
// started: a deterministic measure of their work, by which tests check
// that loading stays linear without timing anything.
std::uint64_t object_key_comparisons() noexcept;
void add_key_comparisons(std::uint64_t comparisons) noexcept;

// `bytes` made safe to quote in a one-line error: printable ASCII and valid
// UTF-8 stay, everything else becomes `\xNN`, and so do the characters a
// terminal must not see raw (C1 and bidi controls, line separators); cut
// to about `limit` bytes.
std::string printable_excerpt(std::string_view bytes, std::size_t limit);

}  // namespace agent_session::internal
