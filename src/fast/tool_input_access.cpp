#include "fast/tool_input_access.hpp"

#include <utility>

namespace agent_session::fast {

// The public header names nothing for this: a friend there would widen the
// public type for code its users cannot see. C++ checks no access in the
// template arguments of an explicit instantiation (C++20 [temp.spec]/6),
// so the one instantiation below may name the private member; the function
// it defines hands its pointer to this file alone.
namespace {

std::string ToolInput::*canonical_text_member() noexcept;

template <std::string ToolInput::*CanonicalJson>
struct CanonicalTextOf {
  friend std::string ToolInput::*canonical_text_member() noexcept { return CanonicalJson; }
};
template struct CanonicalTextOf<&ToolInput::canonical_json_>;

}  // namespace

ToolInput tool_input_from_canonical_text(std::string text) {
  ToolInput input;  // JSON null: printable, so no unprintable value to clear
  input.*canonical_text_member() = std::move(text);
  return input;
}

}  // namespace agent_session::fast
