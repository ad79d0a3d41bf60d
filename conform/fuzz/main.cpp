// agent-session-conform in the project's build: the conformance runner
// (runner/main.cpp's program) plus `agent-session-conform fuzz`, which
// needs the library for its reference answers (fuzz/fuzz_command.hpp).
// The standalone runner (conform/CMakeLists.txt alone) is built from
// runner/main.cpp, without `fuzz`.
#include "fuzz/fuzz_command.hpp"
#include "runner/conform_options.hpp"
#include "runner/program.hpp"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  return agent_session::cli::run_program(argc, argv, [](const std::vector<std::string>& args, std::ostream& out) {
    if (!args.empty() && args.front() == "fuzz") {
      return agent_session::fuzz::fuzz_main({args.begin() + 1, args.end()}, "agent-session-conform", out, std::cerr);
    }
    return agent_session::cli::conform_main(args, "agent-session-conform", out, std::cerr);
  });
}
