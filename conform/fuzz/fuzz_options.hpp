// The command line of `agent-session-conform fuzz`, parsed by hand as the
// runner's own (runner/conform_options.hpp).
//
// Example:
//   agent-session-conform fuzz --seed 7 --time 60 --jobs 2 --out found -- node port.mjs
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agent_session::conform::fuzz {

struct FuzzOptions {
  std::optional<std::uint64_t> seed;   // none: one is drawn and printed
  std::optional<std::uint64_t> runs;   // inputs to try (default 1000 when --time is not given either)
  std::optional<double> time_seconds;  // or: inputs until this much time has passed
  unsigned jobs = 1;                   // inputs tried at once
  std::string out = "fuzz-found";      // where a difference's vector folder is written
  std::string vectors;                 // whose inputs are mutated; "" = the runner's default vectors
  double timeout_seconds = 10;         // per run of the port
  double shrink_seconds = 60;          // at most this long shrinking a difference
  bool stop_at_first = false;          // stop at the first difference, as fuzz did before signatures
  std::string spec;                    // SPEC.md, whose rule IDs the coverage lists; "" = the rules command's default
  bool harness = false;                // one long-lived `PORT harness` per job (corpus/conformance/harness.md)
  std::vector<std::string> reports;    // "junit=FILE", "json=FILE" (--report, repeatable), as conform writes them
  std::vector<std::string> command;    // the port: PORT [ARGS...]
  bool show_help = false;
  std::string program = "agent-session-conform";  // its name, for messages
  std::string runner = "agent-session-conform";   // the path it was run by (argv[0]), for reproduce lines
};

struct FuzzUsageError {
  std::string message;  // safe for a terminal: what the user typed is escaped in it
};

// What `args` (the words after `fuzz`) ask for; throws FuzzUsageError with
// one line for an unknown option, a bad or missing value, an option given
// twice, --runs with --time, or no PORT.
FuzzOptions parse_fuzz_options(const std::vector<std::string>& args);

std::string fuzz_help(const std::string& program);

}  // namespace agent_session::conform::fuzz
