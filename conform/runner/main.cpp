// agent-session-conform: the conformance runner on its own, the same code
// as `agent-session conform` (runner/conform_options.hpp). Built by
// conform/CMakeLists.txt with nothing but the standard library, POSIX and
// nlohmann/json.
#include "runner/conform_options.hpp"
#include "runner/program.hpp"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  return agent_session::cli::run_program(argc, argv, [](const std::vector<std::string>& args, std::ostream& out) {
    if (!args.empty() && args.front() == "fuzz") {  // conform/fuzz/main.cpp has it: it needs the library
      std::cerr << "agent-session-conform: fuzz is not in the standalone runner: it computes the reference's "
                   "answers in process, so it needs the library; build agent-session-conform from the top-level "
                   "project\n";
      return 2;
    }
    return agent_session::cli::conform_main(args, "agent-session-conform", out, std::cerr);
  });
}
