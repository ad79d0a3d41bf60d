// `agent-session run`: the agent loop (run_agent, agent.hpp) driven from
// the command line with no network: a scripted model and two demo tools.
#pragma once

#include "agent_session/agent.hpp"
#include "cli/scripted_client.hpp"

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace agent_session::cli {

struct RunOptions {
  std::string session;
  std::string max_chars;  // parsed by the caller, like trim's
  std::size_t max_turns = 8;
  std::string script;
  std::string root = ".";
  bool verbose = false;
  bool sync = false;                  // --sync: fdatasync after every append
  std::optional<std::string> prompt;  // none: continue a session that awaits the model's reply
};

// A PROMPT that does not fit the session: given while the session's tool
// results await the model's reply, or left out when nothing awaits one.
// A usage error (exit 2), raised before anything is recorded.
class PromptError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Declares `run` and its options on `app`.
CLI::App* add_run_command(CLI::App& app, RunOptions& options);

// Runs one agent turn: loads the session, continues the script from the
// session's assistant count, records the prompt and every message, prints
// this run's messages (what was appended) as canonical JSONL on `out`, and
// with `verbose` reports stored against sent per request on `err`.
// The prompt is valid UTF-8 and not blank, and the root a directory:
// add_run_command's parser refuses anything else
// (exit 2). Returns kOk; errors propagate for the caller to map onto exit codes:
// SessionError, ContextError and ScriptError (1), PromptError (2),
// std::system_error (3).
int run_agent_command(const RunOptions& options, std::optional<std::uint64_t> budget, std::ostream& out,
                      std::ostream& err);

// The demo tools:
//   echo       {"text": S} -> S;
//   read_file  {"path": S} -> the UTF-8 text of a regular file of at most
//              64 KiB beneath `root`, resolved by the kernel beneath a
//              descriptor of `root` (read_confined, confined_read.hpp,
//              SPEC.md §9): no step of the resolution may leave `root`.
// Both fail by throwing; run_agent turns that into an error result.
std::map<std::string, Tool> demo_tools(const std::filesystem::path& root);

}  // namespace agent_session::cli
