// `agent-session conform ARGS...`: the conformance kit is a program of
// its own, agent-session-conform (conform/fuzz/main.cpp), which the
// command does not link; the command runs it in its own place (execv), so
// the exit code and every byte of output are the runner's, as if it had
// been run directly (its messages name agent-session-conform).
//
// It is looked for, in this order, at
//   <the command's folder>/agent-session-conform          the installed layout (<prefix>/bin), or a copy
//   <the command's folder>/conform/agent-session-conform  the build tree (<build>/conform)
// where the command's folder is that of /proc/self/exe: the binary
// running, however it was called (a link, a relative path, PATH).
//
// Example:
//   if (args.front() == "conform") return exec_runner({args.begin() + 1, args.end()}, std::cerr);
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace agent_session::cli {

// Where the runner may be, in the order it is looked for, for the
// command at `self` (a path to the running binary).
std::vector<std::filesystem::path> runner_places(const std::filesystem::path& self);

// Replaces this process with the first runner of runner_places that can
// be executed, given `args` after its name. Returns only when none can:
// then one line on `err` naming each place looked in and why it failed
// (no such file, not executable...), and exit 2 (a usage error: this
// command cannot run the kit as installed).
int exec_runner(const std::vector<std::string>& args, std::ostream& err);

}  // namespace agent_session::cli
