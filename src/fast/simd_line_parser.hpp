// simdjson in front of the reference line parser: the fast loader's way
// through a JSONL line, which answers only when it is sure of the same
// answer (SPEC.md §2).
//
// simdjson parses; the fast path's discriminator of SPEC.md §1.1
// (tree_discriminate.hpp) reads simdjson's tree. When simdjson rejects
// a line or cannot be sure of it (a number it will not read, a byte-order
// mark, a line too long for it), the reference parser
// (reference::JsonLineParser) gives the answer, so every error keeps its
// exact wording and byte offset. fuzz/fuzz_simd_line_parser.cpp and
// tests/fast/simd_line_parser_test.cpp hold it equal to the reference.
#pragma once

#include "reference/line_parser.hpp"

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

class SimdLineParser final : public reference::LineParser {
 public:
  SimdLineParser();
  SimdLineParser(const SimdLineParser&) = delete;
  SimdLineParser& operator=(const SimdLineParser&) = delete;
  ~SimdLineParser() override;

  Message parse(std::string_view line, std::size_t line_number, std::size_t readable_after) override;
  std::size_t read_ahead() const noexcept override { return kSimdPadding; }

  // The value simdjson gives `line`, built as the reference builds it
  // (numbers as doubles, JavaScript's key order and repeated keys), or
  // nullopt when simdjson rejects it: for the differential tests.
  std::optional<Json> json(std::string_view line, std::size_t readable_after);

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;
  reference::JsonLineParser reference_;
};

// The fast side of the seam's make_line_parser (entry/implementation.hpp).
std::unique_ptr<reference::LineParser> make_line_parser();

}  // namespace agent_session::fast
