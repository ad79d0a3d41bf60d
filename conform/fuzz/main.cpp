// agent-session-conform in the project's build: the conformance runner
// (runner/main.cpp's program) plus `agent-session-conform fuzz`, which
// needs the library for its reference answers (fuzz/fuzz_command.hpp).
// The standalone runner (conform/CMakeLists.txt alone) is built from
// runner/main.cpp, without `fuzz`.
#include "base/printable.hpp"
#include "base/std_streams.hpp"
#include "fuzz/fuzz_command.hpp"
#include "runner/conform_options.hpp"

#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  agent_session::internal::StandardStreams streams;
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    const bool fuzz = !args.empty() && args.front() == "fuzz";
    const int code = fuzz ? agent_session::fuzz::fuzz_main({args.begin() + 1, args.end()}, "agent-session-conform",
                                                           streams.out(), std::cerr)
                          : agent_session::cli::conform_main(args, "agent-session-conform", streams.out(), std::cerr);
    streams.out().flush();
    return code;
  } catch (const std::bad_alloc&) {
    std::cerr << "agent-session-conform: out of memory\n";
  } catch (const std::exception& error) {
    std::cerr << "agent-session-conform: " << agent_session::internal::terminal_line(error.what()) << '\n';
  }
  return 3;
}
