// agent-session-conform, the one program of the conformance kit: the
// runner (conform/runner/conform_options.hpp's conform_main) and, as its
// `fuzz` subcommand, the port fuzzer (conform/fuzz/fuzz_command.hpp),
// which computes the reference's answers in process and so links the
// library, and as its `rules` subcommand the table of SPEC.md's rules
// against the vectors (conform/rules/rules_command.hpp). `agent-session conform ARGS...` runs this program in its own
// place (src/cli/kit_forward.hpp).
//
// Standard output reports a closed pipe or a full disk (exit 3 with the
// reason, never a signal or an exit 0 with the output lost), and any
// exception that escapes is one line and exit 3.
#include "base/printable.hpp"
#include "base/std_streams.hpp"
#include "conform/fuzz/fuzz_command.hpp"
#include "conform/rules/rules_command.hpp"
#include "conform/runner/conform_options.hpp"

#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using namespace agent_session;
  std::ios::sync_with_stdio(false);
  base::StandardStreams streams;
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    int code = 0;
    if (!args.empty() && args.front() == "fuzz") {
      code =
          conform::fuzz::fuzz_main({args.begin() + 1, args.end()}, "agent-session-conform", streams.out(), std::cerr);
    } else if (!args.empty() && args.front() == "rules") {
      code =
          conform::rules::rules_main({args.begin() + 1, args.end()}, "agent-session-conform", streams.out(), std::cerr);
    } else {
      code = conform::runner::conform_main(args, "agent-session-conform", streams.out(), std::cerr);
    }
    streams.out().flush();
    return code;
  } catch (const std::bad_alloc&) {
    std::cerr << "agent-session-conform: out of memory\n";
  } catch (const std::exception& error) {
    std::cerr << "agent-session-conform: " << base::terminal_line(error.what()) << '\n';
  }
  return 3;
}
