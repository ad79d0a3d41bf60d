#include "conform/runner/report_diff.hpp"

#include "base/printable.hpp"
#include "conform/runner/conform_judge.hpp"
#include "conform/runner/vector_files.hpp"
#include "harness/untrusted_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>
#include <set>

namespace agent_session::conform::runner {
namespace {

using harness::member;

[[noreturn]] void not_a_report(const std::string& why) { throw ReportError(why, false); }

// A text of the report, as a line may show it: inert (a report is
// untrusted, whoever wrote it: every byte a terminal must not see raw as
// \xnn; the report's own escapes kept as they are) and cut to `limit`.
std::string text_of(const nlohmann::json& value, std::size_t limit = kShownBytes) {
  return value.is_string() ? base::printable_excerpt(value.get_ref<const std::string&>(), limit) : std::string();
}

// A failure's explanation holds a few excerpts of kShownBytes each.
constexpr std::size_t kShownMessage = 4 * kShownBytes;

bool fails(const std::string& verdict) { return verdict == "fail" || verdict == "xfail"; }
bool passes(const std::string& verdict) { return verdict == "pass" || verdict == "xpass"; }

// Adds the runs of one result (a vector) to `run`.
void add_result(const nlohmann::json& result, std::size_t number, ReportRun& run) {
  const std::string where = "result " + std::to_string(number);
  const auto& name = member(result, "name");
  const auto& verdict = member(result, "verdict");
  const auto& checks = member(result, "checks");
  if (!name.is_string() || name.get_ref<const std::string&>().empty() || !verdict.is_string() || !checks.is_array())
    not_a_report(where + " has no name, verdict or checks");
  const std::string vector = text_of(name, 2 * kShownBytes);
  if (checks.empty()) {
    ReportItem& item = run.items[{vector, 0}];
    const std::string& said = verdict.get_ref<const std::string&>();
    item.standing = fails(said) ? Standing::fails : passes(said) ? Standing::passes : Standing::not_judged;
    item.message = text_of(member(result, "problem"), kShownMessage);
    return;
  }
  for (const auto& check : checks) {
    const auto& index = member(check, "index");
    const auto& said = member(check, "verdict");
    if (!index.is_number_unsigned() || index.get<std::uint64_t>() >= kMaxReportChecks || !said.is_string())
      not_a_report(where + " has a check without a whole index below " + std::to_string(kMaxReportChecks) +
                   " or a verdict");
    const ReportKey key{vector, static_cast<std::size_t>(index.get<std::uint64_t>()) + 1};
    const bool first = run.items.find(key) == run.items.end();
    if (first && run.items.size() >= kMaxReportChecks)
      not_a_report("holds more than " + std::to_string(kMaxReportChecks) + " checks");
    ReportItem& item = run.items[key];
    if (first) {
      std::string args;
      for (const auto& word : member(check, "args")) args += (args.empty() ? "" : " ") + text_of(word);
      item.args = args;
      item.standing = Standing::passes;
    }
    // A check fails when one of its runs (FILE, -) fails; it passes when
    // all of them pass.
    const std::string& verdict_text = said.get_ref<const std::string&>();
    if (fails(verdict_text) && item.standing != Standing::fails) {
      item.standing = Standing::fails;
      item.message = text_of(member(check, "message"), kShownMessage);
    } else if (!passes(verdict_text) && !fails(verdict_text) && item.standing == Standing::passes) {
      item.standing = Standing::not_judged;
    }
  }
}

// Whether `side` reports checks of `vector`.
bool has_checks(const ReportRun& side, const std::string& vector) {
  const auto next = side.items.upper_bound({vector, 0});
  return next != side.items.end() && next->first.first == vector;
}

// The item `key` names on `side`, or for a check, the item of its vector
// when the vector was reported without checks; nullptr when neither is.
const ReportItem* counterpart(const ReportRun& side, const ReportKey& key) {
  if (const auto found = side.items.find(key); found != side.items.end()) return &found->second;
  if (key.second == 0) return nullptr;
  const auto vector = side.items.find({key.first, 0});
  return vector == side.items.end() ? nullptr : &vector->second;
}

std::string key_text(const ReportKey& key) {
  return key.second == 0 ? key.first : key.first + "#" + std::to_string(key.second);
}

const char* standing_name(Standing standing) {
  return standing == Standing::fails ? "fails" : standing == Standing::passes ? "passes" : "not judged";
}

}  // namespace

ReportRun parse_report(std::string_view text) {
  ReportRun run;
  std::size_t number = 0;
  const harness::UntrustedJson report = harness::parse_untrusted_json(
      text, "results", [&](const nlohmann::json& result) { add_result(result, ++number, run); });
  if (!report) not_a_report("not a JSON report: " + report.reason);
  if (member(report.value, "format") != "agent-session-conform-report" || member(report.value, "format_version") != 1)
    not_a_report("not an agent-session-conform JSON report of format_version 1 (--report json=FILE writes one)");
  if (!member(report.value, "results").is_array()) not_a_report("has no array \"results\"");
  const auto version = [&](const char* key) {
    const auto& value = member(report.value, key);
    return value.is_string() ? text_of(value) : std::string("unknown");
  };
  run.runner_version = version("runner_version");
  run.vectors_version = version("vectors_version");
  for (const auto& word : member(report.value, "command"))
    run.command += (run.command.empty() ? "" : " ") + text_of(word);
  return run;
}

ReportRun read_report(const std::string& path) {
  const std::string file = "'" + base::terminal_safe(path) + "'";
  std::string text;
  try {
    text = read_named_file(path, kMaxReportBytes, "a report");
  } catch (const std::runtime_error& error) {
    // Too large is the report's fault; the rest is the file system's.
    const std::string why = base::terminal_safe(error.what());
    throw ReportError("cannot read the report " + file + ": " + why,
                      why.find(" bytes, more than the ") == std::string::npos);
  }
  try {
    return parse_report(text);
  } catch (const ReportError& error) {
    throw ReportError("cannot use the report " + file + ": " + error.what(), false);
  }
}

bool ReportDiff::clean() const {
  return newly_failing.empty() && std::none_of(appeared.begin(), appeared.end(), [](const Entry& entry) {
           return entry.after.standing == Standing::fails;
         });
}

ReportDiff diff_reports(const ReportRun& before, const ReportRun& after) {
  // Every key of either side, but a vector reported without checks on one
  // side and with checks on the other: its checks' keys stand for it.
  std::set<ReportKey> keys;
  for (const auto* side : {&before, &after}) {
    const ReportRun& other = side == &before ? after : before;
    for (const auto& item : side->items) {
      if (item.first.second != 0 || !has_checks(other, item.first.first)) keys.insert(item.first);
    }
  }
  ReportDiff diff;
  for (const ReportKey& key : keys) {
    const ReportItem* then = counterpart(before, key);
    const ReportItem* now = counterpart(after, key);
    const std::string shown_key = key_text(key);
    if (!then) {
      diff.appeared.push_back({shown_key, {}, *now});
    } else if (!now) {
      diff.disappeared.push_back({shown_key, *then, {}});
    } else if (now->standing == Standing::fails && then->standing != Standing::fails) {
      diff.newly_failing.push_back({shown_key, *then, *now});
    } else if (now->standing == Standing::passes && then->standing == Standing::fails) {
      diff.newly_passing.push_back({shown_key, *then, *now});
    }
  }
  return diff;
}

namespace {

// The lists of a diff, in the order both forms print them.
struct Section {
  const char* title;
  const std::vector<ReportDiff::Entry>* entries;
  bool after;  // describe the entry as it is now (else as it was)
};

std::vector<Section> sections_of(const ReportDiff& diff) {
  return {{"newly failing", &diff.newly_failing, true},
          {"newly passing", &diff.newly_passing, true},
          {"appeared", &diff.appeared, true},
          {"disappeared", &diff.disappeared, false}};
}

std::string counts(const ReportDiff& diff) {
  const auto failing = std::count_if(diff.appeared.begin(), diff.appeared.end(), [](const ReportDiff::Entry& entry) {
    return entry.after.standing == Standing::fails;
  });
  return std::to_string(diff.newly_failing.size()) + " newly failing, " + std::to_string(diff.newly_passing.size()) +
         " newly passing, " + std::to_string(diff.appeared.size()) + " appeared (" + std::to_string(failing) +
         " failing), " + std::to_string(diff.disappeared.size()) + " disappeared";
}

std::string run_line(const ReportRun& run) {
  return "runner " + run.runner_version + ", vectors " + run.vectors_version + ", " + run.command;
}

// A code span that holds `text` whole: its backticks become quotes (a
// span cannot hold its own delimiter), so nothing in it is Markdown.
std::string code(const std::string& text) {
  std::string span = text;
  std::replace(span.begin(), span.end(), '`', '\'');
  return "`" + span + "`";
}

}  // namespace

void write_diff_text(const ReportRun& before, const ReportRun& after, const ReportDiff& diff, std::ostream& out) {
  out << "old: " << run_line(before) << "\nnew: " << run_line(after) << '\n';
  for (const Section& section : sections_of(diff)) {
    if (section.entries->empty()) continue;
    out << section.title << " (" << section.entries->size() << "):\n";
    for (const auto& entry : *section.entries) {
      const ReportItem& item = section.after ? entry.after : entry.before;
      out << "  " << entry.key << (item.args.empty() ? "" : " (" + item.args + ")");
      if (section.entries == &diff.appeared || section.entries == &diff.disappeared)
        out << ": " << standing_name(item.standing);
      if (item.standing == Standing::fails && !item.message.empty()) out << ": " << item.message;
      out << '\n';
    }
  }
  out << counts(diff) << '\n';
}

void write_diff_markdown(const ReportRun& before, const ReportRun& after, const ReportDiff& diff, std::ostream& out) {
  out << "### Conformance: changes since the previous report\n\n"
      << "- old: " << code(run_line(before)) << "\n- new: " << code(run_line(after)) << "\n\n"
      << (diff.clean() ? "" : "**") << counts(diff) << (diff.clean() ? "" : "**") << "\n";
  for (const Section& section : sections_of(diff)) {
    if (section.entries->empty()) continue;
    std::string title = section.title;
    title[0] = static_cast<char>(title[0] - 'a' + 'A');
    out << "\n#### " << title << " (" << section.entries->size() << ")\n\n";
    for (const auto& entry : *section.entries) {
      const ReportItem& item = section.after ? entry.after : entry.before;
      out << "- " << code(entry.key) << (item.args.empty() ? "" : " " + code(item.args));
      if (section.entries == &diff.appeared || section.entries == &diff.disappeared)
        out << ": " << standing_name(item.standing);
      if (item.standing == Standing::fails && !item.message.empty()) out << ": " << code(item.message);
      out << '\n';
    }
  }
}

}  // namespace agent_session::conform::runner
