// One line of a session to one message (SPEC.md §2): the step of the load
// that the fast path may take over, behind this interface.
#pragma once

#include "agent_session/message.hpp"
#include "agent_session/session.hpp"

#include <cstddef>
#include <memory>
#include <string_view>

namespace agent_session::reference {

// The most heap a load may hold at its peak per byte of its longest line:
// with kMaxLineBytes, the 1.3 GiB SPEC.md §8 promises. A line is parsed into
// a tree before it is a message, the largest multiple of the line for many
// tiny values (a 16-byte value and a heap block for each 3-byte `[],`).
// tests/json_growth_test.cpp holds every loader, reference and fast, to it
// on every shape it knows.
inline constexpr std::size_t kPeakHeapPerLineByte = 40;
static_assert(kPeakHeapPerLineByte * kMaxLineBytes < (std::size_t{13} << 30) / 10, "SPEC.md §8: under 1.3 GiB");

class LineParser {
 public:
  virtual ~LineParser() = default;
  // The message a non-empty line (without its `\n`) holds, or throws the
  // SessionError SPEC.md §2 gives it: invalid_json when the line is not
  // JSON, invalid_record when it is JSON but not a message.
  // `readable_after`: bytes past the line's end that may be read.
  virtual Message parse(std::string_view line, std::size_t line_number, std::size_t readable_after) = 0;
  // The bytes this parser reads past a line's end, when there are some.
  virtual std::size_t read_ahead() const noexcept { return 0; }
};

// The reference: parse_json_line, then the discrimination of SPEC.md §1.1.
class JsonLineParser final : public LineParser {
 public:
  Message parse(std::string_view line, std::size_t line_number, std::size_t readable_after = 0) override;
};

}  // namespace agent_session::reference
