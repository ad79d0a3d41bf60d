// What every writer writes (append_session, Session::append, run_agent):
// the canonical lines of a batch (SPEC.md §3), each one the loader loads.
#pragma once

#include "agent_session/message.hpp"

#include <span>
#include <string>

namespace agent_session::library {

// The canonical line of each of `messages` plus `\n`, in order. Throws
// SerializationError, or MessageTooLong for a line longer than
// kMaxLineBytes, before anything is written.
std::string loadable_lines(std::span<const Message> messages);

}  // namespace agent_session::library
