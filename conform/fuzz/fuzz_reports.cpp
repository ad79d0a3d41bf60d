#include "conform/fuzz/fuzz_reports.hpp"

#include "base/printable.hpp"
#include "conform/fuzz/vector_out.hpp"
#include "conform/runner/conform_options.hpp"
#include "conform/runner/conform_report.hpp"
#include "conform/runner/conform_select.hpp"

#include "conform/rules/rules_command.hpp"  // default_spec_file
#include "conform/rules/spec_rules.hpp"
#include "conform/runner/report_file.hpp"
#include "conform/runner/vector_files.hpp"

#include <ostream>
#include <sstream>

namespace agent_session::conform::fuzz {
namespace {

// What a report or SPEC.md read back may hold: far more than either does.
constexpr std::size_t kMaxReportBytes = std::size_t{256} << 20;
constexpr std::size_t kMaxSpecBytes = std::size_t{16} << 20;

}  // namespace

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

int report_difference(const FuzzOptions& options, const std::vector<std::string>& vector_names, std::ostream& err) {
  std::vector<std::string> args = {"--vectors", options.out};
  for (const auto& name : vector_names) args.insert(args.end(), {"--only", name});
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

bool add_campaign_to_reports(const FuzzOptions& options, const nlohmann::ordered_json& fuzz, std::ostream& err) {
  for (const auto& report : options.reports) {
    if (!report.starts_with("json=")) continue;
    const std::string path = report.substr(5);
    const std::string me =
        options.program + " fuzz: cannot write the json report '" + base::terminal_safe(path) + "': ";
    nlohmann::ordered_json json;
    try {
      json = nlohmann::ordered_json::parse(runner::read_named_file(path, kMaxReportBytes, "a report"));
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& error) {
      err << me << base::terminal_line(error.what()) << '\n';
      return false;
    }
    json["fuzz"] = fuzz;
    const std::string text = json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    if (const auto why = runner::write_report_file(path, text)) {
      err << me << base::terminal_line(*why) << '\n';
      return false;
    }
  }
  return true;
}

std::optional<std::vector<std::string>> read_coverage_rules(const FuzzOptions& options, std::ostream& err) {
  const std::string spec = options.spec.empty() ? rules::default_spec_file() : options.spec;
  try {
    std::vector<std::string> ids;
    for (const auto& rule : rules::read_spec_rules(runner::read_named_file(spec, kMaxSpecBytes, "SPEC.md")).rules)
      ids.push_back(rule.id);
    return ids;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& error) {
    err << options.program << " fuzz: cannot read the specification '" << base::terminal_safe(spec)
        << "': " << base::terminal_line(error.what()) << '\n';
    return std::nullopt;
  }
}

}  // namespace agent_session::conform::fuzz
