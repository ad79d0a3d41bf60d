// The process between `run_process` (cli/subprocess.hpp) and the program it
// runs: a Linux child subreaper (prctl PR_SET_CHILD_SUBREAPER), so that
// every orphan the program leaves, however it detached itself (setsid, a
// double fork), is re-parented to it instead of to init; once the program
// has exited or been killed, it kills and reaps them all, then reports.
//
// One supervisor per run, forked from the runner's thread: it only ever
// signals its own children, so runs on other threads are never touched.
#pragma once

#include <csignal>

#include <sys/types.h>

namespace agent_session::cli {

// What the supervisor needs, all prepared before fork: the child of a
// threaded process may only make async-signal-safe calls.
struct SupervisorLaunch {
  char* const* argv;
  int in, out, err;        // the program's standard streams: the input's read end, the outputs' write ends
  int status;              // close-on-exec pipe: a StartFailure when the program cannot start, else nothing
  int report;              // pipe: a SupervisorReport once the program and all it left are gone
  sigset_t program_mask;   // the caller's signal mask, for the program
  pid_t runner;            // our pid, to notice a runner that died before the supervisor was set up
};

struct StartFailure {
  int error;    // errno
  int in_fork;  // 1: the supervisor could not fork (resources); 0: the program's exec failed
};

struct SupervisorReport {
  int wait_status;  // the program's, as waitpid gives it
};

// The supervisor's whole life: runs the program, waits for it to exit or
// for SIGTERM, SIGINT, SIGHUP or SIGQUIT (then kills it, and its process
// group), kills and reaps every remaining descendant, writes the report
// and exits. It also gets SIGTERM when the runner's thread dies.
[[noreturn]] void run_supervisor(const SupervisorLaunch& launch) noexcept;

}  // namespace agent_session::cli
