// The fast path's trim (SPEC.md §5): the block walk.
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace agent_session::fast {

// SPEC.md §5 costing only what the packing reaches: declaring assistants
// found on demand, sizes measured ahead of the backward walk in blocks
// read forwards (block_walk.cpp).
std::span<const Message> trim_context(std::span<const Message> messages, std::uint64_t max_chars);

// trim_context with `declarers` given (declaring_assistants(messages), kept by
// Session): nothing is searched, so it costs only what the packing reaches.
std::span<const Message> trim_context_given_declarers(std::span<const Message> messages,
                                                      std::span<const std::optional<std::size_t>> declarers,
                                                      std::uint64_t max_chars);

}  // namespace agent_session::fast
