// Reading a session file (SPEC.md §2: load_session(path)), on POSIX
// descriptors so that every failure keeps its own errno (std::ifstream
// would flatten it), under a shared flock so that an append in progress is
// seen whole or not at all. The writers (library/posix_file.hpp) share its
// error and reading helpers.
#pragma once

#include "base/descriptor.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace agent_session::entry {

// The whole file, or nullopt when it does not exist (ENOENT only). A
// regular file is read under a shared flock, so an append in progress is
// seen whole or not at all (unlocked where the filesystem has no flock).
// Any other failure throws std::system_error carrying its errno.
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path);

// As read_file_if_exists, for a regular file only: a FIFO, device or
// directory throws std::system_error (EINVAL, EISDIR) without blocking or
// reading (repair: a FIFO would block, /dev/zero would never end).
std::optional<std::string> read_regular_file_if_exists(const std::filesystem::path& path);

// A file open for reading, locked as read_file_if_exists locks it, for a
// reader that takes it piece by piece rather than whole (the loader: its
// peak memory). The lock is held until destruction.
class SharedReadFile {
 public:
  // nullopt when `path` does not exist (ENOENT only). Throws
  // std::system_error for any other failure.
  static std::optional<SharedReadFile> open_if_exists(const std::filesystem::path& path);

  SharedReadFile(SharedReadFile&&) noexcept = default;
  SharedReadFile& operator=(SharedReadFile&&) = delete;

  // Bytes in a regular file when opened; 0 for a pipe or a device.
  std::uint64_t size_when_opened() const { return size_; }
  // Reads up to `size` bytes into `buffer`: how many, 0 only at the end.
  // Throws std::system_error.
  std::size_t read_some(char* buffer, std::size_t size);
  // The rest of the file. Throws std::system_error.
  std::string read_rest();

 private:
  SharedReadFile(base::Fd file, std::filesystem::path path, std::uint64_t size);

  base::Fd fd_;  // closing it releases the flock
  std::filesystem::path path_;
  std::uint64_t size_;
};

// std::system_error carrying `error`, saying `what` of `path`.
[[noreturn]] void throw_errno(int error, const std::string& what, const std::filesystem::path& path);
// As above with errno, read before anything can allocate (and so touch it).
[[noreturn]] void throw_errno(const char* what, const std::filesystem::path& path);
// fstat(2)'s size of `fd`. Throws std::system_error.
std::uint64_t size_of(int fd, const std::filesystem::path& path);
// Reads from `fd`'s position to its end; `expected` bytes sizes the first
// buffer. Throws std::system_error.
std::string read_to_end(int fd, std::size_t expected, const std::filesystem::path& path);

}  // namespace agent_session::entry
