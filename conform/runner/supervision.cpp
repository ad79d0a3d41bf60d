#include "conform/runner/supervision.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>

namespace agent_session::conform::runner::supervision {

namespace {

// Every supervisor not yet reaped, for stop_every_supervisor. Held for
// good by the signal path, so that no supervisor is started, or reaped
// (its pid freed for another process), after it has looked. Never
// destroyed: a process held by a static object is reaped at exit, after
// the statics of this file would have been.
std::mutex& live_mutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
std::vector<pid_t>& live() {
  static auto* pids = new std::vector<pid_t>;
  return *pids;
}

// The signals a clean end (runner/clean_ends.hpp) blocked in every
// thread, a bit each: a program gets them back as it would have had them.
std::atomic<unsigned long> held_for_clean_ends{0};

}  // namespace

void hold_for_clean_ends(const sigset_t& signals) {
  unsigned long bits = 0;
  for (int sig = 1; sig < 64; ++sig) bits |= sigismember(&signals, sig) == 1 ? 1ul << sig : 0;
  held_for_clean_ends = bits;
}

void stop_every_supervisor(Clock::time_point until) noexcept {
  live_mutex().lock();  // never unlocked: the process exits holding it
  const std::vector<pid_t>& pids = live();
  for (const pid_t pid : pids) {
    ::kill(pid, SIGTERM);  // it kills its program's tree, reports and exits
    ::kill(pid, SIGCONT);
  }
  const auto exited = [](pid_t pid) {
    siginfo_t info{};
    // WNOWAIT: the thread that started it still reaps it, if it gets to.
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0;
  };
  while (Clock::now() < until && !std::all_of(pids.begin(), pids.end(), exited)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (const pid_t pid : pids) {
    if (!exited(pid)) ::kill(pid, SIGKILL);
  }
}

namespace {

// The descriptor for a stream on a path, or none.
Fd open_stream(const StreamSource& source, int access, const char* name) {
  if (source.kind != StreamSource::Kind::path) return Fd();
  Fd fd(::open(source.path.c_str(), access | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    throw std::system_error(errno, std::generic_category(),
                            "cannot open " + source.path + " for the program's standard " + name);
  }
  return fd;
}

}  // namespace

void throw_errno(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe2");
  return {Fd(fds[0]), Fd(fds[1])};
}

SigpipeBlock::SigpipeBlock() {
  sigset_t pipe_only;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &previous_);
}

SigpipeBlock::~SigpipeBlock() {
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

void Supervisor::shut() noexcept {
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

void Supervisor::stop() const {
  if (pid_ < 0) return;
  ::kill(pid_, SIGTERM);
  ::kill(pid_, SIGCONT);
}

int Supervisor::finish(Clock::time_point until) {
  if (pid_ < 0) return 0;
  char discarded[sizeof(SupervisorReport)];
  while (report_.get() >= 0 && wait_readable(report_.get(), until)) {
    const ssize_t n = ::read(report_.get(), discarded, sizeof discarded);
    if (n == 0 || (n < 0 && errno != EINTR)) report_.reset();
  }
  if (report_.get() >= 0) ::kill(pid_, SIGKILL);
  return reap();
}

// Bounded: the supervisor has closed its last descriptor in exit, or has
// been sent SIGKILL.
int Supervisor::reap() {
  {
    const std::lock_guard lock(live_mutex());  // before its pid is freed
    auto& pids = live();
    pids.erase(std::remove(pids.begin(), pids.end(), pid_), pids.end());
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return status;
}

void set_death(int wait_status, ProcessResult& result) {
  if (WIFSIGNALED(wait_status)) {
    result.signal = WTERMSIG(wait_status);
  } else {
    result.exit_code = WEXITSTATUS(wait_status);
  }
}

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

Started start_supervised(const std::vector<std::string>& argv, const sigset_t& program_mask, Clock::time_point deadline,
                         const WorkingFolder& folder, const StandardStreams& streams) {
  Started started;
  std::vector<char*> c_argv;  // prepared before fork: the children may not allocate
  for (const auto& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
  c_argv.push_back(nullptr);
  Pipe in = make_pipe(), out = make_pipe(), err = make_pipe(), status = make_pipe(), report = make_pipe();
  // A stream on a path is opened here, before fork (the child may only
  // make async-signal-safe calls); its descriptor takes the pipe end's
  // place, and the pipe's other end is never handed out.
  const Fd in_file = open_stream(streams.in, O_RDONLY, "input");
  const Fd out_file = open_stream(streams.out, O_WRONLY, "output");
  const bool close_in = streams.in.kind == StreamSource::Kind::closed;
  const bool close_out = streams.out.kind == StreamSource::Kind::closed;
  // A closed stream's number is held in the helpers by the error pipe's
  // end, a placeholder the program closes just before exec.
  const int in_fd = in_file.get() >= 0 ? in_file.get() : close_in ? err.write.get() : in.read.get();
  const int out_fd = out_file.get() >= 0 ? out_file.get() : close_out ? err.write.get() : out.write.get();
  sigset_t mask = program_mask;
  for (int sig = 1; sig < 64; ++sig) {
    if ((held_for_clean_ends >> sig) & 1) sigdelset(&mask, sig);
  }
  const SupervisorLaunch launch{c_argv.data(),      folder.fd, in_fd,     out_fd,
                                err.write.get(),    close_in,  close_out, status.write.get(),
                                report.write.get(), mask,      ::getpid()};
  std::unique_lock lock(live_mutex());  // a clean end that has begun waits for none started after it
  live().reserve(live().size() + 1);
  const pid_t pid = ::fork();
  if (pid < 0) throw_errno("fork");
  if (pid == 0) run_supervisor(launch);
  live().push_back(pid);
  lock.unlock();
  started.supervisor = Supervisor(pid, std::move(report.read));
  in.read.reset();
  out.write.reset();
  err.write.reset();
  status.write.reset();
  report.write.reset();
  // The close-on-exec pipe closes without a word when exec succeeds. The
  // parent holds it until just after its fork: a program that stops its
  // parent at once is found here, and the word says so.
  if (!wait_readable(status.read.get(), deadline)) {
    started.outcome = Started::stuck;
    return started;
  }
  if (StartFailure failure{}; read_whole(status.read.get(), failure)) {
    started.supervisor.stop();  // there is nothing left to run
    started.supervisor.finish(Clock::now() + kGrace);
    if (failure.in_fork == 1) throw std::system_error(failure.error, std::generic_category(), "fork");
    started.error = failure.in_fork == 2
                        ? "cannot enter the working folder '" + folder.path + "': " + std::strerror(failure.error)
                        : "cannot run '" + argv[0] + "': " + std::strerror(failure.error);
    started.error_number = failure.error;
    started.no_folder = failure.in_fork == 2;
    return started;
  }
  started.outcome = Started::running;
  if (streams.in.kind == StreamSource::Kind::pipe) started.in = std::move(in.write);
  if (streams.out.kind == StreamSource::Kind::pipe) started.out = std::move(out.read);
  started.err = std::move(err.read);
  return started;
}

}  // namespace agent_session::conform::runner::supervision
