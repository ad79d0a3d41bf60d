// SPEC.md §6.1's table of the argument forms a runner passes, in one
// place for both sides of the protocol: the runner checks every check of
// every vector against it before any port sees it (a vector is data, and
// its `args` are never a way to make the runner run something else), and
// the harness servers (`agent-session harness`, the kit's exec-adapter:
// server.hpp) answer a run request only when its whole argv is one of
// them (a request is no way into the rest of a program either).
//
// Example:
//   argument_form_problem({"trim", "--max-chars", "10"}, false);  // nothing: a form of the table
//   argument_form_problem({"conform", "--", "sh"}, false);       // why not, one printable line
//   run_argv_problem({"check", "-", "conform", "--", "sh"});     // "... word 3 'conform' ..."
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace agent_session::harness {

// The longest word a vector may give, in bytes: the longest argument
// Linux's execve takes (MAX_ARG_STRLEN, 128 KiB with its NUL), so that
// exec and harness mode run the same checks, and a report that shows the
// words stays small.
inline constexpr std::size_t kMaxArgumentBytes = (std::size_t{128} << 10) - 1;

// Why `args` (a check's words before FILE) is not one of SPEC.md §6.1's
// forms, or nothing when it is. `file_check`: the check gives standard
// input (corpus/conformance/README.md "Checks that write FILE"), whose
// only form is `append`; `append` is a file check's only. The forms:
// `check`, `estimate`, `canon`, `trim --max-chars N` (N any bytes but
// NUL), and the usage errors' `trim` and `frobnicate`. No word may hold a
// NUL byte (a process argument ends there, so the port would be judged on
// a shorter word) or be longer than kMaxArgumentBytes.
std::optional<std::string> argument_form_problem(const std::vector<std::string>& args, bool file_check);

// Why a run request's whole `argv` (the words after the port's command,
// FILE last: harness.md §3) is none of the forms above followed by one
// FILE word, or nothing when it is one. `append FILE` is accepted: the
// server cannot tell a file check from another. The reason names the first
// word no form allows there ("word 3 'conform'"), or says that FILE is
// missing; it is one printable line.
std::optional<std::string> run_argv_problem(const std::vector<std::string>& argv);

}  // namespace agent_session::harness
