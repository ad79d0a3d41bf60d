#include "cli/run_command.hpp"
#include "base/utf8.hpp"

#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "base/printable.hpp"
#include "cli/cli.hpp"
#include "cli/confined_read.hpp"

#include <CLI/CLI.hpp>

#include <sys/stat.h>

#include <cerrno>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace agent_session::cli {

using base::terminal_line;
using base::terminal_safe;
using base::valid_utf8_prefix;
namespace {

namespace fs = std::filesystem;

std::string echo(const Json& input) {
  if (!input.is_object() || !input.contains("text") || !input.at("text").is_string()) {
    throw std::invalid_argument("echo takes {\"text\": string}");
  }
  return input.at("text").get<std::string>();
}

std::string read_file(const fs::path& root, const Json& input) {
  if (!input.is_object() || !input.contains("path") || !input.at("path").is_string()) {
    throw std::invalid_argument("read_file takes {\"path\": string}, relative to " + root.string());
  }
  return read_confined(root, input.at("path").get<std::string>());
}

// A usage error at parse time (exit 2): a message is JSON text, so a
// prompt that is not UTF-8 could never be recorded.
std::string utf8_prompt_error(const std::string& prompt) {
  const std::size_t valid = valid_utf8_prefix(prompt);
  if (valid == prompt.size()) return "";
  return "not valid UTF-8: the first invalid byte is at offset " + std::to_string(valid) + " of " +
         std::to_string(prompt.size()) + " bytes";
}

// An empty prompt (or one of only whitespace) would record a user message
// that asks nothing; it is a mistake in the arguments, refused at once.
std::string prompt_error(const std::string& prompt) {
  if (prompt.find_first_not_of(" \t\r\n") == std::string::npos) {
    return "empty (or only whitespace): a run starts with a user message that asks something";
  }
  return utf8_prompt_error(prompt);
}

// --max-turns is a whole number of requests, at least 1 (CLI11's
// PositiveNumber would print a 300-digit range for 0).
std::string max_turns_error(const std::string& text) {
  const auto digits = std::string_view("0123456789");
  if (text.empty() || text.find_first_not_of(digits) != std::string::npos) {
    // Not quoted with `"`: the CLI escapes the whole message, quotes too.
    return "takes a whole number of model requests, not '" + text + "'";
  }
  if (text.find_first_not_of('0') == std::string::npos) return "must be at least 1, not " + text;
  const std::string most = std::to_string(std::numeric_limits<std::size_t>::max());
  const std::string value = text.substr(text.find_first_not_of('0'));
  if (value.size() > most.size() || (value.size() == most.size() && value > most)) {
    return "must be at most " + most + ", not " + value;
  }
  return "";
}

// CLI11 puts the option's name and ": " before each of these reasons.

// The session is written, so it is a file: standard input cannot be it.
std::string session_error(const std::string& session) {
  return session == "-" ? "not -: the session is a file that the run appends to" : "";
}

// What a writer would refuse (SPEC.md §8), refused before loading: a FIFO
// at the session path would block the load forever, and a symbolic link
// or a device is never written. A missing file is a new session.
void require_writable_session(const std::string& session) {
  struct stat info {};
  if (::lstat(session.c_str(), &info) != 0) {
    if (errno == ENOENT) return;
    throw std::system_error(errno, std::generic_category(), "cannot open session " + base::quoted(session));
  }
  if (S_ISLNK(info.st_mode)) {
    throw std::system_error(ELOOP, std::generic_category(),
                            "cannot open session " + base::quoted(session) +
                                ": it is a symbolic link, and sessions are never written through one "
                                "(name the link's target instead)");
  }
  if (!S_ISREG(info.st_mode)) {
    throw std::system_error(S_ISDIR(info.st_mode) ? EISDIR : EINVAL, std::generic_category(),
                            "cannot open session " + base::quoted(session) + ": not a regular file");
  }
}

// Checked at parse time, so a mistyped --root is a usage error (exit 2)
// before anything is recorded, not an error result on the first read_file.
std::string root_error(const std::string& root) {
  std::error_code error;
  if (fs::is_directory(root, error)) return "";
  return terminal_safe(root) + " is not a directory" +
         (error && error != std::errc::no_such_file_or_directory ? " (" + error.message() + ")" : "");
}

void report(std::ostream& err, const RequestReport& r) {
  err << "request " << r.request << ": stored messages=" << r.stored_messages << " chars=" << r.stored_chars
      << "; sent messages=" << r.sent_messages << " chars=" << r.sent_chars << '\n';
}

// Whether PROMPT fits the session (SPEC.md §9: a reply follows the tool
// results it answers): refused with a PromptError before anything is
// recorded.
void check_prompt(const RunOptions& options, std::span<const Message> history) {
  const std::string session = "session " + options.session;  // reported() escapes the whole line
  const bool results_pending = !history.empty() && std::holds_alternative<ToolResultMessage>(history.back());
  if (options.prompt && results_pending) {
    throw PromptError(session +
                      " ends in tool results that await the model's reply: run again without PROMPT to continue "
                      "it (a new prompt would come between those results and the reply to them)");
  }
  if (options.prompt || awaits_reply(history)) return;
  const std::string state = history.empty() ? "holds no messages yet"
                            : std::get<AssistantMessage>(history.back()).tool_calls.empty()
                                ? "ends in the model's answer"
                                : "ends in an assistant message whose tool calls have no results";
  throw PromptError("a PROMPT is required: " + session + " " + state +
                    ", so nothing awaits a reply (without PROMPT, run continues a session whose last message is "
                    "a tool result or a prompt)");
}

}  // namespace

