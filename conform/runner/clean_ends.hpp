// How the kit's commands (conform, fuzz, exec-adapter) end on SIGINT,
// SIGTERM, SIGHUP or SIGQUIT: every port they started is stopped with
// its whole tree, every temporary folder they made is removed
// (runner/temp_folder.hpp; one a port made unreadable too, and a line
// on standard error for one it could not remove), and the
// process exits with 128 + the signal's number, as a shell reports a
// command a signal ended. Without it the default action ended the process
// at once: no process was left (each supervisor dies with its thread),
// but the temporary folders were.
//
// Example:
//   int fuzz_main(...) {
//     const CleanEnds clean_ends;  // first, before any thread is started
//     ...
//   }
//
// The signals are blocked in the thread that makes it, and so in every
// thread started after, and a thread of its own waits for them
// (sigwait): the removal runs as ordinary code, never in a signal
// handler. Ports get them unblocked (supervision::hold_for_clean_ends).
#pragma once

#include <csignal>
#include <thread>

namespace agent_session::conform::runner {

class CleanEnds {
 public:
  // Nothing when another CleanEnds is in place, or no thread can be
  // started (then the signals keep their default action).
  CleanEnds();
  CleanEnds(const CleanEnds&) = delete;
  CleanEnds& operator=(const CleanEnds&) = delete;
  // Stops waiting; the signals are as they were.
  ~CleanEnds();

 private:
  bool installed_ = false;
  sigset_t previous_{};
  std::thread waiter_;
};

}  // namespace agent_session::conform::runner
