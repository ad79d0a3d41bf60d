#include "library/posix_file.hpp"

#include "base/descriptor.hpp"
#include "base/printable.hpp"
#include "entry/read_file.hpp"

#include "library/new_file.hpp"
#include "library/pending_sync.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agent_session::library {
namespace {

// flock(2) waits for the other holder; a signal handler may interrupt it.
void lock(int fd, int operation, const std::filesystem::path& path) {
  while (::flock(fd, operation) != 0) {
    if (errno != EINTR) entry::throw_errno("cannot lock session", path);
  }
}

// Writes all of `bytes` at the descriptor's position (the end, with
// O_APPEND). Returns 0, or the errno of the write that failed.
int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;  // no progress and no errno: never loop forever
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

std::filesystem::path directory_of(const std::filesystem::path& path) {
  return path.parent_path().empty() ? "." : path.parent_path();
}

// The directory of `path`, open for its fsync, opened before anything is
// made (SPEC.md §8): fsync needs a descriptor open for reading (O_PATH
// will not do), and a directory that can be written and searched but not
// read (mode 0300) would otherwise fail only after the work was done,
// leaving a file nobody synced. `what` says what is refused.
int open_directory_for_sync(const std::filesystem::path& path, const std::string& what) {
  const std::filesystem::path dir = directory_of(path);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) return fd;
  const int error = errno;
  throw std::system_error(error, std::generic_category(),
                          what + " " + base::quoted(path.string()) + ": its directory " + base::quoted(dir.string()) +
                              " cannot be opened for reading, which its fsync needs; nothing was changed");
}

// Writers never follow a symlink at the session path (SPEC.md §8): a link
// planted there would redirect the append into any file the user can
// write. O_NONBLOCK: opening a FIFO must not wait for a reader; the
// descriptor is then refused as not a regular file.
constexpr int kWriterFlags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;

[[noreturn]] void throw_open_error(const char* what, const std::filesystem::path& path) {
  if (errno == ELOOP) {
    throw std::system_error(ELOOP, std::generic_category(),
                            std::string(what) + " " + base::quoted(path.string()) +
                                ": it is a symbolic link, and sessions are never written through one "
                                "(name the link's target instead)");
  }
  entry::throw_errno(what, path);
}

// A writer's descriptor must be a regular file: a FIFO would block the
// write, a device would swallow it, and neither can be rolled back.
void require_regular_file(int fd, const char* what, const std::filesystem::path& path) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) entry::throw_errno(what, path);
  if (!S_ISREG(info.st_mode)) {
    throw std::system_error(EINVAL, std::generic_category(),
                            std::string(what) + " " + base::quoted(path.string()) + ": not a regular file");
  }
}

}  // namespace

LockedFile::LockedFile(base::Fd file, std::filesystem::path path) : fd_(std::move(file)), path_(std::move(path)) {}

LockedFile LockedFile::for_append(const std::filesystem::path& path, bool sync) {
  base::Fd dir(-1);
  base::Fd file(-1);
  // An existing file is opened; a missing one is made whole (mode 0600)
  // and then given its name, never replacing one: the other appenders of
  // a new session either find no file or one they can open. EEXIST means
  // another appender named it first, so we open theirs; ENOENT after it
  // means it was removed again, a race retried a bounded number of times.
  constexpr int kAttempts = 100;
  for (int attempt = 0; file.get() < 0; ++attempt) {
    if (attempt == kAttempts) {
      throw std::system_error(EAGAIN, std::generic_category(),
                              "cannot open session for append " + base::quoted(path.string()) +
                                  ": it was created and removed " + std::to_string(kAttempts) +
                                  " times while we opened it");
    }
    // Read access too: the torn-tail check reads the last line.
    file.reset(::open(path.c_str(), O_RDWR | O_APPEND | kWriterFlags));
    if (file.get() >= 0) break;
    if (errno != ENOENT) throw_open_error("cannot open session for append", path);
    if (sync && dir.get() < 0) dir.reset(open_directory_for_sync(path, "cannot create synced session"));
    NewFile made = NewFile::in_directory(directory_of(path), O_RDWR | O_APPEND, path);
    if (made.link_as(path)) file.reset(made.release());
  }
  require_regular_file(file.get(), "cannot append to session", path);
  lock(file.get(), LOCK_EX, path);
  LockedFile locked(std::move(file), path);
  // Measured only now: another writer may have appended while we waited.
  locked.size_ = entry::size_of(locked.fd_.get(), path);
  // An empty file may be what a failed first append left (its directory
  // entry never synced): a synced append to it syncs the directory too.
  if (sync && dir.get() < 0 && locked.size_ == 0) {
    dir.reset(open_directory_for_sync(path, "cannot sync the directory entry of the empty session"));
  }
  locked.dir_fd_ = std::move(dir);
  return locked;
}

LockedFile LockedFile::for_repair(const std::filesystem::path& path) {
  base::Fd file(::open(path.c_str(), O_RDWR | kWriterFlags));
  if (file.get() < 0) throw_open_error("cannot open session for repair", path);
  require_regular_file(file.get(), "cannot repair session", path);
  lock(file.get(), LOCK_EX, path);
  LockedFile locked(std::move(file), path);
  locked.size_ = entry::size_of(locked.fd_.get(), path);
  return locked;
}

