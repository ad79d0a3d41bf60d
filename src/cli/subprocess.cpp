#include "cli/subprocess.hpp"

#include "cli/supervisor.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <sstream>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agent_session::cli {
namespace {

[[noreturn]] void throw_errno(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

// One end of a pipe, closed on every path out.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    reset();
    fd_ = std::exchange(other.fd_, -1);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read, write;
};

// Close-on-exec, so no other child (another thread's port) inherits it.
Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe2");
  return {Fd(fds[0]), Fd(fds[1])};
}

// Blocks SIGPIPE in this thread for the lifetime of the guard; a SIGPIPE
// raised by a write to a closed pipe stays pending and is discarded before
// the mask is restored, so it never reaches the process.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &previous_);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;
  ~SigpipeBlock() {
    if (!sigismember(&previous_, SIGPIPE)) {
      sigset_t pipe_only;
      sigemptyset(&pipe_only);
      sigaddset(&pipe_only, SIGPIPE);
      const timespec no_wait{0, 0};
      while (sigtimedwait(&pipe_only, nullptr, &no_wait) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  const sigset_t& previous() const { return previous_; }

 private:
  sigset_t previous_;
};

// Reads exactly one `T` from `fd`, blocking; false at end of file first.
template <typename T>
bool read_whole(int fd, T& value) {
  ssize_t n;
  do {
    n = ::read(fd, &value, sizeof value);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof value);
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) throw_errno("fcntl");
}

// Reads what is available into `sink`, never past `limit` + 1 bytes;
// closes `fd` at end of file. True when the stream outgrew `limit`.
bool drain(Fd& fd, std::string& sink, std::size_t limit) {
  char chunk[1 << 16];
  std::size_t room = limit - sink.size();  // and one byte more, to see an overflow
  room = room < sizeof chunk ? room + 1 : sizeof chunk;
  const ssize_t n = ::read(fd.get(), chunk, room);
  if (n > 0) {
    sink.append(chunk, static_cast<std::size_t>(n));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    fd.reset();
  }
  if (sink.size() <= limit) return false;
  sink.resize(limit);
  return true;
}

// Writes what the pipe takes; closes `fd` when all is written or the
// program closed its end (EPIPE: it does not want the rest).
void feed(Fd& fd, std::string_view input, std::size_t& written) {
  if (written < input.size()) {
    const ssize_t n = ::write(fd.get(), input.data() + written, input.size() - written);
    if (n > 0) written += static_cast<std::size_t>(n);
    if (n < 0 && errno != EINTR && errno != EAGAIN) written = input.size();
  }
  if (written >= input.size()) fd.reset();
}

struct Streams {
  Fd to_child, from_out, from_err, report;
};

// Serves the pipes until the supervisor has reported the program's end
// and both outputs are closed, the deadline passes or an output outgrows
// `limit`. Returns how it ended; `report` receives the supervisor's word.
ProcessEnd pump(Streams& s, std::string_view input, ProcessResult& result,
                std::chrono::steady_clock::time_point deadline, SupervisorReport& report, bool& reported) {
  std::size_t written = 0;
  if (input.empty()) s.to_child.reset();
  while (s.from_out.get() >= 0 || s.from_err.get() >= 0 || !reported) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return ProcessEnd::timed_out;
    std::array<pollfd, 4> fds{{{s.to_child.get(), POLLOUT, 0},
                               {s.from_out.get(), POLLIN, 0},
                               {s.from_err.get(), POLLIN, 0},
                               {s.report.get(), POLLIN, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left.count() + 1, 1000)));
    if (ready < 0 && errno != EINTR) throw_errno("poll");
    if (ready <= 0) continue;
    if (fds[0].revents != 0) feed(s.to_child, input, written);
    if (fds[1].revents != 0 && drain(s.from_out, result.out, result.output_limit)) {
      result.overflowed = "standard output";
      return ProcessEnd::output_limit;
    }
    if (fds[2].revents != 0 && drain(s.from_err, result.err, result.output_limit)) {
      result.overflowed = "standard error";
      return ProcessEnd::output_limit;
    }
    if (fds[3].revents != 0) {
      if (!read_whole(s.report.get(), report)) throw std::runtime_error("the port's supervisor process died");
      reported = true;
      s.report.reset();
    }
  }
  return ProcessEnd::exited;
}

