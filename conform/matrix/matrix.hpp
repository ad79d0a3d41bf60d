// The conformance matrix: several ports' JSON reports merged into one
// table, ports as columns and vectors as rows, grouped by the SPEC.md
// section each vector's rule names ("SPEC §2.1: ..." is §2.1), with each
// port's totals. `agent-session-conform report` (matrix_command.hpp)
// renders it as HTML (matrix_html.hpp), Markdown (matrix_markdown.hpp)
// and one badge per port (matrix_badges.hpp).
//
// Example:
//   const Matrix matrix = merge({read_port_report("ours.json"), read_port_report("oracle.json")});
//   matrix.sections.front().title;  // "SPEC §1"
#pragma once

#include "conform/matrix/port_report.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace agent_session::conform::matrix {

// One vector's row: its cell for each port, in the order of `ports`.
struct Row {
  std::string name;
  std::string rule;  // the first report's that gives one
  std::vector<Cell> cells;
  std::vector<std::string> reasons;
};

struct Section {
  std::string title;  // "SPEC §2.1", or "no SPEC section" for rules that name none
  std::vector<Row> rows;
};

struct Totals {
  std::size_t vectors = 0;  // in this port's report
  std::size_t passed = 0, failed = 0, skipped = 0, expected_failures = 0;
  std::size_t not_run = 0;  // rows of the matrix its report lacks
};

// The rows under the table, in order, as both the page and the Markdown
// show them: a label and the count; "passed" is shown out of the vectors.
struct TotalRow {
  const char* label;
  std::size_t Totals::*count;
  bool of_vectors;
};
inline constexpr TotalRow kTotalRows[] = {{"passed", &Totals::passed, true},
                                          {"failed", &Totals::failed, false},
                                          {"skipped (passing)", &Totals::skipped, false},
                                          {"expected failures", &Totals::expected_failures, false},
                                          {"not run", &Totals::not_run, false}};

struct Matrix {
  std::vector<PortReport> ports;  // their results moved into `sections`
  std::vector<Totals> totals;     // one per port
  std::vector<Section> sections;  // in SPEC.md's order (by number: 2.1 before 10), then "no SPEC section"
};

// "§2.1" of "SPEC §2.1: ..." (the first section a rule names); empty when
// the rule does not start with "SPEC §" and a number.
std::string spec_section(const std::string& rule);

// The matrix of `ports`: a row for every vector any report holds, sorted
// by name within its section.
Matrix merge(std::vector<PortReport> ports);

// Whether `name` is one of the runner's own vectors (builtin_missing_file,
// runner_*: runner/stream_checks.hpp), which have no folder to link to.
bool is_runners_own(const std::string& name);

}  // namespace agent_session::conform::matrix
