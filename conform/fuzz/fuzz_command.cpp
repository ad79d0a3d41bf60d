#include "conform/fuzz/fuzz_command.hpp"

#include "conform/runner/port_runner.hpp"

#include "base/printable.hpp"
#include "conform/fuzz/campaign_tally.hpp"
#include "conform/fuzz/compare.hpp"
#include "conform/fuzz/fuzz_inputs.hpp"
#include "conform/fuzz/fuzz_reports.hpp"
#include "conform/fuzz/input_file.hpp"
#include "conform/fuzz/reference_checks.hpp"
#include "conform/fuzz/shrink.hpp"
#include "conform/fuzz/vector_out.hpp"
#include "conform/runner/clean_ends.hpp"
#include "conform/runner/conform_options.hpp"  // default_vectors_folder
#include "conform/runner/temp_folder.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>

namespace agent_session::conform::fuzz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using base::terminal_line;
using base::terminal_safe;

// A job's folder in fuzz's temporary folder: its path, for the port's
// FILE, and the descriptor the runner writes FILE through.
struct InputFolder {
  fs::path path;
  int fd = -1;
};

struct Difference {
  std::uint64_t index = 0;
  std::string input;
  runner::Check check;
  std::string reason;
};

// The differences of one signature (campaign_tally.hpp): how many, and the
// one at the lowest input number, which is shrunk and written.
struct Found {
  std::uint64_t count = 0;
  Difference first;
};

class Fuzzer {
 public:
  Fuzzer(const FuzzOptions& options, std::uint64_t seed, std::vector<std::string> vectors)
      : options_(options),
        seed_(seed),
        vectors_(std::move(vectors)),
        timeout_(static_cast<long long>(options.timeout_seconds * 1000)) {
    port_options_.command = options.command;
    port_options_.harness = options.harness;
  }

  // The first check of `bytes` (in FILE `file`) the port fails, and its
  // signature. While shrinking, `same` keeps the difference the same: only
  // checks of its command, only while the reference's `check` exits as it
  // did (so a candidate the reference rejects costs no port run), and
  // only a difference of the same signature. `rules`, when given, gets the
  // rule IDs the reference's checks exercise (the coverage).
  struct Same {
    std::string command;
    int check_exit;
    Signature signature;
  };
  struct Differs {
    Mismatch mismatch;
    Signature signature;
    std::vector<std::string> rules;  // the rule IDs it breaks
  };
  std::optional<Differs> differs(runner::PortRunner& port, const std::string& bytes, const InputFolder& folder,
                                 std::uint64_t seed, const Same* same, std::vector<std::string>* rules = nullptr) {
    const fs::path file = folder.path / "input.jsonl";
    write_input(folder.fd, file, bytes);
    std::optional<std::vector<Message>> messages;
    std::vector<runner::Check> checks = reference_checks(file.string(), seed, rules ? &messages : nullptr);
    if (rules) *rules = exercised_rules(checks, file.string(), bytes, messages);
    if (same) {
      if (checks.front().exit != same->check_exit) return std::nullopt;
      std::erase_if(checks, [same](const runner::Check& check) { return check.args.front() != same->command; });
    }
    auto found = first_mismatch(port, checks, file.string(), timeout_, [this] { ++port_runs_; });
    if (!found) return std::nullopt;
    Signature signature = signature_of(*found, file.string());
    if (same && signature != same->signature) return std::nullopt;
    std::vector<std::string> pinned = broken_rules(*found, file.string());
    return Differs{std::move(*found), std::move(signature), std::move(pinned)};
  }

