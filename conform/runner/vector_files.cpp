#include "conform/runner/vector_files.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agent_session::conform::runner {
namespace {

namespace fs = std::filesystem;
using base::Fd;

const char* const kNoLink = "; the runner follows no link out of a folder";

const char* file_kind(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void vector_problem(const std::string& text) { throw std::runtime_error(text); }

[[noreturn]] void not_regular(const std::string& shown, mode_t mode) {
  vector_problem(shown + " is " + file_kind(mode) + ", not a regular file" + (S_ISLNK(mode) ? kNoLink : ""));
}

// The bytes of the open file `fd`: a regular file, at most `limit`
// bytes (what may hold that many: `whose`), and, when `own` says why, with no other name (st_nlink 1): a
// hard link is as much a way out of a folder as a symbolic one, and the
// same file seen elsewhere (a secret, a file the port does not own) is
// not this folder's data (SPEC.md §6.1).
std::string read_opened(int fd, const std::string& shown, const char* own, std::size_t limit = kMaxVectorFile,
                        const char* whose = "a vector file") {
  struct stat info {};
  if (::fstat(fd, &info) != 0) vector_problem("cannot read " + shown + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) not_regular(shown, info.st_mode);
  if (own != nullptr && info.st_nlink > 1) {
    vector_problem(shown + " has " + std::to_string(info.st_nlink) + " links: " + own);
  }
  const auto too_large = [&](std::uintmax_t size) {
    vector_problem(shown + " holds " + std::to_string(size) + " bytes, more than the " + std::to_string(limit) + " " +
                   whose + " may");
  };
  if (static_cast<std::uintmax_t>(info.st_size) > limit) too_large(static_cast<std::uintmax_t>(info.st_size));
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(info.st_size));
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n == 0) return bytes;
    if (n < 0) {
      if (errno == EINTR) continue;
      vector_problem("cannot read " + shown + ": " + std::strerror(errno));
    }
    bytes.append(chunk, static_cast<std::size_t>(n));
    if (bytes.size() > limit) too_large(bytes.size());  // it grew while we read
  }
}

// `name` in `folder` opened for reading without blocking (O_NONBLOCK: a
// FIFO with no writer would block the open), a link followed only when
// `follow` says so. A failure says what the entry is when that explains it
// (a socket cannot be opened at all, a link is refused).
Fd open_for_reading(int folder, const std::string& name, const std::string& shown, bool follow) {
  const int fd =
      ::openat(folder, name.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
  if (fd >= 0) return Fd(fd);
  const int error = errno;
  struct stat info {};
  if (::fstatat(folder, name.c_str(), &info, follow ? 0 : AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(info.st_mode)) {
    not_regular(shown, info.st_mode);
  }
  vector_problem("cannot open " + shown + ": " + std::strerror(error));
}

}  // namespace

Fd open_folder(const fs::path& path) {
  Fd folder(::open(path.empty() ? "." : path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (folder.get() < 0) vector_problem("cannot open " + path.string() + ": " + std::strerror(errno));
  return folder;
}

Fd open_vector_folder(const fs::path& dir) {
  const Fd parent = open_folder(dir.parent_path());
  const std::string name = dir.filename().string();
  // O_PATH with O_NOFOLLOW would open a link itself: fstat then tells.
  Fd folder(::openat(parent.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  const int error = errno;
  struct stat info {};
  if (folder.get() < 0 && ::fstatat(parent.get(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
      !S_ISDIR(info.st_mode)) {
    vector_problem(std::string("the vector's folder is ") + file_kind(info.st_mode) + ", not a folder" +
                   (S_ISLNK(info.st_mode) ? kNoLink : ""));
  }
  if (folder.get() < 0) vector_problem(std::string("cannot open the vector's folder: ") + std::strerror(error));
  return folder;
}

std::string read_file_at(int folder, const std::string& name, const std::string& shown, const char* own) {
  const Fd file = open_for_reading(folder, name, shown, false);
  return read_opened(file.get(), shown, own);
}

std::string read_vector_file(const fs::path& dir, const std::string& name) {
  return read_file_at(open_vector_folder(dir).get(), name, name);
}

std::string read_named_file(const fs::path& path, std::size_t limit, const char* whose) {
  const std::string name = path.filename().string();
  try {
    const Fd file = open_for_reading(open_folder(path.parent_path()).get(), name, name, true);
    return read_opened(file.get(), name, nullptr, limit, whose);  // the user's own file, wherever its other names are
  } catch (const std::runtime_error& error) {
    // The reason alone: the caller names the file, by the path the user gave.
    std::string why = error.what();
    const std::string folder = path.parent_path().string();
    for (const std::string& prefix :
         {"cannot open " + name + ": ", "cannot read " + name + ": ", "cannot open " + folder + ": "}) {
      if (why.starts_with(prefix)) throw std::runtime_error(why.substr(prefix.size()));
    }
    if (why.starts_with(name + " ")) throw std::runtime_error("it " + why.substr(name.size() + 1));
    throw;
  }
}

// The vectors of `root`, in name order; `error` set when `root` cannot be
// listed (then nothing is returned).
std::vector<VectorDir> vector_dirs(const fs::path& root, std::error_code& error) {
  std::vector<VectorDir> dirs;
  fs::directory_iterator entry(root, error);
  for (; !error && entry != fs::directory_iterator(); entry.increment(error)) {
    std::error_code type_error;
    const bool is_link = entry->is_symlink(type_error);
    // Whether it is or leads to a folder: its type only, nothing is read.
    const bool is_directory = !type_error && entry->is_directory(type_error);
    if (type_error && type_error != std::errc::no_such_file_or_directory && type_error != std::errc::not_a_directory) {
      dirs.push_back({entry->path(), type_error.message(), {}, {}});  // a symlink loop, a permission
    } else if (is_directory && is_link) {
      dirs.push_back({entry->path(), std::string("a symbolic link to a folder, not a folder") + kNoLink, {}, {}});
    } else if (is_directory) {
      dirs.push_back({entry->path(), "", {}, {}});
    }
  }
  if (error) return {};
  std::sort(dirs.begin(), dirs.end(), [](const VectorDir& a, const VectorDir& b) { return a.path < b.path; });
  return dirs;
}

}  // namespace agent_session::conform::runner
