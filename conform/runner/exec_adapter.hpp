// `agent-session-conform exec-adapter [--timeout S] [--max-output N] -- PORT...`:
// the harness protocol (corpus/conformance/harness.md) for any port that
// has exec mode only. It serves requests on `in`/`out` (src/harness/server.hpp)
// and runs each `run` as `PORT ARGV...` with the request's standard
// input, through run_process (runner/subprocess.hpp): the same timeout,
// output cap and process-tree supervision as an exec-mode conformance run.
// A run that exec mode would judge by how it ended rather than by its
// answer (a timeout, a signal, an output over the cap, a port that cannot
// be executed) is answered with an `error` that says so, which fails the
// check as exec mode would. A last word `harness` is dropped: it is the
// one a runner adds to start a port in harness mode (harness.md §1).
//
// Example (a runner that speaks only the harness protocol, or a test):
//   agent-session-conform --harness -- agent-session-conform exec-adapter -- node tests/oracle/cli.mjs
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace agent_session::conform::runner {

// The help of `exec-adapter`.
std::string exec_adapter_help();

// `args`: the words after `exec-adapter`. -h or --help before `--`: the
// help on `out`, exit 0. Exit 2 with one line on `err` for a usage error
// (no PORT, a bad --timeout or --max-output); else serve_harness's exit.
int exec_adapter_main(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace agent_session::conform::runner