  void work(const InputFolder& dir, std::uint64_t limit, Clock::time_point deadline) {
    try {
      runner::PortRunner port(port_options_, timeout_);  // this job's own port in harness mode
      for (;;) {
        const std::uint64_t index = next_++;
        if (index >= limit || index >= stop_at_ || Clock::now() >= deadline || failed_) break;
        const FuzzInput input = fuzz_input(seed_, index, vectors_);
        std::vector<std::string> exercised;
        auto found = differs(port, input.bytes, dir, input_seed(seed_, index), nullptr, &exercised);
        ++done_;
        std::lock_guard lock(mutex_);
        for (const std::string& id : exercised) ++reached_[id].inputs;
        if (!found) continue;
        ++differences_;
        for (const std::string& id : found->rules) ++reached_[id].differences;
        Found& same = found_[found->signature];
        if (same.count++ == 0 || index < same.first.index) {
          same.first = Difference{index, input.bytes, found->mismatch.check, found->mismatch.reason};
        }
        if (options_.stop_at_first) stop_at_ = std::min<std::uint64_t>(stop_at_, index);
      }
      judge_stop(port);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      failed_ = true;
    }
  }

  // A harness port's answer to stop is judged as conform judges it
  // (harness.md §5): one that does not stop cleanly fails the run.
  void judge_stop(runner::PortRunner& port) {
    if (auto problem = port.stop()) {
      std::lock_guard lock(mutex_);
      stop_problems_.push_back(std::move(*problem));
    }
  }

  const FuzzOptions& options_;
  std::uint64_t seed_;
  std::vector<std::string> vectors_;
  std::chrono::milliseconds timeout_;
  runner::ConformOptions port_options_;  // the port's command and mode, for PortRunner
  std::atomic<std::uint64_t> next_{0}, done_{0}, port_runs_{0};
  std::atomic<std::uint64_t> stop_at_{std::numeric_limits<std::uint64_t>::max()};
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::uint64_t differences_ = 0;
  std::map<Signature, Found> found_;
  std::map<std::string, RuleCount> reached_;  // rule ID: its counts
  std::vector<std::string> stop_problems_;
  std::exception_ptr error_;
};

std::string lines_of(const std::string& bytes) {
  const auto n = std::count(bytes.begin(), bytes.end(), '\n') + (!bytes.empty() && bytes.back() != '\n');
  return base::counted(static_cast<std::size_t>(n), "line");
}

// Shrinks the difference, writes its vector and prints what was found;
// returns the vector's name.
std::string report(Fuzzer& fuzzer, const Signature& signature, const Difference& found, const InputFolder& dir,
                   std::ostream& out) {
  const FuzzOptions& options = fuzzer.options_;
  const std::uint64_t seed = input_seed(fuzzer.seed_, found.index);
  out << "difference " << signature.text() << " at input " << found.index << " (" << found.input.size() << " bytes, "
      << lines_of(found.input) << "): " << terminal_safe(shell_line(found.check.args)) << ": " << found.reason << '\n';
  const fs::path file = dir.path / "input.jsonl";
  write_input(dir.fd, file, found.input);
  const Fuzzer::Same same{found.check.args.front(), reference_check({"check"}, file.string()).exit, signature};
  const auto started = Clock::now();
  const auto deadline = started + std::chrono::milliseconds(static_cast<long long>(options.shrink_seconds * 1000));
  runner::PortRunner runner(fuzzer.port_options_, fuzzer.timeout_);
  const ShrinkResult small = shrink(
      found.input,
      [&](const std::string& candidate) { return fuzzer.differs(runner, candidate, dir, seed, &same).has_value(); },
      {.max_tries = 5000, .deadline = deadline});
  const double took = std::chrono::duration<double>(Clock::now() - started).count();
  out << "shrunk to " << small.input.size() << " bytes, " << lines_of(small.input) << ", in " << small.tries
      << " tries (" << std::fixed << std::setprecision(1) << took << " s"
      << (small.exhausted ? ", stopped at its limit" : "") << ")\n";
  const auto still = fuzzer.differs(runner, small.input, dir, seed, nullptr);
  fuzzer.judge_stop(runner);
  FoundVector vector;
  // Its folder first, made exclusively (vector_out.hpp): the name the
  // reproduce lines and the reports give is the one it got.
  const VectorFolder made =
      new_vector_folder(options.out, "fuzz_" + std::to_string(fuzzer.seed_) + "_" + std::to_string(found.index));
  vector.name = made.name;
  vector.input = small.input;
  vector.checks = reference_checks(file.string(), seed);
  const runner::Check& shown = still ? still->mismatch.check : found.check;
  vector.rule = spec_rule(shown, file.string());
  vector.rules = spec_rule_ids(shown, file.string());
  vector.about = "found by agent-session-conform fuzz --seed " + std::to_string(fuzzer.seed_) + " (input " +
                 std::to_string(found.index) + "): " + shell_line(options.command) + " failed " +
                 shell_line(shown.args) + ": " + (still ? still->mismatch.reason : found.reason);
  const fs::path& folder = made.path;
  std::vector<std::string> port = options.command;
  port.insert(port.end(), shown.args.begin(), shown.args.end());
  port.push_back((folder / "input.jsonl").string());
  std::vector<std::string> conform = {options.runner, "--vectors", options.out, "--only", vector.name, "--"};
  conform.insert(conform.end(), options.command.begin(), options.command.end());
  vector.reproduce = {shell_line(port), shell_line(conform)};
  write_vector_files(made, vector);
  out << "wrote " << terminal_safe(folder.string()) << " (" << base::counted(vector.checks.size(), "check") << "; "
      << vector.rule << ")\n"
      << "reproduce: " << terminal_safe(vector.reproduce[0]) << "\n"
      << "           " << terminal_safe(vector.reproduce[1]) << '\n';
  return vector.name;
}

}  // namespace

