// The port's side of the harness protocol (corpus/conformance/harness.md):
// reads requests from `in`, one JSON line each, and answers each on `out`
// (flushed), running every `run` through `run`, a function that must
// answer as the same command line in exec mode would. Used by
// `agent-session harness` (src/cli/harness_command.hpp) and by
// `agent-session-conform exec-adapter` (conform/runner/exec_adapter.hpp).
//
// Example:
//   return serve_harness(std::cin, std::cout, {"my-port", "1.0", "C++", {"check", "estimate", "canon", "trim"}},
//                        [](const auto& argv, std::string_view input) { return my_run(argv, input); });
#pragma once

#include "harness/protocol.hpp"

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::harness {

struct HarnessRun {
  int exit = 0;     // 0 to 255
  std::string out;  // standard output's bytes
  std::string err;  // standard error's bytes
  // Not empty: the run has no answer exec mode would give (it timed out,
  // crashed); answered as an `error` with this message, which fails it.
  std::string failure;
};
using HarnessRunFunction = std::function<HarnessRun(const std::vector<std::string>& argv, std::string_view input)>;

// Serves until `stop` (answered; returns 0) or the end of `in` (returns 0).
// A `start` of another protocol is answered with an error and returns 1;
// any other request it cannot take (not JSON, not an object, an unknown
// op, a missing or ill-typed field, base64 that does not decode, a cwd
// that is empty or holds a NUL, an argv that is not one of SPEC.md §6.1's
// forms followed by FILE: argument_forms.hpp) is answered with an error
// (its seq when it has one) and serving goes on; `run` never sees it. A run's `cwd` (a relative one against the
// directory the server started in) is entered for the run and left after
// it; one that cannot be entered is that run's exit 3. Returns 3 when
// `out` fails.
int serve_harness(std::istream& in, std::ostream& out, const HarnessPort& port, const HarnessRunFunction& run);

}  // namespace agent_session::harness
