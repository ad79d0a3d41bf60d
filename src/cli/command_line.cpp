#include "cli/command_line.hpp"

#include <utility>

namespace agent_session::cli {
namespace {

void add_sync_flag(CLI::App* command, Options& options) {
  command->add_flag("--sync", options.sync,
                    "fdatasync after the append (and fsync the directory when the file is new): "
                    "the lines survive a power loss once the command returns");
}

CLI::App* add_command(CLI::App& app, Options& options, const char* name, const char* about, const char* example) {
  CLI::App* command = app.add_subcommand(name, about);
  command->add_option("FILE", options.file, "the session file (JSONL), or - for standard input")
      ->required()
      ->type_name("");  // "FILE REQUIRED", not "FILE TEXT REQUIRED"
  command->footer(std::string("Example:\n  ") + example);
  return command;
}

thread_local std::unique_ptr<CommandLine> spare;  // the one a finished run gave back

}  // namespace

CommandLine::CommandLine()
    : app("agent-session: load, check, estimate and trim an LLM agent's JSONL session.\n"
          "Exit codes: 0 ok, 1 invalid session or budget error, 2 usage error, 3 other I/O error.",
          "agent-session") {
  app.set_version_flag("--version", std::string("agent-session ") + AGENT_SESSION_VERSION, "print the version");
  app.require_subcommand(1);
  app.footer(
      "Example:\n  agent-session check corpus/real/claude-code-erk-b5fd1043.jsonl\n"
      "Each command's --help (agent-session trim --help) shows its own.");
  check = add_command(app, options, "check", "Load the session strictly; print 'N messages'.",
                      "agent-session check corpus/real/swe-agent-marshmallow-1867.jsonl");
  estimate =
      add_command(app, options, "estimate", "Print the character estimate: UTF-16 code units of the canonical JSONL.",
                  "agent-session estimate corpus/real/claude-code-erk-b5fd1043.jsonl");
  canon = add_command(app, options, "canon", "Print the session as canonical JSONL (JSON.stringify's bytes).",
                      "agent-session canon - < corpus/real/swe-agent-marshmallow-1867.jsonl");
  trim_command =
      add_command(app, options, "trim", "Print the newest whole units that fit the budget, as canonical JSONL.",
                  "agent-session trim --max-chars 20000 corpus/real/claude-code-erk-b5fd1043.jsonl");
  trim_command->add_option("--max-chars", options.max_chars, "the budget, in UTF-16 code units (a whole number >= 0)")
      ->required()
      ->type_name("N");
  append = add_command(app, options, "append",
                       "Validate the messages on standard input (one per line), then append them all.",
                       "echo '{\"role\":\"user\",\"content\":\"hi\"}' | agent-session append session.jsonl");
  append->get_option("FILE")->description(
      "the session file (JSONL); not -: the messages to append come on standard input");
  add_sync_flag(append, options);
  repair_command = add_command(
      app, options, "repair",
      "Diagnose a torn last line (a write cut short); with --apply, back the file up and cut it off.\n"
      "Exit 0: the file loads (or was repaired); 1: torn or corrupt (corruption before the last line "
      "is never repaired: a person must look).",
      "cp corpus/real/swe-agent-marshmallow-1867.jsonl copy.jsonl && agent-session repair --apply copy.jsonl");
  repair_command->get_option("FILE")->description("the session file (JSONL); not -, since a repair changes a file");
  repair_command->add_flag("--apply", options.apply,
                           "write FILE.bak-<UTC time> (mode 0600), then truncate the torn last line");

  units = add_command(app, options, "units",
                      "Print the session's units (SPEC §5.1), newest first, with their sizes and cumulative "
                      "sizes: what fits in a budget N is read off the list. Not part of the protocol.",
                      "agent-session units corpus/real/claude-code-erk-b5fd1043.jsonl");
  units->add_flag("--json", options.json,
                  "one JSON object (docs/units-and-stats.md); its begin and end are half-open, 0-based message "
                  "positions: \"begin\":460,\"end\":462 is the table's 460-461");
  units->footer(
      "The table's messages and lines are inclusive ranges: messages 460-461 are messages 460 and 461 (0-based), "
      "lines their physical 1-based lines.\nExample:\n  agent-session units "
      "corpus/real/claude-code-erk-b5fd1043.jsonl");
  stats = add_command(app, options, "stats",
                      "Print messages by role, tool calls, orphan results, pending calls, units, the "
                      "estimate, the largest unit and the smallest budget trim accepts. Not part of the "
                      "protocol.",
                      "agent-session stats --json corpus/real/swe-agent-marshmallow-1867.jsonl");
  stats->add_flag("--json", options.json, "one JSON object (docs/units-and-stats.md)");

  run_command = add_run_command(app, run);
  // Listed here for --help and the command names; main runs the program
  // agent-session-conform in its place (kit_forward.hpp), which reads the
  // arguments.
  app.add_subcommand("conform",
                     "Run the conformance vectors against a port (agent-session-conform ARGS..., found beside "
                     "this command): for each check, CMD ARGS... <check args> FILE, then again with - and the "
                     "input on standard input. Exit 0: every vector passed; 1: some failed.");

  app.add_subcommand("harness",
                     "Answer command lines as JSON requests on standard input (the harness protocol, "
                     "corpus/conformance/harness.md), each run as `agent-session ARGS...` would.")
      ->footer(
          "Example (a start, a check of a one-message session on standard input, a stop; one answer a "
          "line):\n"
          "  printf '%s\\n' '{\"op\":\"start\",\"protocol\":1}' "
          "'{\"op\":\"run\",\"seq\":1,\"argv\":[\"check\",\"-\"],"
          "\"stdin_b64\":\"eyJyb2xlIjoidXNlciIsImNvbnRlbnQiOiJoaSJ9Cg==\"}' "
          "'{\"op\":\"stop\"}' | agent-session harness");
}

void CommandLine::reset() {
  app.clear();
  options = Options{};
  run = RunOptions{};
}

CommandLineLease::CommandLineLease() : line_(spare ? std::move(spare) : std::make_unique<CommandLine>()) {
  line_->reset();
}

CommandLineLease::~CommandLineLease() {
  if (!spare) spare = std::move(line_);
}

}  // namespace agent_session::cli
