// The fast path's estimate (SPEC.md §4): measuring without printing.
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace agent_session::fast {

// L(canonical(message)) of SPEC.md §4 without printing: the canonical
// writer into a sink that counts UTF-16 code units, strings counted by the
// SIMD kernels. Throws SerializationError, as printing would.
std::uint64_t measure(const Message& message);

// SPEC.md §4 by measure(): allocates nothing.
std::uint64_t estimate_context_chars(std::span<const Message> messages);

}  // namespace agent_session::fast
