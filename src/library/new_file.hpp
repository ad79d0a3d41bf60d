// A new file that is mode 0600 before it has its final name (SPEC.md §8),
// for the session's first append and for repair's backups: another
// appender never sees the name with a mode it cannot open (under umask
// 0277, open(2) alone makes it 0400 until a fchmod), and a failure never
// leaves a half-made file under the final name.
#pragma once

#include <filesystem>

namespace agent_session::library {

class NewFile {
 public:
  // Creates an unnamed file in `dir` (O_TMPFILE) with `access` (O_RDWR |
  // O_APPEND, O_WRONLY), fchmod'ed to 0600. Where the filesystem has no
  // O_TMPFILE it is made under a short temporary name in `dir`
  // (`agent-session.tmp-<pid>-<n>`, O_EXCL), removed again if it never
  // gets its final name. Throws std::system_error naming `for_name`.
  static NewFile in_directory(const std::filesystem::path& dir, int access, const std::filesystem::path& for_name);

  NewFile(NewFile&& other) noexcept;
  NewFile& operator=(NewFile&&) = delete;
  NewFile(const NewFile&) = delete;
  NewFile& operator=(const NewFile&) = delete;
  // Closes the file if still held; removes the temporary name if any.
  ~NewFile();

  int fd() const { return fd_; }
  // Gives the file the name `name`, never replacing one (linkat, or
  // renameat2(RENAME_NOREPLACE) from the temporary name): true, or false
  // when `name` exists (EEXIST: another writer made it first). Throws
  // std::system_error for any other failure.
  bool link_as(const std::filesystem::path& name);
  // The descriptor, which the caller now owns.
  int release();

 private:
  NewFile(int fd, std::filesystem::path temp) : fd_(fd), temp_(std::move(temp)) {}

  int fd_;
  std::filesystem::path temp_;  // empty for an O_TMPFILE file
};

}  // namespace agent_session::library
