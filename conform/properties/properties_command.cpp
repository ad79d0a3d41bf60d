#include "conform/properties/properties_command.hpp"

#include "base/printable.hpp"
#include "conform/properties/prop_shrink.hpp"
#include "conform/properties/properties_options.hpp"

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

using nlohmann::ordered_json;
namespace fs = std::filesystem;

struct IoError {
  std::string message;
};

// A budget around the adapter's count of a suffix of whole units (counts[k]:
// the newest k + 1 units): at it, one below and one above, now and then
// zero or between two steps, where a trimmer's off-by-one and its unit
// boundaries show.
std::uint64_t draw_budget(fuzz::SessionWriter& writer, const std::vector<std::uint64_t>& counts) {
  const std::uint64_t at = counts[writer.below(counts.size())];
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
// the adapter (adapter.md §3's count and trim requests).
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
  return folder;
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
  std::array<std::uint64_t, kInvariantCount> violations{};
  std::uint64_t judged = 0, unjudged = 0;
  ordered_json cases = ordered_json::array();
  try {
    for (std::uint64_t run = 0; run < options.runs; ++run) {
      const PropSession session = draw_session(writer);
      std::string why;
      const std::vector<std::uint64_t> counts = judge.unit_counts(session, why);
      Verdict verdict;
      std::uint64_t budget = 0;
      if (counts.empty()) {
        verdict.failure = why;
      } else {
        budget = draw_budget(writer, counts);
        verdict = judge.judge(session, budget);
      }
      if (!verdict.failure.empty()) {
        if (unjudged++ == 0) err << "properties: session " << run << " not judged: " << verdict.failure << "\n";
        continue;
      }
      ++judged;
      if (!verdict.broken) continue;
      const std::size_t number = ++violations[static_cast<std::size_t>(*verdict.broken)];
      if (number > options.cases) continue;
      const PropCase small = shrink_case(judge, {session, budget, *verdict.broken, verdict.detail});
      const fs::path folder = write_case(options, small, number);
      out << "  " << invariant_name(small.invariant) << ": " << base::terminal_line(small.detail) << " ("
          << small.session.lines.size() << " messages, budget " << small.budget << "; " << folder.string() << ")\n";
      ordered_json lines = ordered_json::array();
      for (const auto& line : small.session.lines) lines.push_back(ordered_json::parse(line));
      cases.push_back({{"invariant", invariant_name(small.invariant)},
                       {"detail", small.detail},
                       {"budget", small.budget},
                       {"folder", folder.string()},
                       {"session", lines}});
    }
  } catch (const IoError& error) {
    err << program << " properties: " << error.message << "\n";
    return 3;
  }
  adapter.stop();
  std::uint64_t total = 0;
  ordered_json invariants = ordered_json::object();
  for (std::size_t i = 0; i < kInvariantCount; ++i) {
    total += violations[i];
    const double rate = judged ? static_cast<double>(violations[i]) / static_cast<double>(judged) : 0.0;
    invariants[invariant_name(static_cast<Invariant>(i))] = {{"violations", violations[i]}, {"rate", rate}};
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.1f%%", 100 * rate);
    out << "  " << invariant_name(static_cast<Invariant>(i)) << ": " << violations[i] << " / " << judged
        << " sessions (" << percent << ")\n";
  }
  if (unjudged) out << "  not judged: " << unjudged << " sessions (the adapter's count or trim failed)\n";
  out << "properties: " << total << (total == 1 ? " violation" : " violations") << " in " << judged
      << " sessions (seed " << seed << ")\n";
  for (const auto& report : options.reports) {
    const std::string kind = report.substr(0, report.find('='));
    const std::string path = report.substr(report.find('=') + 1);
    std::string text;
    if (kind == "json") {
      const ordered_json document = {{"seed", seed},
                                     {"runs", options.runs},
                                     {"judged", judged},
                                     {"unjudged", unjudged},
                                     {"command", options.command},
                                     {"port", {{"name", adapter.port().name}, {"version", adapter.port().version}}},
                                     {"adapter", adapter.adapter()},
                                     {"invariants", invariants},
                                     {"cases", cases}};
      text = document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    } else {
      text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"properties\" tests=\"" +
             std::to_string(kInvariantCount) + "\" failures=\"" + std::to_string(total ? 1 : 0) + "\">\n";
      std::size_t failing = 0;
      for (std::size_t i = 0; i < kInvariantCount; ++i) {
        const std::string name = invariant_name(static_cast<Invariant>(i));
        text += "  <testcase classname=\"properties\" name=\"" + name + "\"";
        if (violations[i]) {
          ++failing;
          text += "><failure message=\"" + std::to_string(violations[i]) + " of " + std::to_string(judged) +
                  " sessions\"/></testcase>\n";
        } else {
          text += "/>\n";
        }
      }
      text += "</testsuite>\n";
      text.replace(text.find("failures=\"") + 10, 1, std::to_string(failing));
    }
    try {
      write_file(path, text);
    } catch (const IoError& error) {
      err << program << " properties: " << error.message << "\n";
      return 3;
    }
  }
  if (judged == 0) {
    err << program << " properties: no session could be judged\n";
    return 3;
  }
  return total ? 1 : 0;
}

}  // namespace agent_session::conform::properties
