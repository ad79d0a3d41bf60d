// An LD_PRELOAD library that makes one system call fail, for the I/O
// fault-injection test (tests/fault_injection_test.cpp), in the manner of
// SQLite's: the test first runs an operation counting the calls it makes,
// then runs it again once per call, each time failing just that one.
//
// Only calls on files under FAULT_DIR (paths, and descriptors opened from
// such paths) are counted or failed, so the loader, the locale and the
// standard streams are never touched. Environment:
//   FAULT_DIR      absolute directory whose files are watched (required)
//   FAULT_COUNTS   file to write "call count" lines to at exit
//   FAULT_CALL     the call to fail: open, fstat, fchmod, flock, read,
//                  pread, lseek, write, fdatasync, fsync, ftruncate, rename,
//                  link (linkat, naming an O_TMPFILE file)
//   FAULT_NTH      which watched call of that name fails (1-based)
//   FAULT_ERRNO    the errno it fails with (default EIO)
//   FAULT_PARTIAL  1: a failing write first writes half its bytes for
//                  real and reports them; the next watched write fails
//                  (a disk filling up mid-batch)
//   FAULT_PERSIST  1: every later watched call of any name fails too
//                  (the rollback then fails as well)
//   FAULT_NO_TMPFILE  1: open(O_TMPFILE) fails with EOPNOTSUPP, uncounted,
//                  as on a filesystem without it (the fallback's test)
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

constexpr int kMaxFd = 4096;
constexpr const char* kNames[] = {"open",  "fstat",     "fchmod", "flock",     "read",   "pread", "lseek",
                                  "write", "fdatasync", "fsync",  "ftruncate", "rename", "link"};
enum Call {
  kOpen,
  kFstat,
  kFchmod,
  kFlock,
  kRead,
  kPread,
  kLseek,
  kWrite,
  kFdatasync,
  kFsync,
  kFtruncate,
  kRename,
  kLink,
  kCalls
};

bool watched_fd[kMaxFd];
long counts[kCalls];
bool failing_from_now = false;  // FAULT_PERSIST after the first fault
bool fail_next_write = false;   // FAULT_PARTIAL after the half write

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

