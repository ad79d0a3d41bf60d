#include "entry/read_file.hpp"

#include "base/descriptor.hpp"
#include "base/printable.hpp"

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agent_session::entry {

[[noreturn]] void throw_errno(int error, const std::string& what, const std::filesystem::path& path) {
  throw std::system_error(error, std::generic_category(), what + " " + base::quoted(path.string()));
}

// Reads errno before anything can allocate (and so touch it).
[[noreturn]] void throw_errno(const char* what, const std::filesystem::path& path) {
  const int error = errno;
  throw_errno(error, std::string(what), path);
}

std::uint64_t size_of(int fd, const std::filesystem::path& path) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw_errno("cannot stat session", path);
  return static_cast<std::uint64_t>(info.st_size);
}

// Reads from `fd`'s current position to its end, straight into the string
// (no chunk copy). One spare byte past `expected` lets the read that finds
// the end of a regular file succeed without growing the buffer; pipes grow
// it by doubling.
std::string read_to_end(int fd, std::size_t expected, const std::filesystem::path& path) {
  std::string bytes(std::max<std::size_t>(expected + 1, 1 << 16), '\0');
  std::size_t size = 0;
  for (;;) {
    if (size == bytes.size()) bytes.resize(2 * bytes.size());
    const ssize_t n = ::read(fd, bytes.data() + size, bytes.size() - size);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno("cannot read session", path);
    }
    size += static_cast<std::size_t>(n);
  }
  bytes.resize(size);
  return bytes;
}

namespace {

void lock_shared_if_supported(int fd, const std::filesystem::path& path) {
  while (::flock(fd, LOCK_SH) != 0) {
    if (errno == EINTR) continue;
    if (errno == ENOLCK || errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL) return;
    throw_errno("cannot lock session", path);
  }
}

}  // namespace

std::optional<std::string> read_file_if_exists(const std::filesystem::path& path) {
  std::optional<SharedReadFile> file = SharedReadFile::open_if_exists(path);
  if (!file) return std::nullopt;
  return file->read_rest();
}

std::optional<std::string> read_regular_file_if_exists(const std::filesystem::path& path) {
  base::Fd file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw_errno("cannot open session", path);
  }
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) throw_errno("cannot stat session", path);
  if (!S_ISREG(info.st_mode)) {
    throw std::system_error(S_ISDIR(info.st_mode) ? EISDIR : EINVAL, std::generic_category(),
                            "cannot read session " + base::quoted(path.string()) + ": not a regular file");
  }
  lock_shared_if_supported(file.get(), path);
  return read_to_end(file.get(), static_cast<std::size_t>(info.st_size), path);
}

std::optional<SharedReadFile> SharedReadFile::open_if_exists(const std::filesystem::path& path) {
  base::Fd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw_errno("cannot open session", path);
  }
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) throw_errno("cannot stat session", path);
  // Pipes and devices have no appenders to wait for. A filesystem that
  // cannot lock still loads, as before locks existed: the lock only keeps
  // an append in progress out of sight.
  if (S_ISREG(info.st_mode)) lock_shared_if_supported(file.get(), path);
  const std::uint64_t size = S_ISREG(info.st_mode) ? static_cast<std::uint64_t>(info.st_size) : 0;
  return SharedReadFile(std::move(file), path, size);
}

SharedReadFile::SharedReadFile(base::Fd file, std::filesystem::path path, std::uint64_t size)
    : fd_(std::move(file)), path_(std::move(path)), size_(size) {}

std::size_t SharedReadFile::read_some(char* buffer, std::size_t size) {
  for (;;) {
    const ssize_t n = ::read(fd_.get(), buffer, size);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) throw_errno("cannot read session", path_);
  }
}

std::string SharedReadFile::read_rest() { return read_to_end(fd_.get(), static_cast<std::size_t>(size_), path_); }

}  // namespace agent_session::entry
