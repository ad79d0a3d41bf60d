#include "cli/subprocess.hpp"

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

// A runaway port must not eat the machine's memory before its timeout.
constexpr std::size_t kMaxOutput = std::size_t{1} << 28;

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

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(char* const* argv, const Pipe& in, const Pipe& out, const Pipe& err,
                             const Pipe& status, const sigset_t& mask) {
  ::setpgid(0, 0);  // its own process group, so a timeout kills its children too
  ::signal(SIGPIPE, SIG_DFL);
  ::pthread_sigmask(SIG_SETMASK, &mask, nullptr);
  if (::dup2(in.read.get(), 0) < 0 || ::dup2(out.write.get(), 1) < 0 || ::dup2(err.write.get(), 2) < 0) {
    ::_exit(127);
  }
  ::execvp(argv[0], argv);
  const int error = errno;  // tell the parent why, through the close-on-exec pipe
  [[maybe_unused]] const ssize_t n = ::write(status.write.get(), &error, sizeof error);
  ::_exit(127);
}

// The errno the child sent when exec failed, or 0 when exec succeeded
// (the close-on-exec pipe closed without a word).
int exec_error(Fd& status_read) {
  int error = 0;
  ssize_t n;
  do {
    n = ::read(status_read.get(), &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof error) ? error : 0;
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) throw_errno("fcntl");
}

// Reads what is available into `sink`; closes `fd` at end of file.
void drain(Fd& fd, std::string& sink) {
  char chunk[1 << 16];
  const ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
  if (n > 0) {
    sink.append(chunk, static_cast<std::size_t>(n));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    fd.reset();
  }
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

// Serves the three pipes until both outputs are closed, the deadline
// passes or the output outgrows kMaxOutput. Returns how it ended.
ProcessEnd pump(Fd& to_child, Fd& from_out, Fd& from_err, std::string_view input, ProcessResult& result,
          std::chrono::steady_clock::time_point deadline) {
  std::size_t written = 0;
  if (input.empty()) to_child.reset();
  while (from_out.get() >= 0 || from_err.get() >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return ProcessEnd::timed_out;
    if (result.out.size() + result.err.size() > kMaxOutput) return ProcessEnd::output_limit;
    std::array<pollfd, 3> fds{{{to_child.get(), POLLOUT, 0}, {from_out.get(), POLLIN, 0}, {from_err.get(), POLLIN, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left.count() + 1, 1000)));
    if (ready < 0 && errno != EINTR) throw_errno("poll");
    if (ready <= 0) continue;
    if (fds[0].revents != 0) feed(to_child, input, written);
    if (fds[1].revents != 0) drain(from_out, result.out);
    if (fds[2].revents != 0) drain(from_err, result.err);
  }
  return ProcessEnd::exited;
}

// Waits for the child; with `kill_first`, its process group dies first
// (the child itself too, unless it has already exited).
int reap(pid_t pid, bool kill_first) {
  if (kill_first) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw_errno("waitpid");
  }
  return status;
}

// Waits, bounded by the deadline, until the child has exited (a program
// may close its outputs and keep running), without reaping it: while it is
// a zombie its process group id cannot be reused, so the caller can still
// kill what it left behind.
bool wait_until(pid_t pid, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
      if (errno != EINTR) throw_errno("waitid");
    } else if (info.si_pid == pid) {
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    ::usleep(1000);
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, std::string_view input,
                          std::chrono::milliseconds timeout) {
  ProcessResult result;
  if (argv.empty()) {
    result.error = "no command";
    return result;
  }
  std::vector<char*> c_argv;  // prepared before fork: the child may not allocate
  for (const auto& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
  c_argv.push_back(nullptr);

  const SigpipeBlock sigpipe_block;
  Pipe in = make_pipe(), out = make_pipe(), err = make_pipe(), status = make_pipe();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const pid_t pid = ::fork();
  if (pid < 0) throw_errno("fork");
  if (pid == 0) exec_child(c_argv.data(), in, out, err, status, sigpipe_block.previous());

  in.read.reset();
  out.write.reset();
  err.write.reset();
  status.write.reset();
  if (const int error = exec_error(status.read); error != 0) {
    reap(pid, false);
    result.error = "cannot run '" + argv[0] + "': " + std::strerror(error);
    return result;
  }
  set_nonblocking(in.write.get());
  ProcessEnd end = pump(in.write, out.read, err.read, input, result, deadline);
  if (end == ProcessEnd::exited && !wait_until(pid, deadline)) end = ProcessEnd::timed_out;
  // Leftovers in its group (a backgrounded grandchild) must not outlive the run.
  const int wait_status = reap(pid, true);
  if (end != ProcessEnd::exited) {
    result.end = end;
    return result;
  }
  if (WIFSIGNALED(wait_status)) {
    result.end = ProcessEnd::signaled;
    result.signal = WTERMSIG(wait_status);
  } else {
    result.end = ProcessEnd::exited;
    result.exit_code = WEXITSTATUS(wait_status);
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
      text << "wrote more than " << (kMaxOutput >> 20) << " MiB (killed)";
      break;
    case ProcessEnd::not_started:
      text << result.error;
      break;
  }
  return text.str();
}

}  // namespace agent_session::cli
