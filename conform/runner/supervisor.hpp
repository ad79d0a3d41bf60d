// The two processes between `run_process` (runner/subprocess.hpp) and the
// program it runs:
//
//   runner's thread -> supervisor -> parent -> program -> ...
//
// The supervisor is a Linux child subreaper (prctl PR_SET_CHILD_SUBREAPER):
// every orphan the program leaves, however it detached itself (setsid, a
// double fork), is re-parented to it instead of to init; once the program
// has exited or been killed, it kills and reaps them all, then reports.
// The parent only starts the program and waits for it, for its exit
// status, which only a process's parent can have; then it reports that
// status to the supervisor and exits.
//
// Why two processes, not one: a program can always signal its parent
// ($PPID). Were the subreaper its parent, `kill -KILL $PPID` would leave no
// subreaper above the program's tree, which init would inherit, out of our
// reach, and the run could only end in error. With the parent in between,
// the supervisor outlives it, inherits the program and its tree, kills and
// reaps them all and reports the parent's death, which fails that one run.
// Rejected: the runner's own process as the subreaper. run_process is a
// library function, called from the agent-session command and from test
// binaries, with other threads and children of their own: the orphans of
// all of them would become the runner's children, to be reaped without
// stealing other threads' waits and told apart per run. A cgroup needs a
// delegated hierarchy, which users without privileges and containers
// often lack; a PID namespace needs user namespaces, often disabled, and
// changes what the port sees (its pids, its $PPID 0). Limit: a program
// that also kills or keeps stopping its grandparent, the supervisor,
// escapes; nothing short of another user id, a cgroup or a namespace keeps
// a process from signaling another of its user.
//
// No wait here is unbounded in the runner's hands: the parent waits for
// the program only, the supervisor for the parent or a stop signal, and
// told to stop it kills with SIGKILL, which ends stopped processes too.
// The runner bounds its own waits for the supervisor (subprocess.cpp).
//
// One supervisor per run, forked from the runner's thread: it only ever
// signals its own children, so runs on other threads are never touched.
#pragma once

#include <csignal>

#include <sys/types.h>

namespace agent_session::conform::runner {

// What the supervisor needs, all prepared before fork: the child of a
// threaded process may only make async-signal-safe calls. The descriptors
// are borrowed numbers: the caller's Fds own them (start_supervised's
// pipes), and the supervisor, which ends in _exit without running a
// destructor, places them by number (supervisor.cpp).
struct SupervisorLaunch {
  char* const* argv;
  int cwd;           // open on the program's working directory (fchdir); -1: the caller's
  int in, out, err;  // the program's standard streams: the input's read end, the outputs' write ends
  // Standard input or output to be closed in the program, just before
  // exec: `in` or `out` is then a placeholder that keeps the number taken
  // in the helpers (no pipe they make may land on 0 or 1).
  bool close_in, close_out;
  int status;             // close-on-exec pipe: a StartFailure when the program cannot start, else nothing
  int report;             // pipe: a SupervisorReport once the program and all it left are gone
  sigset_t program_mask;  // the caller's signal mask, for the program
  pid_t runner;           // our pid, to notice a runner that died before the supervisor was set up
};

struct StartFailure {
  int error;    // errno
  int in_fork;  // 1: the supervisor could not fork (resources); 0: the program's exec failed; 2: its fchdir
};

// How the parent ended, in a SupervisorReport.
enum ParentEnd : int {
  kParentReported = 0,  // it reported the program's end: wait_status holds it
  kParentKilled = 1,    // it died before it could (the program killed it); parent_status: its wait status
  kParentStopped = 2,   // it was stopped when the supervisor was told to stop; parent_status: the signal
};

struct SupervisorReport {
  int wait_status;    // the program's, as waitpid gives it (kParentReported only; told to stop, SIGKILL's)
  int parent_end;     // a ParentEnd
  int parent_status;  // see ParentEnd
};

// The supervisor's whole life: starts the parent, which runs the program;
// waits for the parent to exit or for SIGTERM, SIGINT, SIGHUP or SIGQUIT;
// kills and reaps every remaining descendant (the parent too, on a signal),
// writes the report and exits. It also gets SIGTERM when the runner's
// thread dies.
[[noreturn]] void run_supervisor(const SupervisorLaunch& launch) noexcept;

}  // namespace agent_session::conform::runner
