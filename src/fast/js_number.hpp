// The fast path's Number::toString (SPEC.md §3): shortest digits by
// {fmt}'s Dragonbox or, for the numbers most data holds, by an exact
// 15-digit check; digits laid out with SWAR. It must print exactly what
// the reference printer, reference::append_js_number, prints (tests/fast/).
#pragma once

#include <cstddef>
#include <cstdint>

namespace agent_session::fast {

// The bytes write_js_number may write: it prints at most 25
// (`-1.2345678901234567e-308`), the rest is room for fixed-size copies.
inline constexpr std::size_t kJsNumberRoom = 48;

// Number::toString(value) of a finite double, written at `out`, which must
// have kJsNumberRoom writable bytes (past the text they hold garbage);
// returns the text's end.
char* write_js_number(char* out, double value) noexcept;

// write_js_number(out, static_cast<double>(value)), for an integer token
// (every number is a double, an integer rounded to one: SPEC.md §3),
// without the checks a double needs to find out it is an integer.
char* write_js_integer(char* out, std::int64_t value) noexcept;

}  // namespace agent_session::fast
