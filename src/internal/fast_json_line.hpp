// simdjson in front of parse_json_line: the loader's fast way through a
// JSONL line, which answers only when it is sure of the same answer.
//
// parse_json_line (nlohmann's lexer plus our rules) stays the definition of
// what a line means and the only source of error texts. FastJsonLine parses
// with simdjson and gives either exactly what parse_json_line and
// discriminate_record would give, or nullopt ("not sure": invalid JSON, a
// record that is not a message, a number simdjson will not read, nesting
// past simdjson's limit, a line too long for it), and the caller then asks
// parse_json_line. Errors therefore keep their exact wording and line
// number by construction; fuzz/fuzz_fast_json_line.cpp checks the "exactly".
//
// Example:
//   internal::FastJsonLine fast;
//   std::string_view line = ...;   // in a buffer with kFastJsonLinePadding
//   if (auto message = fast.message(line, bytes_readable_after_line)) ...
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace agent_session::internal {

// simdjson reads up to this many bytes past the end of its input (their
// values do not matter). A line with fewer readable bytes after it is
// copied into a padded buffer first.
inline constexpr std::size_t kFastJsonLinePadding = 64;

// Longer lines are left to parse_json_line: simdjson's buffers grow to
// about ten times the longest line parsed, which would break the loader's
// peak-memory bound (issue 6) for one huge line.
inline constexpr std::size_t kFastJsonLineMaxBytes = std::size_t{8} << 20;

// One simdjson parser, reused line after line (its buffers are allocated
// once, for the longest line so far). Not thread-safe.
class FastJsonLine {
 public:
  FastJsonLine();
  FastJsonLine(const FastJsonLine&) = delete;
  FastJsonLine& operator=(const FastJsonLine&) = delete;
  ~FastJsonLine();

  // The message `line` holds, equal to what parse_json_line then
  // discriminate_record give, or nullopt when not sure (see above).
  // `readable_after`: how many bytes past `line`'s end may be read.
  // Throws only std::bad_alloc.
  std::optional<Message> message(std::string_view line, std::size_t readable_after);

  // The value `line` holds, equal to parse_json_line's (number bits, key
  // order and duplicate keys included), or nullopt when not sure.
  std::optional<Json> json(std::string_view line, std::size_t readable_after);

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;
};

}  // namespace agent_session::internal
