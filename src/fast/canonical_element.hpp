// The canonical JSON text (SPEC.md §3) of a value simdjson parsed,
// printed straight from simdjson's tape: how the fast loader builds a tool
// call's ToolInput without building a Json tree first.
#pragma once

#include "fast/text_buffer.hpp"

#include <simdjson.h>

#include <string>

namespace agent_session::fast {

// Appends the canonical text of `element` to `out` and returns true; or
// returns false, with a partial text in `out`, when an object in it has an
// array-index key or a repeated key. JavaScript reorders (index keys first)
// or merges (the last value at the first position) those, and the Json
// route (reference::finish_object) is the one place that does it.
// simdjson has already checked what printing could reject (UTF-8, finite
// numbers, the nesting limit), so this never throws but std::bad_alloc.
bool append_canonical_element(TextBuffer& out, simdjson::dom::element element);

}  // namespace agent_session::fast
