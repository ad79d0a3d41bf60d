// SPEC.md §6.1's table of the argument forms a runner passes, as the one
// gate every check of every vector goes through before a port sees it: a
// vector is data, and its `args` are never a way to make the runner (or a
// harness port) run something else.
//
// Example:
//   argument_form_problem({"trim", "--max-chars", "10"}, false);  // nothing: a form of the table
//   argument_form_problem({"conform", "--", "sh"}, false);       // why not, one printable line
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace agent_session::conform::runner {

// Why `args` (a check's words before FILE) is not one of SPEC.md §6.1's
// forms, or nothing when it is. `file_check`: the check gives standard
// input (corpus/conformance/README.md "Checks that write FILE"), whose
// only form is `append`; `append` is a file check's only. The forms:
// `check`, `estimate`, `canon`, `trim --max-chars N` (N any bytes but
// NUL), and the usage errors' `trim` and `frobnicate`. No word may hold a
// NUL byte: a process argument ends there, so the port would be judged on
// a shorter word.
// The longest word a vector may give, in bytes: the longest argument
// Linux's execve takes (MAX_ARG_STRLEN, 128 KiB with its NUL), so that
// exec and harness mode run the same checks, and a report that shows the
// words stays small.
inline constexpr std::size_t kMaxArgumentBytes = (std::size_t{128} << 10) - 1;

std::optional<std::string> argument_form_problem(const std::vector<std::string>& args, bool file_check);

}  // namespace agent_session::conform::runner
