// JavaScript's object rules (SPEC.md §2, §3), written once for every
// builder of objects (the line parser's and the fast path's): a repeated
// key keeps the position of its first occurrence and takes the last value
// [R2-16]; array-index keys come first, ascending, then the others in
// insertion order [R3-6]. javascript_object below states both plainly;
// object_building.hpp applies them member by member, as a parser reads.
#pragma once

#include "agent_session/json.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agent_session::reference {

// The index `key` names when it is the canonical decimal form of an
// integer 0..4294967294 (`"0"`, `"7"`; not `"01"`, `"-1"`, `"4294967295"`):
// the keys JavaScript orders first, ascending (ECMA-262's array index).
std::optional<std::uint32_t> array_index(std::string_view key) noexcept;
inline bool is_array_index(std::string_view key) noexcept { return array_index(key).has_value(); }

// JavaScript's property order (ECMA-262 OrdinaryOwnPropertyKeys) of n keys
// given in insertion order, key_at(i) the i-th: their positions, the
// array-index keys first, ascending, then the others as given. The one
// key order: loaded objects are put in it (object_building.hpp), and the
// canonical writer prints objects built in memory in it.
template <class KeyAt>
std::vector<std::size_t> javascript_order(std::size_t n, KeyAt&& key_at) {
  std::vector<std::pair<std::uint32_t, std::size_t>> indices;
  std::vector<std::size_t> order;
  order.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (const auto index = array_index(key_at(i))) indices.emplace_back(*index, i);
  }
  std::sort(indices.begin(), indices.end());
  for (const auto& entry : indices) order.push_back(entry.second);
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_array_index(key_at(i))) order.push_back(i);
  }
  return order;
}

// The object JSON.parse builds from `members`, given as a line spells
// them out: each repeated key merged into its first occurrence, which
// takes the last value [R2-16]; then the keys in javascript_order [R3-6].
// The rule as SPEC states it, one key search per member: the parsers build
// objects with object_building.hpp, which gives the same object in
// O(n log n) whatever the keys (tests/json_line_test.cpp holds the two
// equal).
Json javascript_object(std::vector<std::pair<std::string, Json>> members);

}  // namespace agent_session::reference
