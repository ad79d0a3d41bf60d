#include "cli/cli.hpp"
#include "cli/std_streams.hpp"

#include <iostream>

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  agent_session::cli::StandardStreams streams;
  const std::vector<std::string> args(argv + 1, argv + argc);
  return agent_session::cli::run(args, streams.in(), streams.out(), std::cerr);
}
