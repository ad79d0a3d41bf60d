// A port's known failures (`agent-session conform --known-failures FILE`):
// the vectors and checks it is known to fail, each with a reason, so that
// its CI reports only new failures (corpus/conformance/README.md step 4
// gives the file's grammar). A listed failure is an expected failure
// (xfail: it does not fail the run); a listed vector or check that passes
// is an unexpected pass (xpass: named, and it fails the run with
// --strict). The file is the user's, and untrusted all the same: at most
// kMaxKnownFailuresFile bytes, lines of at most kMaxKnownFailuresLine,
// no control character, and an entry naming no vector or check is a usage
// error, so a typo never hides a failure it meant to name.
//
// Example (a file of two entries):
//   y_estimate_emoji   surrogate pairs counted as one unit   https://example.org/my-port/issues/7
//   n_truncated_json#2 estimate reads a torn line as empty
#pragma once

#include "conform/runner/conform_report.hpp"
#include "conform/runner/conform_select.hpp"
#include "conform/runner/vector_files.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::runner {

inline constexpr std::size_t kMaxKnownFailuresFile = std::size_t{1} << 20;  // bytes
inline constexpr std::size_t kMaxKnownFailuresLine = 1024;                  // bytes, without the line's end

// One entry: a vector (`check` empty), or one check of it (`check`: its
// position in expect.json, from 0; the file writes it from 1).
struct KnownEntry {
  std::string vector;
  std::optional<std::size_t> check;
  KnownFailure note;
};

// The entries by vector, keyed by the vector's name as the reports show
// it (terminal_safe, which is one to one).
using KnownFailures = std::map<std::string, std::vector<KnownEntry>, std::less<>>;

// Why the vector `name` may not be listed (there is none of that name,
// the skip file lists it), or nothing.
using VectorProblem = std::function<std::optional<std::string>(const std::string& name)>;

// The entries of `text`, the file's bytes; a check number is checked
// against the vector's checks by read_known_failures. Throws
// std::invalid_argument with one printable line, "line N: why" (what
// `problem_with` says, a check number that is not 1 or more, no reason,
// an entry given twice, a control character, a line too long).
KnownFailures parse_known_failures(std::string_view text, const VectorProblem& problem_with);

// The file `path` parsed against the vectors `all`: a check entry needs
// its vector's checks, read now (an unusable vector has none to name). A
// vector that `selected` marks skipped may not be listed (a skipped vector
// is not judged). Throws std::invalid_argument with one line naming the
// file: "known-failures file 'kf.txt' line 3: no vector named \"y_tpyo\"".
KnownFailures read_known_failures(const std::string& path, const std::vector<VectorDir>& all,
                                  const std::vector<SelectedVector>& selected);

// Marks `vector`'s runs as the entries for it say: a listed vector that
// fails, and the failing runs of a listed check, become xfail; every run
// of a listed vector that passes, and of a listed check whose runs all
// pass, become xpass. Each such run, and a listed vector, carries its entry.
void mark_known(VectorOutcome& vector, const KnownFailures& known);

// The text form's XPASS lines of `vector`: "XPASS y_x#2 (estimate): line 3
// of the known-failures file lists it, but it passes; remove that line".
std::vector<std::string> unexpected_pass_lines(const VectorOutcome& vector);

// What the JUnit report and TAP say of a listed failure ("expected
// failure: REASON (LINK)") and of a listed run that passes.
std::string expected_failure(const KnownFailure& known);
std::string unexpected_pass(const KnownFailure& known);

// A known-failures entry in the JSON report: {"line", "reason", "link"}.
nlohmann::ordered_json known_json(const KnownFailure& known);

// TAP's `# TODO` reason of a vector: its own entry's, else its listed
// checks' ("check 2: REASON; check 3: REASON").
std::string todo_reason(const VectorOutcome& vector);

}  // namespace agent_session::conform::runner
