// The frame of agent-session-conform's main, for both of its builds (the
// standalone runner's runner/main.cpp and the project's fuzz/main.cpp):
// standard output that reports a closed pipe or a full disk (exit 3 with
// the reason, never a signal or an exit 0 with the output lost), and any
// exception that escapes as one line and exit 3.
#pragma once

#include "base/printable.hpp"
#include "base/std_streams.hpp"

#include <exception>
#include <iostream>
#include <new>
#include <ostream>
#include <string>
#include <vector>

namespace agent_session::cli {

// `run(args, out)` with the words after the program's name; its exit code.
template <class Run>
int run_program(int argc, char** argv, Run&& run) {
  std::ios::sync_with_stdio(false);
  base::StandardStreams streams;
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    const int code = run(args, streams.out());
    streams.out().flush();
    return code;
  } catch (const std::bad_alloc&) {
    std::cerr << "agent-session-conform: out of memory\n";
  } catch (const std::exception& error) {
    std::cerr << "agent-session-conform: " << base::terminal_line(error.what()) << '\n';
  }
  return 3;
}

}  // namespace agent_session::cli
