#include "base/std_streams.hpp"
#include "cli/cli.hpp"
#include "cli/kit_forward.hpp"

#include <iostream>

#include <cstddef>
#include <new>

namespace {

// Under an address-space limit (`ulimit -v`) the heap can take all of it;
// a stack that then needs one more page is SIGSEGV, not an error we can
// report (seen when the first exception's unwinder looked up a symbol).
// So the stack a command needs (the deepest recursion follows 512 levels
// of nesting) is made resident before anything is read; Linux never gives
// stack pages back.
[[gnu::noinline]] void make_stack_resident() {
  volatile char stack[std::size_t{1} << 20];
  for (std::size_t i = sizeof stack; i > 0; i -= 4096) stack[i - 1] = 0;
}

}  // namespace

int main(int argc, char** argv) {
  make_stack_resident();
  std::ios::sync_with_stdio(false);
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    // The conformance kit, before anything is read or written: this
    // process becomes agent-session-conform.
    if (!args.empty() && args.front() == "conform") {
      return agent_session::cli::exec_runner({args.begin() + 1, args.end()}, std::cerr);
    }
    agent_session::base::StandardStreams streams;
    return agent_session::cli::run(args, streams.in(), streams.out(), std::cerr);
  } catch (const std::bad_alloc&) {  // before run() could catch it: the arguments, the streams
    std::cerr << "agent-session: out of memory\n";
    return agent_session::cli::kIo;
  }
}
