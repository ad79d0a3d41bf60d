// How the runner gets one command line answered by the port: in exec mode
// a process per run (run_process, runner/subprocess.hpp); with --harness
// one long-lived `CMD harness` per job (runner/harness_client.hpp) that
// answers them all, with the same bytes, so that the judge sees the same
// ProcessResult either way.
//
// Every run has a fresh, empty working folder of its own, removed after
// it (corpus/conformance/README.md, step 2: where a port runs): nothing a port
// writes lands beside the runner, and no run sees what another left.
//
// Example:
//   PortRunner port(options, std::chrono::seconds(10));
//   const ProcessResult r = port.run({"check", "-"}, input);  // CMD check -
#pragma once

#include "conform/runner/conform_options.hpp"
#include "conform/runner/harness_client.hpp"
#include "conform/runner/subprocess.hpp"
#include "conform/runner/temp_folder.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::runner {

// The port's command as it runs in a folder of its own: the program word
// when it holds a '/', and every other word that names something relative
// to our working directory (holding a '/': anything there; a plain word:
// a file, since a plain word naming a folder is more often a subcommand,
// `agent-session conform exec-adapter` beside conform/), made absolute
// against it; the rest unchanged (`node tests/oracle/cli.mjs` becomes
// `node /work/tests/oracle/cli.mjs`, `build/agent-session`
// `/work/build/agent-session`; `sh -c 'exit 2'` stays). A program word
// without '/' is looked up in PATH as before.
std::vector<std::string> resolved_command(const std::vector<std::string>& command);

class PortRunner {
 public:
  PortRunner(const ConformOptions& options, std::chrono::milliseconds timeout);

  // `options.command` (resolved_command) followed by `args`, with `input`
  // on standard input, in a new folder of this job's temporary folder:
  // exec mode starts the process there; harness mode starts the port in
  // the job's folder on the first run and names the run's folder in the
  // request's cwd ("run-17"). When the port does not answer start, that
  // run is not_started with the reason (the runner stops, as for a command
  // that cannot be executed). An argument that is not UTF-8 cannot travel
  // in a request (harness.md §7): that run is exec mode's. Throws
  // std::system_error when the temporary folders cannot be made.
  //
  // `exec_streams`, when given, runs it in exec mode whatever the mode,
  // with standard input or output closed or opened on a path as it says:
  // the runner's own checks (runner/stream_checks.hpp) judge the process's
  // streams and usage errors, which a harness request cannot carry.
  ProcessResult run(const std::vector<std::string>& args, std::string_view input,
                    const StandardStreams* exec_streams = nullptr);

  // Stops this job's harness port, when one runs: nothing when it stopped
  // cleanly or none ran; else why not (HarnessClient::stop's reason). A
  // stop that fails fails the run (harness.md §4): the caller says so.
  std::optional<std::string> stop();

  // What the harness port said of itself in its start answer, once one
  // started (the reports carry it: reports.md); nothing in exec mode.
  std::optional<HarnessPort> about() const;

 private:
  const ConformOptions& options_;
  std::vector<std::string> command_;
  std::chrono::milliseconds timeout_;
  std::optional<TempFolder> job_;  // made on the first run, removed with the runner
  std::uint64_t runs_ = 0;
  std::optional<HarnessPort> about_;
  std::optional<HarnessClient> harness_;  // declared last: the port stops before its folder goes
};

}  // namespace agent_session::conform::runner
