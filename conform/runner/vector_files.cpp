#include "runner/vector_files.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include "base/descriptor.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agent_session::cli {
namespace {

namespace fs = std::filesystem;

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

using Descriptor = internal::Fd;

[[noreturn]] void vector_problem(const std::string& text) { throw std::runtime_error(text); }

}  // namespace

// `dir/name` without ever blocking: opened with O_NONBLOCK (a FIFO with no
// writer would block the open), then only a regular file is read (the
// opened descriptor is checked, not the path), at most kMaxVectorFile bytes.
std::string read_vector_file(const fs::path& dir, const std::string& name) {
  const fs::path path = dir / name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat info {};
  if (fd < 0) {
    const int error = errno;  // a socket cannot be opened at all: say what it is
    if (::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
      vector_problem(name + " is " + file_kind(info.st_mode) + ", not a regular file");
    }
    vector_problem("cannot open " + name + ": " + std::strerror(error));
  }
  const Descriptor file(fd);
  if (::fstat(fd, &info) != 0) vector_problem("cannot read " + name + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) vector_problem(name + " is " + file_kind(info.st_mode) + ", not a regular file");
  const auto too_large = [&](std::uintmax_t size) {
    vector_problem(name + " holds " + std::to_string(size) + " bytes, more than the " + std::to_string(kMaxVectorFile) +
                   " a vector file may");
  };
  if (static_cast<std::uintmax_t>(info.st_size) > kMaxVectorFile) too_large(static_cast<std::uintmax_t>(info.st_size));
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(info.st_size));
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n == 0) return bytes;
    if (n < 0) {
      if (errno == EINTR) continue;
      vector_problem("cannot read " + name + ": " + std::strerror(errno));
    }
    bytes.append(chunk, static_cast<std::size_t>(n));
    if (bytes.size() > kMaxVectorFile) too_large(bytes.size());  // it grew while we read
  }
}

// The vectors of `root`, in name order; `error` set when `root` cannot be
// listed (then nothing is returned).
std::vector<VectorDir> vector_dirs(const fs::path& root, std::error_code& error) {
  std::vector<VectorDir> dirs;
  fs::directory_iterator entry(root, error);
  for (; !error && entry != fs::directory_iterator(); entry.increment(error)) {
    std::error_code type_error;
    const bool is_directory = entry->is_directory(type_error);
    if (type_error && type_error != std::errc::no_such_file_or_directory && type_error != std::errc::not_a_directory) {
      dirs.push_back({entry->path(), type_error.message(), {}});  // a symlink loop, a permission
    } else if (is_directory) {
      dirs.push_back({entry->path(), "", {}});
    }
  }
  if (error) return {};
  std::sort(dirs.begin(), dirs.end(), [](const VectorDir& a, const VectorDir& b) { return a.path < b.path; });
  return dirs;
}

}  // namespace agent_session::cli
