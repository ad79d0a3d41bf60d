// The command line of `agent-session-conform properties`, parsed by hand as
// the fuzzer's (conform/fuzz/fuzz_options.hpp).
//
// Example:
//   agent-session-conform properties --seed 7 --runs 300 --out found -- node adapter.mjs
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agent_session::conform::properties {

struct PropertiesOptions {
  std::optional<std::uint64_t> seed;  // none: one is drawn and printed
  std::uint64_t runs = 200;           // sessions judged, one budget each
  std::string out = "properties-found";
  std::uint64_t cases = 3;           // violations shrunk and written per invariant
  double timeout_seconds = 10;       // per request to the adapter
  std::vector<std::string> reports;  // "json=FILE", "junit=FILE", "markdown=FILE" (--report, repeatable)
  std::vector<std::string> command;  // the adapter: CMD [ARGS...]; `harness` is added
  bool show_help = false;
};

struct PropertiesUsageError {
  std::string message;  // safe for a terminal
};

// Throws PropertiesUsageError with one line for an unknown option, a bad
// or missing value, an option given twice, or no adapter.
PropertiesOptions parse_properties_options(const std::vector<std::string>& args);

std::string properties_help(const std::string& program);

}  // namespace agent_session::conform::properties
