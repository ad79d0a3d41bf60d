#include "conform/runner/conform.hpp"

#include "base/printable.hpp"
#include "conform/runner/conform_judge.hpp"
#include "conform/runner/conform_report.hpp"
#include "conform/runner/conform_select.hpp"
#include "conform/runner/conform_vector.hpp"
#include "conform/runner/known_failures.hpp"
#include "conform/runner/port_runner.hpp"
#include "conform/runner/stream_checks.hpp"
#include "conform/runner/subprocess.hpp"
#include "conform/runner/vector_files.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <new>
#include <optional>
#include <ostream>
#include <system_error>
#include <thread>

#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace agent_session::conform::runner {
namespace {

using agent_session::base::terminal_safe;

// Gives a vector's large blocks (its files, an expected error, a port's
// output) back to the system when they are freed, so that the next vector
// starts from what the runner kept (SPEC.md §6.1: a vector costs at most
// 5 times its files plus 16 MiB, and leaves only its outcome). Without
// it, glibc raises its mmap threshold to the largest block freed, and the
// next vector's megabytes land in the heap, where each string's freed
// smaller buffers stay resident: two 8 MiB vectors cost half again what
// one does.
void map_large_blocks() {
#ifdef __GLIBC__
  ::mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

// Runs the vectors on `jobs` threads and hands each report to `print` in
// vector order as soon as it and all before it are done. `print` returns
// false to stop early (the port cannot run); if it throws (standard output
// failed), the workers stop too before the exception goes on. Each job's
// harness port is stopped when its job ends; why one did not stop cleanly
// lands in `stop_problems`, and what a harness port said of itself in
// `about` (read both after run_all returns: the workers are joined then).
template <typename Print>
void run_all(const std::vector<SelectedVector>& dirs, const ConformOptions& options,
             std::vector<std::string>& stop_problems, std::optional<HarnessPort>& about, Print print) {
  std::vector<std::optional<VectorReport>> reports(dirs.size());
  std::mutex mutex;
  std::condition_variable done;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  const auto worker = [&] {
    PortRunner port(options, run_timeout(options));  // with --harness, this job's long-lived port
    for (std::size_t i = next++; i < dirs.size() && !stop; i = next++) {
      VectorReport report;
      try {
        report = run_vector(dirs[i], options, port);
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
    if (auto said = port.about()) {
      const std::lock_guard lock(mutex);
      if (!about) about = std::move(said);
    }
    if (auto problem = port.stop()) {
      const std::lock_guard lock(mutex);
      stop_problems.push_back(std::move(*problem));
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
    VectorReport report = std::move(*reports[i]);
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

// A path that does not exist, for the built-in missing-FILE check: a
// folder of the temporary directory that is not there.
std::filesystem::path missing_path() {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path temp = fs::temp_directory_path(error);
  if (error) temp = "/tmp";
  temp = fs::absolute(temp, error);  // the port runs in a folder of its own
  // The port must name the path on standard error (SPEC.md §6), and a
  // path of bytes that are not printable ASCII is one it may rightly
  // escape: then /tmp, which serves as well, since nothing is made there.
  const std::string bytes = temp.string();
  if (!std::all_of(bytes.begin(), bytes.end(), [](char c) { return c >= 0x20 && c <= 0x7E; })) temp = "/tmp";
  fs::path folder;
  for (unsigned n = 0; n < 1000; ++n) {
    folder = temp / ("agent-session-conform-" + std::to_string(::getpid()) + "-" + std::to_string(n) + "-absent");
    // symlink_status reports a missing path as not_found, with `error` set.
    if (fs::symlink_status(folder, error).type() == fs::file_type::not_found) break;
  }
  return folder / "session.jsonl";  // if all of them exist, the check fails, visibly
}

const char* const kWhereToRun = " (pass --vectors DIR)";

// Counts `vector` once, by its verdict (VectorOutcome::verdict).
void count(const VectorOutcome& vector, RunOutcome& run) {
  switch (vector.verdict()) {
    case Verdict::skip: ++run.skipped; break;
    case Verdict::fail: ++run.failed; break;
    case Verdict::xfail: ++run.expected_failures; break;
    case Verdict::xpass: ++run.unexpected_passes; break;
    case Verdict::pass: ++run.passed; break;
  }
  run.skipped_passing += vector.skip_passes ? 1 : 0;
}

}  // namespace

int run_conformance(const ConformOptions& options, std::ostream& out, std::ostream& err) {
  // Errors name the program that was run (agent-session-conform, also
  // when `agent-session conform` ran it).
  const std::string me = options.program + ": ";
  const std::string shown_vectors = terminal_safe(options.vectors);
  const VectorsVersion version = read_vectors_version(options.vectors);
  if (options.show_version) {
    out << "agent-session conform " << runner_version() << '\n';
    if (!version.problem.empty()) {
      std::error_code ignored;
      const bool no_folder = !std::filesystem::is_directory(options.vectors, ignored);
      err << me << "the vectors in '" << shown_vectors << "' have no version: " << version.problem
          << (no_folder ? kWhereToRun : "") << '\n';
      return 2;
    }
    out << "vectors " << version.version << " (" << shown_vectors << ")\n";
    return 0;
  }
  std::error_code error;
  // Absolute: FILE, a vector's input.jsonl, reaches a port that runs in
  // a folder of its own (runner/port_runner.hpp).
  std::filesystem::path vectors = std::filesystem::absolute(options.vectors, error);
  if (error) vectors = options.vectors;
  const std::vector<VectorDir> dirs = vector_dirs(vectors, error);
  if (error) {
    // A path that names no folder is the caller's mistake; a folder that
    // cannot be read (permissions, descriptors, I/O) is not.
    const bool usage = error == std::errc::no_such_file_or_directory || error == std::errc::not_a_directory;
    err << me << "cannot read the vectors folder '" << shown_vectors << "': " << terminal_safe(error.message())
        << (usage ? kWhereToRun : "") << '\n';
    return usage ? 2 : 3;
  }
  if (dirs.empty()) {
    err << me << "no vectors in '" << shown_vectors << "'" << kWhereToRun << '\n';
    return 2;
  }
  std::vector<VectorDir> all = dirs;
  if (version_at_least(version, kMissingFileSinceMinor)) {
    all.push_back({std::filesystem::path(options.vectors) / kMissingFileVector, "", missing_path(), ""});
  }
  for (const auto& name : runner_check_names()) {
    if (version_at_least(version, runner_check_since_minor(name)))
      all.push_back({std::filesystem::path(options.vectors) / name, "", {}, name});
  }
  std::vector<SelectedVector> selected;
  KnownFailures known;
  try {
    selected = select_vectors(all, options.only, options.skip_file);
    if (!options.known_failures.empty()) known = read_known_failures(options.known_failures, all, selected);
  } catch (const std::invalid_argument& problem) {
    err << me << problem.what() << '\n';
    return 2;
  }
  if (options.list) {
    for (const auto& vector : selected) out << terminal_safe(vector.dir.path.filename().string()) << '\n';
    out.flush();
    return 0;
  }
  if (options.command.empty()) {
    err << me << "conform needs the port's command line after -- (" << options.program << " -- CMD ARGS...)\n";
    return 2;
  }
  if (!version.problem.empty() && !options.reports.empty()) {
    err << me << "warning: the vectors in '" << shown_vectors << "' have no version (" << version.problem
        << "); the reports say \"unknown\"\n";
  }
  RunOutcome run;
  run.runner_version = std::string(runner_version());
  run.vectors_version = version.version;
  run.vectors_version_problem = version.problem;
  run.vectors = shown_vectors;
  for (const auto& word : options.command) run.command.push_back(terminal_safe(word));
  run.label = options.label;
  run.strict = options.strict;
  map_large_blocks();
  const bool tap = options.format == "tap";
  if (tap) write_tap_header(selected.size(), out);
  const auto start = Clock::now();
  std::optional<VectorReport> fatal;
  std::vector<std::string> stop_problems;
  run_all(selected, options, stop_problems, run.port, [&](VectorReport& report) {
    if (!report.fatal.empty()) {
      fatal = std::move(report);
      return false;
    }
    VectorOutcome& vector = report.outcome;
    mark_known(vector, known);
    count(vector, run);
    if (tap) {
      write_tap_vector(vector, run.results.size() + 1, out);
    } else {
      for (const auto& line : failure_lines(vector)) out << line << '\n';
      for (const auto& line : unexpected_pass_lines(vector)) out << line << '\n';
    }
    out.flush();
    run.results.push_back(std::move(report.outcome));
    return true;
  });
  if (fatal) {
    // terminal_line: the harness client's reasons are escaped already.
    if (tap) out << "Bail out! " << agent_session::base::terminal_line(fatal->fatal) << '\n';
    err << me << agent_session::base::terminal_line(fatal->fatal) << '\n';
    return fatal->fatal_code;
  }
  run.seconds = seconds_since(start);
  out << (tap ? "# " : "") << run.passed << " passed, " << run.failed << " failed";
  if (run.skipped > 0) out << ", " << run.skipped << " skipped";
  if (run.expected_failures > 0) out << ", " << base::counted(run.expected_failures, "expected failure");
  if (run.unexpected_passes > 0)
    out << ", " << base::counted(run.unexpected_passes, "unexpected pass", "unexpected passes");
  out << '\n';
  out.flush();
  const bool reports_written = write_reports(run, options.reports, me, err);
  // A harness that did not stop cleanly (no stop answer, a bad one, bytes
  // after it, no exit 0 within --timeout) failed stop: a port never passes
  // by misbehaving (harness.md §4), whatever its checks gave.
  for (const auto& problem : stop_problems) {
    err << me << "the port's harness did not stop cleanly: " << agent_session::base::terminal_line(problem) << '\n';
  }
  if (!reports_written) return 3;
  if (run.failed > 0 || !stop_problems.empty()) return 1;
  if (run.passed + run.expected_failures + run.unexpected_passes == 0) {  // every vector chosen was skipped
    err << me << "every vector chosen was skipped (" << run.skipped
        << ", run but not counted): a run that checks nothing is not a pass\n";
    return 1;
  }
  if (options.strict && run.skipped > 0) {
    err << me << "--strict: " << base::counted(run.skipped, "vector") << " skipped";
    // A vector of the skip file that passes is a stale entry: say which.
    if (run.skipped_passing > 0)
      err << ", " << run.skipped_passing << " of them passing (remove them from the skip file)";
    err << '\n';
  }
  // A listed failure that no longer fails is a stale entry too: the
  // XPASS lines name each (README.md step 4).
  if (options.strict && run.unexpected_passes > 0) {
    err << me << "--strict: " << base::counted(run.unexpected_passes, "vector")
        << " with unexpected passes (remove their lines from the known-failures file)\n";
  }
  return options.strict && run.skipped + run.unexpected_passes > 0 ? 1 : 0;
}

}  // namespace agent_session::conform::runner
