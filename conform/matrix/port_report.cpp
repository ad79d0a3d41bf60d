#include "conform/matrix/port_report.hpp"

#include "base/printable.hpp"
#include "conform/runner/vector_files.hpp"
#include "harness/untrusted_json.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>

namespace agent_session::conform::matrix {
namespace {

using harness::member;
using nlohmann::json;

// One printable line of untrusted text, cut short (port_report.hpp).
std::string line_of(std::string_view text) { return base::printable_excerpt(text, kMaxShownBytes); }

[[noreturn]] void not_a_report(const std::string& file, const std::string& why) {
  throw ReportError{2, "cannot use the report '" + file + "': " + why};
}

// `object[key]`: nothing when absent or null, its text when a string;
// anything else makes the report unusable.
std::optional<std::string> text_field(const json& object, const std::string& key, const std::string& where,
                                      const std::string& file) {
  const json& value = member(object, key);
  if (value.is_null()) return std::nullopt;
  if (!value.is_string()) not_a_report(file, where + key + " is " + harness::shown_value(value, 40) + ", not a string");
  return value.get<std::string>();
}

// Why a failing vector failed: its problem, or its first failing run
// ("estimate -: stdout differs ..."), and how many more failed.
std::string failure_reason(const json& result, const std::string& where, const std::string& file) {
  if (const auto problem = text_field(result, "problem", where, file)) return line_of(*problem);
  const json& checks = member(result, "checks");
  if (!checks.is_array()) return "failed";
  std::string first;
  std::size_t more = 0;
  for (const json& check : checks) {
    if (member(check, "verdict") != "fail") continue;
    if (!first.empty()) {
      ++more;
      continue;
    }
    std::string run;
    if (const json& args = member(check, "args"); args.is_array()) {
      for (const json& word : args)
        run += (run.empty() ? "" : " ") + (word.is_string() ? word.get<std::string>() : "?");
    }
    run += member(check, "input") == "stdin" ? " -" : " FILE";
    const auto message = text_field(check, "message", where + "check's ", file);
    first = line_of(run + ": " + message.value_or("failed"));
  }
  if (first.empty()) return "failed";
  return more == 0 ? first : first + " (and " + std::to_string(more) + " more failing runs)";
}

PortResult parse_result(const json& result, std::size_t index, const std::string& file) {
  const std::string where = "results[" + std::to_string(index) + "]: ";
  if (!result.is_object()) not_a_report(file, where + "not an object");
  PortResult parsed;
  const auto name = text_field(result, "name", where, file);
  if (!name || name->empty() || name->size() > kMaxNameBytes || base::terminal_line(*name) != *name) {
    not_a_report(file, where + "name is not 1 to " + std::to_string(kMaxNameBytes) + " printable bytes");
  }
  parsed.name = *name;
  parsed.rule = line_of(text_field(result, "rule", where, file).value_or(""));
  const auto verdict = text_field(result, "verdict", where, file).value_or("");
  const auto message = text_field(result, "message", where, file);
  if (verdict == "pass") {
    const json& checks = member(result, "checks");
    parsed.reason = checks.is_array() ? "passed (" + std::to_string(checks.size()) + " runs)" : "passed";
  } else if (verdict == "fail") {
    parsed.cell = Cell::fail;
    parsed.reason = failure_reason(result, where, file);
  } else if (verdict == "skip") {
    // The runner's two messages (reports.md): one that passes says so.
    const bool passes = message && message->find("but passes") != std::string::npos;
    parsed.cell = passes ? Cell::skip : Cell::expected_failure;
    parsed.reason = line_of(message.value_or("listed in the skip file"));
  } else {
    not_a_report(file, where + "verdict is not pass, fail or skip");
  }
  return parsed;
}

// The words of "command" joined, when it is an array of strings.
std::string command_line(const json& command) {
  std::string line;
  if (!command.is_array()) return line;
  for (const json& word : command) {
    if (word.is_string()) line += (line.empty() ? "" : " ") + word.get<std::string>();
  }
  return line;
}

}  // namespace

std::string_view cell_name(Cell cell) {
  switch (cell) {
    case Cell::pass: return "pass";
    case Cell::fail: return "fail";
    case Cell::skip: return "skip";
    case Cell::expected_failure: return "expected failure";
    case Cell::absent: return "not run";
  }
  return "not run";
}

PortReport parse_port_report(std::string_view text, const std::string& file) {
  PortReport report;
  report.file = file;
  std::set<std::string> names;
  const harness::UntrustedJson parsed = harness::parse_untrusted_json(text, "results", [&](json& result) {
    if (report.results.size() == kMaxResults) {
      not_a_report(file, "more than " + std::to_string(kMaxResults) + " results");
    }
    PortResult one = parse_result(result, report.results.size(), file);
    if (!names.insert(one.name).second) not_a_report(file, "results name \"" + one.name + "\" twice");
    report.results.push_back(std::move(one));
  });
  if (!parsed) not_a_report(file, parsed.reason);
  const json& top = parsed.value;
  if (member(top, "format") != "agent-session-conform-report") {
    not_a_report(file, "not an agent-session-conform report (its \"format\" is not \"agent-session-conform-report\")");
  }
  if (member(top, "format_version") != 1) {
    not_a_report(file, "format_version " + harness::shown_value(member(top, "format_version"), 40) +
                           ", where this reader takes 1 (reports.md)");
  }
  if (!member(top, "results").is_array()) not_a_report(file, "no array \"results\"");
  const auto label = text_field(top, "label", "", file);
  std::string fallback = command_line(member(top, "command"));
  if (fallback.empty()) fallback = std::filesystem::path(file).filename().string();
  report.label = line_of(label && !label->empty() ? *label : fallback);
  if (const json& port = member(top, "port"); port.is_object()) {
    report.version = line_of(text_field(port, "version", "port.", file).value_or(""));
  }
  report.vectors_version = line_of(text_field(top, "vectors_version", "", file).value_or("unknown"));
  report.runner_version = line_of(text_field(top, "runner_version", "", file).value_or("unknown"));
  return report;
}

PortReport read_port_report(const std::string& path) {
  const std::string file = base::terminal_safe(path);
  std::string text;
  try {
    text = runner::read_named_file(path);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& error) {
    throw ReportError{3, "cannot read the report '" + file + "': " + base::terminal_line(error.what())};
  }
  return parse_port_report(text, file);
}

}  // namespace agent_session::conform::matrix
