// Mechanics, not spec: an object built member by member, as a parser
// reads it, by js_object.hpp's rules (SPEC.md §2, §3), at a cost of
// O(n log n) key comparisons for n members whatever its keys, and torn down without allocating when memory
// runs out (json_teardown.hpp).
#pragma once

#include "agent_session/json.hpp"

#include <cstdint>
#include <string_view>

namespace agent_session::reference {

// The slot for the value of the member `key` of `object`, an object being
// built, which the caller then assigns (before adding the next member).
// In an object of up to 16 members, a repeated key's slot is its first
// occurrence's, whose earlier value is already torn down
// (json_teardown.hpp); past that, each key gets a new slot, and
// finish_object merges the repeated ones.
// With finish_object, building an object of n members costs O(n log n)
// key comparisons whatever its keys (this library's promise that loading
// costs time linear in the input, bench/RESULTS.md "Growth by input
// shape"), where Json's own operator[] searches the members one by one.
Json& object_member_slot(Json& object, std::string_view key);

// Completes an object built with object_member_slot: merges the repeated
// keys it has not merged yet, then puts it in JavaScript's order.
void finish_object(Json& object);

// Puts `object`'s members in JavaScript's property order.
void put_in_javascript_order(Json& object);

// The key comparisons the calls above have made on this thread since it
// started (add_key_comparisons adds other key checks of the loader): a
// deterministic measure of their work, by which tests check that loading
// stays linear without timing anything.
std::uint64_t object_key_comparisons() noexcept;
void add_key_comparisons(std::uint64_t comparisons) noexcept;

}  // namespace agent_session::reference
