// SPEC.md §1.1's discrimination: which record a parsed JSON value is.
// A verdict is the message, or why the value is not one: the detail after
// "invalid session record at line N: " (SPEC.md §2). A reason names what
// was found (a type, the role, which tool call).
#pragma once

#include "agent_session/message.hpp"

#include <optional>
#include <string>
#include <variant>

namespace agent_session::reference {

using Verdict = std::variant<Message, std::string>;

// Why `json` is not a message ("role must be a string: it is missing",
// "unknown role \"system\": ...", "tool call 2 of 3 requires input"): the
// first row of SPEC.md §1.1's table that applies, or nullopt when
// parse_session_message would accept it. The loader's detail after
// "invalid session record at line N: " (SPEC.md §2); the tests and the
// fuzzer check each reason through it, without a file.
std::optional<std::string> why_not_a_message(const Json& json);

// The message `json` holds, or why it holds none. The first moves strings
// and inputs out of `json` (the loader owns its parsed values); the second
// takes them from a copy.
Verdict discriminate_record(Json&& json);
Verdict discriminate_record(const Json& json);

}  // namespace agent_session::reference
