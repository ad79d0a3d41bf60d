#include "library/loadable_lines.hpp"

#include "agent_session/append.hpp"
#include "agent_session/session.hpp"
#include "reference/canonical.hpp"

namespace agent_session::library {

std::string loadable_lines(std::span<const Message> messages) {
  std::string lines;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const std::size_t start = lines.size();
    reference::append_canonical_line(lines, messages[i]);
    if (lines.size() - start > kMaxLineBytes) throw MessageTooLong(i, messages.size(), lines.size() - start);
    lines.push_back('\n');
  }
  return lines;
}

}  // namespace agent_session::library
