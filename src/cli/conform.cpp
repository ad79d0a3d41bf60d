#include "cli/conform.hpp"

#include "cli/subprocess.hpp"
#include "cli/vector_files.hpp"
#include "internal/terminal_text.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <new>
#include <optional>
#include <ostream>
#include <sstream>
#include <system_error>
#include <thread>

namespace agent_session::cli {
namespace {

namespace fs = std::filesystem;
using internal::terminal_safe;

// One entry of a vector's expect.json "checks".
struct Check {
  std::vector<std::string> args;
  int exit = 0;
  std::string stdout_bytes;  // compared when exit is 0
  std::string error;         // looked for on stderr when exit is 1
};

struct Vector {
  std::string name;
  fs::path input_path;
  std::string input;
  std::vector<Check> checks;
  std::string problem;  // why the vector itself is unusable (a failure, never a skip)
};

// What running one vector found.
struct VectorReport {
  std::vector<std::string> failures;  // one line each, every untrusted part escaped
  std::string fatal;                  // the runner cannot go on: stop with `fatal_code`
  int fatal_code = 0;                 // 2: the port cannot be executed; 3: resources ran out
};

// Checks the shape README.md promises, so a typo in a vector fails loudly
// instead of passing vacuously.
Check parse_check(const nlohmann::json& json) {
  Check check;
  check.args = json.at("args").get<std::vector<std::string>>();
  // An exit status is a byte; any other number (1e100, -1, 1.5) would be
  // converted, not compared, and out of an int's range undefinedly so.
  const auto& exit = json.at("exit");
  if (!exit.is_number_integer() || exit.get<std::int64_t>() < 0 || exit.get<std::int64_t>() > 255 ||
      (exit.is_number_unsigned() && exit.get<std::uint64_t>() > 255)) {
    throw std::runtime_error("exit must be an integer from 0 to 255");
  }
  check.exit = exit.get<int>();
  if (check.exit == 0) check.stdout_bytes = json.at("stdout").get<std::string>();
  if (check.exit == 1) check.error = json.at("error").get<std::string>();
  return check;
}

Vector load_vector(const VectorDir& dir) {
  Vector vector;
  vector.name = dir.path.filename().string();
  vector.input_path = dir.path / "input.jsonl";
  if (!dir.problem.empty()) {
    vector.problem = "unusable vector: " + dir.problem;
    return vector;
  }
  try {
    vector.input = read_vector_file(dir.path, "input.jsonl");
    const auto expect = nlohmann::json::parse(read_vector_file(dir.path, "expect.json"));
    for (const auto& check : expect.at("checks")) vector.checks.push_back(parse_check(check));
    if (vector.checks.empty()) vector.problem = "expect.json has no checks";
  } catch (const std::bad_alloc&) {
    throw;  // the machine's problem, not the vector's
  } catch (const std::exception& error) {
    vector.problem = std::string("unusable vector: ") + error.what();
  }
  return vector;
}

// `text` in double quotes, escaped as terminal_safe does.
std::string printable(std::string_view text) { return "\"" + terminal_safe(text) + "\""; }

// At most `limit` bytes from `from`, marking cuts with "...".
std::string excerpt(std::string_view text, std::size_t from, std::size_t limit) {
  from = std::min(from, text.size());
  std::string shown = printable(text.substr(from, limit));
  if (from > 0) shown.insert(0, "...");
  if (from + limit < text.size()) shown += "...";
  return shown;
}

// "stdout differs at byte 12 (line 2): expected "...", got "...""
std::string describe_difference(const std::string& expected, const std::string& actual) {
  const auto [e, a] = std::mismatch(expected.begin(), expected.end(), actual.begin(), actual.end());
  const auto at = static_cast<std::size_t>(e - expected.begin());
  const auto line = 1 + std::count(expected.begin(), e, '\n');
  const std::size_t from = at > 20 ? at - 20 : 0;
  std::ostringstream text;
  text << "stdout differs at byte " << at << " (line " << line << "): expected " << excerpt(expected, from, 60)
       << ", got " << excerpt(actual, from, 60);
  if (expected.size() != actual.size()) {
    text << " (" << expected.size() << " bytes expected, " << actual.size() << " got)";
  }
  return text.str();
}

std::string stderr_hint(const ProcessResult& result) {
  if (result.err.empty()) return "";
  return "; stderr: " + excerpt(result.err, 0, 160);
}

// Why `result` fails `check`, or nothing when it passes.
std::optional<std::string> judge(const Check& check, const ProcessResult& result, std::chrono::milliseconds timeout) {
  if (result.end != ProcessEnd::exited) return describe_end(result, timeout) + ", expected exit " + std::to_string(check.exit);
  if (result.exit_code != check.exit) {
    return "exit " + std::to_string(result.exit_code) + ", expected " + std::to_string(check.exit) + stderr_hint(result);
  }
  if (check.exit == 0 && result.out != check.stdout_bytes) return describe_difference(check.stdout_bytes, result.out);
  if (check.exit == 1 && !contains_error(result.err, check.error)) {
    return "stderr lacks " + printable(check.error) + " followed by end of line or \": \"" +
           (result.err.empty() ? "; stderr is empty" : stderr_hint(result));
  }
  return std::nullopt;
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

// Runs `check` with FILE, then with `-`; one failure line for both when
// they fail alike. Returns false when a run timed out (the vector's other
// checks are then skipped: a hanging port costs one timeout per vector).
bool run_check(const Vector& vector, const Check& check, const ConformOptions& options, VectorReport& report) {
  // A year is as good as forever, and keeps the conversion defined.
  const double seconds = std::min(options.timeout_seconds, 365.0 * 24 * 3600);
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  std::optional<std::string> verdicts[2];
  const std::string files[2] = {vector.input_path.string(), "-"};
  bool timed_out = false;
  for (int mode = 0; mode < 2 && !timed_out; ++mode) {
    std::vector<std::string> argv = options.command;
    argv.insert(argv.end(), check.args.begin(), check.args.end());
    argv.push_back(files[mode]);
    const ProcessResult result =
        run_process(argv, mode == 0 ? std::string_view() : vector.input, timeout, options.max_output);
    if (result.end == ProcessEnd::not_started) {
      report.fatal = result.error;
      report.fatal_code = 2;
      return false;
    }
    verdicts[mode] = judge(check, result, timeout);
    timed_out = result.end == ProcessEnd::timed_out;
  }
  const std::string what = terminal_safe(joined(check.args));
  std::string where;
  if (verdicts[0] && verdicts[1] && *verdicts[0] == *verdicts[1]) {
    where = what + " FILE, and with -";
    verdicts[1].reset();
  }
  for (int mode = 0; mode < 2; ++mode) {
    if (!verdicts[mode]) continue;
    const std::string at = where.empty() ? what + (mode == 0 ? " FILE" : " -") : where;
    report.failures.push_back("FAIL " + terminal_safe(vector.name) + " (" + at + "): " + *verdicts[mode]);
  }
  return !timed_out;
}

VectorReport run_vector(const VectorDir& dir, const ConformOptions& options) {
  const Vector vector = load_vector(dir);
  VectorReport report;
  if (!vector.problem.empty()) {
    report.failures.push_back("FAIL " + terminal_safe(vector.name) + ": " + terminal_safe(vector.problem));
    return report;
  }
  for (std::size_t i = 0; i < vector.checks.size(); ++i) {
    if (run_check(vector, vector.checks[i], options, report)) continue;
    if (report.fatal.empty() && i + 1 < vector.checks.size()) {
      report.failures.back() += "; its " + std::to_string(vector.checks.size() - i - 1) + " other checks skipped";
    }
    break;
  }
  return report;
}

// Runs the vectors on `jobs` threads and hands each report to `print` in
// vector order as soon as it and all before it are done. `print` returns
// false to stop early (the port cannot run); if it throws (standard output
// failed), the workers stop too before the exception goes on.
template <typename Print>
void run_all(const std::vector<VectorDir>& dirs, const ConformOptions& options, Print print) {
  std::vector<std::optional<VectorReport>> reports(dirs.size());
  std::mutex mutex;
  std::condition_variable done;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  const auto worker = [&] {
    for (std::size_t i = next++; i < dirs.size() && !stop; i = next++) {
      VectorReport report;
      try {
        report = run_vector(dirs[i], options);
      } catch (const std::system_error& error) {  // no pipes or processes left: stop, do not guess
        report.fatal = std::string("cannot start the port: ") + error.what();
      } catch (const std::bad_alloc&) {
        report.fatal = "out of memory";
      } catch (const std::exception& error) {
        report.fatal = error.what();
      }
      if (!report.fatal.empty() && report.fatal_code == 0) report.fatal_code = 3;
      const std::lock_guard lock(mutex);
      reports[i] = std::move(report);
      done.notify_all();
    }
  };
  std::vector<std::jthread> workers;
  try {
    for (unsigned j = 0; j < std::max(options.jobs, 1u); ++j) workers.emplace_back(worker);
  } catch (const std::system_error&) {
    if (workers.empty()) throw;  // fewer threads than asked for do the same work
  }
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    std::unique_lock lock(mutex);
    done.wait(lock, [&] { return reports[i].has_value(); });
    const VectorReport report = std::move(*reports[i]);
    lock.unlock();
    bool go_on = false;
    try {
      go_on = print(report);
    } catch (...) {
      stop = true;
      throw;
    }
    if (!go_on) {
      stop = true;
      return;  // the workers finish their current vector and join
    }
  }
}

const char* const kWhereToRun = " (run from the repository root, or pass --vectors DIR)";

}  // namespace

bool contains_error(const std::string& stderr_text, const std::string& expected) {
  if (expected.empty()) return false;
  for (auto at = stderr_text.find(expected); at != std::string::npos; at = stderr_text.find(expected, at + 1)) {
    const std::string_view rest = std::string_view(stderr_text).substr(at + expected.size(), 2);
    if (rest.empty() || rest[0] == '\n' || rest == ": ") return true;
  }
  return false;
}

CLI::App* add_conform_command(CLI::App& app, ConformOptions& options) {
  // PositiveNumber lets NaN through (no comparison holds for it), and NaN
  // seconds cannot become a duration.
  static const CLI::Validator kFinite(
      [](std::string& text) {
        return std::isfinite(std::strtod(text.c_str(), nullptr)) ? std::string() : "not a finite number: " + text;
      },
      "FINITE");
  CLI::App* conform = app.add_subcommand(
      "conform",
      "Run the conformance vectors against a port: for each check, CMD ARGS... <check args> FILE, "
      "then again with - and the input on standard input. Exit 0: every vector passed; 1: some failed.");
  conform->add_option("--vectors", options.vectors, "the vectors' folder (default: corpus/conformance)");
  conform->add_option("--timeout", options.timeout_seconds, "seconds one run may take; then it is killed and fails")
      ->check(CLI::PositiveNumber & kFinite)
      ->capture_default_str();
  conform->add_option("--jobs", options.jobs, "vectors run at once")->check(CLI::Range(1u, 64u))->capture_default_str();
  conform->add_option("--max-output", options.max_output,
                      "bytes kept of each output stream of a run; a port that writes more is killed and fails")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30))
      ->capture_default_str();
  conform->add_option("CMD", options.command, "the port's command line, after --")->required();
  conform->footer(
      "Everything after -- is the port's command line. Output: one line per failing check, then "
      "'N passed, M failed' (vectors); names and the port's output are escaped. Exit 2: usage error (no "
      "vectors folder, a CMD that cannot run); 3: a vectors folder that cannot be read, or processes, pipes "
      "or memory ran out.\n"
      "Examples:\n  agent-session conform -- node tests/oracle/cli.mjs\n"
      "  agent-session conform --timeout 5 --jobs 2 -- ./my-port --strict");
  return conform;
}

