// Runs the command line in process (cli::run) with its own streams: the
// exit code and both outputs, for tests of what the CLI prints.
#pragma once

#include "cli/cli.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace agent_session::test_support {

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

inline CliRun run_cli(const std::vector<std::string>& args, const std::string& stdin_bytes = "") {
  std::istringstream in(stdin_bytes);
  std::ostringstream out, err;
  const int code = cli::run(args, in, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace agent_session::test_support
