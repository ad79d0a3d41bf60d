// JSON basics every layer shares (SPEC.md §1-§3): the JSON value type and
// the nesting limit. The bottom layer: it includes nothing of ours.
#pragma once

#include <nlohmann/json.hpp>

namespace agent_session {

// A parsed JSON value. Ordered: an object keeps its members in the order
// they are put in; the loader puts them in JavaScript's order (SPEC.md §3,
// reference/js_object.hpp), which the canonical form prints.
using Json = nlohmann::ordered_json;

// The deepest array/object nesting one line may hold; the message object
// itself is level 1, a bare top-level array too (SPEC.md §2.1).
inline constexpr int kMaxNestingDepth = 512;

}  // namespace agent_session
