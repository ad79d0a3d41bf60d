#include "fast/tree_discriminate.hpp"

#include "base/printable.hpp"
#include "base/utf8.hpp"

namespace agent_session::fast {

std::string found(std::optional<JsonKind> kind) {
  if (!kind) return "it is missing";
  // In JsonKind's order.
  static constexpr const char* kFound[] = {"found null",     "found a boolean", "found a number",
                                           "found a string", "found an array",  "found an object"};
  return kFound[static_cast<std::size_t>(*kind)];
}

std::string shown_role(std::string_view role) {
  constexpr std::size_t kShownRoleBytes = 64;
  if (role.size() <= kShownRoleBytes) return "\"" + base::terminal_safe(role) + "\"";
  const std::size_t cut = base::character_boundary_before(role, kShownRoleBytes);
  return "\"" + base::terminal_safe(role.substr(0, cut)) + "\"... (" + std::to_string(role.size()) + " bytes)";
}

}  // namespace agent_session::fast
