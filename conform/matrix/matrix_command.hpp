// `agent-session-conform report`: merges the JSON reports of
// `agent-session-conform --report json=FILE` runs (corpus/conformance/reports.md)
// into the conformance matrix (matrix.hpp) and writes it as a static HTML
// page (matrix_html.hpp), a Markdown table (matrix_markdown.hpp) and one
// shields.io badge per port (matrix_badges.hpp). conform/fuzz/main.cpp
// calls report_main with the words after `report`; another mode of
// `report` (a comparison of two reports) sits beside render_matrix, chosen
// in report_main.
//
// Example:
//   agent-session-conform report --html matrix.html --badges badges ours.json oracle.json
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::matrix {

struct MatrixOptions {
  std::vector<std::string> reports;               // REPORT.json..., one column each, in this order
  std::string html;                               // --html FILE
  std::string markdown;                           // --markdown FILE
  std::string badges;                             // --badges DIR
  std::string link_base = "corpus/conformance/";  // --link-base URL: a vector's link is URL + its name
};

// The matrix of `options.reports` written where `options` says (Markdown
// on `out` when it names no output). Exit 0 when it was written, whatever
// the ports' verdicts; 2 when a report is not one (one line on `err`
// naming it); 3 when one cannot be read or an output cannot be written.
// `me` starts each line on `err` ("agent-session-conform: ").
int render_matrix(const MatrixOptions& options, const std::string& me, std::ostream& out, std::ostream& err);

// The help of `report`; `program` is how the kit was called.
std::string report_help(std::string_view program);

// `PROGRAM report ARGS...`: parses `args` (CLI11) and runs the mode they
// ask for; --help prints report_help. A usage error is one line on `err`
// and exit 2.
int report_main(const std::vector<std::string>& args, std::string_view program, std::ostream& out, std::ostream& err);

}  // namespace agent_session::conform::matrix
