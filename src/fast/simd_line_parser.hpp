// simdjson in front of the reference line parser: the fast loader's way
// through a JSONL line, which answers only when it is sure of the same
// answer (SPEC.md §2).
//
// simdjson parses; the fast path's discriminator of SPEC.md §1.1
// (tree_discriminate.hpp) reads simdjson's tree. When simdjson rejects
// a line or cannot be sure of it (a number it will not read, a byte-order
// mark, a line too long for it), the reference parser
// (reference::parse_session_line) gives the answer, so every error keeps its
// exact wording and byte offset. fuzz/fuzz_simd_line_parser.cpp and
// tests/fast/simd_line_parser_test.cpp hold it equal to the reference.
#pragma once

#include "agent_session/json.hpp"
#include "agent_session/message.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

namespace agent_session::fast {

// simdjson reads up to this many bytes past the end of its input (their
// values do not matter). A line with fewer readable bytes after it is
// copied into a padded buffer first.
inline constexpr std::size_t kSimdPadding = 64;

// Longer lines go to the reference parser: simdjson's buffers grow to
// about fifteen times the longest line parsed and are kept for the next
// line, whatever its shape (the reference parser's tree is that large only
// for tiny values, and freed with the line).
inline constexpr std::size_t kSimdMaxLineBytes = std::size_t{8} << 20;

// Used through the seam (entry/implementation.hpp), as the reference's
// parse_session_line is.
class SimdLineParser {
 public:
  SimdLineParser();
  SimdLineParser(const SimdLineParser&) = delete;
  SimdLineParser& operator=(const SimdLineParser&) = delete;
  ~SimdLineParser();

  // As reference::parse_session_line; `readable_after`: the bytes past
  // the line's end that may be read (fewer than kSimdPadding: a copy).
  Message parse(std::string_view line, std::size_t line_number, std::size_t readable_after);

  // The value simdjson gives `line`, built as the reference builds it
  // (numbers as doubles, JavaScript's key order and repeated keys), or
  // nullopt when simdjson rejects it: for the differential tests.
  std::optional<Json> json(std::string_view line, std::size_t readable_after);

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;
};

}  // namespace agent_session::fast
