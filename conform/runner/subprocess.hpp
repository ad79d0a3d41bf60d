// Runs another program with its standard input, output and error on pipes,
// for `agent-session conform` (the port under test) and for the tests that
// compare us with the JavaScript oracle.
//
// Example:
//   const auto r = run_process({"node", "cli.mjs", "check", "-"}, bytes, std::chrono::seconds(10));
//   if (r.end == ProcessEnd::exited && r.exit_code == 0) use(r.out);
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::runner {

enum class ProcessEnd {
  exited,        // exit_code holds the status
  signaled,      // signal holds the signal that killed it (a crash)
  timed_out,     // still running at the deadline: killed with SIGKILL
  output_limit,  // wrote more than output_limit bytes on one stream: killed with SIGKILL
  not_started,   // the program could not be executed; `error` says why
  // The run's working folder could not be made, opened or entered (a port
  // may have removed its job's folder): `error` says why. That check
  // fails; the port itself may run, so the run goes on (SPEC.md §6.1).
  no_working_folder,
  // Its parent, a helper process of ours (runner/supervisor.hpp), died
  // before the program's end was known (the program killed it, most
  // likely): `signal` holds the signal that killed it, or exit_code its
  // exit. The program and everything it started were killed.
  parent_killed,
  // Still running at the deadline, with its parent stopped by `signal`
  // (the program stopped it): all killed with SIGKILL.
  parent_stopped,
  // The supervisor, the helper above the parent, died before it reported
  // (the program hunted it down too): `signal` or exit_code as above.
  // What the program started may still run.
  supervisor_killed,
  // A long-lived port (runner/harness_client.hpp) broke the harness
  // protocol (a garbage line, another seq, an `error`, a closed output):
  // `error` says how. Never an outcome of exec mode.
  harness_failure,
};

struct ProcessResult {
  ProcessEnd end = ProcessEnd::not_started;
  int exit_code = -1;
  int signal = 0;
  std::string out;               // what it wrote to standard output (at most output_limit bytes)
  std::string err;               // what it wrote to standard error (at most output_limit bytes)
  std::string error;             // why it did not start (not_started), how the protocol broke (harness_failure)
  int start_errno = 0;           // not_started: exec's errno (E2BIG: this run's arguments were refused)
  std::size_t output_limit = 0;  // the cap it ran under
  const char* overflowed = "";   // "standard output" or "standard error" (output_limit only)
};

// The folder a program starts in, held open by the caller: the
// supervisor enters it by its descriptor (fchdir), never by its path, so
// a port that moved a folder above it and planted a link in its place
// leads no later run anywhere else (SPEC.md §6.1).
struct WorkingFolder {
  int fd = -1;       // borrowed, open on the folder (O_PATH is enough); -1: the caller's working directory
  std::string path;  // where it was made, for messages only
};

inline constexpr std::size_t kDefaultOutputLimit = std::size_t{1} << 28;

// Where one of the program's standard streams goes when it is not the
// pipe run_process serves: closed (the program starts without that
// descriptor), or opened on a path (standard input read-only, standard
// output write-only), for the runner's own checks of SPEC.md §6's streams
// rules (runner/stream_checks.hpp: `check - <&-`, `canon FILE > /dev/full`).
struct StreamSource {
  enum class Kind { pipe, closed, path };
  Kind kind = Kind::pipe;
  std::string path;  // Kind::path: opened by the caller's thread before fork, never by the child
};

// The program's standard input and output; standard error is always a
// pipe, captured.
struct StandardStreams {
  StreamSource in, out;
};

// Runs `argv` (argv[0] looked up in PATH, as execvp does), writes `input`
// to its standard input and closes it, and collects standard output and
// standard error until the program exits. All three pipes are served at
// once with poll(2), so a program that writes megabytes before reading its
// input cannot deadlock us.
//
// The run ends when the program exits (then it is judged, even if
// something it started still holds its output open), at `timeout`, or
// when it writes more than `output_limit` bytes on either stream (what is
// kept never exceeds that); in the last two cases it is killed.
//
// No descendant of the program outlives the call: the program runs under
// a helper process of ours, its supervisor, that is a child subreaper
// (Linux PR_SET_CHILD_SUBREAPER), so every orphan it leaves, even one that
// called setsid(2) or double-forked out of its process group, becomes the
// supervisor's child; when the program has ended the supervisor kills and
// reaps them all (found by their parent pid in /proc) before it reports.
// A supervisor per run keeps concurrent calls apart: each only ever kills
// its own children. Between the supervisor and the program is a second
// helper, the program's parent (why: runner/supervisor.hpp): a program that
// kills it only ends its own run (parent_killed), with all it started
// killed. Every wait for a helper is bounded: told to stop, the supervisor
// has a few seconds to report and exit before it is killed, stopped or
// not. Limits: a descendant we may not signal (a set-user-ID program run
// by a non-root user) is left running, and so is all the program started
// if it kills or keeps stopping the supervisor, its grandparent, too.
//
// SIGPIPE from a program that exits without reading its input is blocked
// in the calling thread, never delivered; safe to call from several
// threads at once.
// `folder` is the program's working directory, entered by its descriptor
// before exec (a relative argv[0] resolves against it).
// Throws std::system_error when pipes or processes cannot be created.
ProcessResult run_process(const std::vector<std::string>& argv, std::string_view input,
                          std::chrono::milliseconds timeout, std::size_t output_limit = kDefaultOutputLimit,
                          const WorkingFolder& folder = {});

// The same with standard input or output closed or opened on a path as
// `streams` says: `input` is written only when standard input is the pipe,
// and `out` stays empty unless standard output is. Throws
// std::system_error ("cannot open /dev/full for the program's standard
// output: ...") when a path cannot be opened: the runner's machine, not
// the program, is at fault.
ProcessResult run_process(const std::vector<std::string>& argv, std::string_view input,
                          std::chrono::milliseconds timeout, std::size_t output_limit, const WorkingFolder& folder,
                          const StandardStreams& streams);

// "exit 3", "killed by signal 11 (Segmentation fault)", "timed out after
// 2.5 s", "wrote more than 1048576 bytes to standard output (killed)",
// "cannot run 'x': No such file or directory", "its parent process, the
// runner's helper, was killed by signal 9 (Killed)", "its parent process,
// the runner's helper, was stopped by signal 19 (Stopped (signal)) and
// killed at the 2 s timeout", "the runner's supervisor process was killed
// by signal 9 (Killed); what the port started may still run".
std::string describe_end(const ProcessResult& result, std::chrono::milliseconds timeout);

}  // namespace agent_session::conform::runner
