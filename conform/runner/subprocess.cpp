#include "runner/subprocess.hpp"

#include "base/descriptor.hpp"
#include "runner/supervisor.hpp"

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


using internal::Fd;

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

using Clock = std::chrono::steady_clock;

// Reads exactly one `T` from `fd`, blocking (callers poll first); false
// at end of file first.
template <typename T>
bool read_whole(int fd, T& value) {
  ssize_t n;
  do {
    n = ::read(fd, &value, sizeof value);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof value);
}

// Waits until `fd` can be read (or is at end of file) or `until` passes;
// false in the second case.
bool wait_readable(int fd, Clock::time_point until) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count() + 1, 1000)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) throw_errno("poll");
  }
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
  Fd to_child, from_out, from_err;
};

// How pump ended: how the program's run did, or the supervisor's death.
enum class PumpEnd { reported, timed_out, output_limit, supervisor_died };

// Serves the pipes until the supervisor has reported the program's end
// and both outputs are closed, the deadline passes or an output outgrows
// `limit`. `report` receives the supervisor's word.
PumpEnd pump(Streams& s, int report_fd, std::string_view input, ProcessResult& result, Clock::time_point deadline,
             SupervisorReport& report, bool& reported) {
  std::size_t written = 0;
  if (input.empty()) s.to_child.reset();
  while (s.from_out.get() >= 0 || s.from_err.get() >= 0 || !reported) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return PumpEnd::timed_out;
    std::array<pollfd, 4> fds{{{s.to_child.get(), POLLOUT, 0},
                               {s.from_out.get(), POLLIN, 0},
                               {s.from_err.get(), POLLIN, 0},
                               {reported ? -1 : report_fd, POLLIN, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left.count() + 1, 1000)));
    if (ready < 0 && errno != EINTR) throw_errno("poll");
    if (ready <= 0) continue;
    if (fds[0].revents != 0) feed(s.to_child, input, written);
    if (fds[1].revents != 0 && drain(s.from_out, result.out, result.output_limit)) {
      result.overflowed = "standard output";
      return PumpEnd::output_limit;
    }
    if (fds[2].revents != 0 && drain(s.from_err, result.err, result.output_limit)) {
      result.overflowed = "standard error";
      return PumpEnd::output_limit;
    }
    if (fds[3].revents != 0) {
      // The word is written whole (it is smaller than PIPE_BUF) just
      // before the supervisor exits: end of file first means it died.
      if (!read_whole(report_fd, report)) return PumpEnd::supervisor_died;
      reported = true;
    }
  }
  return PumpEnd::reported;
}

// How long a supervisor has to report and exit once it is told to stop
// (or has reported) before it is killed: ample for killing a port's tree,
// and a bound on what a supervisor that someone keeps stopping can cost.
constexpr auto kGrace = std::chrono::seconds(5);

// The supervisor, never waited for without a bound: it holds the only
// write end of the report pipe, whose end of file tells us it has exited;
// past the grace it is killed (SIGKILL ends a stopped process too). On a
// path out by exception it is stopped and waited for the same way, so
// that nothing outlives the call.
class Supervisor {
 public:
  Supervisor(pid_t pid, Fd report) : pid_(pid), report_(std::move(report)) {}
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;
  ~Supervisor() {
    if (pid_ < 0) return;
    stop();
    try {
      finish(Clock::now() + kGrace);
    } catch (...) {  // poll failed: kill it, and wait below
    }
    if (pid_ >= 0) {
      ::kill(pid_, SIGKILL);
      reap();
    }
  }
  int report() const { return report_.get(); }
  // It answers by killing the program and everything it left, then
  // reports and exits. SIGCONT: a supervisor stopped by someone answers
  // too (one that is stopped again is killed at the grace's end).
  void stop() const {
    ::kill(pid_, SIGTERM);
    ::kill(pid_, SIGCONT);
  }
  // Waits for the supervisor's exit until `until`, kills it then, and
  // reaps it; returns its wait status. What is left of its report is
  // discarded.
  int finish(Clock::time_point until) {
    char discarded[sizeof(SupervisorReport)];
    while (report_.get() >= 0 && wait_readable(report_.get(), until)) {
      const ssize_t n = ::read(report_.get(), discarded, sizeof discarded);
      if (n == 0 || (n < 0 && errno != EINTR)) report_.reset();
    }
    if (report_.get() >= 0) ::kill(pid_, SIGKILL);
    return reap();
  }

 private:
  // Bounded: the supervisor has closed its last descriptor in exit, or
  // has been sent SIGKILL.
  int reap() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }
  pid_t pid_;
  Fd report_;
};

