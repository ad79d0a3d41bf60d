// Standard input and output for `agent-session`, over descriptors 0 and 1,
// with failures that say why. std::cout only sets a state bit when a write
// fails and loses the errno, so a full disk, /dev/full, a closed pipe or a
// closed descriptor would end in exit 0 with the output lost; here every
// failed read or write throws std::system_error with the call's errno
// (the CLI's exit 3).
#pragma once

#include <array>
#include <istream>
#include <ostream>
#include <streambuf>

namespace agent_session::base {

// Reads a descriptor; a failed read(2) throws std::system_error.
class DescriptorInput : public std::streambuf {
 public:
  explicit DescriptorInput(int fd, bool closed);

 protected:
  int_type underflow() override;

 private:
  int fd_;
  bool closed_;
  std::array<char, 1 << 16> buffer_{};
};

// Writes a descriptor; a failed write(2) throws std::system_error from
// the write that failed or from the flush (sync) that found it.
class DescriptorOutput : public std::streambuf {
 public:
  explicit DescriptorOutput(int fd, bool closed);
  ~DescriptorOutput() override;

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  void write_buffered();

  int fd_;
  bool closed_;
  std::array<char, 1 << 16> buffer_{};
};

// The process's standard streams, set up once in main():
// - SIGPIPE and SIGXFSZ are ignored, so a closed pipe or a file-size limit
//   is a write error (EPIPE, EFBIG) that is reported and rolled back,
//   never a signal that kills the process mid-write;
// - a descriptor 0, 1 or 2 that is closed at start is held open on
//   /dev/null, so that no file the command opens can take its number (a
//   session file opened as descriptor 1 would receive the output); reads
//   and writes of a closed standard descriptor still fail, with EBADF.
class StandardStreams {
 public:
  StandardStreams();
  StandardStreams(const StandardStreams&) = delete;
  StandardStreams& operator=(const StandardStreams&) = delete;

  std::istream& in() { return in_; }
  std::ostream& out() { return out_; }

 private:
  static bool hold_if_closed(int fd);

  bool closed_[3];
  DescriptorInput in_buffer_;
  DescriptorOutput out_buffer_;
  std::istream in_;
  std::ostream out_;
};

}  // namespace agent_session::base
