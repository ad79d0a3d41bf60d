#include "conform/properties/properties_command.hpp"

#include "base/printable.hpp"
#include "conform/properties/prop_report.hpp"
#include "conform/properties/properties_options.hpp"
#include "conform/runner/report_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>

namespace agent_session::conform::properties {
namespace {

namespace fs = std::filesystem;

struct IoError {
  std::string message;
};

// A budget around the adapter's count `at` of a suffix of whole units: at
// it, one below and one above, now and then zero or between two steps,
// where a trimmer's off-by-one and its unit boundaries show.
std::uint64_t draw_budget(fuzz::SessionWriter& writer, std::uint64_t at) {
  switch (writer.below(6)) {
    case 0: return at == 0 ? 0 : at - 1;
    case 1: return at + 1;
    case 2: return writer.chance(0.3) ? 0 : at + writer.below(static_cast<std::size_t>(at / 2 + 1));
    default: return at;
  }
}

// `words` as one shell line (POSIX quoting where a word needs it).
std::string shell_line(const std::vector<std::string>& words) {
  std::string line;
  for (const auto& word : words) {
    const bool plain = !word.empty() && word.find_first_not_of(
                                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789@%+=:,./_-") == std::string::npos;
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += (line.empty() ? "" : " ") + (plain ? word : quoted + "'");
  }
  return line;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) throw IoError{"cannot write " + path.string()};
}

// The case's folder: what a person needs to replay it by hand or with
// the adapter (adapter.md §3's count and trim requests), and what the
// trimmer answered. Its session.jsonl is the case's file.
fs::path write_case(const PropertiesOptions& options, const PropCase& found, std::size_t number) {
  const fs::path folder =
      fs::path(options.out) / (std::string(invariant_name(found.invariant)) + "-" + std::to_string(number));
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) throw IoError{"cannot create " + folder.string() + ": " + error.message()};
  std::string session;
  for (const auto& line : found.session.lines) session += line + "\n";
  write_file(folder / "session.jsonl", session);
  write_file(folder / "budget", std::to_string(found.budget) + "\n");
  write_file(folder / "adapter", shell_line(options.command) + "\n");
  write_file(folder / "broke.txt", std::string(invariant_name(found.invariant)) + ": " + found.detail + "\n");
  write_file(folder / "returned.json",
             found.returned.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  return folder / "session.jsonl";
}

}  // namespace

int properties_main(const std::vector<std::string>& args, const std::string& program, std::ostream& out,
                    std::ostream& err) {
  PropertiesOptions options;
  try {
    options = parse_properties_options(args);
  } catch (const PropertiesUsageError& usage) {
    err << program << " properties: " << usage.message << " (" << program << " properties --help)\n";
    return 2;
  }
  if (options.show_help) {
    out << properties_help(program);
    return 0;
  }
  const std::uint64_t seed = options.seed ? *options.seed : std::random_device()();
  runner::HarnessClient adapter({options.command,
                                 std::chrono::milliseconds(static_cast<std::int64_t>(options.timeout_seconds * 1000)),
                                 1 << 24,
                                 {},
                                 {}});
  if (const auto problem = adapter.start()) {
    err << program << " properties: " << *problem << "\n";
    return 3;
  }
  // An adapter (adapter.md) or a port's harness (SPEC.md §6's commands).
  const auto offers = [&](const char* command) {
    const auto& commands = adapter.port().commands;
    return std::find(commands.begin(), commands.end(), command) != commands.end();
  };
  const bool port = !offers("count") && offers("estimate") && offers("trim");
  if (!port && !(offers("count") && offers("trim"))) {
    err << program << " properties: the harness offers neither count and trim (adapter.md) nor estimate and trim "
        << "(SPEC.md §6)\n";
    return 3;
  }
  const std::string adapter_name = adapter.port().name + " " + adapter.port().version;
  out << "properties: " << base::terminal_line(adapter_name) << ", seed " << seed << ", " << options.runs
      << " sessions\n";
  TrimJudge judge(adapter, port);
  fuzz::SessionWriter writer(seed);
  PropRun run;
  run.seed = seed;
  run.runs = options.runs;
  run.command = options.command;
  run.name = adapter.port().name;
  run.version = adapter.port().version;
  run.adapter = adapter.adapter();
  try {
    for (std::uint64_t number = 0; number < options.runs; ++number) {
      const PropSession session = draw_session(writer);
      // The budget is drawn around the count of the newest k whole units
      // (SPEC.md §5.1), k drawn first: only that suffix is counted.
      const std::size_t units = 1 + writer.below(session.units.size());
      std::string why;
      const auto at = judge.suffix_count(session, units, why);
      Verdict verdict;
      std::uint64_t budget = 0;
      if (!at) {
        verdict.failure = why;
      } else {
        budget = draw_budget(writer, *at);
        verdict = judge.judge(session, budget);
      }
      if (!verdict.failure.empty()) {
        if (run.unjudged++ == 0) err << "properties: session " << number << " not judged: " << verdict.failure << "\n";
        continue;
      }
      ++run.judged;
      if (!verdict.broken) continue;
      const std::size_t nth = ++run.violations[static_cast<std::size_t>(*verdict.broken)];
      if (nth > options.cases) continue;
      const PropCase small = shrink_case(judge, {session, budget, *verdict.broken, verdict.detail, verdict.returned});
      const fs::path file = write_case(options, small, nth);
      // One line a case, `VIOLATION LABEL: ...`, as a CI step reads it
      // (conform/github-action.sh annotates each).
      out << "VIOLATION " << invariant_name(small.invariant) << ": " << base::terminal_line(small.detail) << " ("
          << small.session.lines.size() << " messages, budget " << small.budget << "; " << file.string() << ")\n";
      run.cases.push_back({small, file.string()});
    }
  } catch (const IoError& error) {
    err << program << " properties: " << error.message << "\n";
    return 3;
  }
  adapter.stop();
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < kInvariantCount; ++i) {
    total += run.violations[i];
    out << "  " << invariant_name(static_cast<Invariant>(i)) << ": " << run.violations[i] << " / " << run.judged
        << " sessions (" << rate_percent(run.violations[i], run.judged) << ")\n";
  }
  if (run.unjudged) out << "  not judged: " << run.unjudged << " sessions (the adapter's count or trim failed)\n";
  out << "properties: " << total << (total == 1 ? " violation" : " violations") << " in " << run.judged
      << " sessions (seed " << seed << ")\n";
  // Every report is tried; one that cannot be written is exit 3 (as the
  // runner's, runner/report_file.hpp: only ever a regular file).
  bool written = true;
  for (const auto& report : options.reports) {
    const std::string kind = report.substr(0, report.find('='));
    const std::string path = report.substr(report.find('=') + 1);
    const std::string text = kind == "json"    ? json_report(run)
                             : kind == "junit" ? junit_report(run)
                                               : markdown_report(run);
    if (const auto why = runner::write_report_file(path, text)) {
      err << program << " properties: cannot write the report " << base::terminal_line(path) << ": " << *why << "\n";
      written = false;
    }
  }
  if (!written) return 3;
  if (run.judged == 0) {
    err << program << " properties: no session could be judged\n";
    return 3;
  }
  return total ? 1 : 0;
}

}  // namespace agent_session::conform::properties
