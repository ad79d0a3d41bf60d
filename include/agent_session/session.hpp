// The session file: an append-only JSONL record of every message, one
// canonical JSON object per line.
//
// Spec: SPEC.md §2 (loading), §3 (what an append writes) and, for this
// library, §8 (durable, concurrency-safe appends).
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
#include <iosfwd>
#include <span>
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

// A session line that cannot be loaded. what() starts with exactly the
// spec's text, `invalid session JSON at line N` or `invalid session record
// at line N`; a detail may follow after ": ".
class SessionError : public std::runtime_error {
 public:
  SessionError(SessionErrorKind kind, std::size_t line, const std::string& detail);

  SessionErrorKind kind() const noexcept { return kind_; }
  // Physical, 1-based: the line's number in the file, counting the empty
  // lines that loading skips (SPEC.md §2).
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
// all of it, and a load's peak heap stays at most kPeakHeapPerLineByte
// times its longest line (under 1.3 GiB), whatever the line's shape.
inline constexpr std::size_t kMaxLineBytes = std::size_t{32} << 20;
// A line is parsed into a tree before it is a message: its peak heap is a
// multiple of the line, the largest for many tiny values (a 16-byte value
// and a heap block for each 3-byte `[],`). tests/json_growth_test.cpp
// holds every loader to it on every shape it knows.
inline constexpr std::size_t kPeakHeapPerLineByte = 40;

// A line longer than kMaxLineBytes: a resource error (errno EFBIG; the CLI
// exits 3), not an invalid session. line() is physical and 1-based.
class LineTooLong : public std::system_error {
 public:
  explicit LineTooLong(std::size_t line);
  std::size_t line() const noexcept { return line_; }

