// The fast path's side of the seam (src/seam.cpp): the operations it takes
// over, with the reference's signatures and contracts (internal/
// reference.hpp, internal/line_parser.hpp). Built with AGENT_SESSION_FAST.
#pragma once

#include "agent_session/message.hpp"
#include "internal/line_parser.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

namespace agent_session::fast {

// L(canonical(message)) of SPEC.md §4 without printing: the canonical
// writer into a sink that counts UTF-16 code units, strings counted by the
// SIMD kernels. Throws SerializationError, as printing would.
std::uint64_t measure(const Message& message);

// SPEC.md §4 by measure(): allocates nothing.
std::uint64_t estimate_context_chars(std::span<const Message> messages);

// SPEC.md §5 costing only what the packing reaches: declaring assistants
// found on demand, sizes measured ahead of the backward walk in blocks
// read forwards (block_walk.cpp).
std::span<const Message> trim_context(std::span<const Message> messages, std::uint64_t max_chars);

// trim_context with `declarers` given (declaring_assistants(messages), kept by
// Session): nothing is searched, so it costs only what the packing reaches.
std::span<const Message> trim_context_given_declarers(std::span<const Message> messages,
                                                      std::span<const std::optional<std::size_t>> declarers,
                                                      std::uint64_t max_chars);

// A SimdLineParser (simd_line_parser.hpp).
std::unique_ptr<internal::LineParser> make_line_parser();

}  // namespace agent_session::fast
