// The `agent-session` command line, as a function so that tests run it in
// process with their own streams. The protocol (subcommands, output bytes,
// exit codes) is what other ports implement for conformance runs: see
// SPEC.md "The command-line protocol".
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace agent_session::cli {

// Exit codes scripts can rely on.
enum ExitCode : int {
  kOk = 0,
  kInvalid = 1,  // an invalid session or a budget error (the spec's errors)
  kUsage = 2,    // bad arguments: unknown command, bad --max-chars, ...
  kIo = 3,       // any other I/O error (permission, a directory, ...)
};

// Runs `agent-session ARGS...` (`args` excludes the program name). Reads a
// session from `in` when FILE is `-`, and the messages to append for
// `append`. Returns the exit code.
int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace agent_session::cli
