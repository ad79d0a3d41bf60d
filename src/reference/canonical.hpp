// The canonical line of a message (SPEC.md §3): what JavaScript's
// JSON.stringify prints for a normalized message, its values printed as
// canonical_value.hpp prints them.
#pragma once

#include "agent_session/message.hpp"

#include <string>
#include <string_view>

namespace agent_session::reference {

// Appends the canonical line of `message` (no newline), keys in the
// normalized order of SPEC.md §1. An input's text, printed when it was
// built, is copied; an input that could not be printed throws the
// SerializationError its message must raise (SPEC.md §4).
void append_canonical_line(std::string& out, const Message& message);

}  // namespace agent_session::reference
