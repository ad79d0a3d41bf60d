#include "conform/runner/clean_ends.hpp"

#include "conform/runner/supervision.hpp"
#include "conform/runner/temp_folder.hpp"

#include <atomic>
#include <system_error>

#include <pthread.h>
#include <unistd.h>

namespace agent_session::conform::runner {
namespace {

// Those a user or a supervisor sends to end a run (Ctrl-C, kill, a closed
// terminal, Ctrl-\): each ends it cleanly, with 128 + its number.
constexpr int kEndingSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

std::atomic<bool> in_place{false};
std::atomic<bool> done{false};  // the CleanEnds is ending: the next signal is its own

sigset_t ending_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : kEndingSignals) sigaddset(&set, sig);
  return set;
}

void wait_for_the_end(sigset_t signals) {
  int sig = 0;
  while (::sigwait(&signals, &sig) != 0) {
  }
  if (done) return;
  // Ports first, so that none writes in a folder being removed.
  supervision::stop_every_supervisor(supervision::Clock::now() + supervision::kGrace);
  remove_every_temp_folder_for_good();
  ::_exit(128 + sig);
}

}  // namespace

CleanEnds::CleanEnds() {
  if (in_place.exchange(true)) return;
  const sigset_t signals = ending_signals();
  ::pthread_sigmask(SIG_BLOCK, &signals, &previous_);
  done = false;
  try {
    waiter_ = std::thread(wait_for_the_end, signals);
  } catch (const std::system_error&) {  // no thread left: the default action, as before
    ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
    in_place = false;
    return;
  }
  sigset_t added;  // those that were not blocked already
  sigemptyset(&added);
  for (const int sig : kEndingSignals) {
    if (sigismember(&previous_, sig) != 1) sigaddset(&added, sig);
  }
  supervision::hold_for_clean_ends(added);
  installed_ = true;
}

CleanEnds::~CleanEnds() {
  if (!installed_) return;
  done = true;
  ::pthread_kill(waiter_.native_handle(), SIGHUP);  // blocked there: sigwait takes it
  waiter_.join();
  sigset_t none;
  sigemptyset(&none);
  supervision::hold_for_clean_ends(none);
  ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  in_place = false;
}

}  // namespace agent_session::conform::runner
