// The one seam between the reference path and the fast path: the four
// operations that have two implementations. Each is SPEC.md's algorithm
// in the reference build (AGENT_SESSION_FAST=OFF: reference/reference.hpp and
// reference/line_parser.hpp) and the fast path's (src/fast/fast_path.hpp)
// otherwise, which the differential tests and fuzz targets prove equal.
// Nothing else of the library calls either side directly.
#pragma once

#include "agent_session/message.hpp"
#include "reference/line_parser.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

namespace agent_session::seam {

// SPEC.md §4: the characters a request built from `messages` costs.
std::uint64_t estimate_context_chars(std::span<const Message> messages);

// SPEC.md §5: the newest whole units of `messages` that fit `max_chars`.
std::span<const Message> trim_context(std::span<const Message> messages, std::uint64_t max_chars);

// As trim_context, with each message's declaring assistant (SPEC.md §5.1)
// given, as the Session object keeps them: no search for them.
std::span<const Message> trim_context_given_declarers(std::span<const Message> messages,
                                                      std::span<const std::optional<std::size_t>> declarers,
                                                      std::uint64_t max_chars);

// SPEC.md §2: the parser of one line into one message.
std::unique_ptr<internal::LineParser> make_line_parser();

}  // namespace agent_session::seam
