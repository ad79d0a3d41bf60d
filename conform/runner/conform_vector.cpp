#include "conform/runner/conform_vector.hpp"

#include "base/printable.hpp"
#include "conform/runner/conform_judge.hpp"
#include "conform/runner/file_check.hpp"
#include "conform/runner/stream_checks.hpp"
#include "conform/runner/subprocess.hpp"
#include "conform/runner/temp_folder.hpp"
#include "conform/runner/vector_files.hpp"

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string_view>
#include <system_error>

namespace agent_session::conform::runner {
namespace {

using agent_session::base::terminal_safe;

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

// The outcome of one run of check `index`, before its verdict: what the
// reports keep of every run, passed or not, so each word is cut before
// it is escaped (kShownBytes).
CheckOutcome new_outcome(const Check& check, std::size_t index, bool from_stdin) {
  CheckOutcome outcome;
  outcome.index = index;
  for (const auto& word : check.args) outcome.words.push_back(shown(word));
  outcome.args = joined(outcome.words);
  outcome.from_stdin = from_stdin;
  outcome.after = joined(check.after_file);
  if (!check.redirection.empty()) outcome.after += (outcome.after.empty() ? "" : " ") + check.redirection;
  return outcome;
}

// A reproduce command holds the check's words and standard input whole
// (cut, it would run something else), so past kMaxReproduceBytes of them
// the FAIL line says how to run the vector alone instead (SPEC.md §6.1).
std::optional<std::string> too_long_to_reproduce(const Check& check, const std::string& vector_name) {
  std::size_t bytes = check.stdin_bytes ? check.stdin_bytes->size() : 0;
  for (const auto& word : check.args) bytes += word.size();
  if (bytes <= kMaxReproduceBytes) return std::nullopt;
  return "not shown: the check's arguments and standard input are " + std::to_string(bytes) + " bytes, more than the " +
         std::to_string(kMaxReproduceBytes) + " a reproduce command holds; --only '" + vector_name +
         "' runs this vector alone";
}

// Whether the vector's other runs are skipped after `result`: a run that
// ran out its timeout says the others would too (a hanging port costs
// one timeout per vector).
bool stops_the_vector(const ProcessResult& result, const Vector& vector, std::size_t index, VectorReport& report) {
  if (result.end != ProcessEnd::timed_out && result.end != ProcessEnd::parent_stopped) return false;
  const std::size_t others = vector.checks.size() - index - 1;
  if (others > 0) report.outcome.checks.back().message += "; its " + std::to_string(others) + " other checks skipped";
  return true;
}

// Whether the port cannot be run at all: the runner stops (exit 2). A
// run the system refused for its arguments alone (E2BIG: a vector's long
// `--max-chars` value) is that check's failure, and the run goes on.
bool not_started(const ProcessResult& result, VectorReport& report) {
  if (result.end != ProcessEnd::not_started || result.start_errno == E2BIG) return false;
  report.fatal = result.error;
  report.fatal_code = 2;
  return true;
}

// A file check (corpus/conformance/README.md "Checks that write FILE";
// SPEC.md §6 `append`): one run, with the check's standard input and a
// FILE of its own, made fresh from input.jsonl, then FILE's bytes judged
// as well.
bool run_file_check(const Vector& vector, std::size_t index, const ConformOptions& options, PortRunner& port,
                    VectorReport& report) {
  const Check& check = vector.checks[index];
  std::optional<CheckFile> made;
  try {
    made.emplace(check, vector.input);
  } catch (const std::system_error& error) {  // the temporary directory, not the port or the vector
    report.fatal = std::string("cannot make FILE for a file check: ") + error.what();
    report.fatal_code = 3;
    return false;
  }
  const CheckFile& file = *made;
  std::vector<std::string> args = check.args;
  args.push_back(file.path());
  const auto start = Clock::now();
  const ProcessResult result = port.run(args, *check.stdin_bytes);
  if (not_started(result, report)) return false;
  CheckOutcome outcome = new_outcome(check, index, check.file_before == Check::FileBefore::dash);
  outcome.seconds = seconds_since(start);
  auto verdict = judge(check, result, run_timeout(options));
  if (!verdict) verdict = file.judge_after();
  if (verdict) {
    outcome.verdict = Verdict::fail;
    outcome.message = *verdict;
    if (auto note = too_long_to_reproduce(check, report.outcome.name)) {
      outcome.reproduce = std::move(*note);
    } else {
      const bool absent = check.file_before != Check::FileBefore::copy;
      std::vector<std::string> argv = options.command;
      argv.insert(argv.end(), check.args.begin(), check.args.end());
      outcome.reproduce = shell_file_command(argv, *check.stdin_bytes, absent ? "" : vector.input_path.string(),
                                             check.file_before == Check::FileBefore::dash);
    }
  }
  report.outcome.checks.push_back(std::move(outcome));
  return !stops_the_vector(result, vector, index, report);
}

// One of the runner's own checks (runner/stream_checks.hpp): one run, in
// exec mode, with its streams and its words after FILE.
bool run_own_check(const Vector& vector, std::size_t index, const ConformOptions& options, PortRunner& port,
                   VectorReport& report) {
  const Check& check = vector.checks[index];
  std::vector<std::string> args = check.args;
  args.push_back(check.file);
  args.insert(args.end(), check.after_file.begin(), check.after_file.end());
  const auto start = Clock::now();
  const ProcessResult result = port.run(args, std::string_view(), &check.streams);
  if (not_started(result, report)) return false;
  CheckOutcome outcome = new_outcome(check, index, check.file == "-");
  outcome.seconds = seconds_since(start);
  if (const auto verdict = judge(check, result, run_timeout(options))) {
    outcome.verdict = Verdict::fail;
    outcome.message = *verdict;
    outcome.reproduce = runner_check_reproduce(check, options.command);
  }
  report.outcome.checks.push_back(std::move(outcome));
  return !stops_the_vector(result, vector, index, report);
}

// Runs `check` with FILE, then with `-`, adding both outcomes. Returns
// false when a run timed out (the vector's other runs are then skipped)
// or could not start.
bool run_check(const Vector& vector, std::size_t index, const ConformOptions& options, PortRunner& port,
               VectorReport& report) {
  const Check& check = vector.checks[index];
  if (check.stdin_bytes) return run_file_check(vector, index, options, port, report);
  if (check.runner_own) return run_own_check(vector, index, options, port, report);
  const auto timeout = run_timeout(options);
  // A built-in check runs once, with its own FILE.
  const bool one_run = !check.file.empty();
  const std::string files[2] = {one_run ? check.file : vector.input_path.string(), "-"};
  for (int mode = 0; mode < (one_run ? 1 : 2); ++mode) {
    std::vector<std::string> args = check.args;
    args.push_back(files[mode]);
    const auto start = Clock::now();
    const ProcessResult result = port.run(args, mode == 0 ? std::string_view() : vector.input);
    if (not_started(result, report)) return false;
    CheckOutcome outcome = new_outcome(check, index, mode == 1);
    outcome.seconds = seconds_since(start);
    if (const auto verdict = judge(check, result, timeout)) {
      outcome.verdict = Verdict::fail;
      outcome.message = *verdict;
      if (auto note = too_long_to_reproduce(check, report.outcome.name)) {
        outcome.reproduce = std::move(*note);
      } else {
        std::vector<std::string> argv = options.command;
        argv.insert(argv.end(), args.begin(), args.end());
        outcome.reproduce = shell_command(argv, mode == 0 ? "" : files[0]);
      }
    }
    report.outcome.checks.push_back(std::move(outcome));
    if (stops_the_vector(result, vector, index, report)) return false;
  }
  return true;
}

// How many runs check `check` makes: two (FILE and `-`) but for a
// built-in check and a file check, which run once.
int runs_of(const Check& check) { return check.file.empty() && !check.stdin_bytes ? 2 : 1; }

}  // namespace

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::chrono::milliseconds run_timeout(const ConformOptions& options) {
  const double seconds = std::min(options.timeout_seconds, 365.0 * 24 * 3600);
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

VectorReport run_vector(const SelectedVector& selected, const ConformOptions& options, PortRunner& port) {
  VectorReport report;
  report.outcome.name = terminal_safe(selected.dir.path.filename().string());
  const auto start = Clock::now();
  // The runner's own checks read a session file of the runner's, in a
  // folder of its own for the vector's run.
  std::optional<TempFolder> own;
  Vector vector;
  if (!selected.dir.runner_check.empty()) {
    own.emplace("agent-session-conform-own");
    write_new_file_at(own->fd(), "session.jsonl", kRunnerSession);
    vector = runner_check_vector(selected.dir.runner_check, own->path() / "session.jsonl");
  } else if (!selected.dir.missing_file.empty()) {
    vector = missing_file_vector(selected.dir.missing_file);
  } else {
    vector = load_vector(selected.dir);
  }
  report.outcome.rule = shown(vector.rule, kMaxRuleBytes);
  report.outcome.rules = vector.rules;  // rule IDs only: load_vector checked each (is_rule_id)
  if (!vector.problem.empty()) {
    report.outcome.problem = shown(vector.problem, kMaxProblemBytes);
  } else {
    std::size_t i = 0;
    while (i < vector.checks.size() && run_check(vector, i, options, port, report)) ++i;
    // The runs a timeout skipped, so that the reports list every check.
    const std::size_t ran = report.outcome.checks.size();
    std::size_t run = 0;
    for (std::size_t k = 0; report.fatal.empty() && k < vector.checks.size(); ++k) {
      for (int mode = 0; mode < runs_of(vector.checks[k]); ++mode) {
        if (run++ < ran) continue;
        const bool from_stdin = mode == 1 || vector.checks[k].file_before == Check::FileBefore::dash;
        CheckOutcome outcome = new_outcome(vector.checks[k], k, from_stdin);
        outcome.verdict = Verdict::skip;
        outcome.message = "not run: an earlier run of this vector timed out";
        report.outcome.checks.push_back(std::move(outcome));
      }
    }
  }
  report.outcome.seconds = seconds_since(start);
  if (selected.skipped) {
    // Run anyway, as toml-test does: one that passes is in the skip file
    // for no reason, and the run says so (README.md step 4).
    report.outcome.skip_passes = !report.outcome.failed();
    report.outcome.skipped = true;
    report.outcome.problem.clear();
    report.outcome.checks.clear();
  }
  return report;
}

std::vector<std::string> failure_lines(const VectorOutcome& vector) {
  if (vector.skipped) {
    return {"SKIP " + vector.name +
            (vector.skip_passes ? ": " + std::string(kSkipPasses) : " (listed in the skip file)")};
  }
  // A listed failure (--known-failures) is an XFAIL line, with its reason.
  const auto known = [](const std::optional<KnownFailure>& entry) {
    return entry ? "; known failure (line " + std::to_string(entry->line) + "): " + entry->text() : std::string();
  };
  if (!vector.problem.empty())
    return {(vector.known ? "XFAIL " : "FAIL ") + vector.name + ": " + vector.problem + known(vector.known)};
  std::vector<std::string> lines;
  const auto& checks = vector.checks;
  for (std::size_t k = 0; k < checks.size(); ++k) {
    const CheckOutcome& run = checks[k];
    if (run.verdict != Verdict::fail && run.verdict != Verdict::xfail) continue;
    std::string at = run.args + (run.from_stdin ? " -" : " FILE") + (run.after.empty() ? "" : " " + run.after);
    if (!run.from_stdin && k + 1 < checks.size() && checks[k + 1].index == run.index &&
        checks[k + 1].verdict == run.verdict && checks[k + 1].message == run.message) {
      at = run.args + " FILE, and with -";
      ++k;
    }
    lines.push_back((run.verdict == Verdict::xfail ? "XFAIL " : "FAIL ") + vector.name + " (" + at +
                    "): " + run.message + known(run.known) + "; reproduce: " + run.reproduce);
  }
  return lines;
}

}  // namespace agent_session::conform::runner
