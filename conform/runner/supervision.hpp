// What run_process (runner/subprocess.hpp) and a long-lived port
// (runner/live_process.hpp) share: pipes, the SIGPIPE guard, bounded waits,
// and the handle on a program started under its supervisor
// (runner/supervisor.hpp), which kills the program's whole tree when told
// to stop and is itself never waited for without a bound.
#pragma once

#include "base/descriptor.hpp"
#include "conform/runner/subprocess.hpp"
#include "conform/runner/supervisor.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>
#include <unistd.h>

namespace agent_session::conform::runner::supervision {

using Clock = std::chrono::steady_clock;
using base::Fd;

[[noreturn]] void throw_errno(const char* what);

struct Pipe {
  Fd read, write;
};

// Close-on-exec, so no other child (another thread's port) inherits it.
Pipe make_pipe();

// Blocks SIGPIPE in this thread for the lifetime of the guard; a SIGPIPE
// raised by a write to a closed pipe stays pending and is discarded before
// the mask is restored, so it never reaches the process.
class SigpipeBlock {
 public:
  SigpipeBlock();
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;
  ~SigpipeBlock();
  const sigset_t& previous() const { return previous_; }

 private:
  sigset_t previous_;
};

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
bool wait_readable(int fd, Clock::time_point until);

void set_nonblocking(int fd);

// How long a supervisor has to report and exit once it is told to stop
// (or has reported) before it is killed: ample for killing a port's tree,
// and a bound on what a supervisor that someone keeps stopping can cost.
inline constexpr auto kGrace = std::chrono::seconds(5);

// The supervisor, never waited for without a bound: it holds the only
// write end of the report pipe, whose end of file tells us it has exited;
// past the grace it is killed (SIGKILL ends a stopped process too). The
// destructor stops it and waits the same way, so nothing outlives the
// handle. Movable; must stay on the thread that started it (the
// supervisor dies with that thread: PR_SET_PDEATHSIG).
class Supervisor {
 public:
  Supervisor() : pid_(-1) {}
  Supervisor(pid_t pid, Fd report) : pid_(pid), report_(std::move(report)) {}
  Supervisor(Supervisor&& other) noexcept : pid_(std::exchange(other.pid_, -1)), report_(std::move(other.report_)) {}
  Supervisor& operator=(Supervisor&& other) noexcept {
    if (this != &other) {
      shut();
      pid_ = std::exchange(other.pid_, -1);
      report_ = std::move(other.report_);
    }
    return *this;
  }
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;
  ~Supervisor() { shut(); }
  int report() const { return report_.get(); }
  bool running() const { return pid_ >= 0; }
  // It answers by killing the program and everything it left, then
  // reports and exits. SIGCONT: a supervisor stopped by someone answers
  // too (one that is stopped again is killed at the grace's end).
  void stop() const;
  // Waits for the supervisor's exit until `until`, kills it then, and
  // reaps it; returns its wait status. What is left of its report is
  // discarded.
  int finish(Clock::time_point until);

 private:
  void shut() noexcept;  // stops it and waits, bounded
  int reap();
  pid_t pid_;
  Fd report_;
};

// How a helper died, from its wait status.
void set_death(int wait_status, ProcessResult& result);
// The program's end from the supervisor's word, once it has reported.
void set_end(const SupervisorReport& word, ProcessResult& result);

// A program started under a supervisor: its standard streams' other ends
// (`in` to write, `out` and `err` to read), or why it is not running.
struct Started {
  enum Outcome { running, stuck, failed };
  Outcome outcome = failed;
  Supervisor supervisor;
  Fd in, out, err;
  std::string error;       // failed: "cannot run 'x': No such file or directory"
  int error_number = 0;    // failed: exec's errno (E2BIG: the arguments, not the program)
  bool no_folder = false;  // failed: the working folder could not be entered, not exec
};

// Starts `argv` (argv[0] looked up in PATH) under a supervisor with
// `program_mask` as its signal mask, in `folder` (entered before exec, so
// a relative argv[0] or PATH entry resolves against it). `stuck`: the
// start did not finish by `deadline` (helpers someone stopped); `failed`:
// exec failed, or the folder could not be entered.
// Throws std::system_error when pipes or processes cannot be created.
// `streams`: standard input or output closed or opened on a path
// (runner/subprocess.hpp); `in` or `out` is then not set. A path that
// cannot be opened throws std::system_error.
Started start_supervised(const std::vector<std::string>& argv, const sigset_t& program_mask, Clock::time_point deadline,
                         const WorkingFolder& folder = {}, const StandardStreams& streams = {});

// For a clean end (runner/clean_ends.hpp), which blocks `signals` in
// every thread to wait for them: programs started from then on get them
// unblocked, as they would have had them.
void hold_for_clean_ends(const sigset_t& signals);

// Tells every supervisor not yet reaped to stop (each kills its program's
// tree), waits until `until` for them to exit, then kills those left.
// After it, no supervisor is started or reaped: for the signal path only,
// just before the process exits.
void stop_every_supervisor(Clock::time_point until) noexcept;

}  // namespace agent_session::conform::runner::supervision