std::string LockedFile::read_all() const {
  if (::lseek(fd_.get(), 0, SEEK_SET) < 0) entry::throw_errno("cannot seek session", path_);
  return entry::read_to_end(fd_.get(), static_cast<std::size_t>(size_), path_);
}

char LockedFile::last_byte() const {
  char byte = 0;
  for (;;) {
    const ssize_t n = ::pread(fd_.get(), &byte, 1, static_cast<off_t>(size_ - 1));
    if (n == 1) return byte;
    if (n < 0 && errno == EINTR) continue;
    entry::throw_errno(n < 0 ? errno : EIO, "cannot read session", path_);
  }
}

void LockedFile::append(std::string_view bytes) {
  const int error = write_all(fd_.get(), bytes);
  if (error == 0) {
    size_ += bytes.size();
    return;
  }
  // Part of the batch may be in the file: cut it back so that our own
  // failure never leaves a torn line. Safe under the lock: every byte past
  // size_ is ours.
  if (::ftruncate(fd_.get(), static_cast<off_t>(size_)) != 0) {
    throw std::system_error(error, std::generic_category(),
                            "cannot append to session " + base::quoted(path_.string()) +
                                ", and the rollback failed too (" + std::strerror(errno) +
                                "): the file may end in a torn line, see `agent-session repair`");
  }
  entry::throw_errno(error, "cannot append to session (rolled back)", path_);
}

void LockedFile::append_synced(std::string bytes, std::uint64_t rollback_size) {
  // The mark goes out with the batch: after a failure the process may not
  // be able to write or cut anything more (SPEC.md §8, pending_sync.hpp).
  const std::string mark = pending_sync_mark(rollback_size);
  bytes += mark;
  append(bytes);
  const std::uint64_t synced_size = size_ - mark.size();
  std::string what;
  if (::fdatasync(fd_.get()) != 0) {
    what = "cannot sync session " + base::quoted(path_.string());
  } else if (dir_fd_.get() >= 0 && ::fsync(dir_fd_.get()) != 0) {
    what = "cannot sync the directory entry of session " + base::quoted(path_.string());
  } else if (::ftruncate(fd_.get(), static_cast<off_t>(synced_size)) != 0) {
    what = "cannot cut the pending-sync mark off session " + base::quoted(path_.string());
  } else {
    size_ = synced_size;
    return;
  }
  const int error = errno;
  // The caller hears "not appended", so the batch must not stay behind
  // for a retry to duplicate.
  if (::ftruncate(fd_.get(), static_cast<off_t>(rollback_size)) == 0) {
    size_ = rollback_size;
    throw std::system_error(error, std::generic_category(), what + " (rolled back)");
  }
  throw std::system_error(error, std::generic_category(),
                          what + ", and the rollback failed too (" + std::strerror(errno) +
                              "): the batch stays behind a pending-sync mark, unacknowledged; the next append takes "
                              "it back before writing (a retry appends it once), or `agent-session repair --apply` "
                              "does now");
}

void LockedFile::cut(std::uint64_t size, const std::string& why) {
  if (::ftruncate(fd_.get(), static_cast<off_t>(size)) != 0) {
    const int error = errno;
    entry::throw_errno(error, "cannot cut to " + std::to_string(size) + " bytes (" + why + ") session", path_);
  }
  size_ = size;
}

void LockedFile::truncate_and_sync(std::uint64_t size) {
  if (::ftruncate(fd_.get(), static_cast<off_t>(size)) != 0) entry::throw_errno("cannot truncate session", path_);
  size_ = size;
  if (::fsync(fd_.get()) != 0) {
    const int error = errno;
    entry::throw_errno(error, "cut to " + std::to_string(size) + " bytes, but cannot sync the cut to disk: session",
                       path_);
  }
}

std::filesystem::path write_new_file_synced(std::string_view bytes,
                                            const std::function<std::filesystem::path(int)>& name_for, int attempts) {
  // The directory first: if it cannot be synced, nothing is made at all.
  const std::filesystem::path first = name_for(0);
  base::Fd dir(open_directory_for_sync(first, "cannot write the new file"));
  // The bytes go to a file with no final name yet, so that no final name
  // ever holds a partial copy: a failure (or a kill) leaves at most a
  // temporary file, never a short backup that looks complete.
  NewFile file = NewFile::in_directory(directory_of(first), O_WRONLY, first);
  if (const int error = write_all(file.fd(), bytes); error != 0) entry::throw_errno(error, "cannot write", first);
  if (::fsync(file.fd()) != 0) entry::throw_errno("cannot sync", first);
  for (int k = 0; k < attempts; ++k) {
    const std::filesystem::path name = name_for(k);
    if (!file.link_as(name)) continue;  // never replaces a file of that name
    if (::fsync(dir.get()) != 0) {
      // The name must not outlive the failure (see the header): without
      // the directory's fsync it might not survive a crash either.
      const int error = errno;
      ::unlink(name.c_str());
      throw std::system_error(error, std::generic_category(),
                              "cannot sync directory " + directory_of(name).string() + " after naming " +
                                  name.string() + ", so that name was removed again; nothing was changed");
    }
    return name;
  }
  throw std::system_error(
      EEXIST, std::generic_category(),
      "cannot find a free name for " + first.string() + " after " + std::to_string(attempts) + " tries");
}

}  // namespace agent_session::library
