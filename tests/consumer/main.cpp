// Links against the installed package and exercises one call per module.
#include <agent_session/context.hpp>
#include <agent_session/session.hpp>

#include <iostream>

int main() {
  namespace as = agent_session;
  const std::vector<as::Message> messages = as::load_session_from_memory("{\"role\":\"user\",\"content\":\"hi\"}\n");
  const auto chars = as::estimate_context_chars(messages);
  const auto kept = as::trim_context(messages, chars);
  if (chars != 31 || kept.size() != 1) {
    std::cerr << "unexpected: estimate " << chars << ", kept " << kept.size() << "\n";
    return 1;
  }
  std::cout << "consumer ok: " << as::to_canonical_json(kept.front()) << "\n";
  return 0;
}
