// How the runner gets one command line answered by the port: in exec mode
// a process per run (run_process, runner/subprocess.hpp); with --harness
// one long-lived `CMD harness` per job (runner/harness_client.hpp) that
// answers them all, with the same bytes, so that the judge sees the same
// ProcessResult either way.
//
// Example:
//   PortRunner port(options, std::chrono::seconds(10));
//   const ProcessResult r = port.run({"check", "-"}, input);  // CMD check -
#pragma once

#include "runner/conform_options.hpp"
#include "runner/harness_client.hpp"
#include "runner/subprocess.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::cli {

class PortRunner {
 public:
  PortRunner(const ConformOptions& options, std::chrono::milliseconds timeout);

  // `options.command` followed by `args`, with `input` on standard input.
  // In harness mode the port is started on the first run: when it does not
  // answer start, that run is not_started with the reason (the runner
  // stops, as for a command that cannot be executed). An argument that is
  // not UTF-8 cannot travel in a request (harness.md §7): that run is
  // exec mode's.
  ProcessResult run(const std::vector<std::string>& args, std::string_view input);

 private:
  const ConformOptions& options_;
  std::chrono::milliseconds timeout_;
  std::optional<HarnessClient> harness_;
};

}  // namespace agent_session::cli
