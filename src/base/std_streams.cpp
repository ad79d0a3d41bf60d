#include "base/std_streams.hpp"

#include <cerrno>
#include <csignal>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace agent_session::base {
namespace {

[[noreturn]] void throw_errno(int error, const char* what) {
  throw std::system_error(error, std::generic_category(), what);
}

}  // namespace

DescriptorInput::DescriptorInput(int fd, bool closed) : fd_(fd), closed_(closed) {}

DescriptorInput::int_type DescriptorInput::underflow() {
  if (closed_) throw_errno(EBADF, "cannot read standard input");
  for (;;) {
    const ssize_t n = ::read(fd_, buffer_.data(), buffer_.size());
    if (n > 0) {
      setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
      return traits_type::to_int_type(buffer_[0]);
    }
    if (n == 0) return traits_type::eof();
    if (errno != EINTR) throw_errno(errno, "cannot read standard input");
  }
}

DescriptorOutput::DescriptorOutput(int fd, bool closed) : fd_(fd), closed_(closed) {
  setp(buffer_.data(), buffer_.data() + buffer_.size());
}

DescriptorOutput::~DescriptorOutput() {
  // The CLI flushes before it returns; what is left here was already
  // reported as failed.
  setp(buffer_.data(), buffer_.data() + buffer_.size());
}

void DescriptorOutput::write_buffered() {
  const char* next = pbase();
  const char* const end = pptr();
  setp(buffer_.data(), buffer_.data() + buffer_.size());  // dropped even on failure: never written twice
  if (next != end && closed_) throw_errno(EBADF, "cannot write standard output");
  while (next != end) {
    const ssize_t n = ::write(fd_, next, static_cast<std::size_t>(end - next));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno(errno, "cannot write standard output");
    if (n == 0) throw_errno(EIO, "cannot write standard output");
    next += n;
  }
}

DescriptorOutput::int_type DescriptorOutput::overflow(int_type c) {
  write_buffered();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int DescriptorOutput::sync() {
  write_buffered();
  return 0;
}

bool StandardStreams::hold_if_closed(int fd) {
  if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) return false;
  // open() takes the lowest free number, which is `fd` since 0..fd-1 are
  // already held.
  const int held = ::open("/dev/null", O_RDWR);
  if (held != fd && held >= 0) ::close(held);
  return true;
}

StandardStreams::StandardStreams()
    : closed_{hold_if_closed(0), hold_if_closed(1), hold_if_closed(2)},
      in_buffer_(0, closed_[0]),
      out_buffer_(1, closed_[1]),
      in_(&in_buffer_),
      out_(&out_buffer_) {
  // The buffers' exceptions reach the caller instead of a state bit.
  in_.exceptions(std::ios::badbit);
  out_.exceptions(std::ios::badbit);
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace agent_session::base
