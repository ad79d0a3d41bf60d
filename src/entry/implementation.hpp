// The seam between the two paths: the four operations that have two
// implementations, as one interface, and the one the build chose
// (AGENT_SESSION_FAST: the fast path's, src/fast/fast_path.hpp; else the
// reference's, src/reference/reference.hpp and load.hpp), as simdjson's
// builds choose one implementation of theirs. Both give the same answers
// and throw the same errors (the differential tests and fuzz targets
// prove it). The public entry points (implementation.cpp, load.cpp) and
// the Session object reach either path only through `chosen`.
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace agent_session::entry {

// SPEC.md §2's step from one line to one message, as the load loop
// (load.hpp) calls it: reference::parse_session_line, or the fast path's.
class LineParser {
 public:
  virtual ~LineParser() = default;
  // The message a non-empty line (without its `\n`) holds, or the
  // SessionError §2 gives it. `readable_after`: the bytes past the line's
  // end that may be read (at least read_ahead() when the reader can).
  virtual Message parse(std::string_view line, std::size_t line_number, std::size_t readable_after) = 0;
  // The bytes this parser reads past a line's end (simdjson's padding):
  // the line reader keeps that many readable after every line.
  virtual std::size_t read_ahead() const noexcept = 0;
};

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
  // SPEC.md §2: a parser of one line into one message.
  std::unique_ptr<LineParser> (*make_line_parser)();
};

// The reference path's implementation, in every build.
extern const Implementation reference_path;
// The fast path's: defined only in a build with it (AGENT_SESSION_FAST),
// where the differential tests compare it with reference_path.
extern const Implementation fast_path;

// The implementation this build chose (fast_path when built); constant,
// so ready before any static initializer that loads or trims.
extern const Implementation& chosen;

}  // namespace agent_session::entry
