#include "conform/properties/prop_session.hpp"

#include "agent_session/session.hpp"
#include "harness/untrusted_json.hpp"

#include <exception>
#include <utility>

namespace agent_session::conform::properties {

PropSession make_session(std::vector<Message> messages) {
  PropSession session;
  for (const Message& message : messages) session.lines.push_back(to_canonical_json(message));
  session.units = context_units(messages);
  session.declaring = declaring_assistants(messages);
  session.messages = std::move(messages);
  return session;
}

std::string messages_array(const std::vector<std::string>& lines) {
  std::string text = "[";
  for (std::size_t i = 0; i < lines.size(); ++i) text += (i ? "," : "") + lines[i];
  return text + "]";
}

PropSession draw_session(fuzz::SessionWriter& writer) {
  for (;;) {
    std::vector<Message> messages;
    try {
      messages = load_session_from_memory(writer.history());
    } catch (const std::exception&) {
      continue;  // a line past a limit of SPEC.md §2: not a session
    }
    if (messages.empty()) continue;
    PropSession session;
    try {
      session = make_session(std::move(messages));
    } catch (const std::exception&) {
      continue;  // an unserializable input (SPEC.md §4)
    }
    // The largest request: a trim of the whole session (adapter.md §2).
    const std::string request = R"({"op":"trim","seq":1,"budget":0,"messages":)" + messages_array(session.lines) + "}";
    if (harness::parse_untrusted_json(request)) return session;
  }
}

PropSession without(const PropSession& session, std::size_t begin, std::size_t end) {
  std::vector<Message> messages;
  for (std::size_t i = 0; i < session.messages.size(); ++i) {
    if (i < begin || i >= end) messages.push_back(session.messages[i]);
  }
  return make_session(std::move(messages));
}

}  // namespace agent_session::conform::properties
