#include "cli/confined_read.hpp"
#include "base/utf8.hpp"

#include "base/descriptor.hpp"
#include "base/printable.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__linux__) && __has_include(<linux/openat2.h>) && defined(SYS_openat2)
#include <linux/openat2.h>
#define AGENT_SESSION_HAVE_OPENAT2 1
#endif

namespace agent_session::cli {

using base::valid_utf8_prefix;
namespace {

namespace fs = std::filesystem;

// The kernel's own limit on symlinks in one resolution (MAXSYMLINKS).
constexpr int kMaxSymlinks = 40;
// How often the walk looks again at a part that stopped being a symlink
// between two calls (a rename racing it) before it gives up (EAGAIN).
constexpr int kMaxRaces = 1000;

// How the file itself is opened: O_NONBLOCK so a FIFO never waits for a
// writer, O_NOCTTY so a terminal never becomes ours. No lock is taken.
constexpr int kReadFlags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;

#ifdef O_PATH
constexpr int kDirectoryFlags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
#else
constexpr int kDirectoryFlags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC;
#endif

using Descriptor = base::Fd;

// A descriptor, or the errno of the failure (EXDEV: the path leaves the root).
struct Opened {
  Descriptor fd;
  int error = 0;
};

Opened failed(int error) { return {Descriptor(), error}; }

#ifdef AGENT_SESSION_HAVE_OPENAT2
// The kernel caches "no openat2" once it has said ENOSYS.
std::atomic<bool> kernel_lacks_openat2{false};

Opened open_with_openat2(int root, const std::string& relative) {
  open_how how{};
  how.flags = static_cast<std::uint64_t>(kReadFlags);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  // EAGAIN: a rename or mount raced a `..`; the kernel asks for a retry.
  for (int attempt = 0; attempt < 16; ++attempt) {
    const long fd = ::syscall(SYS_openat2, root, relative.c_str(), &how, sizeof how);
    if (fd >= 0) return {Descriptor(static_cast<int>(fd)), 0};
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return failed(errno);
  }
  return failed(EAGAIN);
}
#endif

// The parts of a relative path; a trailing slash keeps a final "." so the
// part before it must be a directory, as the kernel requires.
void push_parts(std::deque<std::string>& parts, std::string_view path) {
  std::deque<std::string> found;
  for (std::size_t start = 0; start <= path.size();) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    if (end > start) found.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  if (!path.empty() && path.back() == '/') found.emplace_back(".");
  parts.insert(parts.begin(), found.begin(), found.end());
}

// The component walk, for kernels without openat2: every part is opened
// with O_NOFOLLOW relative to the directory before it, so no symlink is
// ever followed by the kernel. A symlink's text is read and its parts
// resolved the same way, from the directory that holds it; `..` pops the
// stack of directories this walk opened, so it is the directory the path
// came through, and a `..` at the root is an escape (EXDEV), as with
// RESOLVE_BENEATH. A magic link's text is an absolute path or a name like
// pipe:[N], never a way out: refused, or not found beneath the root.
Opened open_with_walk(int root, const std::string& relative) {
  std::vector<Descriptor> directories;  // beneath root; root itself is not owned
  const auto current = [&] { return directories.empty() ? root : directories.back().get(); };
  std::deque<std::string> rest;
  push_parts(rest, relative);
  int symlinks = 0, races = 0;
  while (!rest.empty()) {
    const std::string part = std::move(rest.front());
    rest.pop_front();
    if (part == ".") continue;
    if (part == "..") {
      if (directories.empty()) return failed(EXDEV);
      directories.pop_back();
      continue;
    }
    if (rest.empty()) {
      Descriptor file(::openat(current(), part.c_str(), kReadFlags | O_NOFOLLOW));
      if (file.get() >= 0) return {std::move(file), 0};
      if (errno != ELOOP) return failed(errno);  // ELOOP with O_NOFOLLOW: the last part is a symlink
    } else {
      // With O_PATH a symlink opens as itself; without, O_NOFOLLOW says ELOOP.
      Descriptor next(::openat(current(), part.c_str(), kDirectoryFlags));
      if (next.get() < 0 && errno != ELOOP) return failed(errno);
      if (next.get() >= 0) {
        struct stat info {};
        if (::fstat(next.get(), &info) != 0) return failed(errno);
        if (S_ISDIR(info.st_mode)) {
          directories.push_back(std::move(next));
          continue;
        }
        if (!S_ISLNK(info.st_mode)) return failed(ENOTDIR);
      }
    }
    if (++symlinks > kMaxSymlinks) return failed(ELOOP);
    char target[4096];
    const ssize_t length = ::readlinkat(current(), part.c_str(), target, sizeof target);
    if (length < 0) {
      // Replaced by something that is not a symlink since: look again,
      // and the link it no longer is does not count toward kMaxSymlinks.
      if (errno == EINVAL) {
        if (++races > kMaxRaces) return failed(EAGAIN);
        --symlinks;
        rest.push_front(part);
        continue;
      }
      return failed(errno);
    }
    if (static_cast<std::size_t>(length) == sizeof target) return failed(ENAMETOOLONG);
    if (length == 0) return failed(ENOENT);
    if (target[0] == '/') return failed(EXDEV);
    push_parts(rest, std::string_view(target, static_cast<std::size_t>(length)));
  }
  // The path ends at a directory (".", "..", a trailing slash): opened so
  // that it is refused for what it is.
  Descriptor file(::openat(current(), ".", kReadFlags));
  if (file.get() < 0) return failed(errno);
  return {std::move(file), 0};
}

Opened open_beneath(int root, const std::string& relative, Resolver resolver) {
#ifdef AGENT_SESSION_HAVE_OPENAT2
  if (resolver == Resolver::kernel || (resolver == Resolver::automatic && !kernel_lacks_openat2)) {
    Opened opened = open_with_openat2(root, relative);
    if (resolver == Resolver::kernel) return opened;
    if (opened.error == ENOSYS) kernel_lacks_openat2 = true;
    // ENOSYS: an old kernel; EPERM: a seccomp filter that does not know
    // openat2; EAGAIN: renames that kept racing. The walk answers all three.
    if (opened.error != ENOSYS && opened.error != EPERM && opened.error != EAGAIN) return opened;
  }
#else
  if (resolver == Resolver::kernel) return failed(ENOSYS);
#endif
  return open_with_walk(root, relative);
}

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument("read_file: " + why); }

[[noreturn]] void fail(const std::string& why) { throw std::runtime_error("read_file: " + why); }

[[noreturn]] void refuse_open(int error, const std::string& relative, const fs::path& root) {
  switch (error) {
    case EXDEV: refuse(relative + " is outside the directory " + root.string());
    case ENOENT: fail("no such file: " + relative);
    case ENOTDIR: refuse(relative + ": a part of the path is not a directory");
    case ELOOP:
      refuse(relative + ": more than " + std::to_string(kMaxSymlinks) +
             " symbolic links, or a /proc magic link (never followed)");
    default: fail("cannot open " + relative + ": " + std::strerror(error));
  }
}

}  // namespace

