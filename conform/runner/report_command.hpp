// `agent-session-conform report ...`: commands on reports a run wrote
// (corpus/conformance/reports.md). `report --diff OLD.json NEW.json
// [--markdown]` compares two JSON reports (runner/report_diff.hpp).
//
// Example:
//   agent-session-conform report --diff previous.json conformance.json --markdown
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::runner {

// The help of `report`, `program` being how the kit was called.
std::string report_help(std::string_view program);

// Runs `report` when it is the first of `args` (the kit's words), with
// the words after it, and returns its exit code; nothing for other words
// (conform/fuzz/main.cpp then runs the runner or fuzz). Exit codes (as the
// runner's): 0 nothing newly fails, 1 a check newly fails (or appeared
// failing), 2 a usage error (an unknown option, a missing file name, a
// file that is no JSON report of format_version 1), 3 a report that
// cannot be read (output that cannot be written throws, as `out` does).
// Errors are one line on `err`, after `program`.
std::optional<int> report_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                               std::string_view program = "agent-session-conform");

}  // namespace agent_session::conform::runner
