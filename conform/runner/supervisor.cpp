#include "conform/runner/supervisor.hpp"

#include "base/decimal.hpp"
#include "base/descriptor.hpp"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <initializer_list>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// Everything here runs in the child of a threaded process: only
// async-signal-safe calls (system calls, no allocation, no locks). A file
// read and closed here is an Fd (its destructor is one close(2), which
// is async-signal-safe). The launch's descriptors are raw ints on
// purpose: they are placed by number (dup2 onto 0, 1, 2; keep_only closes
// every other number), handed across fork, and each process here ends in
// _exit, where no destructor runs: what owns them is the position, which
// an object cannot express.
namespace agent_session::conform::runner {
namespace {

using base::Fd;

template <typename T>
void write_word(int fd, const T& word) {
  while (::write(fd, &word, sizeof word) < 0 && errno == EINTR) {
  }
}

[[noreturn]] void fail_to_start(int status, int in_fork) {
  write_word(status, StartFailure{errno, in_fork});
  ::_exit(127);
}

void close_fds(unsigned first, unsigned last) {
  if (first > last) return;
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, first, last, 0) == 0) return;
#endif
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) limit.rlim_cur = 1 << 20;
  for (unsigned fd = first; fd <= last && fd < limit.rlim_cur; ++fd) ::close(static_cast<int>(fd));
}

// Leaves open 0, 1, 2, `a` and `b` only: the runner's other descriptors
// (other threads' pipes among them) must not be held open by us.
void keep_only(int a, int b) {
  const auto low = static_cast<unsigned>(a < b ? a : b), high = static_cast<unsigned>(a < b ? b : a);
  close_fds(3, low - 1);
  close_fds(low + 1, high - 1);
  close_fds(high + 1, ~0U);
}

// The parent pid in /proc/<name>/stat ("pid (comm) state ppid ..."), or -1.
pid_t parent_of(int proc, const char* name) {
  char path[64];
  std::size_t length = 0;
  for (; name[length] != '\0' && length < 32; ++length) path[length] = name[length];
  std::memcpy(path + length, "/stat", sizeof "/stat");
  const Fd fd(::openat(proc, path, O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return -1;
  char text[512];
  const ssize_t n = ::read(fd.get(), text, sizeof text - 1);
  if (n <= 0) return -1;
  text[n] = '\0';
  // The command name may hold anything, ')' too; what follows the last ')' cannot.
  const char* end_of_name = std::strrchr(text, ')');
  if (end_of_name == nullptr || end_of_name[1] != ' ' || end_of_name[2] == '\0' || end_of_name[3] != ' ') return -1;
  const auto pid = base::parse_decimal(base::leading_digits(end_of_name + 4));
  return pid && *pid <= 0x7FFFFFFF ? static_cast<pid_t>(*pid) : -1;
}

// Calls visit(pid, name) for every process in /proc, `name` its entry.
template <class Visit>
void for_each_process(int proc, const Visit& visit) {
  alignas(8) char entries[8192];
  for (ssize_t n; (n = ::getdents64(proc, entries, sizeof entries)) > 0;) {
    for (ssize_t at = 0; at < n;) {
      unsigned short length = 0;
      std::memcpy(&length, entries + at + offsetof(dirent64, d_reclen), sizeof length);
      const char* name = entries + at + offsetof(dirent64, d_name);
      at += length;
      const auto pid = base::parse_decimal(name);  // the other entries are not processes
      if (pid && *pid <= 0x7FFFFFFF) visit(static_cast<pid_t>(*pid), name);
    }
  }
}

// Sends SIGKILL to every child of `self`; returns how many were signaled.
// A child cannot be reaped, so its pid cannot be reused, until we wait for
// it: the pid read from /proc still names that child when it is killed.
// (What kill_tree, below, does when it cannot map its memory.)
int kill_children(pid_t self) {
  const Fd proc(::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (proc.get() < 0) return 0;
  int killed = 0;
  for_each_process(proc.get(), [&](pid_t pid, const char* name) {
    if (pid != self && parent_of(proc.get(), name) == self && ::kill(pid, SIGKILL) == 0) ++killed;
  });
  return killed;
}

// The largest pid there can be: /proc/sys/kernel/pid_max, else Linux's
// PID_MAX_LIMIT.
std::size_t pid_limit() {
  std::size_t limit = 0;
  if (const Fd fd(::open("/proc/sys/kernel/pid_max", O_RDONLY | O_CLOEXEC)); fd.get() >= 0) {
    char text[32];
    const ssize_t n = ::read(fd.get(), text, sizeof text);
    if (n > 0) limit = base::parse_decimal(base::leading_digits(std::string_view(text, n))).value_or(0);
  }
  return limit > 0 && limit <= (1U << 22) ? limit : (1U << 22);
}

// `pid` as the name of its /proc entry.
void name_of(pid_t pid, char (&name)[16]) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + pid % 10);
    pid /= 10;
  } while (pid > 0 && n < 15);
  for (int i = 0; i < n; ++i) name[i] = digits[n - 1 - i];
  name[n] = '\0';
}

