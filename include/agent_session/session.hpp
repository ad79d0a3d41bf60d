// Loading the session file, an append-only JSONL record of every message,
// one canonical JSON object per line (appending: agent_session/append.hpp).
//
// Spec: SPEC.md §2 (loading).
//
// Example:
//   namespace as = agent_session;
//   std::vector<as::Message> history = as::load_session("s.jsonl");
//   // A missing file is an empty session; a corrupt line throws
//   // SessionError("invalid session JSON at line 3: ...").
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace agent_session {

enum class SessionErrorKind {
  invalid_json,    // the line is not JSON: "invalid session JSON at line N"
  invalid_record,  // JSON, but not a message: "invalid session record at line N"
};

// A session line that cannot be loaded (SPEC.md §2). what() starts with
// exactly the spec's text, `invalid session JSON at line N` or `invalid
// session record at line N`; a detail may follow after ": ".
class SessionError : public std::runtime_error {
 public:
  SessionError(SessionErrorKind kind, std::size_t line, const std::string& detail);

  SessionErrorKind kind() const noexcept { return kind_; }
  // Physical, 1-based: the line's number in the file, counting the empty
  // lines that loading skips (SPEC.md §2).
  std::size_t line() const noexcept { return line_; }
  // What follows the spec's text and ": " in what(), or "" (the reason
  // the line is not JSON, or not a message).
  const std::string& detail() const noexcept { return detail_; }

 private:
  SessionErrorKind kind_;
  std::size_t line_;
  std::string detail_;
};

// Loads the session stored at `path` (SPEC.md §2): its messages, in file
// order.
//
// A missing file (ENOENT, and only that) is an empty session. Every other
// I/O error propagates as std::system_error with its own errno (a directory
// gives EISDIR, permission denied stays EACCES).
// Throws SessionError for the first line that is not a message: nothing is
// returned and no line is ever skipped, except exactly empty ones. When
// that line is the last one and has no trailing `\n` (the mark of a write
// cut short), the detail ends with a hint to run `agent-session repair`.
// Reads under a shared flock(2) (regular files), so an append in progress
// is seen whole or not at all. A line longer than kMaxLineBytes throws
// LineTooLong (declared below) after reading at most that much of it.
std::vector<Message> load_session(const std::filesystem::path& path);

// The longest line, in bytes without its `\n`, that loading holds in
// memory: 32 MiB. Not a rule of the format (SPEC.md §2 has no limit) but a
// resource limit of this implementation (SPEC.md §8): an endless line
// (/dev/zero, a runaway writer) fails in bounded memory instead of taking
// all of it. A line is parsed into a tree before it is a message, up to 40
// times its bytes for many tiny values (a 16-byte value and a heap block
// for each 3-byte `[],`), so a load's peak heap stays under 1.3 GiB,
// whatever the line's shape (SPEC.md §8).
inline constexpr std::size_t kMaxLineBytes = std::size_t{32} << 20;

// A line longer than kMaxLineBytes: a resource error of this implementation
// (SPEC.md §8; errno EFBIG, the CLI exits 3), not an invalid session.
// line() is physical and 1-based.
class LineTooLong : public std::system_error {
 public:
  explicit LineTooLong(std::size_t line);
  std::size_t line() const noexcept { return line_; }

 private:
  std::size_t line_;
};

// Loads a session from its raw bytes (standard input, a fuzzer's buffer).
// The rules of SPEC.md §2: split on `\n`; a line of zero bytes is
// skipped; anything else, a lone `\r` or a byte-order mark included, must
// be a JSON message; a trailing `\r` is JSON whitespace.
// Throws SessionError as load_session does, and LineTooLong.
std::vector<Message> load_session_from_memory(std::string_view bytes);

}  // namespace agent_session