// How a helper died, from its wait status.
void set_death(int wait_status, ProcessResult& result) {
  if (WIFSIGNALED(wait_status)) {
    result.signal = WTERMSIG(wait_status);
  } else {
    result.exit_code = WEXITSTATUS(wait_status);
  }
}

// The program's end from the supervisor's word, once it has reported.
void set_end(const SupervisorReport& word, ProcessResult& result) {
  if (word.parent_end == kParentKilled) {
    result.end = ProcessEnd::parent_killed;
    set_death(word.parent_status, result);
  } else if (WIFSIGNALED(word.wait_status)) {
    result.end = ProcessEnd::signaled;
    result.signal = WTERMSIG(word.wait_status);
  } else {
    result.end = ProcessEnd::exited;
    result.exit_code = WEXITSTATUS(word.wait_status);
  }
}

// A run past its deadline: the supervisor is told to stop and its word,
// unless it came already (`word`), is awaited until `grace_end`; it says
// whether the program had stopped its parent, which explains the timeout.
void timed_out(Supervisor& supervisor, Clock::time_point grace_end, ProcessResult& result,
               const SupervisorReport* word = nullptr) {
  supervisor.stop();
  SupervisorReport awaited{};
  if (word == nullptr && wait_readable(supervisor.report(), grace_end) && read_whole(supervisor.report(), awaited)) {
    word = &awaited;
  }
  supervisor.finish(grace_end);
  result.end = ProcessEnd::timed_out;
  if (word != nullptr && word->parent_end == kParentStopped) {
    result.end = ProcessEnd::parent_stopped;
    result.signal = word->parent_status;
  }
}

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
  const auto deadline = Clock::now() + timeout;
  const pid_t pid = ::fork();
  if (pid < 0) throw_errno("fork");
  if (pid == 0) run_supervisor(launch);
  Supervisor supervisor(pid, std::move(report.read));

  in.read.reset();
  out.write.reset();
  err.write.reset();
  status.write.reset();
  report.write.reset();
  // The close-on-exec pipe closes without a word when exec succeeds; a
  // start that outlasts the deadline (helpers someone stopped) times out.
  // The parent holds it until just after its fork: a program that stops
  // its parent at once is found here, and the word says so.
  if (!wait_readable(status.read.get(), deadline)) {
    timed_out(supervisor, Clock::now() + kGrace, result);
    return result;
  }
  if (StartFailure failure{}; read_whole(status.read.get(), failure)) {
    supervisor.stop();  // there is nothing left to run
    supervisor.finish(Clock::now() + kGrace);
    if (failure.in_fork) throw std::system_error(failure.error, std::generic_category(), "fork");
    result.error = "cannot run '" + argv[0] + "': " + std::strerror(failure.error);
    return result;
  }
  set_nonblocking(in.write.get());
  Streams streams{std::move(in.write), std::move(out.read), std::move(err.read)};
  SupervisorReport word{};
  bool reported = false;
  const PumpEnd end = pump(streams, supervisor.report(), input, result, deadline, word, reported);
  const auto grace_end = Clock::now() + kGrace;  // one grace for the word and the exit
  if (end == PumpEnd::timed_out) {
    timed_out(supervisor, grace_end, result, reported ? &word : nullptr);
    return result;
  }
  if (end == PumpEnd::output_limit) supervisor.stop();
  const int supervisor_status = supervisor.finish(grace_end);
  if (end == PumpEnd::reported) {
    set_end(word, result);
  } else if (end == PumpEnd::output_limit) {
    result.end = ProcessEnd::output_limit;
  } else {
    result.end = ProcessEnd::supervisor_killed;
    set_death(supervisor_status, result);
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
    case ProcessEnd::parent_killed:
    case ProcessEnd::supervisor_killed:
      text << (result.end == ProcessEnd::parent_killed ? "its parent process, the runner's helper,"
                                                        : "the runner's supervisor process");
      if (result.signal != 0) {
        text << " was killed by signal " << result.signal << " (" << ::strsignal(result.signal) << ")";
      } else {
        text << " ended with exit " << result.exit_code;
      }
      if (result.end == ProcessEnd::supervisor_killed) text << "; what the port started may still run";
      break;
    case ProcessEnd::parent_stopped:
      text << "its parent process, the runner's helper, was stopped by signal " << result.signal << " ("
           << ::strsignal(result.signal) << ") and killed at the " << static_cast<double>(timeout.count()) / 1000.0
           << " s timeout";
      break;
  }
  return text.str();
}

}  // namespace agent_session::cli
