// The one owner of a POSIX file descriptor: closed on every path out,
// errors included; movable, never copied. For the library, the command
// and the conformance runner alike.
#pragma once

#include <utility>

#include <unistd.h>

namespace agent_session::base {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) noexcept : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    reset(std::exchange(other.fd_, -1));
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  // The descriptor, or -1 when there is none.
  int get() const noexcept { return fd_; }
  // Gives the descriptor up to the caller, who closes it.
  int release() noexcept { return std::exchange(fd_, -1); }
  // Closes the descriptor held (a close error has nothing left to report
  // to), then holds `fd`.
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace agent_session::base
