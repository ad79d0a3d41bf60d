// `agent-session conform`: runs the conformance vectors (layout and
// protocol: corpus/conformance/README.md) against any command that speaks
// the command-line protocol: ours, the JavaScript oracle, another port.
//
// Example:
//   agent-session conform -- node tests/oracle/cli.mjs
//   agent-session conform --vectors corpus/conformance --timeout 5 -- ./my-port
//
// For each check of each vector it runs `CMD ARGS... <check args> FILE`
// with FILE the path of the vector's input.jsonl, then again with `-` and
// the input on standard input, and compares the exit code, the standard
// output bytes (exit 0) and the error text on standard error (exit 1).
// It prints one line per failing check and ends with `N passed, M failed`
// (N and M count vectors). Everything it prints that comes from a vector
// or the port (names, arguments, output excerpts, the command) goes
// through internal::terminal_safe (internal/terminal_text.hpp), so none of it can break a line or reach the
// terminal as an escape sequence.
//
// A vector fails, never hangs or is skipped, when its files are not
// regular files (a FIFO, a device, a directory), larger than 64 MiB or
// unreadable, or when its entry's type cannot be read. A run whose
// standard output or error outgrows `max_output` is killed and fails its
// check. No process the port starts outlives its run (cli/subprocess.hpp).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace agent_session::cli {

struct ConformOptions {
  std::string vectors = "corpus/conformance";  // relative to the current directory
  double timeout_seconds = 10;                 // per run of the port; then it is killed and the check fails
  unsigned jobs = 1;                           // vectors run at once
  std::size_t max_output = std::size_t{1} << 20;  // bytes kept per output stream of a run; more fails the check
  std::vector<std::string> command;            // the port: CMD [ARGS...]
};

// Adds the `conform` subcommand to `app`, filling `options` when parsed.
CLI::App* add_conform_command(CLI::App& app, ConformOptions& options);

// Runs every vector in `options.vectors` against `options.command`.
// Failing checks and the summary go to `out`; a reason to stop, as one
// line, to `err`. Returns 0 when every vector passes, 1 when any fails,
// 2 on a usage problem (a vectors path that is missing, not a folder or
// holds no vector; a command that cannot be executed), 3 when the vectors
// folder cannot be read (permissions, I/O) or resources run out (pipes,
// processes, memory). A failed write to `out` throws, as `out` does.
int run_conformance(const ConformOptions& options, std::ostream& out, std::ostream& err);

// Whether `stderr_text` contains `expected` followed by the end of a line
// or by ": " (so that "line 1" never passes for "line 12").
bool contains_error(const std::string& stderr_text, const std::string& expected);

}  // namespace agent_session::cli
