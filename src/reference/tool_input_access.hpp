#pragma once

// How the library reaches a ToolInput's two private members (its canonical
// text and its unprintable value) without the public type naming any of
// it: mechanics, not a rule of SPEC.md. The canonical line (§3) prints an
// input's text by reference, never copying a tree, and the fast loader
// builds an input from text it has already printed canonically.

#include "agent_session/json.hpp"
#include "agent_session/message.hpp"

#include <optional>
#include <string>

namespace agent_session::reference {

struct ToolInputAccess {
  static const std::string& canonical_json(const ToolInput& input) noexcept;
  static const std::optional<Json>& unprintable(const ToolInput& input) noexcept;
  // `text` must be canonical JSON text (for the fast loader, which prints
  // inputs itself).
  static ToolInput from_canonical_json(std::string text);
};

}  // namespace agent_session::reference
