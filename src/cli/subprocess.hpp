// Runs another program with its standard input, output and error on pipes,
// for `agent-session conform` (the port under test) and for the tests that
// compare us with the JavaScript oracle.
//
// Example:
//   const auto r = run_process({"node", "cli.mjs", "check", "-"}, bytes, std::chrono::seconds(10));
//   if (r.end == ProcessEnd::exited && r.exit_code == 0) use(r.out);
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::cli {

enum class ProcessEnd {
  exited,       // exit_code holds the status
  signaled,     // signal holds the signal that killed it (a crash)
  timed_out,    // still running at the deadline: killed with SIGKILL
  output_limit, // wrote more than 256 MiB: killed with SIGKILL
  not_started,  // the program could not be executed; `error` says why
};

struct ProcessResult {
  ProcessEnd end = ProcessEnd::not_started;
  int exit_code = -1;
  int signal = 0;
  std::string out;    // every byte written to standard output
  std::string err;    // every byte written to standard error
  std::string error;  // why it did not start (not_started only)
};

// Runs `argv` (argv[0] looked up in PATH, as execvp does), writes `input`
// to its standard input and closes it, and collects standard output and
// standard error until the program exits. All three pipes are served at
// once with poll(2), so a program that writes megabytes before reading its
// input cannot deadlock us. At `timeout` the program's whole process group
// gets SIGKILL (a shell's children die with it).
// SIGPIPE from a program that exits without reading its input is blocked
// in the calling thread, never delivered; safe to call from several
// threads at once.
// Throws std::system_error when pipes or processes cannot be created.
ProcessResult run_process(const std::vector<std::string>& argv, std::string_view input,
                          std::chrono::milliseconds timeout);

// "exit 3", "killed by signal 11 (Segmentation fault)", "timed out after
// 2.5 s", "cannot run 'x': No such file or directory".
std::string describe_end(const ProcessResult& result, std::chrono::milliseconds timeout);

}  // namespace agent_session::cli
