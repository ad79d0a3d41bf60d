#include "reference/discriminate.hpp"

#include "base/printable.hpp"
#include "base/utf8.hpp"

#include <type_traits>
#include <utility>

namespace agent_session::reference {

std::string found(std::optional<JsonKind> kind) {
  if (!kind) return "it is missing";
  switch (*kind) {
    case JsonKind::null: return "found null";
    case JsonKind::boolean: return "found a boolean";
    case JsonKind::number: return "found a number";
    case JsonKind::string: return "found a string";
    case JsonKind::array: return "found an array";
    case JsonKind::object: return "found an object";
  }
  return "found a value";
}

std::string shown_role(std::string_view role) {
  // Enough to recognise a role, short enough that a huge one cannot flood
  // the line; never cut inside a character.
  constexpr std::size_t kShownRoleBytes = 64;
  if (role.size() <= kShownRoleBytes) return "\"" + base::terminal_safe(role) + "\"";
  const std::size_t cut = base::character_boundary_before(role, kShownRoleBytes);
  return "\"" + base::terminal_safe(role.substr(0, cut)) + "\"... (" + std::to_string(role.size()) + " bytes)";
}

namespace {

// nlohmann's tree as discriminate() looks at it (discriminate.hpp). `J` is
// `const Json` to copy strings and inputs out, `Json` to move them out (the
// loader owns its parsed values).
template <class J>
struct JsonTree {
  using V = J*;
  static JsonKind kind(V value) {
    switch (value->type()) {
      case Json::value_t::null: return JsonKind::null;
      case Json::value_t::boolean: return JsonKind::boolean;
      case Json::value_t::string: return JsonKind::string;
      case Json::value_t::array: return JsonKind::array;
      case Json::value_t::object: return JsonKind::object;
      default: return JsonKind::number;  // integer, unsigned, float (a binary value never comes from JSON text)
    }
  }
  // A loaded object never holds a key twice (repeated keys merge as they
  // are read, SPEC.md §2), nor does one built in memory.
  static std::optional<V> member(V object, const char* key) {
    auto it = object->find(key);
    if (it == object->end()) return std::nullopt;
    return &*it;
  }
  static std::size_t size(V array) { return array->size(); }
  static V item(V array, std::size_t i) { return &(*array)[i]; }
  static std::string_view view(V string) { return string->template get_ref<const std::string&>(); }
  static std::string text(V string) {
    if constexpr (std::is_const_v<J>) {
      return string->template get_ref<const std::string&>();
    } else {
      return std::move(string->template get_ref<std::string&>());
    }
  }
  static bool flag(V boolean) { return boolean->template get<bool>(); }
  static ToolInput input(V value) {
    if constexpr (std::is_const_v<J>) {
      return ToolInput(*value);
    } else {
      return ToolInput(std::move(*value));
    }
  }
};

template <class J>
Verdict discriminate_json(J& json) {
  JsonTree<J> tree;
  return discriminate(tree, &json);
}

}  // namespace

Verdict discriminate_record(Json&& json) { return discriminate_json(json); }

Verdict discriminate_record(const Json& json) { return discriminate_json(json); }

std::optional<std::string> describe_invalid_record(const Json& json) {
  auto verdict = discriminate_record(json);
  if (auto* reason = std::get_if<std::string>(&verdict)) return std::move(*reason);
  return std::nullopt;
}

}  // namespace agent_session::reference