int run_conformance(const ConformOptions& options, std::ostream& out, std::ostream& err) {
  const std::string shown_vectors = terminal_safe(options.vectors);
  std::error_code error;
  const std::vector<VectorDir> dirs = vector_dirs(options.vectors, error);
  if (error) {
    // A path that names no folder is the caller's mistake; a folder that
    // cannot be read (permissions, descriptors, I/O) is not.
    const bool usage = error == std::errc::no_such_file_or_directory || error == std::errc::not_a_directory;
    err << "agent-session: cannot read the vectors folder '" << shown_vectors << "': " << terminal_safe(error.message())
        << (usage ? kWhereToRun : "") << '\n';
    return usage ? 2 : 3;
  }
  if (dirs.empty()) {
    err << "agent-session: no vectors in '" << shown_vectors << "'" << kWhereToRun << '\n';
    return 2;
  }
  std::size_t passed = 0, failed = 0;
  std::optional<VectorReport> fatal;
  run_all(dirs, options, [&](const VectorReport& report) {
    if (!report.fatal.empty()) {
      fatal = report;
      return false;
    }
    for (const auto& line : report.failures) out << line << '\n';
    ++(report.failures.empty() ? passed : failed);
    out.flush();
    return true;
  });
  if (fatal) {
    err << "agent-session: " << terminal_safe(fatal->fatal) << '\n';
    return fatal->fatal_code;
  }
  out << passed << " passed, " << failed << " failed\n";
  out.flush();
  return failed == 0 ? 0 : 1;
}

}  // namespace agent_session::cli
