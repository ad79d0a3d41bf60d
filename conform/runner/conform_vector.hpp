// One vector run against the port, for `agent-session conform`
// (runner/conform.hpp): each check with FILE and with `-`, a file check
// once with its own FILE (runner/file_check.hpp), a vector of the skip
// file too (it is reported as skipped, and as passing when it does:
// corpus/conformance/README.md step 4), and the lines that report it.
#pragma once

#include "conform/runner/conform_options.hpp"
#include "conform/runner/conform_report.hpp"
#include "conform/runner/conform_select.hpp"
#include "conform/runner/port_runner.hpp"

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace agent_session::conform::runner {

// What running one vector found.
struct VectorReport {
  VectorOutcome outcome;
  std::string fatal;   // the runner cannot go on: stop with `fatal_code`
  int fatal_code = 0;  // 2: the port cannot be executed; 3: resources ran out
};

// What a FAIL line and the reports show of a vector (SPEC.md §6.1), so
// that what the runner keeps of it for the reports, its outcome, is small
// whatever its files hold: each untrusted text cut to kShownBytes
// (runner/conform_judge.hpp); a reproduce command only for a check whose
// words and standard input total at most kMaxReproduceBytes (a cut one
// would run something else); why a vector is unusable cut to
// kMaxProblemBytes.
inline constexpr std::size_t kMaxReproduceBytes = 1024;
inline constexpr std::size_t kMaxProblemBytes = 1024;
// A vector's rule (its expect.json's "rule", reported: reports.md) is cut
// at 240 bytes: two rules joined by " / " fit.
inline constexpr std::size_t kMaxRuleBytes = 240;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start);

// --timeout as a duration (a year at most: as good as forever).
std::chrono::milliseconds run_timeout(const ConformOptions& options);

// Runs every check of `selected` through `port`. A vector of the skip
// file runs too: its outcome is then `skipped`, `skip_passes` when every
// check passed, and its checks are not kept (it counts as skipped).
VectorReport run_vector(const SelectedVector& selected, const ConformOptions& options, PortRunner& port);

// The text form: one line per failing run, both runs of a check on one
// line when they fail alike, each ending with the command that reproduces
// it; one SKIP line for a vector of the skip file.
std::vector<std::string> failure_lines(const VectorOutcome& vector);

}  // namespace agent_session::conform::runner
