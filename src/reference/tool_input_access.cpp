#include "reference/tool_input_access.hpp"

#include <utility>

namespace agent_session {

// ToolInputAccess (tool_input_access.hpp) reaches ToolInput's two private
// members, and the public header names nothing for it: a friend there
// would widen the public type for code its users cannot see. C++ checks no
// access in the template arguments of an explicit instantiation (C++20
// [temp.spec]/6), so the one instantiation below may name the members; the
// function it defines hands their pointers to this file alone.
namespace {

struct ToolInputMembers {
  std::string ToolInput::*canonical_json;
  std::optional<Json> ToolInput::*unprintable;
};
ToolInputMembers tool_input_members() noexcept;

template <std::string ToolInput::*CanonicalJson, std::optional<Json> ToolInput::*Unprintable>
struct ToolInputMembersOf {
  friend ToolInputMembers tool_input_members() noexcept { return {CanonicalJson, Unprintable}; }
};
template struct ToolInputMembersOf<&ToolInput::canonical_json_, &ToolInput::unprintable_>;

}  // namespace

const std::string& reference::ToolInputAccess::canonical_json(const ToolInput& input) noexcept {
  return input.*tool_input_members().canonical_json;
}

const std::optional<Json>& reference::ToolInputAccess::unprintable(const ToolInput& input) noexcept {
  return input.*tool_input_members().unprintable;
}

ToolInput reference::ToolInputAccess::from_canonical_json(std::string text) {
  ToolInput input;
  input.*tool_input_members().canonical_json = std::move(text);
  return input;
}

}  // namespace agent_session
