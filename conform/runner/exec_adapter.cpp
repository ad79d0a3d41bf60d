#include "conform/runner/exec_adapter.hpp"

#include "conform/runner/conform_options.hpp"
#include "conform/runner/conform_select.hpp"
#include "conform/runner/subprocess.hpp"
#include "harness/server.hpp"

#include <algorithm>
#include <chrono>
#include <ostream>
#include <string_view>

namespace agent_session::conform::runner {

using harness::HarnessPort;
using harness::HarnessRun;
using harness::serve_harness;

std::string exec_adapter_help() {
  return "Usage: agent-session-conform exec-adapter [--timeout SECONDS] [--max-output BYTES] -- PORT [ARGS...]\n"
         "\n"
         "Speaks the harness protocol (corpus/conformance/harness.md) on standard input and output for a port that "
         "has no harness mode: each run request becomes one run of PORT ARGS... <the request's argv>, in exec mode "
         "(its exit code, standard output and standard error are the answer), so that any port can be driven by "
         "conform --harness and fuzz --harness. A last word `harness` of PORT (what --harness appends) is the "
         "protocol's and is dropped.\n"
         "\n"
         "  --timeout SECONDS   per run of PORT, a decimal from 0.1 to 1000000 (default 10); then it is killed\n"
         "  --max-output BYTES  bytes kept of each output stream of a run, 1 to 1073741824 (default 1048576)\n"
         "\n"
         "Exit 0 when the runner stopped the server cleanly, 2 for a usage error.\n"
         "Examples (from a clone's root, agent-session and agent-session-conform on PATH):\n"
         "  printf '%s\\n' '{\"op\":\"start\",\"protocol\":1}' '{\"op\":\"stop\"}' | agent-session-conform "
         "exec-adapter "
         "-- node tests/oracle/cli.mjs\n"
         "  agent-session-conform --harness --only 'y_trim_*unit' -- agent-session-conform exec-adapter -- node "
         "tests/oracle/cli.mjs\n";
}

int exec_adapter_main(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  // The runner's own parser: --timeout and --max-output mean what they mean there.
  ConformOptions options;
  try {
    for (const auto& word : args) {
      if (word == "--") break;
      if (word == "-h" || word == "--help") {
        out << exec_adapter_help();
        out.flush();
        return 0;
      }
      if (word.starts_with("-") && !word.starts_with("--timeout") && !word.starts_with("--max-output")) {
        throw ConformUsageError{"exec-adapter takes only --timeout and --max-output before -- PORT..."};
      }
    }
    options = parse_conform_options(args);
  } catch (const ConformUsageError& problem) {
    err << "agent-session-conform: exec-adapter: " << problem.message
        << " (agent-session-conform exec-adapter --help shows the usage)\n";
    return 2;
  }
  // The runner starts `CMD harness` (harness.md §1): that last word is
  // the protocol's, not the port's.
  if (!options.command.empty() && options.command.back() == "harness") options.command.pop_back();
  if (options.command.empty()) {
    err << "agent-session-conform: exec-adapter: no port (agent-session-conform exec-adapter -- PORT...)\n";
    return 2;
  }
  const double seconds = std::min(options.timeout_seconds, 365.0 * 24 * 3600);
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  std::string shown;
  for (const auto& word : options.command) shown += (shown.empty() ? "" : " ") + word;
  const HarnessPort port{"exec-adapter: " + shown,
                         std::string(runner_version()),
                         "any (exec mode)",
                         {"check", "estimate", "canon", "trim", "append"}};
  return serve_harness(in, out, port, [&](const std::vector<std::string>& argv, std::string_view input) {
    std::vector<std::string> command = options.command;
    command.insert(command.end(), argv.begin(), argv.end());
    const ProcessResult result = run_process(command, input, timeout, options.max_output);
    if (result.end != ProcessEnd::exited) return HarnessRun{0, "", "", shown + ": " + describe_end(result, timeout)};
    return HarnessRun{result.exit_code, result.out, result.err, ""};
  });
}

}  // namespace agent_session::conform::runner
