// Loading (SPEC.md §2), after the file is open: a session's bytes split
// on `\n` into lines, each non-empty line parsed into one message or the
// error §2 gives it, and the loop over the lines that the first bad line
// stops. Opening the file (a missing one is an empty session) and reading
// it a piece at a time, in bounded memory, are the library's
// (src/entry/load.hpp, line_reader.hpp); they feed this loop.
#pragma once

#include "agent_session/message.hpp"
#include "agent_session/session.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace agent_session::reference {

// One line of a session: its text without the `\n`; its number, physical
// (1-based, the empty lines counted: [R2-6]); whether a `\n` ends it (the
// last line needs none: [R2-13]).
struct Line {
  std::string_view text;
  std::size_t number = 0;
  bool terminated = true;
};

// A session's lines, in order; text stays valid until the next call.
class Lines {
 public:
  virtual ~Lines() = default;
  // The next line, empty ones included, or nullopt at the end.
  virtual std::optional<Line> next() = 0;
};

// The lines of bytes in memory, split on `\n` [R2-1]: nothing follows the
// last `\n` but the end ("a\n" is one line, "" none: [R2-14]). A line
// longer than kMaxLineBytes throws LineTooLong, a resource error [R2-15].
// (The library's LineReader gives the same lines from a file read a
// piece at a time: tests/line_reader_test.cpp holds the two equal.)
class LinesInMemory final : public Lines {
 public:
  explicit LinesInMemory(std::string_view bytes) : rest_(bytes) {}
  std::optional<Line> next() override;

 private:
  std::string_view rest_;
  std::size_t number_ = 0;
};

// The message a non-empty line holds: parsed as JSON.parse would with
// §2.1's strictness (parse_json_line), then discriminated (§1.1:
// discriminate_record). Throws SessionError: invalid_json when the line
// is not one JSON value, invalid_record when the value is not a message,
// at `line_number` [R2-19].
Message parse_session_line(std::string_view line, std::size_t line_number);

// How the loop parses a non-empty line: parse_session_line, or an equal
// parser (the fast path's; one that adds a detail to the error).
using ParseLine = std::function<Message(const Line& line)>;

// The loop of §2: each line in order; an exactly empty line is skipped,
// but counted [R2-7]; every other is parsed by `parse` and kept. The first
// line that throws stops the load [R2-4]: its error propagates, nothing is
// returned. `line_numbers`, when given, receives each message's line.
std::vector<Message> load_lines(Lines& lines, const ParseLine& parse, std::vector<std::size_t>* line_numbers = nullptr);

}  // namespace agent_session::reference
