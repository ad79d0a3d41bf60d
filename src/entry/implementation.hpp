// The seam between the two paths: the four operations that have two
// implementations, as one interface, and the one the build chose
// (AGENT_SESSION_FAST: the fast path's, src/fast/fast_path.hpp; else the
// reference's, src/reference/reference.hpp), as simdjson's builds choose
// one implementation of theirs. Both give the same answers and throw the
// same errors (the differential tests and fuzz targets prove it). The
// public entry points (implementation.cpp, load.cpp) and the Session
// object reach either path only through `chosen`.
#pragma once

#include "agent_session/message.hpp"
#include "reference/line_parser.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

namespace agent_session::entry {

struct Implementation {
  // SPEC.md §4: the characters a request built from `messages` costs.
  std::uint64_t (*estimate_context_chars)(std::span<const Message> messages);
  // SPEC.md §5: the newest whole units of `messages` that fit `max_chars`.
  std::span<const Message> (*trim_context)(std::span<const Message> messages, std::uint64_t max_chars);
  // As trim_context, with each message's declaring assistant (SPEC.md §5.1)
  // given, as the Session object keeps them: no search for them.
  std::span<const Message> (*trim_context_given_declarers)(std::span<const Message> messages,
                                                           std::span<const std::optional<std::size_t>> declarers,
                                                           std::uint64_t max_chars);
  // SPEC.md §2: the parser of one line into one message.
  std::unique_ptr<reference::LineParser> (*make_line_parser)();
};

// The implementation this build chose; constant, so ready before any
// static initializer that loads or trims.
extern const Implementation chosen;

}  // namespace agent_session::entry
