// agent-session-conform, the one program of the conformance kit: the
// runner (conform/runner/conform_options.hpp's conform_main) and, as its
// `fuzz` subcommand, the port fuzzer (conform/fuzz/fuzz_command.hpp),
// which computes the reference's answers in process and so links the
// library; as its `report` subcommand the conformance matrix of
// several runs' JSON reports (conform/matrix/matrix_command.hpp), and as
// `export` the vectors as one JSON document, and as `rules` the table of
// SPEC.md's rules against the vectors (conform/rules/rules_command.hpp)
// (conform/exporter/export_command.hpp), and as `properties` a history
// trimmer judged on SPEC.md §5's unit invariants through an adapter
// (conform/properties/properties_command.hpp). `agent-session conform ARGS...`
// runs this program in its own place (src/cli/kit_forward.hpp).
//
// Standard output reports a closed pipe or a full disk (exit 3 with the
// reason, never a signal or an exit 0 with the output lost), and any
// exception that escapes is one line and exit 3.
#include "base/printable.hpp"
#include "base/std_streams.hpp"
#include "conform/exporter/export_command.hpp"
#include "conform/fuzz/fuzz_command.hpp"
#include "conform/matrix/matrix_command.hpp"
#include "conform/properties/properties_command.hpp"
#include "conform/rules/rules_command.hpp"
#include "conform/runner/conform_options.hpp"
#include "conform/runner/report_command.hpp"

#include <algorithm>
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
    // A subcommand is the first word; any other first word is the runner's.
    const std::string first = args.empty() ? "" : args.front();
    const std::vector<std::string> rest = args.empty() ? args : std::vector<std::string>(args.begin() + 1, args.end());
    int code = 0;
    if (first == "fuzz") {
      // Reproduce lines run the kit by the path it was run by.
      code = conform::fuzz::fuzz_main(rest, "agent-session-conform", streams.out(), std::cerr,
                                      argc > 0 && argv[0][0] != '\0' ? argv[0] : "agent-session-conform");
    } else if (first == "properties") {
      code = conform::properties::properties_main(rest, "agent-session-conform", streams.out(), std::cerr);
    } else if (first == "rules") {
      code = conform::rules::rules_main(rest, "agent-session-conform", streams.out(), std::cerr);
    } else if (first == "export") {
      code = conform::exporter::export_main(rest, "agent-session-conform", streams.out(), std::cerr);
    } else if (first == "report" && std::find(rest.begin(), rest.end(), "--diff") != rest.end()) {
      code = *conform::runner::report_main(args, streams.out(), std::cerr);
    } else if (first == "report") {
      code = conform::matrix::report_main(rest, "agent-session-conform", streams.out(), std::cerr);
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
