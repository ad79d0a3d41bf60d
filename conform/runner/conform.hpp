// `agent-session conform`: runs the conformance vectors (layout and
// protocol: corpus/conformance/README.md) against any command that speaks
// the command-line protocol: ours, the JavaScript oracle, another port.
//
// Example:
//   agent-session conform -- node tests/oracle/cli.mjs
//   agent-session conform --vectors corpus/conformance --timeout 5 -- ./my-port
//
// Entry point: conform_main (conform/runner/conform_options.hpp), called
// by agent-session-conform (which `agent-session conform` runs).
//
// For each check of each vector it runs `CMD ARGS... <check args> FILE`
// with FILE the path of the vector's input.jsonl, then again with `-` and
// the input on standard input, and compares the exit code, the standard
// output bytes (exit 0) and the error text on standard error (exit 1).
// A file check (`append`, SPEC.md §6) runs once, on a fresh copy of the
// input in a temporary folder, and FILE's bytes are compared after the
// run (runner/file_check.hpp). A vector of the skip file runs too, and is
// reported as skipped, "but passes" when it does (runner/conform_vector.hpp).
// It prints one line per failing check, ending with the command that
// reproduces it, one SKIP line per vector of the skip file, and ends with
// `N passed, M failed` (N and M count vectors), then `, K skipped` when
// K > 0. Reports for CI (JUnit XML, JSON, TAP): runner/conform_report.hpp. Everything it prints that comes from a
// vector or the port (names, arguments, output excerpts, the command) goes through terminal_safe (base/printable.hpp),
// so none of it can break a line or reach the terminal as an escape sequence.
//
// With vectors 1.1.0 or later it adds the built-in vector
// builtin_missing_file (runner/conform_judge.hpp: missing_file_vector,
// SPEC.md §6), listed, selected, skipped and reported like the others.
//
// A vector fails, never hangs or is skipped, when its files are not
// regular files (a FIFO, a device, a directory), larger than 64 MiB or
// unreadable, or when its entry's type cannot be read. A run whose
// standard output or error outgrows `max_output` is killed and fails its
// check. No process the port starts outlives its run (runner/subprocess.hpp).
#pragma once

#include "conform/runner/conform_judge.hpp"  // contains_error
#include "conform/runner/conform_options.hpp"

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace agent_session::conform::runner {

// Runs the chosen vectors in `options.vectors` against `options.command`.
// Failing checks and the summary go to `out`; a reason to stop, as one
// line, to `err`. Returns 0 when every vector run passes, 1 when any fails
// (or, with `strict`, any is skipped), 2 on a usage problem (a vectors
// path that is missing, not a folder or holds no vector; no command or one
// that cannot be executed; an --only that matches nothing, a skip file
// that cannot be read or names no vector; with --version, a VERSION file
// missing or malformed), 3 when the vectors folder cannot be read
// (permissions, I/O), resources run out (pipes, processes, memory) or a
// report cannot be written. A failed write to `out` throws, as `out` does.
int run_conformance(const ConformOptions& options, std::ostream& out, std::ostream& err);

}  // namespace agent_session::conform::runner
