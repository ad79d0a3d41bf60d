// `agent-session-conform report --diff OLD.json NEW.json`: what changed
// between two JSON reports (corpus/conformance/reports.md, "Comparing two
// runs"), of two versions of a port or two versions of the vectors: the
// checks that newly fail, newly pass, appeared and disappeared, as text
// or Markdown (a CI job summary). A check is `VECTOR#N` (N from 1, as a
// known-failures file names it); a vector reported without checks (an
// unusable or a skipped one) is `VECTOR`.
//
// A report is untrusted input: at most kMaxReportBytes, read one result at
// a time within the kit's JSON limits (src/harness/untrusted_json.hpp), at
// most kMaxReportChecks checks kept, every text shown escaped and cut.
//
// Example:
//   agent-session-conform report --diff old.json new.json --markdown >> "$GITHUB_STEP_SUMMARY"
#pragma once

#include <cstddef>
#include <iosfwd>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agent_session::conform::runner {

inline constexpr std::size_t kMaxReportBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxReportChecks = 100000;

// How a check (or a vector without checks) came out: it failed (fail or
// xfail: it fails, expected or not), it passed (pass or xpass), or it was
// not judged (skipped by the skip file or after a timeout).
enum class Standing { fails, passes, not_judged };

struct ReportItem {
  std::string args;  // the check's arguments joined by spaces, escaped; empty for a vector
  Standing standing = Standing::not_judged;
  std::string message;  // why it fails (its first failing run's message, or the vector's problem), escaped
};

// An item's key: its vector's name (escaped) and its check's number from
// 1, or 0 for the vector itself. Shown as VECTOR#N or VECTOR.
using ReportKey = std::pair<std::string, std::size_t>;

// One report: its items, and what ran.
struct ReportRun {
  std::string runner_version, vectors_version, command;  // escaped; "unknown" when absent
  std::map<ReportKey, ReportItem> items;
};

// Why a report cannot be compared: `io` when it cannot be read (exit 3),
// otherwise it is not a report this runner reads (exit 2).
struct ReportError : std::runtime_error {
  ReportError(const std::string& what, bool io) : std::runtime_error(what), io(io) {}
  bool io;
};

// The JSON report `text` (format "agent-session-conform-report",
// format_version 1). Throws ReportError (io false) with one line.
ReportRun parse_report(std::string_view text);

// The report in the file `path`: read_named_file's rules, at most
// kMaxReportBytes. Throws ReportError with one line naming the file.
ReportRun read_report(const std::string& path);

struct ReportDiff {
  struct Entry {
    std::string key;
    ReportItem before, after;  // `before` empty for one that appeared, `after` for one that disappeared
  };
  std::vector<Entry> newly_failing, newly_passing, appeared, disappeared;
  // Nothing newly fails: no check fails that did not before, and none
  // appeared failing.
  bool clean() const;
};

// What changed from `before` to `after`. A key only one side has is
// compared with its vector's own item on the other side when that one was
// reported without checks (unusable or skipped).
ReportDiff diff_reports(const ReportRun& before, const ReportRun& after);

// The diff as text (one line per entry under a heading per kind, then a
// count) or as Markdown (GitHub-flavoured: headings, lists, code spans).
void write_diff_text(const ReportRun& before, const ReportRun& after, const ReportDiff& diff, std::ostream& out);
void write_diff_markdown(const ReportRun& before, const ReportRun& after, const ReportDiff& diff, std::ostream& out);

}  // namespace agent_session::conform::runner
