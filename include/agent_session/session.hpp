// The session file: an append-only JSONL record of every message, one
// canonical JSON object per line.
//
// Spec: the chapter's "The Normal Path of Writing and Recovery", "The Error
// Path of Corrupted Records" and the loadSession chain; decisions.md §2.
//
// Example:
//   namespace as = agent_session;
//   as::append_session("s.jsonl", as::UserMessage{"hello"});
//   std::vector<as::Message> history = as::load_session("s.jsonl");
//   // A missing file is an empty session; a corrupt line throws
//   // SessionError("invalid session JSON at line 3: ...").
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session {

enum class SessionErrorKind {
  invalid_json,    // the line is not JSON: "invalid session JSON at line N"
  invalid_record,  // JSON, but not a message: "invalid session record at line N"
};

// A session line that cannot be loaded. what() starts with exactly the
// spec's text, `invalid session JSON at line N` or `invalid session record
// at line N`; a detail may follow after ": ".
class SessionError : public std::runtime_error {
 public:
  SessionError(SessionErrorKind kind, std::size_t line, const std::string& detail);

  SessionErrorKind kind() const noexcept { return kind_; }
  // Physical, 1-based: the line's number in the file, counting the empty
  // lines that loading skips (decisions §2).
  std::size_t line() const noexcept { return line_; }

 private:
  SessionErrorKind kind_;
  std::size_t line_;
};

// Loads the session stored at `path`.
//
// A missing file (ENOENT, and only that) is an empty session. Every other
// I/O error propagates as std::system_error with its own errno (a directory
// gives EISDIR, permission denied stays EACCES).
// Throws SessionError for the first line that is not a message: nothing is
// returned and no line is ever skipped, except exactly empty ones.
std::vector<Message> load_session(const std::filesystem::path& path);

// Loads a session from its raw bytes (standard input, a fuzzer's buffer).
// The rules of decisions §2: split on `\n`; a line of zero bytes is
// skipped; anything else, a lone `\r` or a byte-order mark included, must
// be a JSON message; a trailing `\r` is JSON whitespace.
// Throws SessionError as load_session does.
std::vector<Message> load_session_from_memory(std::string_view bytes);

// Appends the canonical line of `message` plus `\n` to the file at `path`,
// creating it if needed. The message is serialized before the file is
// touched, so a SerializationError leaves the file as it was. I/O errors
// are std::system_error. No locks and no fsync (the chapter's contract).
void append_session(const std::filesystem::path& path, const Message& message);

// Appends the canonical lines of all `messages`, in order, with one write:
// every message is serialized first, so one that cannot be leaves the file
// as it was. Same errors as above.
void append_session(const std::filesystem::path& path, std::span<const Message> messages);

}  // namespace agent_session