// Sends SIGKILL to every descendant of `self` found in one scan of /proc,
// parents before children; returns how many were signaled, or -1 when
// the memory for the scan cannot be mapped. One scan, not one per level:
// a chain of processes each in a session of its own would otherwise cost
// a scan per level. Parents first: a killed parent no longer reaps, so
// its children's pids stay theirs until they are ours to reap; and each
// pid is read again just before it is signaled, so a pid that names
// another process by then (its parent is not the one scanned) is spared.
// The tree is kept in pid-indexed arrays mapped here (mmap is a system
// call: nothing is allocated), touched only where there are pids.
int kill_tree(pid_t self) {
  const std::size_t limit = pid_limit() + 1;
  const std::size_t bytes = 4 * limit * sizeof(pid_t);
  void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return -1;
  pid_t* const parent = static_cast<pid_t*>(memory);
  pid_t* const first_child = parent + limit;
  pid_t* const next_sibling = first_child + limit;
  pid_t* const queue = next_sibling + limit;
  int killed = 0;
  if (const Fd proc(::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)); proc.get() >= 0) {
    for_each_process(proc.get(), [&](pid_t pid, const char* name) {
      const pid_t up = parent_of(proc.get(), name);
      if (pid <= 0 || up <= 0 || static_cast<std::size_t>(pid) >= limit || static_cast<std::size_t>(up) >= limit)
        return;
      parent[pid] = up;
      next_sibling[pid] = first_child[up];
      first_child[up] = pid;
    });
    std::size_t head = 0, tail = 0;
    const auto enqueue_children = [&](pid_t of) {
      for (pid_t child = first_child[of]; child != 0 && tail < limit; child = next_sibling[child])
        queue[tail++] = child;
      first_child[of] = 0;  // taken: a pid seen twice (reused during the scan) cannot loop
    };
    enqueue_children(self);
    while (head < tail) {
      const pid_t pid = queue[head++];
      char name[16];
      name_of(pid, name);
      if (parent_of(proc.get(), name) == parent[pid] && ::kill(pid, SIGKILL) == 0) ++killed;
      enqueue_children(pid);
    }
  }
  ::munmap(memory, bytes);
  return killed;
}

// Kills and reaps our children until none is left. Orphans of the
// program's tree become our children as their parents die, so this ends
// with the whole tree gone. If a living child cannot be found or signaled
// (no /proc, or not ours to signal) we stop rather than wait forever.
void kill_descendants(pid_t self) {
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) continue;
    if (pid < 0) {
      if (errno == EINTR) continue;
      return;  // ECHILD: nothing left
    }
    int killed = kill_tree(self);
    if (killed < 0) killed = kill_children(self);
    if (killed == 0) return;
    while (::waitpid(-1, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

// The parent's whole life: starts the program, waits for it to exit (it is
// killed by the supervisor if the run must end first: nothing here needs
// a signal), kills its process group, reaps it and tells the supervisor
// its wait status on `relay`. Its signal mask is the supervisor's, all of
// those signals blocked; the program gets the caller's.
[[noreturn]] void run_parent(const SupervisorLaunch& launch, pid_t supervisor, int status, int relay) {
  // It dies with the supervisor rather than linger, waiting for a program
  // that then belongs to init (the limit in supervisor.hpp).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != supervisor) ::_exit(1);
  const pid_t program = ::fork();
  if (program < 0) fail_to_start(status, 1);
  if (program == 0) {
    ::setpgid(0, 0);  // its own process group, away from the terminal's signals
    ::signal(SIGPIPE, SIG_DFL);
    // SPEC.md §6: a closed standard stream is one the program must
    // answer with exit 3; closed last, so nothing here takes its number.
    if (launch.close_in) ::close(0);
    if (launch.close_out) ::close(1);
    ::pthread_sigmask(SIG_SETMASK, &launch.program_mask, nullptr);
    ::execvp(launch.argv[0], launch.argv);
    fail_to_start(status, 0);
  }
  ::close(status);
  for (int fd = 0; fd < 3; ++fd) ::close(fd);  // the program's ends close when it and its tree are gone

  // WNOWAIT keeps it a zombie, which keeps its process group id from
  // being reused until the group is killed.
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(program), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  ::kill(-program, SIGKILL);  // its group first: the common case of a shell's background jobs
  int wait_status = 0;
  while (::waitpid(program, &wait_status, 0) < 0 && errno == EINTR) {
  }
  write_word(relay, wait_status);
  ::_exit(0);
}

// Whether `parent` is stopped, and by which signal (0: it is not). Its
// stop stays waitable: the supervisor never collects stop events.
int stop_signal(pid_t parent) {
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(parent), &info, WSTOPPED | WNOHANG | WNOWAIT) == 0 && info.si_pid == parent &&
      info.si_code == CLD_STOPPED) {
    return info.si_status;
  }
  return 0;
}

}  // namespace

