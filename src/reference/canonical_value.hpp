// The canonical text of a JSON value (SPEC.md §3): what JavaScript's
// JSON.stringify prints for a string and for any value, which a ToolInput
// (message.hpp) holds its input as; its members are defined beside them.
#pragma once

#include "agent_session/json.hpp"
#include "agent_session/message.hpp"

#include <string>
#include <string_view>

namespace agent_session::reference {

// A tool call's input sits at nesting level 4: the message is 1, toolCalls
// 2, the call 3.
inline constexpr int kToolInputDepth = 4;

// Appends the JSON string literal JSON.stringify prints for `text`: `"`,
// `\` and U+0000..U+001F escaped (`\b \f \n \r \t`, the others as
// `\u00xx`), everything else raw UTF-8. Throws SerializationError when
// `text` is not valid UTF-8.
void append_json_string(std::string& out, std::string_view text);

// Appends the canonical text of `value` to `out`: no whitespace, numbers
// as Number::toString prints them, object members in JavaScript's order
// (array-index keys first, ascending, then the others as they come). `depth` is the nesting level `value` occupies if
// it is an array or object, for the limit of SPEC.md §2.1. Throws SerializationError (invalid UTF-8, a non-finite
// number, a binary value, nesting past kMaxNestingDepth).
void append_canonical_value(std::string& out, const Json& value, int depth);

}  // namespace agent_session::reference
