#include "reference/json_teardown.hpp"

#include <array>
#include <cstddef>

namespace agent_session::reference {
namespace {

// A container's last element, or nullptr when `value` is a scalar or empty.
Json* last_element(Json& value) noexcept {
  if (auto* array = value.get_ptr<Json::array_t*>(); array != nullptr && !array->empty()) return &array->back();
  if (auto* object = value.get_ptr<Json::object_t*>(); object != nullptr && !object->empty()) {
    return &object->back().second;
  }
  return nullptr;
}

// Destroys the last element; it is a scalar or an empty container, unless
// the path was too short to empty it first.
void drop_last_element(Json& container) noexcept {
  if (auto* array = container.get_ptr<Json::array_t*>()) {
    array->pop_back();
  } else {
    container.get_ptr<Json::object_t*>()->pop_back();
  }
}

bool is_nonempty_container(const Json& value) noexcept { return value.is_structured() && !value.empty(); }

}  // namespace

void tear_down(Json& tree) noexcept {
  // path[0..depth] are the containers being emptied, each the last
  // element of the one before: always the last, so that emptying costs no
  // copying (pop_back), and every element is visited once going down and
  // destroyed once coming up.
  std::array<Json*, kMaxNestingDepth + 2> path{};
  std::size_t depth = 0;
  path[0] = &tree;
  for (;;) {
    Json* last = last_element(*path[depth]);
    if (last == nullptr) {  // emptied: destroy it in its parent, go on there
      if (depth == 0) return;
      drop_last_element(*path[--depth]);
    } else if (is_nonempty_container(*last) && depth + 1 < path.size()) {
      path[++depth] = last;
    } else {
      drop_last_element(*path[depth]);
    }
  }
}

}  // namespace agent_session::reference