int run_fuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err) {
  const std::uint64_t seed =
      options.seed ? *options.seed : std::random_device{}() * 0x100000000ull + std::random_device{}();
  const std::string vectors = options.vectors.empty() ? runner::default_vectors_folder() : options.vectors;
  std::error_code unreadable;
  std::vector<std::string> inputs = read_vector_inputs(vectors, unreadable);
  if (unreadable) {
    // As conform says it: a path that names no folder is the caller's
    // mistake (exit 2); a folder that cannot be read is not (exit 3).
    const bool usage = unreadable == std::errc::no_such_file_or_directory || unreadable == std::errc::not_a_directory;
    err << options.program << " fuzz: cannot read the vectors folder '" << terminal_safe(vectors)
        << "': " << terminal_safe(unreadable.message()) << '\n';
    return usage ? 2 : 3;
  }
  // SPEC.md's rule IDs, read before the campaign: the coverage lists each.
  const std::optional<std::vector<std::string>> spec_rules = read_coverage_rules(options, err);
  if (!spec_rules) return 3;
  Fuzzer fuzzer(options, seed, std::move(inputs));
  const std::uint64_t limit =
      options.time_seconds ? std::numeric_limits<std::uint64_t>::max() : options.runs.value_or(1000);
  std::ostringstream budget;
  if (options.time_seconds)
    budget << "for " << *options.time_seconds << " s";
  else
    budget << base::counted(limit, "input");
  out << "fuzz: seed " << seed << ", " << budget.str() << ", " << base::counted(options.jobs, "job") << ", "
      << fuzzer.vectors_.size() << " vector inputs to mutate; port: " << terminal_safe(shell_line(options.command))
      << std::endl;
  try {
    TempDir temp;
    const auto started = Clock::now();
    const auto deadline =
        options.time_seconds ? started + std::chrono::milliseconds(static_cast<long long>(*options.time_seconds * 1000))
                             : Clock::time_point::max();
    // Each job's folder made and opened relative to temp's descriptor,
    // and written through its own: never through a path a port could
    // have turned into a link (runner/temp_folder.hpp).
    std::vector<base::Fd> held;
    std::vector<InputFolder> dirs;
    for (unsigned j = 0; j < options.jobs; ++j) {
      const std::string name = "job" + std::to_string(j);
      if (::mkdirat(temp.fd(), name.c_str(), 0700) != 0) {
        throw std::system_error(errno, std::generic_category(), "cannot make " + (temp.path() / name).string());
      }
      held.emplace_back(::openat(temp.fd(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (held.back().get() < 0) {
        throw std::system_error(errno, std::generic_category(), "cannot open " + (temp.path() / name).string());
      }
      dirs.push_back({temp.path() / name, held.back().get()});
    }
    std::vector<std::thread> jobs;
    for (const InputFolder& dir : dirs) {
      jobs.emplace_back([&fuzzer, &dir, limit, deadline] { fuzzer.work(dir, limit, deadline); });
    }
    for (auto& job : jobs) job.join();
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    if (fuzzer.error_) std::rethrow_exception(fuzzer.error_);
    out << base::counted(fuzzer.done_.load(), "input") << " in " << std::fixed << std::setprecision(1) << seconds
        << " s: " << std::setprecision(1) << (seconds > 0 ? static_cast<double>(fuzzer.done_) / seconds : 0.0)
        << " inputs/s (" << base::counted(fuzzer.port_runs_.load(), "run") << " of the port)" << std::endl;
    const auto stop_problems = [&] {
      for (const auto& problem : fuzzer.stop_problems_) {
        err << options.program << " fuzz: the port's harness did not stop cleanly: " << terminal_line(problem) << '\n';
      }
      return !fuzzer.stop_problems_.empty();
    };
    // One vector per signature, by first input; with --stop-at-first only
    // the lowest input's, as fuzz did before signatures.
    std::vector<std::pair<Signature, Found>> found(fuzzer.found_.begin(), fuzzer.found_.end());
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a.second.first.index < b.second.first.index; });
    if (options.stop_at_first && found.size() > 1) found.resize(1);
    Campaign campaign{
        seed, fuzzer.done_, fuzzer.differences_, options.stop_at_first, coverage_table(*spec_rules, fuzzer.reached_),
        {}};
    std::vector<std::string> names;
    for (const auto& [signature, same] : found) {
      names.push_back(report(fuzzer, signature, same.first, dirs.front(), out));
      campaign.signatures.push_back({signature, same.count, same.first.index, names.back(),
                                     shell_line(same.first.check.args), same.first.reason});
    }
    if (found.empty()) out << "no difference\n";
    write_campaign_text(campaign, out);
    const bool unclean = stop_problems();
    if (found.empty()) {
      const bool written = write_no_difference_reports(options, seed, fuzzer.done_, seconds, err) &&
                           add_campaign_to_reports(options, campaign_json(campaign), err);
      return !written ? 3 : unclean ? 1 : 0;
    }
    if (options.reports.empty()) return 1;
    const int reported = report_difference(options, names, err);
    if (reported == 3 || !add_campaign_to_reports(options, campaign_json(campaign), err)) return 3;
    return 1;
  } catch (const PortError& error) {
    err << options.program << " fuzz: cannot run the port: " << terminal_safe(error.message) << '\n';
    return 2;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& error) {
    err << options.program << " fuzz: " << terminal_safe(error.what()) << '\n';
    return 3;
  }
}

int fuzz_main(const std::vector<std::string>& args, const std::string& program, std::ostream& out, std::ostream& err,
              const std::string& runner) {
  const runner::CleanEnds clean_ends;  // before any thread is started
  FuzzOptions options;
  try {
    options = parse_fuzz_options(args);
    options.program = program;
    options.runner = runner;
  } catch (const FuzzUsageError& error) {
    err << program << " fuzz: " << error.message << " (" << program << " fuzz --help)\n";  // made safe where thrown
    return 2;
  }
  if (options.show_help) {
    out << fuzz_help(program);
    return 0;
  }
  const int code = run_fuzz(options, out, err);
  return runner::with_folders_left(code, program + " fuzz", err);
}

}  // namespace agent_session::conform::fuzz
