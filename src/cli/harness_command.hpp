// `agent-session harness`: our CLI in harness mode (corpus/conformance/harness.md).
// Each `run` request executes the same code as `agent-session ARGV...`
// (cli::run, cli/cli.hpp) in this process, its standard input the
// request's bytes and its output collected in buffers; cli::run keeps no
// state between calls, so each run answers as a fresh process would. A
// run of `harness` itself is refused (exit 2): one harness serves at a time.
//
// Example:
//   printf '{"op":"start","protocol":1}\n{"op":"stop"}\n' | agent-session harness
#pragma once

#include <iosfwd>

namespace agent_session::cli {

// Serves requests from `in`, answers on `out` until stop or end of input;
// the exit code (0, or 1 for another protocol, 3 when `out` fails).
int serve_harness_command(std::istream& in, std::ostream& out);

}  // namespace agent_session::cli
