#include "reference/canonical.hpp"

#include "reference/js_number.hpp"
#include "reference/js_object.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace agent_session::reference {

void append_canonical_value(std::string& out, const Json& value, int depth) {
  using Type = Json::value_t;
  if ((value.is_object() || value.is_array()) && depth > kMaxNestingDepth) {
    throw SerializationError("nesting deeper than 512 levels");
  }
  const auto number = [&out](double number) {
    if (!std::isfinite(number)) throw SerializationError("number is not finite");
    append_js_number(out, number);
  };
  switch (value.type()) {
    case Type::null: out += "null"; return;
    case Type::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case Type::string: append_json_string(out, value.get_ref<const std::string&>()); return;
    // Every number is a double, as in JavaScript (SPEC.md §3).
    case Type::number_integer: number(static_cast<double>(value.get<std::int64_t>())); return;
    case Type::number_unsigned: number(static_cast<double>(value.get<std::uint64_t>())); return;
    case Type::number_float: number(value.get<double>()); return;
    case Type::array: {
      out += '[';
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i > 0) out += ',';
        append_canonical_value(out, value[i], depth + 1);
      }
      out += ']';
      return;
    }
    case Type::object: {
      // JavaScript's property order; a loaded object is in it already, one
      // built in memory may not be.
      const auto& object = *value.get_ptr<const Json::object_t*>();
      const auto member = [&](std::size_t i) -> const auto& {
        return *(object.begin() + static_cast<std::ptrdiff_t>(i));
      };
      const std::vector<std::size_t> order =
          javascript_order(object.size(), [&](std::size_t i) -> std::string_view { return member(i).first; });
      out += '{';
      for (std::size_t k = 0; k < order.size(); ++k) {
        if (k > 0) out += ',';
        append_json_string(out, member(order[k]).first);
        out += ':';
        append_canonical_value(out, member(order[k]).second, depth + 1);
      }
      out += '}';
      return;
    }
    case Type::binary:
    case Type::discarded: break;
  }
  throw SerializationError("value has no JSON form");
}

}  // namespace agent_session::reference

namespace agent_session {

// SPEC.md §1's roles, as the canonical line prints them (message.hpp).
const char* role_of(const Message& message) noexcept {
  static constexpr const char* kRoles[] = {"user", "assistant", "tool"};
  return kRoles[message.index()];
}

}  // namespace agent_session