// Waits for the supervisor to exit. It has reported or been told to stop,
// so it is at most killing what the program left.
void reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw_errno("waitpid");
  }
}

// On a path out by exception, the supervisor is told to stop (it kills
// the program and what it left) and is reaped: nothing outlives the call.
class SupervisorGuard {
 public:
  explicit SupervisorGuard(pid_t pid) : pid_(pid) {}
  SupervisorGuard(const SupervisorGuard&) = delete;
  SupervisorGuard& operator=(const SupervisorGuard&) = delete;
  ~SupervisorGuard() {
    if (pid_ < 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  void stop() { ::kill(pid_, SIGTERM); }
  void reaped() { pid_ = -1; }

 private:
  pid_t pid_;
};

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, std::string_view input,
                          std::chrono::milliseconds timeout, std::size_t output_limit) {
  ProcessResult result;
  result.output_limit = output_limit;
  if (argv.empty()) {
    result.error = "no command";
    return result;
  }
  std::vector<char*> c_argv;  // prepared before fork: the children may not allocate
  for (const auto& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
  c_argv.push_back(nullptr);

  const SigpipeBlock sigpipe_block;
  Pipe in = make_pipe(), out = make_pipe(), err = make_pipe(), status = make_pipe(), report = make_pipe();
  const SupervisorLaunch launch{c_argv.data(), in.read.get(),    out.write.get(),          err.write.get(),
                                status.write.get(), report.write.get(), sigpipe_block.previous(), ::getpid()};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const pid_t supervisor = ::fork();
  if (supervisor < 0) throw_errno("fork");
  if (supervisor == 0) run_supervisor(launch);
  SupervisorGuard guard(supervisor);

  in.read.reset();
  out.write.reset();
  err.write.reset();
  status.write.reset();
  report.write.reset();
  // The close-on-exec pipe closes without a word when exec succeeds.
  if (StartFailure failure{}; read_whole(status.read.get(), failure)) {
    reap(supervisor);
    guard.reaped();
    if (failure.in_fork) throw std::system_error(failure.error, std::generic_category(), "fork");
    result.error = "cannot run '" + argv[0] + "': " + std::strerror(failure.error);
    return result;
  }
  set_nonblocking(in.write.get());
  Streams streams{std::move(in.write), std::move(out.read), std::move(err.read), std::move(report.read)};
  SupervisorReport word{};
  bool reported = false;
  const ProcessEnd end = pump(streams, input, result, deadline, word, reported);
  if (end != ProcessEnd::exited) {
    // It answers by killing the program and everything it left, then
    // reports; a supervisor that already reported has exited.
    guard.stop();
    if (!reported && !read_whole(streams.report.get(), word)) {
      throw std::runtime_error("the port's supervisor process died");
    }
  }
  reap(supervisor);
  guard.reaped();
  result.end = end;
  if (end != ProcessEnd::exited) return result;
  if (WIFSIGNALED(word.wait_status)) {
    result.end = ProcessEnd::signaled;
    result.signal = WTERMSIG(word.wait_status);
  } else {
    result.exit_code = WEXITSTATUS(word.wait_status);
  }
  return result;
}

std::string describe_end(const ProcessResult& result, std::chrono::milliseconds timeout) {
  std::ostringstream text;
  switch (result.end) {
    case ProcessEnd::exited:
      text << "exit " << result.exit_code;
      break;
    case ProcessEnd::signaled:
      text << "killed by signal " << result.signal << " (" << ::strsignal(result.signal) << ")";
      break;
    case ProcessEnd::timed_out:
      text << "timed out after " << static_cast<double>(timeout.count()) / 1000.0 << " s (killed)";
      break;
    case ProcessEnd::output_limit:
      text << "wrote more than " << result.output_limit << " bytes to " << result.overflowed << " (killed)";
      break;
    case ProcessEnd::not_started:
      text << result.error;
      break;
  }
  return text.str();
}

}  // namespace agent_session::cli
