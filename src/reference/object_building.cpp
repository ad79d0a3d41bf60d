#include "reference/object_building.hpp"

#include "reference/js_object.hpp"
#include "reference/json_teardown.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace agent_session::reference {
namespace {
using Members = std::vector<std::pair<const std::string, Json>>;  // ordered_map's base

Members& members_of(Json& object) { return static_cast<Members&>(*object.get_ptr<Json::object_t*>()); }

// Up to this many members, a new key is compared with each one before it
// (tool inputs have a handful of keys); past it, keys are appended and
// finish_object merges the repeated ones by sorting, once.
constexpr std::size_t kFewMembers = 16;

thread_local std::uint64_t key_comparisons = 0;

// Replaces `members` by `size` of them, in the order `visit` adds their
// positions: keys copied, values moved. If a copy fails (std::bad_alloc),
// the values already moved are torn down (json_teardown.hpp) and the
// members left behind are the tree's, torn down with it.
template <class Visit>
void rebuild(Members& members, Members& rebuilt, std::size_t size, const Visit& visit) {
  try {
    rebuilt.reserve(size);
    visit([&](std::size_t i) { rebuilt.emplace_back(members[i].first, std::move(members[i].second)); });
  } catch (...) {
    for (auto& member : rebuilt) tear_down(member.second);
    throw;
  }
  members.swap(rebuilt);
}

// Merges each repeated key into its first occurrence, which takes the last
// occurrence's value; the order of the members kept is unchanged.
void merge_repeated_keys(Members& members) {
  std::uint64_t comparisons = 0;
  std::vector<std::size_t> order(members.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // By key, then by position: each key's occurrences end up together, first to last.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    ++comparisons;
    const int by_key = members[a].first.compare(members[b].first);
    return by_key < 0 || (by_key == 0 && a < b);
  });
  const auto same_key = [&](std::size_t a, std::size_t b) {
    ++comparisons;
    return members[a].first == members[b].first;
  };
  std::vector<bool> dropped(members.size(), false);
  std::size_t dropped_count = 0;
  for (std::size_t run = 0; run < order.size();) {
    std::size_t end = run + 1;
    while (end < order.size() && same_key(order[end], order[run])) ++end;
    if (end - run > 1) {
      // Values replaced or dropped are torn down (json_teardown.hpp).
      for (std::size_t i = run; i + 1 < end; ++i) tear_down(members[order[i]].second);
      members[order[run]].second = std::move(members[order[end - 1]].second);
      for (std::size_t i = run + 1; i < end; ++i) dropped[order[i]] = true;
      dropped_count += end - run - 1;
    }
    run = end;
  }
  key_comparisons += comparisons;
  if (dropped_count == 0) return;
  // Keys are const in a member: the kept ones are copied into a new list.
  Members merged;
  rebuild(members, merged, members.size() - dropped_count, [&](const auto& add) {
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (!dropped[i]) add(i);
    }
  });
}

}  // namespace

Json& object_member_slot(Json& object, std::string_view key) {
  auto& members = members_of(object);
  if (members.size() < kFewMembers) {
    for (auto& member : members) {
      ++key_comparisons;
      if (member.first == key) {
        // The caller overwrites: the last value wins. The earlier one goes
        // here, without allocating (json_teardown.hpp).
        tear_down(member.second);
        return member.second;
      }
    }
  }
  // Grown by hand: std::vector would copy every member to grow (a const
  // key makes the move one that may throw), whole subtrees, and a copy
  // that fails destroys trees while unwinding (json_teardown.hpp).
  if (members.size() == members.capacity()) {
    Members grown;
    rebuild(members, grown, std::max<std::size_t>(1, 2 * members.capacity()), [&](const auto& add) {
      for (std::size_t i = 0; i < members.size(); ++i) add(i);
    });
  }
  return members.emplace_back(std::string(key), Json()).second;
}

void finish_object(Json& object) {
  auto& members = members_of(object);
  if (members.size() > kFewMembers) merge_repeated_keys(members);
  put_in_javascript_order(object);
}

std::uint64_t object_key_comparisons() noexcept { return key_comparisons; }
void add_key_comparisons(std::uint64_t comparisons) noexcept { key_comparisons += comparisons; }

// Rebuilding is needed only for the rare object that holds an index key.
void put_in_javascript_order(Json& object) {
  auto& members = members_of(object);
  const auto is_index = [](const auto& member) { return is_array_index(member.first); };
  if (std::none_of(members.begin(), members.end(), is_index)) return;
  const std::vector<std::size_t> order =
      javascript_order(members.size(), [&](std::size_t i) -> std::string_view { return members[i].first; });
  Members ordered;
  rebuild(members, ordered, members.size(), [&](const auto& add) {
    for (const std::size_t i : order) add(i);
  });
}

}  // namespace agent_session::reference
