#include "cli/harness_command.hpp"

#include "cli/cli.hpp"
#include "harness/server.hpp"

#include <sstream>

namespace agent_session::cli {

int serve_harness_command(std::istream& in, std::ostream& out) {
  using harness::HarnessPort;
  using harness::HarnessRun;
  const HarnessPort port{
      "agent-session", AGENT_SESSION_VERSION, "C++", {"check", "estimate", "canon", "trim", "append"}};
  return harness::serve_harness(in, out, port, [](const std::vector<std::string>& argv, std::string_view input) {
    std::istringstream run_in{std::string(input)};
    std::ostringstream run_out, run_err;
    const int code = run(argv, run_in, run_out, run_err);
    return HarnessRun{code, run_out.str(), run_err.str(), ""};
  });
}

}  // namespace agent_session::cli
