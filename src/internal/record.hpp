// The discriminator behind parse_session_message, for callers that own the
// parsed value and want the reason when it is not a message.
#pragma once

#include "agent_session/message.hpp"

#include <string>
#include <variant>

namespace agent_session::internal {

// The message `json` holds (its strings and inputs moved out), or why it is
// not one (the detail after "invalid session record at line N: ", SPEC.md
// §2). On rejection `json` is left untouched.
std::variant<Message, std::string> discriminate_record(Json&& json);

}  // namespace agent_session::internal
