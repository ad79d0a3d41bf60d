#include "internal/posix_file.hpp"

#include <cerrno>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agent_session::internal {
namespace {

[[noreturn]] void throw_errno(const char* what, const std::filesystem::path& path) {
  throw std::system_error(errno, std::generic_category(), std::string(what) + " " + path.string());
}

// Closes on every path out, errors included.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::optional<std::string> read_file_if_exists(const std::filesystem::path& path) {
  Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw_errno("cannot open session", path);
  }
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) throw_errno("cannot stat session", path);
  std::string bytes;
  bytes.reserve(S_ISREG(info.st_mode) ? static_cast<std::size_t>(info.st_size) : 0);
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.get(), chunk, sizeof chunk);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno("cannot read session", path);
    }
    bytes.append(chunk, static_cast<std::size_t>(n));
  }
  return bytes;
}

void append_to_file(const std::filesystem::path& path, std::string_view bytes) {
  Descriptor file(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (file.get() < 0) throw_errno("cannot open session for append", path);
  while (!bytes.empty()) {
    const ssize_t n = ::write(file.get(), bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno("cannot append to session", path);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace agent_session::internal
