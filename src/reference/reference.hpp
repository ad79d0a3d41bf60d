// The reference versions of the operations the fast path may take over
// (entry/implementation.hpp chooses), beside the line parser of §2
// (load.hpp: parse_session_line). Each is SPEC.md's algorithm as written;
// the fast path's must give the same answers and throw the same errors.
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace agent_session::reference {

// SPEC.md §4's L(canonical(m)): UTF-16 code units of the message's
// canonical line, without its `\n`. Throws SerializationError.
std::uint64_t measure(const Message& message);

// SPEC.md §4: the sum of L(canonical(m)) + 1, each line printed then
// measured.
std::uint64_t estimate_context_chars(std::span<const Message> messages);

// SPEC.md §5: declaring assistants in one forward pass, then the units
// packed newest first, measuring each message the packing reaches.
std::span<const Message> trim_context(std::span<const Message> messages, std::uint64_t max_chars);

// Mechanics: trim_context with `declarers` given
// (declaring_assistants(messages)), for the Session object, which keeps
// them as messages are appended: the units packed newest first, measuring
// each message the packing reaches.
std::span<const Message> trim_context_given_declarers(std::span<const Message> messages,
                                                      std::span<const std::optional<std::size_t>> declarers,
                                                      std::uint64_t max_chars);

}  // namespace agent_session::reference
