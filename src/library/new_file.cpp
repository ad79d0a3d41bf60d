#include "library/new_file.hpp"

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agent_session::library {
namespace {

// Takes errno before the message is built: building it may allocate, and
// an allocation may change errno.
template <class What>
[[noreturn]] void throw_errno(What&& what) {
  const int error = errno;
  throw std::system_error(error, std::generic_category(), what());
}

// O_TMPFILE's errors where the filesystem (EOPNOTSUPP) or the kernel
// (EISDIR, EINVAL: older than 3.11) lacks it, not where the call failed.
bool no_tmpfile_here(int error) { return error == EOPNOTSUPP || error == EISDIR || error == EINVAL; }

// Owner-only whatever the umask: open's mode is filtered by it.
void make_owner_only(int fd, const std::filesystem::path& for_name) {
  if (::fchmod(fd, 0600) != 0) throw_errno([&] { return "cannot set mode 0600 on the new " + for_name.string(); });
}

}  // namespace

NewFile NewFile::in_directory(const std::filesystem::path& dir, int access, const std::filesystem::path& for_name) {
  const std::filesystem::path where = dir.empty() ? "." : dir;
  int fd = ::open(where.c_str(), O_TMPFILE | access | O_CLOEXEC, 0600);
  std::filesystem::path temp;
  if (fd < 0 && no_tmpfile_here(errno)) {
    // A short name: `for_name` may already be as long as NAME_MAX allows.
    const std::string base = (where / ("agent-session.tmp-" + std::to_string(::getpid()))).string();
    constexpr int kAttempts = 100;
    for (int k = 0; fd < 0; ++k) {
      temp = k == 0 ? base : base + "-" + std::to_string(k);
      fd = ::open(temp.c_str(), access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0 && (errno != EEXIST || k + 1 == kAttempts))
        throw_errno([&] { return "cannot create " + temp.string(); });
    }
  } else if (fd < 0) {
    throw_errno([&] { return "cannot create " + for_name.string() + " (a new file in " + where.string() + ")"; });
  }
  NewFile made(fd, std::move(temp));
  make_owner_only(made.fd_, for_name);
  return made;
}

NewFile::NewFile(NewFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)), temp_(std::move(other.temp_)) {
  other.temp_.clear();
}

NewFile::~NewFile() {
  if (!temp_.empty()) ::unlink(temp_.c_str());
  if (fd_ >= 0) ::close(fd_);
}

bool NewFile::link_as(const std::filesystem::path& name) {
  int result;
  if (temp_.empty()) {
    // /proc/self/fd/N names the unnamed file for linkat; without /proc,
    // AT_EMPTY_PATH does it (before Linux 6.10 only with CAP_DAC_READ_SEARCH).
    const std::string self = "/proc/self/fd/" + std::to_string(fd_);
    result = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW);
    if (result != 0 && errno == ENOENT && ::access("/proc/self/fd", F_OK) != 0) {
      result = ::linkat(fd_, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH);
    }
  } else {
    result = ::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, name.c_str(), RENAME_NOREPLACE);
    if (result == 0) temp_.clear();
  }
  if (result == 0) return true;
  if (errno == EEXIST) return false;
  throw_errno([&] { return "cannot give the new file its name " + name.string(); });
}

int NewFile::release() { return std::exchange(fd_, -1); }

}  // namespace agent_session::library
