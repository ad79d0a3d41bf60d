// The file I/O the session layer needs, on POSIX descriptors so that every
// failure keeps its own errno (std::ifstream would flatten it), and so that
// appends can lock, write once, roll back and sync (SPEC.md "Durable,
// concurrency-safe appends").
#pragma once

#include "base/descriptor.hpp"
#include "entry/read_file.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace agent_session::library {

// A session file held under an exclusive flock(2) from construction to
// destruction (closing the descriptor releases the lock, also when the
// process dies). While it lives, no other locked writer or reader touches
// the file, so size() stays true and a rollback cannot cut their lines.
class LockedFile {
 public:
  // Opens `path` for appending (O_APPEND), creating it if it does not
  // exist: mode 0600 before it has its name (library/new_file.hpp). With
  // `sync`, the directory is opened for its fsync before anything is made
  // when the file is new, or found empty (what a failed first append
  // leaves); a directory that cannot be opened for reading (mode 0300) is
  // refused then, with nothing made. Throws std::system_error.
  static LockedFile for_append(const std::filesystem::path& path, bool sync);
  // Opens an existing `path` for reading and truncating. Throws
  // std::system_error (ENOENT included).
  static LockedFile for_repair(const std::filesystem::path& path);

  LockedFile(LockedFile&&) noexcept = default;
  LockedFile& operator=(LockedFile&&) = delete;

  // Bytes in the file, measured under the lock when opened and kept up to
  // date by append and truncate.
  std::uint64_t size() const { return size_; }
  // The whole file. Throws std::system_error.
  std::string read_all() const;
  // The last byte; the file must not be empty. Throws std::system_error.
  char last_byte() const;
  // Writes `bytes` at the end: one write(2), more only after a short one.
  // If any write fails, truncates back to size() and throws the write's
  // errno as std::system_error: the file is as it was.
  void append(std::string_view bytes);
  // As append, then fdatasync(2) the file, plus fsync(2) of its directory
  // when for_append opened it (a new or empty file). The bytes are followed
  // in the same write by a pending-sync mark (library/pending_sync.hpp),
  // cut off once they are synced. On any failure, rolls the file back to
  // `rollback_size` and throws std::system_error; if that rollback fails
  // too, the mark stays, the error says so and names `agent-session
  // repair`, and the next append (or repair) takes the batch back first.
  void append_synced(std::string bytes, std::uint64_t rollback_size);
  // Cuts the file to `size` bytes, without a sync. Throws std::system_error.
  void cut(std::uint64_t size, const std::string& why);
  // Cuts the file to `size` bytes and fsyncs it. Throws std::system_error.
  void truncate_and_sync(std::uint64_t size);

 private:
  LockedFile(base::Fd file, std::filesystem::path path);

  base::Fd fd_;      // closing it releases the flock
  base::Fd dir_fd_;  // the directory, open for its fsync, or none
  std::filesystem::path path_;
  std::uint64_t size_ = 0;
};

// Writes `bytes` to a new file, complete or not at all. The directory of
// name_for(0) is opened for its fsync first (failing, nothing is made);
// the bytes go to a file with no name yet (library/new_file.hpp: mode
// 0600 whatever the umask), fsynced, then linked as the first of
// name_for(0), name_for(1), ... name_for(attempts - 1) that does not exist
// (never replacing one), and the directory fsynced. Returns the name used.
// Throws std::system_error; on any failure no temporary file stays and no
// final name is made (one made before a failed directory fsync is removed).
std::filesystem::path write_new_file_synced(std::string_view bytes,
                                            const std::function<std::filesystem::path(int)>& name_for, int attempts);

}  // namespace agent_session::library