bool under_dir(const char* path) {
  const char* dir = env("FAULT_DIR");
  if (dir == nullptr || path == nullptr) return false;
  const std::size_t n = std::strlen(dir);
  return std::strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool is_watched(int fd) { return fd >= 0 && fd < kMaxFd && watched_fd[fd]; }

// Counts a watched call; true when it must fail (errno is then set).
bool fault(Call call) {
  const long nth = ++counts[call];
  const char* name = env("FAULT_CALL");
  const char* wanted = env("FAULT_NTH");
  bool fail = failing_from_now;
  if (name != nullptr && wanted != nullptr && std::strcmp(name, kNames[call]) == 0 && nth == std::atol(wanted)) {
    fail = true;
    if (env("FAULT_PERSIST") != nullptr) failing_from_now = true;
  }
  if (!fail) return false;
  const char* error = env("FAULT_ERRNO");
  errno = error != nullptr ? std::atoi(error) : EIO;
  return true;
}

template <class F>
F real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

int watched_open(const char* symbol, int dirfd, const char* path, int flags, mode_t mode) {
  const bool watched = under_dir(path);
  if (watched && (flags & O_TMPFILE) == O_TMPFILE && env("FAULT_NO_TMPFILE") != nullptr) {
    errno = EOPNOTSUPP;
    return -1;
  }
  if (watched && fault(kOpen)) return -1;
  int fd;
  if (dirfd == AT_FDCWD && std::strcmp(symbol, "openat") != 0 && std::strcmp(symbol, "openat64") != 0) {
    fd = real<int (*)(const char*, int, ...)>(symbol)(path, flags, mode);
  } else {
    fd = real<int (*)(int, const char*, int, ...)>(symbol)(dirfd, path, flags, mode);
  }
  if (fd >= 0 && fd < kMaxFd) watched_fd[fd] = watched;
  return fd;
}

mode_t mode_argument(int flags, va_list args) {
  return (flags & (O_CREAT | O_TMPFILE)) != 0 ? static_cast<mode_t>(va_arg(args, int)) : 0;
}

struct CountsAtExit {
  ~CountsAtExit() {
    const char* file = env("FAULT_COUNTS");
    if (file == nullptr) return;
    std::FILE* out = std::fopen(file, "w");
    if (out == nullptr) return;
    for (int call = 0; call < kCalls; ++call) std::fprintf(out, "%s %ld\n", kNames[call], counts[call]);
    std::fclose(out);
  }
} counts_at_exit;

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_argument(flags, args);
  va_end(args);
  return watched_open("open", AT_FDCWD, path, flags, mode);
}
int open64(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_argument(flags, args);
  va_end(args);
  return watched_open("open64", AT_FDCWD, path, flags, mode);
}
int openat(int dirfd, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_argument(flags, args);
  va_end(args);
  return watched_open("openat", dirfd, path, flags, mode);
}
int close(int fd) {
  if (fd >= 0 && fd < kMaxFd) watched_fd[fd] = false;
  return real<int (*)(int)>("close")(fd);
}
int fstat(int fd, struct stat* info) {
  if (is_watched(fd) && fault(kFstat)) return -1;
  return real<int (*)(int, struct stat*)>("fstat")(fd, info);
}
int fstat64(int fd, struct stat64* info) {
  if (is_watched(fd) && fault(kFstat)) return -1;
  return real<int (*)(int, struct stat64*)>("fstat64")(fd, info);
}
int fchmod(int fd, mode_t mode) {
  if (is_watched(fd) && fault(kFchmod)) return -1;
  return real<int (*)(int, mode_t)>("fchmod")(fd, mode);
}
int flock(int fd, int operation) {
  if (is_watched(fd) && fault(kFlock)) return -1;
  return real<int (*)(int, int)>("flock")(fd, operation);
}
ssize_t read(int fd, void* buffer, size_t size) {
  if (is_watched(fd) && fault(kRead)) return -1;
  return real<ssize_t (*)(int, void*, size_t)>("read")(fd, buffer, size);
}
ssize_t pread(int fd, void* buffer, size_t size, off_t offset) {
  if (is_watched(fd) && fault(kPread)) return -1;
  return real<ssize_t (*)(int, void*, size_t, off_t)>("pread")(fd, buffer, size, offset);
}
ssize_t pread64(int fd, void* buffer, size_t size, off_t offset) {
  if (is_watched(fd) && fault(kPread)) return -1;
  return real<ssize_t (*)(int, void*, size_t, off_t)>("pread64")(fd, buffer, size, offset);
}
off_t lseek(int fd, off_t offset, int whence) {
  if (is_watched(fd) && fault(kLseek)) return -1;
  return real<off_t (*)(int, off_t, int)>("lseek")(fd, offset, whence);
}
off_t lseek64(int fd, off_t offset, int whence) {
  if (is_watched(fd) && fault(kLseek)) return -1;
  return real<off_t (*)(int, off_t, int)>("lseek64")(fd, offset, whence);
}
ssize_t write(int fd, const void* buffer, size_t size) {
  const auto write_for_real = real<ssize_t (*)(int, const void*, size_t)>("write");
  if (!is_watched(fd)) return write_for_real(fd, buffer, size);
  if (fail_next_write) {
    ++counts[kWrite];
    errno = ENOSPC;
    return -1;
  }
  if (!fault(kWrite)) return write_for_real(fd, buffer, size);
  if (env("FAULT_PARTIAL") == nullptr || size < 2) return -1;
  fail_next_write = true;
  return write_for_real(fd, buffer, size / 2);
}
int fdatasync(int fd) {
  if (is_watched(fd) && fault(kFdatasync)) return -1;
  return real<int (*)(int)>("fdatasync")(fd);
}
int fsync(int fd) {
  if (is_watched(fd) && fault(kFsync)) return -1;
  return real<int (*)(int)>("fsync")(fd);
}
int ftruncate(int fd, off_t size) {
  if (is_watched(fd) && fault(kFtruncate)) return -1;
  return real<int (*)(int, off_t)>("ftruncate")(fd, size);
}
int ftruncate64(int fd, off_t size) {
  if (is_watched(fd) && fault(kFtruncate)) return -1;
  return real<int (*)(int, off_t)>("ftruncate64")(fd, size);
}
int rename(const char* from, const char* to) {
  if (under_dir(to) && fault(kRename)) return -1;
  return real<int (*)(const char*, const char*)>("rename")(from, to);
}
int renameat2(int from_dir, const char* from, int to_dir, const char* to, unsigned int flags) {
  if (under_dir(to) && fault(kRename)) return -1;
  return real<int (*)(int, const char*, int, const char*, unsigned int)>("renameat2")(from_dir, from, to_dir, to,
                                                                                      flags);
}

int link(const char* from, const char* to) {
  if (under_dir(to) && fault(kLink)) return -1;
  return real<int (*)(const char*, const char*)>("link")(from, to);
}
int linkat(int from_dir, const char* from, int to_dir, const char* to, int flags) {
  if (under_dir(to) && fault(kLink)) return -1;
  return real<int (*)(int, const char*, int, const char*, int)>("linkat")(from_dir, from, to_dir, to, flags);
}

}  // extern "C"
