#include "conform/matrix/matrix.hpp"

#include "conform/runner/conform_judge.hpp"
#include "conform/runner/stream_checks.hpp"

#include <algorithm>
#include <map>
#include <string_view>

namespace agent_session::conform::matrix {
namespace {

constexpr std::string_view kPrefix = "SPEC §";
constexpr const char* kNoSection = "no SPEC section";

// "2.1" as {2, 1}, for SPEC.md's order: by number (2.1 before 10), not as text.
std::vector<unsigned long> numbers(std::string_view section) {
  std::vector<unsigned long> parts;
  unsigned long part = 0;
  for (const char c : section) {
    if (c == '.') {
      parts.push_back(part);
      part = 0;
    } else if (c >= '0' && c <= '9' && part < 100000) {
      part = part * 10 + static_cast<unsigned long>(c - '0');
    }
  }
  parts.push_back(part);
  return parts;
}

}  // namespace

std::string spec_section(const std::string& rule) {
  if (rule.rfind(kPrefix, 0) != 0) return "";
  std::size_t end = kPrefix.size();
  while (end < rule.size() && ((rule[end] >= '0' && rule[end] <= '9') || rule[end] == '.')) ++end;
  while (end > kPrefix.size() && rule[end - 1] == '.') --end;  // "SPEC §2." is §2
  if (end == kPrefix.size() || rule[kPrefix.size()] == '.') return "";
  return "§" + rule.substr(kPrefix.size(), end - kPrefix.size());
}

bool is_runners_own(const std::string& name) {
  return name == runner::kMissingFileVector || runner::is_runner_check(name);
}

Matrix merge(std::vector<PortReport> ports) {
  Matrix matrix;
  matrix.totals.resize(ports.size());
  std::map<std::string, Row> rows;  // by name
  for (std::size_t p = 0; p < ports.size(); ++p) {
    Totals& totals = matrix.totals[p];
    for (PortResult& result : ports[p].results) {
      ++totals.vectors;
      totals.passed += result.cell == Cell::pass ? 1 : 0;
      totals.failed += result.cell == Cell::fail ? 1 : 0;
      totals.skipped += result.cell == Cell::skip ? 1 : 0;
      totals.expected_failures += result.cell == Cell::expected_failure ? 1 : 0;
      Row& row = rows[result.name];
      if (row.cells.empty()) {
        row.name = result.name;
        row.cells.assign(ports.size(), Cell::absent);
        row.reasons.assign(ports.size(), "not in this port's report");
      }
      if (row.rule.empty()) row.rule = std::move(result.rule);
      row.cells[p] = result.cell;
      row.reasons[p] = std::move(result.reason);
    }
    ports[p].results.clear();
  }
  std::map<std::vector<unsigned long>, Section> by_section;  // in SPEC.md's order
  Section other{kNoSection, {}};
  for (auto& [name, row] : rows) {
    for (std::size_t p = 0; p < ports.size(); ++p) matrix.totals[p].not_run += row.cells[p] == Cell::absent ? 1 : 0;
    const std::string section = spec_section(row.rule);
    if (section.empty()) {
      other.rows.push_back(std::move(row));
      continue;
    }
    Section& into = by_section[numbers(std::string_view(section).substr(std::string_view("§").size()))];
    into.title = "SPEC " + section;
    into.rows.push_back(std::move(row));
  }
  for (auto& [key, section] : by_section) matrix.sections.push_back(std::move(section));
  if (!other.rows.empty()) matrix.sections.push_back(std::move(other));
  matrix.ports = std::move(ports);
  return matrix;
}

}  // namespace agent_session::conform::matrix
