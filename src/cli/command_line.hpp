// The command line's grammar: every command, option and help text of
// `agent-session` (CLI11), built once per thread and parsed again for each
// run, because building it costs more than loading a small session and the
// harness (harness_command.hpp) and the port fuzzer run thousands of
// commands in one process.
//
// Example:
//   CommandLineLease lease;
//   lease->app.parse(reversed_args);
//   if (*lease->check) load(lease->options.file);
#pragma once

#include "cli/run_command.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace agent_session::cli {

// What the commands other than `run` take.
struct Options {
  std::string file;
  std::string max_chars;
  bool sync = false;
  bool apply = false;
  bool json = false;
};

// The parser and the values it parses into; the CLI::App pointers are its
// subcommands (`*check` is true once `check` was parsed).
struct CommandLine {
  CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Back to before any parse: CLI11's parse state and every value, so
  // nothing of one run's arguments reaches the next.
  void reset();

  CLI::App app;
  Options options;
  RunOptions run;
  CLI::App *check, *estimate, *canon, *trim_command, *append, *repair_command, *units, *stats, *run_command;
};

// This thread's CommandLine, reset, for one run; given back when the lease
// ends. A run inside a run (the harness serving its requests) leases
// another, so no two runs ever share one.
class CommandLineLease {
 public:
  CommandLineLease();
  ~CommandLineLease();
  CommandLineLease(const CommandLineLease&) = delete;
  CommandLineLease& operator=(const CommandLineLease&) = delete;
  CommandLine& operator*() { return *line_; }
  CommandLine* operator->() { return line_.get(); }

 private:
  std::unique_ptr<CommandLine> line_;
};

}  // namespace agent_session::cli