std::map<std::string, Tool> demo_tools(const fs::path& root) {
  std::map<std::string, Tool> tools;
  tools["echo"] = {"Returns input.text unchanged. Input: {\"text\": string}.", echo};
  tools["read_file"] = {"Returns the text of a file under the demo directory. Input: {\"path\": string}.",
                        [root](const Json& input) { return read_file(root, input); }};
  return tools;
}

CLI::App* add_run_command(CLI::App& app, RunOptions& options) {
  CLI::App* command = app.add_subcommand(
      "run", "Run an agent turn: a scripted model, the demo tools echo and read_file; print what was appended.");
  command->add_option("--session", options.session, "the session file (JSONL); created if missing")
      ->required()
      ->check(CLI::Validator(session_error, "", "FILE"))
      ->type_name("FILE");
  command->add_option("--script", options.script, "the model's replies: one assistant message (JSON) per line")
      ->required()
      ->type_name("FILE");
  command
      ->add_option("--max-chars", options.max_chars,
                   "trim what is sent to the model to N UTF-16 code units (the file keeps everything)")
      ->type_name("N");
  command->add_option("--max-turns", options.max_turns, "the most model requests this run makes (at least 1)")
      ->check(CLI::Validator(max_turns_error, "", "N >= 1"))
      ->type_name("N")
      ->capture_default_str();
  command->add_option("--root", options.root, "the only directory read_file may read")
      ->check(CLI::Validator(root_error, "", "DIR"))
      ->type_name("DIR")
      ->capture_default_str();
  command->add_flag("--verbose", options.verbose, "per request, print stored vs sent messages and chars on stderr");
  command->add_flag("--sync", options.sync,
                    "fdatasync after every message appended to the session: it survives a power loss");
  command
      ->add_option_function<std::string>(
          "PROMPT", [&options](const std::string& prompt) { options.prompt = prompt; },
          "the user message that starts this run (UTF-8, not empty); left out, the run continues a session "
          "whose last tool results (or prompt) await the model's reply")
      ->check(CLI::Validator(prompt_error, "", "UTF-8"))
      ->type_name("");
  command->footer(
      "Records PROMPT, then asks the model and runs its tool calls until it answers without any.\n"
      "Standard output: the messages this run appended to the session, as canonical JSONL.\n"
      "Resuming: the script is the model's side of the whole session, its Nth line the session's Nth\n"
      "assistant message; so a second run on the same session continues with the first reply not yet used.\n"
      "After --max-turns stopped a run, its last tool results await a reply: run again without PROMPT to\n"
      "continue (a PROMPT is then refused, exit 2).\n"
      "Exit 0 also when --max-turns stops the run (a note on stderr); 1 for a budget error, an invalid\n"
      "session or script, or no reply left; 2 usage; 3 I/O.\n"
      "\n"
      "Example:\n"
      "  agent-session run --session demo-session.jsonl --script corpus/demo/replies.jsonl --root corpus/demo \\\n"
      "      --max-chars 600 --verbose 'What do the notes say?'");
  return command;
}

int run_agent_command(const RunOptions& options, std::optional<std::uint64_t> budget, std::ostream& out,
                      std::ostream& err) {
  // The script position is the session's: its Nth assistant message was
  // the script's Nth reply. Checked before anything is recorded.
  require_writable_session(options.session);
  const std::vector<AssistantMessage> replies = load_script(options.script);
  const std::vector<Message> history = load_session(options.session);
  check_prompt(options, history);
  const std::size_t used = count_assistant_messages(history);
  if (used >= replies.size()) {
    throw ScriptError("script " + base::quoted(options.script) + " holds " +
                      base::counted(replies.size(), "reply", "replies") + " and the session already holds " +
                      base::counted(used, "assistant message") + ": add this run's replies to the script");
  }
  ScriptedClient model(replies, used);
  if (options.verbose) {
    err << "session " << terminal_line(base::quoted(options.session)) << ": "
        << base::counted(used, "assistant message") << " so far; next reply is line " << used + 1 << " of "
        << replies.size() << " in " << terminal_line(base::quoted(options.script)) << '\n';
  }

  AgentOptions agent{.prompt = options.prompt,
                     .client = model,
                     .tools = demo_tools(options.root),
                     .session_path = fs::path(options.session),
                     .append = {.sync = options.sync ? SyncPolicy::data : SyncPolicy::none},
                     .context_max_chars = budget,
                     .max_turns = options.max_turns};
  if (options.verbose) agent.on_request = [&err](const RequestReport& r) { report(err, r); };

  const AgentResult result = run_agent(agent);
  out << to_canonical_jsonl(result.recorded());
  out.flush();
  if (result.stop_reason == StopReason::max_turns) {
    err << "agent-session: stopped at --max-turns " << options.max_turns
        << ": the last tool results are recorded and await a reply; run again without PROMPT to continue\n";
  } else if (options.verbose) {
    err << "completed after " << base::counted(result.requests, "request") << "; the session holds "
        << base::counted(result.messages.size(), "message") << '\n';
  }
  return kOk;
}

}  // namespace agent_session::cli
