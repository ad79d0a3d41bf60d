// agent-session-conform: the conformance runner on its own, the same code
// as `agent-session conform` (runner/conform_options.hpp). Built by
// conform/CMakeLists.txt with nothing but the standard library, POSIX and
// nlohmann/json.
#include "base/std_streams.hpp"
#include "runner/conform_options.hpp"

#include "base/printable.hpp"

#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  // A closed pipe or a full disk on standard output is exit 3 with the
  // reason, never a signal or an exit 0 with the output lost.
  agent_session::internal::StandardStreams streams;
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args.front() == "fuzz") {  // conform/fuzz/main.cpp has it: it needs the library
    std::cerr << "agent-session-conform: fuzz is not in the standalone runner: it computes the reference's answers "
                 "in process, so it needs the library; build agent-session-conform from the top-level project\n";
    return 2;
  }
  try {
    const int code = agent_session::cli::conform_main(args, "agent-session-conform", streams.out(), std::cerr);
    streams.out().flush();
    return code;
  } catch (const std::bad_alloc&) {
    std::cerr << "agent-session-conform: out of memory\n";
  } catch (const std::exception& error) {
    std::cerr << "agent-session-conform: " << agent_session::internal::terminal_line(error.what()) << '\n';
  }
  return 3;
}
