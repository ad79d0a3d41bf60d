#include "conform/runner/stream_checks.hpp"

#include "conform/runner/conform_report.hpp"
#include "conform/runner/conform_select.hpp"

#include <algorithm>

namespace agent_session::conform::runner {
namespace {

using Kind = StreamSource::Kind;
using OwnFile = Check::OwnFile;

// FILE of a check: the session file, `-` (its bytes come on standard
// input), the session's folder, or a path in a folder that does not exist.
enum class File { session, dash, folder, in_missing_folder };

struct Spec {
  const char* name;
  unsigned long long since_minor;              // runs with vectors 1.since_minor.0 or later
  std::vector<std::vector<std::string>> args;  // before FILE: one check each
  File file;
  std::vector<std::string> after_file;  // words after FILE
  StandardStreams streams;
  const char* redirection;
  int exit;
  std::vector<std::string> rules;  // the SPEC.md rules it pins (SPEC.md Conventions, "Rule IDs")
};

// The table of stream_checks.hpp. `/` is a folder on every system, so the
// reproduce command works after the run; /dev/full is Linux's full device
// (the runner is Linux's: runner/supervisor.hpp). Each pins its exit's
// row of SPEC.md §6's table (R6-12, R6-13: exit 3 names a FILE that is a
// directory, and every other I/O error), an empty standard output on
// failure (R6-15), no signal (R6-18) and one line on standard error
// (R6.1-1); the two on standard output that a failed write is exit 3 (R6-17).
const std::vector<Spec>& specs() {
  static const std::vector<std::string> unreadable = {"R6-13", "R6-15", "R6-18", "R6.1-1"};
  static const std::vector<std::string> unwritable = {"R6-13", "R6-15", "R6-17", "R6-18", "R6.1-1"};
  static const std::vector<std::string> usage = {"R6-12", "R6-15", "R6-18", "R6.1-1"};
  constexpr auto v14 = kRunnerChecksSinceMinor;     // vectors 1.4.0
  constexpr auto v16 = kFileErrorChecksSinceMinor;  // vectors 1.6.0
  static const StandardStreams full = {{}, {Kind::path, "/dev/full"}};
  // The four commands that read FILE, as builtin_missing_file has them.
  static const std::vector<std::vector<std::string>> readers = {
      {"check"}, {"estimate"}, {"canon"}, {"trim", "--max-chars", "100"}};
  static const std::vector<Spec> table = {
      {"runner_stdin_closed", v14, {{"check"}}, File::dash, {}, {{Kind::closed, ""}, {}}, "<&-", 3, unreadable},
      {"runner_stdin_directory", v14, {{"check"}}, File::dash, {}, {{Kind::path, "/"}, {}}, "< /", 3, unreadable},
      {"runner_stdout_full", v14, {{"canon"}}, File::session, {}, full, "> /dev/full", 3, unwritable},
      {"runner_stdout_closed", v14, {{"canon"}}, File::session, {}, {{}, {Kind::closed, ""}}, ">&-", 3, unwritable},
      {"runner_extra_argument", v14, {{"check"}}, File::session, {"extra"}, {}, "", 2, usage},
      {"runner_unknown_option", v14, {{"check", "--bogus"}}, File::session, {}, {}, "", 2, usage},
      {"runner_file_directory", v16, readers, File::folder, {}, {}, "", 3, unreadable},
      {"runner_append_directory", v16, {{"append"}}, File::folder, {}, {}, "", 3, unreadable},
      {"runner_append_missing_folder", v16, {{"append"}}, File::in_missing_folder, {}, {}, "", 3, unreadable},
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
  if (name == "runner_file_directory") return "SPEC §6: a FILE that is a directory is exit 3";
  if (name == "runner_append_directory") return "SPEC §6: append to a FILE that is a directory is exit 3";
  if (name == "runner_append_missing_folder") return "SPEC §6: append to a FILE whose folder does not exist is exit 3";
  return "SPEC §6: an option the command does not take is exit 2";
}

const Spec* spec_named(std::string_view name) {
  for (const Spec& spec : specs())
    if (name == spec.name) return &spec;
  return nullptr;
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

unsigned long long runner_check_since_minor(std::string_view name) {
  const Spec* spec = spec_named(name);
  return spec == nullptr ? 0 : spec->since_minor;
}

Vector runner_check_vector(const std::string& name, const std::filesystem::path& session) {
  Vector vector;
  vector.name = name;
  vector.input_path = session;
  const Spec* spec = spec_named(name);
  if (spec == nullptr) {
    vector.problem = "no runner's check is named " + name;
    return vector;
  }
  vector.rule = rule_of(name);
  vector.rules = spec->rules;
  const std::filesystem::path folder = session.parent_path();
  for (const auto& args : spec->args) {
    Check check;
    check.args = args;
    check.exit = spec->exit;
    check.runner_own = true;
    switch (spec->file) {
      case File::session: check.file = session.string(); break;
      case File::dash: check.file = "-"; break;
      case File::folder:
        check.file = folder.string();
        check.own_file = OwnFile::folder;
        break;
      case File::in_missing_folder:
        check.file = (folder / "absent" / "session.jsonl").string();
        check.own_file = OwnFile::in_missing_folder;
        break;
    }
    check.after_file = spec->after_file;
    check.streams = spec->streams;
    check.redirection = spec->redirection;
    check.one_stderr_line = true;
    vector.checks.push_back(std::move(check));
  }
  return vector;
}

std::string runner_check_reproduce(const Check& check, const std::vector<std::string>& command) {
  std::vector<std::string> argv = command;
  argv.insert(argv.end(), check.args.begin(), check.args.end());
  std::string line;
  std::string file;
  if (check.own_file != OwnFile::session) {
    line = "d=$(mktemp -d) && ";
    file = check.own_file == OwnFile::folder ? " \"$d\"" : " \"$d/absent/session.jsonl\"";
  } else if (check.file != "-") {
    line = "f=$(mktemp) && printf '%s\\n' '" + std::string(kRunnerSession.substr(0, kRunnerSession.size() - 1)) +
           "' > \"$f\" && ";
    file = " \"$f\"";
  } else {
    argv.emplace_back("-");
  }
  // `append` reads its messages: an empty pipe, as the runner gives it.
  if (!check.args.empty() && check.args[0] == "append") line += "printf '' | ";
  line += shell_command(argv) + file;
  for (const auto& word : check.after_file) line += " " + shell_command({word});
  if (!check.redirection.empty()) line += " " + check.redirection;
  return line;
}

}  // namespace agent_session::conform::runner