 private:
  std::size_t line_;
};

// A message whose canonical line (SPEC.md §3, without its `\n`) is longer
// than kMaxLineBytes: the loader would refuse that line, so no writer
// (append_session, Session::append, run_agent) writes it, and nothing of
// its batch is written (SPEC.md §8). A line can print longer than it was
// read: `1e20` is 4 bytes, its canonical form 21. A resource error, as
// LineTooLong is (errno EFBIG; the CLI exits 3).
class MessageTooLong : public std::system_error {
 public:
  MessageTooLong(std::size_t index, std::size_t batch_size, std::size_t bytes);
  // The message's 0-based position in its batch.
  std::size_t index() const noexcept { return index_; }
  // Its canonical line's length in bytes.
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::size_t index_;
  std::size_t bytes_;
};

// Loads a session from its raw bytes (standard input, a fuzzer's buffer).
// The rules of SPEC.md §2: split on `\n`; a line of zero bytes is
// skipped; anything else, a lone `\r` or a byte-order mark included, must
// be a JSON message; a trailing `\r` is JSON whitespace.
// Throws SessionError as load_session does, and LineTooLong.
std::vector<Message> load_session_from_memory(std::string_view bytes);

// Loads a session from a stream (standard input) a piece at a time, as
// load_session reads a file: the input is never held whole, and an endless
// line stops at kMaxLineBytes. Exceptions thrown by the stream's buffer
// (a read error) propagate. Throws SessionError, LineTooLong.
std::vector<Message> load_session_from_stream(std::istream& in);

// A session as load_session (a path) or load_session_from_stream (a
// stream) loads it, plus the physical line (1-based, counting the empty
// lines loading skips) each message was read from: what a tool that points
// into the file needs (the CLI's `units` and budget errors). Same errors.
struct NumberedSession {
  std::vector<Message> messages;
  std::vector<std::size_t> lines;  // lines[i] is the line of messages[i]
};
// What loading a path that does not exist gives: an empty session (the
// chapter's rule, SPEC.md §2: no session yet), or an error, std::system_error
// ENOENT "cannot open session file 'PATH'" (a command line's FILE, SPEC.md
// §6: a typo must not look like an empty session). The open that reads the
// file decides, so no check before it can race a file's removal.
enum class MissingFile { empty_session, error };
NumberedSession load_numbered_session(const std::filesystem::path& path,
                                      MissingFile missing = MissingFile::empty_session);
NumberedSession load_numbered_session(std::istream& in);

// How far an append pushes its bytes toward the disk before returning.
// This library's promise beyond SPEC.md §1-§6: see SPEC.md §8.
enum class SyncPolicy {
  // The default: the bytes are in the kernel's
  // page cache when the append returns. They survive the process dying
  // (a crash, SIGKILL), not the machine losing power.
  none,
  // fdatasync(2) on the file after every append, and fsync(2) on its
  // directory when the append created the file: when the append returns,
  // the lines are on stable storage (as far as the disk honours flushes).
  // Costs one disk flush per append (milliseconds on a spinning disk).
  data,
};

struct AppendOptions {
  SyncPolicy sync = SyncPolicy::none;
};

// Appends the canonical line of `message` plus `\n` to the file at `path`,
// creating it (mode 0600: sessions hold whatever tools printed) if needed.
// Same contract as the batch form below, for a batch of one.
void append_session(const std::filesystem::path& path, const Message& message, const AppendOptions& options = {});

// Appends the canonical lines of all `messages`, in order (SPEC.md §3:
// each canonical serialization plus `\n`), all or nothing.
//
// Promised (SPEC.md §8):
// - Every message is serialized before the file is touched: a
//   SerializationError leaves the file as it was, and so does a canonical
//   line longer than the loader loads (MessageTooLong).
// - The batch goes out under an exclusive flock(2) on the file, as one
//   write(2) on an O_APPEND descriptor (looping only over short writes):
//   concurrent appenders, threads or processes, that use this function
//   never interleave or weld lines. load_session takes a shared lock, so it
//   never sees half a batch either. Writers that do not lock (`echo >>`)
//   get no such promise.
// - A write that fails part-way (disk full, RLIMIT_FSIZE, an I/O error) is
//   rolled back with ftruncate(2) to the size measured under the lock, and
//   the error is thrown: a failed append leaves the file byte-identical.
//   So does a failed fdatasync under SyncPolicy::data; if its rollback
//   fails too, the error says so and names `agent-session repair`, and
//   the pending-sync mark left after the batch makes the next append (or
//   repair) cut the batch off first, so a retry writes it once (SPEC.md
//   §8, "Sync policy"). SyncPolicy::data opens the directory for its fsync
//   before anything is made: one it cannot read (mode 0300) is refused.
// - Lines are never welded onto a torn last line. If the file does not end
//   in `\n`: when its last line is a valid message, the batch starts with a
//   `\n`; when it is not (a writer killed mid-write), nothing is written
//   and SessionError is thrown exactly as load_session would throw it for
//   that line (`agent-session repair` cuts such a line off).
// - `path` itself must not be a symbolic link (O_NOFOLLOW: ELOOP), so a
//   link planted there never redirects the append; it must be a regular
//   file (a FIFO or device: EINVAL). A new file is mode 0600 before it has a name
//   (O_TMPFILE, fchmod, linkat), whatever the umask.
// Not promised: anything across power loss with SyncPolicy::none; locking
// on network filesystems whose flock is not shared between machines; a
// process killed mid-write leaves a prefix of the batch: its first lines,
// whole, then at most one torn last line, which load_session refuses and
// repair_session (repair.hpp) removes.
// The caller must ignore SIGXFSZ (signal(SIGXFSZ, SIG_IGN)), as the CLI
// does: otherwise RLIMIT_FSIZE kills the process mid-write instead of
// failing the write with EFBIG, which is rolled back.
//
// Throws SerializationError, MessageTooLong (both before the file is
// opened), SessionError (see above), or
// std::system_error with the failing call's errno (EISDIR, ENOSPC, EFBIG,
// EIO, ENOLCK, ELOOP...); in every case the file is as it was, except that
// a failed first append may leave the empty file it created.
void append_session(const std::filesystem::path& path, std::span<const Message> messages,
                    const AppendOptions& options = {});

}  // namespace agent_session
