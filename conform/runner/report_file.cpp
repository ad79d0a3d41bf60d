#include "conform/runner/report_file.hpp"

#include "base/descriptor.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agent_session::conform::runner {
namespace {

std::string not_regular(mode_t mode) {
  const char* kind = S_ISLNK(mode)    ? "a symbolic link"
                     : S_ISFIFO(mode) ? "a FIFO"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISDIR(mode)  ? "a folder"
                     : S_ISSOCK(mode) ? "a socket"
                                      : "something else";
  return std::string("it is ") + kind + ", not a regular file (a report is written only to one)";
}

std::string system_reason(int error) { return std::strerror(error); }

}  // namespace

std::optional<std::string> write_report_file(const std::string& path, std::string_view bytes) {
  // O_NOFOLLOW: a link there is ELOOP, never followed. O_NONBLOCK: a FIFO
  // without a reader is ENXIO at once; one with a reader opens and is
  // refused below. No O_TRUNC: what is not a regular file is left whole.
  base::Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666));
  struct stat info {};
  if (fd.get() < 0) {
    const int error = errno;
    // Say what is there when that is why (ELOOP, ENXIO, EISDIR, ...).
    if (::lstat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) return not_regular(info.st_mode);
    return system_reason(error);
  }
  if (::fstat(fd.get(), &info) != 0) return system_reason(errno);
  if (!S_ISREG(info.st_mode)) return not_regular(info.st_mode);
  if (::ftruncate(fd.get(), 0) != 0) return system_reason(errno);
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return system_reason(errno);
    if (n == 0) return system_reason(EIO);
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd.release()) != 0) return system_reason(errno);
  return std::nullopt;
}

}  // namespace agent_session::conform::runner
