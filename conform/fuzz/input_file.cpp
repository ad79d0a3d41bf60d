#include "conform/fuzz/input_file.hpp"

#include "base/descriptor.hpp"

#include <cerrno>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agent_session::conform::fuzz {

namespace fs = std::filesystem;
using base::Fd;

namespace {

// `name` in `folder` opened for writing if it is a regular file, never
// through a link or blocking on a FIFO; else what is there is removed and
// a new file made, exclusively.
Fd open_regular(int folder, const fs::path& file) {
  const std::string name = file.filename().string();
  const int flags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  Fd fd(::openat(folder, name.c_str(), flags | O_CREAT, 0600));
  struct stat info {};
  if (fd.get() >= 0 && ::fstat(fd.get(), &info) == 0 && S_ISREG(info.st_mode)) return fd;
  fd.reset();
  // A link (ELOOP), a FIFO (ENXIO: no reader), a folder (EISDIR), ...:
  // removed through the folder's descriptor, never through a path.
  runner::remove_at(folder, name, true);
  fd.reset(::openat(folder, name.c_str(), flags | O_CREAT | O_EXCL, 0600));
  if (fd.get() < 0) throw std::system_error(errno, std::generic_category(), "cannot write " + file.string());
  return fd;
}

}  // namespace

void write_input(int folder, const fs::path& file, const std::string& bytes) {
  const auto fail = [&file] {
    throw std::system_error(errno, std::generic_category(), "cannot write " + file.string());
  };
  const Fd fd = open_regular(folder, file);
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::pwrite(fd.get(), bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail();
    done += static_cast<std::size_t>(n);
  }
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes.size())) != 0) fail();
}

}  // namespace agent_session::conform::fuzz