std::string read_confined(const fs::path& root, const std::string& relative, Resolver resolver) {
  if (relative.empty()) refuse("the path is empty");
  if (relative.find('\0') != std::string::npos) refuse("the path holds a NUL byte");
  if (relative.front() == '/') refuse("absolute paths are refused: " + relative);

#ifdef O_PATH
  const Descriptor root_fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
#else
  const Descriptor root_fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
#endif
  if (root_fd.get() < 0) fail("cannot open the directory " + root.string() + ": " + std::strerror(errno));
  Opened opened = open_beneath(root_fd.get(), relative, resolver);
  if (opened.fd.get() < 0) refuse_open(opened.error, relative, root);
  const Descriptor file = std::move(opened.fd);

  // What was opened decides, not what the path named a moment earlier.
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) fail("cannot stat " + relative + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) refuse("not a regular file: " + relative);

  // Capped by the bytes read, never by st_size: a file may grow after the
  // fstat, and procfs files say 0. One byte past the cap proves "larger".
  std::string bytes(kMaxReadBytes + 1, '\0');
  std::size_t total = 0;
  while (total < bytes.size()) {
    const ssize_t n = ::read(file.get(), bytes.data() + total, bytes.size() - total);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot read " + relative + ": " + std::strerror(errno));
    }
    total += static_cast<std::size_t>(n);
  }
  if (total > kMaxReadBytes) refuse(relative + " is larger than " + std::to_string(kMaxReadBytes) + " bytes");
  bytes.resize(total);
  if (valid_utf8_prefix(bytes) != bytes.size()) refuse(relative + " is not UTF-8 text");
  return bytes;
}

}  // namespace agent_session::cli
