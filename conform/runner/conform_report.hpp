// What `agent-session conform` found, and the forms it reports it in:
// the JUnit XML and JSON report files (--report), TAP on standard output
// (--format tap), and the shell command that reproduces a failing check.
// Shapes: corpus/conformance/README.md "Reports".
#pragma once

#include <cstddef>
#include "harness/protocol.hpp"

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::runner {

// xfail and xpass only with --known-failures (runner/known_failures.hpp):
// a failure the port's known-failures file lists, and a run of a listed
// vector or check that passes (corpus/conformance/README.md step 4).
enum class Verdict { pass, fail, skip, xfail, xpass };

// The entry of the known-failures file that covers a vector or a check,
// as the reports show it: `reason` and `link` escaped (terminal_safe).
struct KnownFailure {
  std::size_t line = 0;  // of the file, from 1
  std::string reason;
  std::string link;  // empty when the entry gives none
  // "REASON" or "REASON (LINK)".
  std::string text() const;
};

// One run of one check: with FILE, or with `-` and the input on stdin.
// Every text here is already escaped for a terminal (terminal_safe, or
// shell_command's own escaping) and cut: each untrusted part to its first
// kShownBytes (runner/conform_judge.hpp), so that a run costs the reports
// a few KiB whatever the vector holds (SPEC.md §6.1).
struct CheckOutcome {
  std::size_t index = 0;           // of the check in expect.json
  std::vector<std::string> words;  // the check's arguments
  std::string args;                // the same, joined by spaces
  bool from_stdin = false;         // FILE was `-`
  std::string after;  // what follows FILE or `-` in the run's name: "extra", "<&-" (the runner's own checks)
  Verdict verdict = Verdict::pass;
  std::string message;    // fail: what differed; skip: why it did not run
  std::string reproduce;  // fail: a command line for sh that runs it again
  double seconds = 0;
  std::optional<KnownFailure> known;  // xfail, xpass: the entry that lists this run's vector or check
};

// Why a vector of the skip file that passes is reported (README.md step 4).
inline constexpr const char* kSkipPasses = "listed in the skip file but passes; remove it from the skip file";

struct VectorOutcome {
  std::string name;                // the folder's name, escaped
  std::string rule;                // expect.json's "rule", escaped and cut (kMaxRuleBytes); may be empty
  bool skipped = false;            // listed in the skip file: run, but counted as skipped, its checks not kept
  bool skip_passes = false;        // skipped, and every check passed
  std::string problem;             // the vector itself is unusable: it fails
  std::vector<std::string> rules;  // the SPEC.md rule IDs it pins (checked: runner/conform_judge.hpp is_rule_id)
  std::vector<CheckOutcome> checks;
  double seconds = 0;
  std::optional<KnownFailure> known;  // the known-failures file lists the vector itself
  // A failure that no entry of the known-failures file covers: a run that
  // fails, or an unusable vector not listed itself.
  bool failed() const;
  // The vector's one verdict, the first that holds of: skip (the skip
  // file), fail, xpass (a listed vector or check passed), xfail (every
  // failure listed), pass.
  Verdict verdict() const;
};

struct RunOutcome {
  std::string runner_version;
  std::string vectors_version;                      // empty when unknown, then:
  std::string vectors_version_problem;              // why (VERSION missing or malformed)
  std::string vectors;                              // the folder, escaped
  std::vector<std::string> command;                 // the port, each word escaped
  std::string label;                                // the port's name (--label); empty: its command line
  std::optional<harness::HarnessPort> port;         // what a harness port said of itself (harness.md §3, start)
  std::vector<VectorOutcome> results;               // in vector order
  std::size_t passed = 0, failed = 0, skipped = 0;  // vectors
  std::size_t skipped_passing = 0;                  // of `skipped`, those that pass
  std::size_t expected_failures = 0;                // vectors whose every failure is listed (xfail)
  std::size_t unexpected_passes = 0;                // vectors with a listed vector or check that passes (xpass)
  bool strict = false;
  double seconds = 0;
};

// `argv`, then ` < stdin_file` when that is not empty, as one line that
// sh runs as exactly those arguments. Words are single-quoted when they
// need it; when one holds a byte a terminal must not see raw (controls,
// invalid UTF-8, the code points of hidden_code_point), the whole
// line becomes eval "$(printf '...')" with those bytes as octal escapes,
// so the line stays printable and still round-trips.
std::string shell_command(const std::vector<std::string>& argv, const std::string& stdin_file = "");

// The command that runs a file check again (corpus/conformance/README.md
// "Checks that write FILE"): `argv` (the port and the check's arguments) with `stdin_bytes`
// on standard input from printf (octal escapes but for plain ASCII), and
// FILE made as the runner made it: a new folder from `mktemp -d` holding
// session.jsonl, a copy of `copy_from` unless that is empty (a FILE that
// does not exist), then `cat` of FILE; with `dash`, FILE is `-`. Printable
// as shell_command's lines are:
//   f=$(mktemp -d)/session.jsonl && cp DIR/input.jsonl "$f" && printf '...' | CMD append "$f"; cat "$f"
std::string shell_file_command(const std::vector<std::string>& argv, const std::string& stdin_bytes,
                               const std::string& copy_from, bool dash);

// `text` for XML 1.0 character data (attribute=false) or a double-quoted
// attribute value: & < > " ' as entities, and whatever XML 1.0 cannot
// carry (C0 controls but tab, newline and carriage return; U+FFFE,
// U+FFFF; invalid UTF-8) and the code points a terminal must not see raw
// written as \xNN or \uNNNN text. In attributes, tab, newline and carriage
// return become character references, so parsers keep them.
std::string xml_escaped(std::string_view text, bool attribute);

// A JUnit XML file: <testsuites><testsuite> with one <testcase> per run of
// a check (classname: the vector; name: the check and FILE or -), or one
// named "vector" for an unusable or skipped vector.
void write_junit(const RunOutcome& run, std::ostream& out);

// The JSON report: every vector and run of a check with its verdict
// (corpus/conformance/reports.md documents the shape; "format_version"
// changes when it does).
void write_json_report(const RunOutcome& run, std::ostream& out);

// Writes `run` as each of `reports` asks ("junit=FILE" or "json=FILE", as
// --report takes them), trying every one: a report that fails leaves the
// others to CI. False when one could not be written; each such is one
// line on `err`, after `me` ("agent-session-conform: ").
bool write_reports(const RunOutcome& run, const std::vector<std::string>& reports, const std::string& me,
                   std::ostream& err);

// "pass", "fail", "skip", "xfail", "xpass".
const char* verdict_name(Verdict verdict);

// TAP version 14: the header and plan, then one test point per vector
// (failures in a YAML block), then the summary as a comment.
void write_tap_header(std::size_t vectors, std::ostream& out);
void write_tap_vector(const VectorOutcome& vector, std::size_t number, std::ostream& out);

}  // namespace agent_session::conform::runner
