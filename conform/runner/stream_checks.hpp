// The runner's own checks (SPEC.md §6.1, "The runner's own checks"):
// SPEC.md §6's rules for the process's streams, its usage errors and a
// FILE that exists but cannot be read or made, which no vector can state,
// since a vector gives only words before FILE, a FILE that is a readable
// file or a path in a folder that exists, and bytes on a standard input
// that is a pipe. In exec mode, one run each, of the port as a process
// (in harness mode too: a request cannot close a stream, carry a word
// past FILE or name FILE, so these runs are exec mode's, as a run whose
// words are not UTF-8 is):
//
//   from vectors 1.4.0:
//   runner_stdin_closed           check - <&-                exit 3
//   runner_stdin_directory        check - < /                exit 3
//   runner_stdout_full            canon FILE > /dev/full     exit 3
//   runner_stdout_closed          canon FILE >&-             exit 3
//   runner_extra_argument         check FILE extra           exit 2
//   runner_unknown_option         check --bogus FILE         exit 2
//   from vectors 1.6.0:
//   runner_file_directory         check DIR, estimate DIR,   exit 3 (each)
//                                 canon DIR, trim --max-chars 100 DIR
//   runner_append_directory       append DIR                 exit 3
//   runner_append_missing_folder  append DIR/absent/session.jsonl  exit 3
//
// FILE is a valid one-message session the runner writes in a temporary
// folder of its own, DIR that folder (a read of it fails, EISDIR), and
// DIR/absent a folder that does not exist (FILE cannot be made there,
// ENOENT); `append` gets an empty standard input (zero messages, which
// SPEC.md §6 appends like any batch: FILE is opened all the same). Each
// must end in that exit, never a signal, with standard output empty where
// the runner sees it and exactly one line on standard error. They are
// listed, selected (--only), skipped (the skip file) and reported like
// vectors, each with the vectors of its version or later.
#pragma once

#include "conform/runner/conform_judge.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::runner {

// Their names, in the order they run (after the vectors).
const std::vector<std::string>& runner_check_names();

// Whether `name` is one of them: a vector folder of that name is unusable.
bool is_runner_check(std::string_view name);

// The minor version of the vectors from which the runner runs check
// `name` (1.`minor`.0: runner/conform_select.hpp, kRunnerChecksSinceMinor
// or kFileErrorChecksSinceMinor); 0 for a name that is none of them.
unsigned long long runner_check_since_minor(std::string_view name);

// What FILE holds: one valid message, so that `canon FILE` has output to
// write and `check FILE` would succeed but for its arguments.
inline constexpr std::string_view kRunnerSession = "{\"role\":\"user\",\"content\":\"hi\"}\n";

// The check named `name` as a vector of its checks (one, or four for
// runner_file_directory), FILE being `session` (a file holding
// kRunnerSession), its folder or `folder`/absent/session.jsonl.
Vector runner_check_vector(const std::string& name, const std::filesystem::path& session);

// A command line for sh that runs `check` again with the port `command`:
// the session file made by mktemp and printf when the check reads one, a
// folder by mktemp -d when FILE is one or is in one, then the run with its
// redirection (an empty pipe on standard input for `append`), e.g.
//   f=$(mktemp) && printf '%s\n' '{"role":"user","content":"hi"}' > "$f" && ./port canon "$f" > /dev/full
//   d=$(mktemp -d) && printf '' | ./port append "$d/absent/session.jsonl"
std::string runner_check_reproduce(const Check& check, const std::vector<std::string>& command);

}  // namespace agent_session::conform::runner
