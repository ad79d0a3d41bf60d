#include "conform/runner/stream_checks.hpp"

#include "conform/runner/conform_report.hpp"

#include <algorithm>

namespace agent_session::conform::runner {
namespace {

using Kind = StreamSource::Kind;

struct Spec {
  const char* name;
  std::vector<std::string> args;        // before FILE
  bool reads_stdin;                     // FILE is `-`
  std::vector<std::string> after_file;  // words after FILE
  StandardStreams streams;
  const char* redirection;
  int exit;
  std::vector<std::string> rules;  // the SPEC.md rules it pins (SPEC.md Conventions, "Rule IDs")
};

// The table of stream_checks.hpp. `/` is a folder on every system, so the
// reproduce command works after the run; /dev/full is Linux's full device
// (the runner is Linux's: runner/supervisor.hpp). Each pins its exit's
// row of SPEC.md §6's table (R6-12, R6-13), an empty standard output on
// failure (R6-15), no signal (R6-18) and one line on standard error
// (R6.1-1); the two on standard output that a failed write is exit 3 (R6-17).
const std::vector<Spec>& specs() {
  static const std::vector<std::string> unreadable = {"R6-13", "R6-15", "R6-18", "R6.1-1"};
  static const std::vector<std::string> unwritable = {"R6-13", "R6-15", "R6-17", "R6-18", "R6.1-1"};
  static const std::vector<std::string> usage = {"R6-12", "R6-15", "R6-18", "R6.1-1"};
  static const std::vector<Spec> table = {
      {"runner_stdin_closed", {"check"}, true, {}, {{Kind::closed, ""}, {}}, "<&-", 3, unreadable},
      {"runner_stdin_directory", {"check"}, true, {}, {{Kind::path, "/"}, {}}, "< /", 3, unreadable},
      {"runner_stdout_full", {"canon"}, false, {}, {{}, {Kind::path, "/dev/full"}}, "> /dev/full", 3, unwritable},
      {"runner_stdout_closed", {"canon"}, false, {}, {{}, {Kind::closed, ""}}, ">&-", 3, unwritable},
      {"runner_extra_argument", {"check"}, false, {"extra"}, {}, "", 2, usage},
      {"runner_unknown_option", {"check", "--bogus"}, false, {}, {}, "", 2, usage},
  };
  return table;
}

// Each check's rule as a vector's expect.json states one ("SPEC §N: ..."),
// for the reports (corpus/conformance/reports.md): SPEC.md §6.1's table.
std::string rule_of(std::string_view name) {
  if (name == "runner_stdin_closed") return "SPEC §6: standard input closed is exit 3";
  if (name == "runner_stdin_directory") return "SPEC §6: standard input that cannot be read is exit 3";
  if (name == "runner_stdout_full") return "SPEC §6: a full standard output is exit 3, never 0";
  if (name == "runner_stdout_closed") return "SPEC §6: standard output closed is exit 3, never 0";
  if (name == "runner_extra_argument") return "SPEC §6: an extra argument is exit 2";
  return "SPEC §6: an option the command does not take is exit 2";
}

}  // namespace

const std::vector<std::string>& runner_check_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const Spec& spec : specs()) all.emplace_back(spec.name);
    return all;
  }();
  return names;
}

bool is_runner_check(std::string_view name) {
  const auto& names = runner_check_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

Vector runner_check_vector(const std::string& name, const std::filesystem::path& session) {
  Vector vector;
  vector.name = name;
  vector.input_path = session;
  for (const Spec& spec : specs()) {
    if (name != spec.name) continue;
    vector.rule = rule_of(name);
    Check check;
    check.args = spec.args;
    check.exit = spec.exit;
    check.file = spec.reads_stdin ? "-" : session.string();
    check.runner_own = true;
    check.after_file = spec.after_file;
    check.streams = spec.streams;
    check.redirection = spec.redirection;
    check.one_stderr_line = true;
    vector.checks.push_back(std::move(check));
    vector.rules = spec.rules;
  }
  if (vector.checks.empty()) vector.problem = "no runner's check is named " + name;
  return vector;
}

std::string runner_check_reproduce(const Check& check, const std::vector<std::string>& command) {
  std::vector<std::string> argv = command;
  argv.insert(argv.end(), check.args.begin(), check.args.end());
  const bool reads_file = check.file != "-";
  std::string line;
  if (reads_file) {
    line = "f=$(mktemp) && printf '%s\\n' '" + std::string(kRunnerSession.substr(0, kRunnerSession.size() - 1)) +
           "' > \"$f\" && ";
  } else {
    argv.emplace_back("-");
  }
  line += shell_command(argv);
  if (reads_file) line += " \"$f\"";
  for (const auto& word : check.after_file) line += " " + shell_command({word});
  if (!check.redirection.empty()) line += " " + check.redirection;
  return line;
}

}  // namespace agent_session::conform::runner
