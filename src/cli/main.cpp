#include "cli/cli.hpp"
#include "cli/std_streams.hpp"

#include <iostream>

#include <new>

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  try {
    agent_session::cli::StandardStreams streams;
    const std::vector<std::string> args(argv + 1, argv + argc);
    return agent_session::cli::run(args, streams.in(), streams.out(), std::cerr);
  } catch (const std::bad_alloc&) {  // before run() could catch it: the arguments, the streams
    std::cerr << "agent-session: out of memory\n";
    return agent_session::cli::kIo;
  }
}
