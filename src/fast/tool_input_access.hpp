// How the fast loader builds a ToolInput from the canonical text it has
// already printed (canonical_element.hpp, straight from simdjson's tape),
// without printing the input a second time from a tree, and without the
// public type naming any of it: mechanics of the fast path, not a rule of
// SPEC.md. tests/fast/simd_line_parser_test.cpp holds every input it builds
// equal to the one the reference builds from the same line.
#pragma once

#include "agent_session/message.hpp"

#include <string>

namespace agent_session::fast {

// `text` must be canonical JSON text (SPEC.md §3), as ToolInput's own
// constructors print it: the input then holds it as they would.
ToolInput tool_input_from_canonical_text(std::string text);

}  // namespace agent_session::fast
