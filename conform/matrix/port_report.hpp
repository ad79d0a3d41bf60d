// One port's JSON report (`agent-session-conform --report json=FILE`,
// corpus/conformance/reports.md) read back for the conformance matrix
// (conform/matrix/matrix.hpp). A report is untrusted input, as anything
// the kit reads (SPEC.md §6.1): it is read as the kit reads a file the
// user names (runner/vector_files.hpp: at most 64 MiB, never blocking on
// a FIFO), parsed by the kit's bounded JSON reader one result at a time
// (harness/untrusted_json.hpp: 64 levels, 10,000 values at once), and
// every text kept of it is one printable line, cut short: what the
// matrix shows of a report is small whatever the report holds.
//
// Example:
//   const PortReport ours = read_port_report("ours.json");  // throws ReportError
//   for (const PortResult& result : ours.results) ...
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::matrix {

// A vector's verdict as the matrix shows it. A vector of the skip file
// runs anyway (corpus/conformance/README.md, step 4): one that fails is an
// expected failure, one that passes a skip (the skip file lists it for no
// reason any more); `absent` is a vector another report has and this one
// has not (an --only run, older vectors).
enum class Cell { pass, fail, skip, expected_failure, absent };

// "pass", "fail", "skip", "expected failure", "not run".
std::string_view cell_name(Cell cell);

struct PortResult {
  std::string name;  // the vector's name, as the report gives it (1 to kMaxNameBytes bytes, printable)
  std::string rule;  // its rule ("SPEC §2.1: ..."); empty in a report older than the field
  Cell cell = Cell::pass;
  std::string reason;  // why, one line: the first failure, the skip message
};

struct PortReport {
  std::string file;             // the path given, printable
  std::string label;            // "label", else the command line, else the file's name
  std::string version;          // the port's version (harness mode's start answer), else empty
  std::string vectors_version;  // "unknown" when the run's vectors had none
  std::string runner_version;
  std::vector<PortResult> results;  // in the report's order, each name once
};

// What a report may hold: beyond these it is refused, never cut in silence.
inline constexpr std::size_t kMaxResults = 100000;
inline constexpr std::size_t kMaxNameBytes = 255;  // a folder's name
// Texts shown from a report (a label, a rule, a reason) are cut to about this.
inline constexpr std::size_t kMaxShownBytes = 300;

// Why a report cannot be used: `exit_code` 3 when the file cannot be read
// (missing, a folder, a FIFO, unreadable, over 64 MiB), 2 when it is not
// a report this reader takes (not JSON, past the JSON limits, another
// format or format_version, a field of the wrong type); `message` is one
// printable line that names the file.
struct ReportError {
  int exit_code;
  std::string message;
};

// The report in the file `path`. Throws ReportError.
PortReport read_port_report(const std::string& path);

// The same from its bytes; `file` names it in errors and in the result.
PortReport parse_port_report(std::string_view text, const std::string& file);

}  // namespace agent_session::conform::matrix
