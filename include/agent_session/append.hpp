// Appending to the session file: every message's canonical line (SPEC.md
// §3), all or nothing, under a lock, never welded onto a torn line.
//
// Spec: SPEC.md §3 (what an append writes) and, for this library, §8
// (durable, concurrency-safe appends).
//
// Example:
//   namespace as = agent_session;
//   as::append_session("s.jsonl", as::UserMessage{"hello"});
//   const std::vector<as::Message> batch = {as::UserMessage{"a"}, as::UserMessage{"b"}};
//   as::append_session("s.jsonl", batch, {.sync = as::SyncPolicy::data});   // all or nothing, synced
#pragma once

#include "agent_session/message.hpp"
#include "agent_session/session.hpp"

#include <cstddef>
#include <filesystem>
#include <span>
#include <system_error>

namespace agent_session {

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