void run_supervisor(const SupervisorLaunch& launch) noexcept {
  sigset_t waited;
  sigemptyset(&waited);
  for (const int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&waited, sig);
  // Every signal that can be blocked is: a port may send its helpers
  // anything (SIGUSR1, SIGALRM, SIGSEGV by kill, the real-time ones), and
  // a helper it ended would leave what it started to init. Those waited
  // for are taken by sigwaitinfo; the rest stay pending, harmlessly (a
  // report to a runner that is gone fails with EPIPE). The helper parent
  // keeps this mask; the program gets the runner's.
  sigset_t blocked;
  sigfillset(&blocked);
  ::pthread_sigmask(SIG_BLOCK, &blocked, nullptr);
  ::signal(SIGCHLD, SIG_DFL);  // children that are ignored would be reaped behind our back
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != launch.runner) ::_exit(1);
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) fail_to_start(launch.status, 1);

  // The program's streams on 0, 1 and 2; the two pipes moved above them
  // first, so that no dup2 overwrites another of the five.
  const int in = ::fcntl(launch.in, F_DUPFD_CLOEXEC, 3), out = ::fcntl(launch.out, F_DUPFD_CLOEXEC, 3),
            err = ::fcntl(launch.err, F_DUPFD_CLOEXEC, 3);
  const int status = ::fcntl(launch.status, F_DUPFD_CLOEXEC, 3), report = ::fcntl(launch.report, F_DUPFD_CLOEXEC, 3);
  if (in < 0 || out < 0 || err < 0 || status < 0 || report < 0) fail_to_start(launch.status, 1);
  if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) fail_to_start(status, 1);
  // Entered here, before keep_only closes the caller's descriptor: the
  // parent and the program inherit it.
  if (launch.cwd >= 0 && ::fchdir(launch.cwd) != 0) fail_to_start(status, 2);
  keep_only(status, report);
  // The parent's word to us. Non-blocking: it is read only once the parent
  // has exited, and must not wait on a write end a program that was
  // forked but had not yet run exec could hold.
  int relay[2];
  if (::pipe2(relay, O_CLOEXEC | O_NONBLOCK) != 0) fail_to_start(status, 1);

  const pid_t self = ::getpid();
  const pid_t parent = ::fork();
  if (parent < 0) fail_to_start(status, 1);
  if (parent == 0) {
    ::close(report);  // ours alone: its end of file tells the runner we have exited
    ::close(relay[0]);
    run_parent(launch, self, status, relay[1]);
  }
  ::close(status);
  ::close(relay[1]);
  for (int fd = 0; fd < 3; ++fd) ::close(fd);

  // Until the parent exits, normally after the program, or killed; WNOWAIT
  // keeps it waitable. SIGTERM (the runner's), SIGINT, SIGHUP or SIGQUIT
  // ends the run at once: everything is killed, the parent first (stopped
  // or not), then all that is left, without waiting on any of them.
  SupervisorReport word{};
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(parent), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == parent) {
      break;
    }
    const int sig = ::sigwaitinfo(&waited, nullptr);
    if (sig > 0 && sig != SIGCHLD) {
      // The program is killed, whatever it had done: a runner still there
      // to read this (a terminal's SIGINT) must not take it for an exit 0.
      word.wait_status = SIGKILL;
      // A parent found stopped explains a timeout: the program stopped it.
      if (const int stopped_by = stop_signal(parent); stopped_by != 0) {
        word.parent_end = kParentStopped;
        word.parent_status = stopped_by;
      }
      kill_descendants(self);
      write_word(report, word);
      ::_exit(0);
    }
  }
  int parent_status = 0;
  while (::waitpid(parent, &parent_status, 0) < 0 && errno == EINTR) {
  }
  // It exits 0 only after its word is in the pipe.
  const bool relayed =
      WIFEXITED(parent_status) && WEXITSTATUS(parent_status) == 0 &&
      ::read(relay[0], &word.wait_status, sizeof word.wait_status) == static_cast<ssize_t>(sizeof word.wait_status);
  if (!relayed) {
    word.parent_end = kParentKilled;
    word.parent_status = parent_status;
  }
  // The program and its tree, if the parent died first, are ours now.
  kill_descendants(self);
  write_word(report, word);
  ::_exit(0);
}

}  // namespace agent_session::conform::runner
