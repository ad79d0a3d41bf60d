// Numbers as JavaScript prints them (SPEC.md §3): ECMAScript's
// Number::toString of a double. The reference version, from the shortest
// round-trip digits of std::to_chars; the fast path's printer
// (src/fast/js_number.hpp) must print the same text.
#pragma once

#include <string>

namespace agent_session::reference {

// Appends Number::toString(value) to `out`: the shortest digits that
// round-trip, and of those the closest to `value`, a tie to the even
// digit (SPEC.md §3 [R3-11]: what std::to_chars's shortest form promises),
// plain notation for exponents -7 < e < 21 (`100000000000000000000`,
// `0.000001`), else `1e+21` / `1e-7` style; `-0` prints as `0`.
// `value` must be finite (the canonical writer refuses the others).
void append_js_number(std::string& out, double value);

}  // namespace agent_session::reference
