#include "conform/fuzz/fuzz_reports.hpp"

#include "base/printable.hpp"
#include "conform/fuzz/vector_out.hpp"
#include "conform/runner/conform_options.hpp"
#include "conform/runner/conform_report.hpp"
#include "conform/runner/conform_select.hpp"

#include <ostream>
#include <sstream>

namespace agent_session::conform::fuzz {

bool write_no_difference_reports(const FuzzOptions& options, std::uint64_t seed, std::uint64_t inputs, double seconds,
                                 std::ostream& err) {
  if (options.reports.empty()) return true;
  runner::RunOutcome run;
  run.runner_version = std::string(runner::runner_version());
  run.vectors_version_problem = "a fuzz run: its inputs are generated, not a versioned vector folder";
  run.vectors = base::terminal_safe(options.vectors);
  for (const auto& word : options.command) run.command.push_back(base::terminal_safe(word));
  runner::CheckOutcome check;
  check.words = {"fuzz", "--seed", std::to_string(seed), "--runs", std::to_string(inputs)};
  check.args = base::terminal_safe(shell_line(check.words));
  check.message = base::counted(inputs, "input") + ", no difference from the reference";
  check.seconds = seconds;
  runner::VectorOutcome vector;
  vector.name = "fuzz_" + std::to_string(seed);
  vector.checks.push_back(check);
  vector.seconds = seconds;
  run.results.push_back(vector);
  run.passed = 1;
  run.seconds = seconds;
  return runner::write_reports(run, options.reports, options.program + " fuzz: ", err);
}

int report_difference(const FuzzOptions& options, const std::string& vector_name, std::ostream& err) {
  std::vector<std::string> args = {"--vectors", options.out, "--only", vector_name};
  if (options.harness) args.push_back("--harness");
  std::ostringstream timeout;
  timeout << options.timeout_seconds;
  args.insert(args.end(), {"--timeout", timeout.str()});
  for (const auto& report : options.reports) args.insert(args.end(), {"--report", report});
  args.push_back("--");
  args.insert(args.end(), options.command.begin(), options.command.end());
  std::ostringstream ignored;  // the run's lines: the fuzz run has said what differs
  return runner::conform_main(args, options.program, ignored, err);
}

}  // namespace agent_session::conform::fuzz
