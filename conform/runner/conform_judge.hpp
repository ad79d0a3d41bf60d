// The vectors' reader and judge for `agent-session conform`: a vector's
// checks as expect.json states them (corpus/conformance/README.md
// "Layout"), and why a run of the port fails one, as one printable line.
#pragma once

#include "conform/runner/subprocess.hpp"
#include "conform/runner/vector_files.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::runner {

// One entry of a vector's expect.json "checks".
struct Check {
  std::vector<std::string> args;
  int exit = 0;
  std::string stdout_bytes;  // compared when exit is 0
  std::string error;         // looked for on stderr when exit is 1
  // The built-in checks' (missing_file_vector) only:
  std::string file;                          // FILE for the one run (none with `-`)
  std::vector<std::string> stderr_mentions;  // standard error must contain each, ASCII letter case aside
  // A file check (`append FILE`, SPEC.md §6): expect.json gives "stdin"
  // (or "stdin_b64"). It runs once, with these bytes on standard input
  // and FILE as `file_before` says, and FILE's bytes are compared after
  // the run (runner/file_check.hpp).
  std::optional<std::string> stdin_bytes;
  enum class FileBefore { copy, absent, dash };
  FileBefore file_before = FileBefore::copy;  // "file": a fresh copy of input.jsonl, "absent" or "-"
  std::optional<std::string> file_after;      // "file_after" (or "_b64"); null: FILE must not exist
  // The runner's own checks (runner/stream_checks.hpp) only: always one
  // run, in exec mode.
  bool runner_own = false;
  // What `file` is: the runner's session file (or `-`), its folder, or a
  // path in a folder that does not exist (SPEC.md §6.1's table).
  enum class OwnFile { session, folder, in_missing_folder };
  OwnFile own_file = OwnFile::session;
  std::vector<std::string> after_file;  // words after FILE (`check FILE extra`)
  StandardStreams streams;              // standard input or output closed, or opened on a path
  std::string redirection;              // how a FAIL line shows `streams`: "<&-", "> /dev/full"
  bool one_stderr_line = false;         // standard error must be exactly one line (SPEC.md §6's table)
};

struct Vector {
  std::string name;
  std::string rule;  // expect.json's "rule" ("SPEC §2.1: ..."), as written; empty when it has none
  std::filesystem::path input_path;
  std::string input;
  std::vector<Check> checks;
  // The IDs of the SPEC.md rules it pins (expect.json "rules"; SPEC.md
  // Conventions, "Rule IDs"), in its order: empty when it names none.
  std::vector<std::string> rules;
  std::string problem;  // why the vector itself is unusable (a failure, never a skip)
  // expect.json's "about" when it is a string: never compared
  // (corpus/conformance/README.md "Layout"), kept for `export`
  // (conform/exporter/vectors_document.hpp).
  std::optional<std::string> about;
};

// The most checks a vector's expect.json may hold (the corpus's most is
// 13): with the size of its files, this bounds what a vector costs in
// memory (corpus/conformance/README.md, on what a vector may cost).
inline constexpr std::size_t kMaxChecks = 10000;

// The most rule IDs a vector may name, and the longest one: with
// kMaxChecks, they bound what a vector costs the runner.
inline constexpr std::size_t kMaxRules = 1000;
inline constexpr std::size_t kMaxRuleIdBytes = 32;

// Whether `id` is a rule ID as SPEC.md's Conventions write them: `R`, a
// section (numbers joined by dots), `-`, a number, no number starting
// with 0, at most kMaxRuleIdBytes: "R2.1-4", "R6-13".
bool is_rule_id(std::string_view id);

// A vector's "rules" (null: none named) as load_vector reads it; throws
// std::runtime_error naming what is wrong: not an array, an item that is
// no rule ID, a rule named twice, more than kMaxRules.
std::vector<std::string> parse_rules(const nlohmann::json& rules);

// The vector in `dir`; `problem` set (never an exception, but for memory)
// when its files or its expect.json are not what README.md promises.
Vector load_vector(const VectorDir& dir);

// The runner's built-in vector, named kMissingFileVector: `check`,
// `estimate`, `canon` and `trim --max-chars 100` on `missing`, a path
// that does not exist, must exit 3 with standard output empty and a line
// on standard error naming the path and saying "no such file", letter
// case aside (SPEC.md §6). Each check runs once, with that path.
inline constexpr const char* kMissingFileVector = "builtin_missing_file";
Vector missing_file_vector(const std::filesystem::path& missing);

// Why `result` fails `check`, or nothing when it passes; every untrusted
// byte escaped (terminal_safe).
std::optional<std::string> judge(const Check& check, const ProcessResult& result, std::chrono::milliseconds timeout);

// How much of one untrusted text (a vector's expected error or argument
// word, a port's output) a FAIL line or a report shows: its first 120
// bytes, cut before it is escaped, so that what the runner prints and
// keeps of a run stays small whatever the vector and the port hold
// (SPEC.md §6.1).
inline constexpr std::size_t kShownBytes = 120;

// `text` escaped as terminal_safe does; past `limit` bytes, cut there
// (never inside a UTF-8 character) and followed by "... (N bytes in all)".
std::string shown(std::string_view text, std::size_t limit = kShownBytes);

// `text` in double quotes, escaped and cut as `shown` does it:
// "abc"... (5000 bytes in all).
std::string printable(std::string_view text, std::size_t limit = kShownBytes);

// At most `limit` bytes of `text` from `from`, printable, "..." marking cuts.
std::string excerpt(std::string_view text, std::size_t from, std::size_t limit);

// "stdout differs at byte 12 (line 2): expected "...", got "..."", with
// `what` naming the bytes (stdout, FILE) and both sizes when they differ.
std::string describe_difference(const std::string& what, const std::string& expected, const std::string& actual);

// Whether `stderr_text` contains `expected` followed by the end of a line
// or by ": " (so that "line 1" never passes for "line 12"), in time linear
// in both (runner/text_search.hpp): `comparisons`, when not null, counts
// the byte comparisons.
bool contains_error(std::string_view stderr_text, std::string_view expected, std::size_t* comparisons = nullptr);

}  // namespace agent_session::conform::runner
