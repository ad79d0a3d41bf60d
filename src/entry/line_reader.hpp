// The line reader under every load (SPEC.md §2): reads bytes a piece at a
// time and hands out their lines, numbered physically, so that a file is
// never held whole beside its messages and an endless line costs bounded
// memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace agent_session::entry {

class LineReader {
 public:
  // Reads up to `size` bytes into `buffer`, returns how many; 0 only at the
  // end of the input. May throw (a read error).
  using ReadSome = std::function<std::size_t(char* buffer, std::size_t size)>;

  struct Line {
    std::string_view text;       // without its `\n`; valid until the next call
    std::size_t number;          // 1-based, physical: empty lines count
    bool terminated;             // false for a last line without `\n`
    std::size_t readable_after;  // bytes past text's end that may be read
    std::uint64_t offset;        // the byte of the input where the line starts
  };

  // `read_ahead`: bytes kept readable past every line's end, for a parser
  // that reads a little past its input. `size_hint`: the input's size when
  // known, so a small input (an empty one too) gets a small buffer.
  LineReader(ReadSome read_some, std::size_t read_ahead, std::optional<std::uint64_t> size_hint = std::nullopt);

  // The next line, empty ones included, or nullopt at the end. Nothing
  // follows the last `\n` of an input but the end: "a\n" is one line.
  // Throws LineTooLong (session.hpp) as soon as one line is found longer
  // than kMaxLineBytes: no more of it is held than that and one byte.
  std::optional<Line> next();

 private:
  ReadSome read_some_;
  std::size_t read_ahead_;
  std::size_t first_capacity_;
  std::string buffer_;        // capacity bytes, then read_ahead_ readable bytes
  std::size_t capacity_ = 0;  // bytes the buffer holds for input
  std::size_t begin_ = 0;     // where the next line starts
  std::size_t end_ = 0;       // end of the bytes read
  std::size_t scanned_ = 0;   // bytes from begin_ known to hold no `\n`
  std::size_t number_ = 0;
  std::uint64_t dropped_ = 0;  // input bytes before buffer_'s first
  bool at_end_ = false;
};

// A line of bytes in memory, found by the line reader: the one numbering
// of lines (SPEC.md §2: physical, 1-based, empty lines counted) for the
// loader, repair and the append's torn-tail guard alike.
struct LinePosition {
  std::size_t number = 0;            // 0: `bytes` holds no line
  std::uint64_t offset = 0;          // where it starts
  std::string_view text;             // without its `\n`
  bool terminated = false;           // a `\n` follows it
  std::size_t non_empty_before = 0;  // the lines before it that loading reads (messages)
  bool last = false;                 // no non-empty line follows it
};
// The line numbered `number` (it must exist); the line that holds byte
// `offset` (the first whose `\n`, or the input's end, is at or after it);
// the last line.
LinePosition line_numbered(std::string_view bytes, std::size_t number);
LinePosition line_at_offset(std::string_view bytes, std::uint64_t offset);
LinePosition last_line(std::string_view bytes);

// A ReadSome over bytes in memory, handing them out a piece at a time as
// a file would (the bytes must outlive it).
LineReader::ReadSome read_from(std::string_view bytes);

}  // namespace agent_session::entry
