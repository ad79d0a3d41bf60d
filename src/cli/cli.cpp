#include "cli/cli.hpp"
#include "entry/load.hpp"

#include "agent_session/agent.hpp"
#include "agent_session/context.hpp"
#include "agent_session/repair.hpp"
#include "agent_session/session.hpp"
#include "base/decimal.hpp"
#include "base/printable.hpp"
#include "cli/command_line.hpp"
#include "cli/harness_command.hpp"
#include "cli/run_command.hpp"
#include "cli/units_command.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <iostream>
#include <limits>
#include <new>
#include <stdexcept>
#include <system_error>

namespace agent_session::cli {

using base::terminal_line;
using base::terminal_safe;
using entry::load_numbered_session;
using entry::MissingFile;
using entry::NumberedSession;
namespace {

constexpr const char* kStdin = "-";

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// On the command line a FILE that does not exist is an error (SPEC.md
// §6: a typo must not look like an empty session), while the library's
// load keeps ENOENT as "no session yet" (SPEC.md §2) for the agent loop.
NumberedSession load(const std::string& file, std::istream& in) {
  if (file == kStdin) return load_numbered_session(in);
  return load_numbered_session(file, MissingFile::error);
}

// A ContextError of the newest unit, its text followed by the unit's
// lines in the file: exit 1, as the ContextError.
class BudgetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// trim_context, with a budget error that also names the unit's lines.
std::span<const Message> trim(const NumberedSession& session, std::uint64_t budget, const std::string& file) {
  try {
    return trim_context(session.messages, budget);
  } catch (const ContextError& error) {
    const std::optional<ContextUnit> unit = error.unit();
    if (!unit) throw;
    const std::string where = file == kStdin ? "standard input" : file;
    throw BudgetError(std::string(error.what()) + "; in " + where + ": " +
                      describe_lines(session, unit->begin, unit->end));
  }
}

// A budget is a non-negative decimal integer. Anything larger than any
// estimate can be (2^64 - 1) means the same thing, so it saturates.
std::uint64_t parse_budget(const std::string& text) {
  if (!base::is_decimal(text)) {
    throw UsageError("--max-chars takes a non-negative whole number of UTF-16 code units, not \"" +
                     terminal_safe(text) + "\"");
  }
  return base::parse_decimal(text).value_or(std::numeric_limits<std::uint64_t>::max());
}

void append_from_stdin(const std::string& file, std::istream& in, const AppendOptions& options) {
  if (file == kStdin) throw UsageError("append needs a session file, not '-': the messages come on standard input");
  // Every message is validated before the file is touched, then all go
  // out in one locked write: all or nothing.
  std::vector<Message> messages;
  try {
    messages = entry::load_numbered_session(in).messages;
  } catch (const SessionError& error) {
    // The spec's text stays first; the line is standard input's, not FILE's.
    const std::string detail = error.detail().empty() ? "" : error.detail() + " ";
    throw SessionError(
        error.kind(), error.line(),
        detail + "(line " + std::to_string(error.line()) + " of standard input; nothing was appended to " + file + ")");
  }
  append_session(file, messages, options);
}

AppendOptions append_options(const Options& options) {
  return {.sync = options.sync ? SyncPolicy::data : SyncPolicy::none};
}

// "1 message", "N messages" (`check` keeps "N messages" always: SPEC.md §6).
std::string messages(std::size_t count) { return base::counted(count, "message"); }

// `repair`: prints what it found on `out`; exit 0 when the file loads (or
// was just repaired), 1 when it does not.
int repair(const std::string& file, bool apply, std::ostream& out) {
  if (file == kStdin) throw UsageError("repair needs a session file, not '-'");
  const RepairResult result = apply ? repair_session(file) : RepairResult{diagnose_session(file), false, {}};
  const SessionDiagnosis& found = result.diagnosis;
  if (found.health == SessionHealth::valid) {
    out << "valid: " << messages(found.messages) << ", " << found.size << " bytes\n";
    if (found.missing_final_newline) out << "note: the last line has no newline; the next append adds one\n";
    return kOk;
  }
  const bool torn = found.health == SessionHealth::torn_tail;
  out << (torn ? "torn last line" : "corrupt line") << ": line " << found.line << " at byte offset " << found.offset
      << " (" << found.size - found.offset << " bytes to the end of the file)\n"
      << "excerpt: \"" << found.excerpt << "\"\n"
      << "error: " << found.error << '\n';
  if (!torn && found.last_line) {
    out << "not repaired: line " << found.line
        << " is the last line, but it ends in a newline: it was written whole (or damaged since), not cut short "
           "by a crash, so a person must look; nothing was changed\n";
    return kInvalid;
  }
  if (!torn) {
    out << "not repaired: the damage is before the last line, so a person must look; nothing was changed\n";
    return kInvalid;
  }
  if (!result.repaired) {
    out << "nothing changed; `agent-session repair --apply " << terminal_line(file)
        << "` backs the file up, then cuts it to " << found.offset << " bytes, keeping the complete "
        << messages(found.messages) << "\n";
    return kInvalid;
  }
  out << "backup: " << terminal_line(result.backup->string()) << "\n"
      << "repaired: cut to " << found.offset << " bytes; " << messages(found.messages) << " kept\n";
  return kOk;
}

// Every failure is one line on standard error and its exit status.
// Without allocating: what is left when even the error's text cannot be made.
int out_of_memory(std::ostream& err) {
  err << "agent-session: out of memory\n";
  return kIo;
}

int reported(std::ostream& err, const std::exception& error, ExitCode status) {
  try {
    // File names and system texts come from outside: one inert line,
    // always, and made whole before any of it is written.
    err << "agent-session: " + terminal_line(error.what()) + '\n';
    return status;
  } catch (const std::bad_alloc&) {
    return out_of_memory(err);
  }
}

// The first argument must name a command, or be --help or --version: CLI11
// alone would call `agent-session frobnicate` "A subcommand is required".
void check_command_name(const CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(command->get_name());
  }
  std::string commands;
  for (const std::string& name : names) commands += (commands.empty() ? "" : ", ") + name;
  if (args.empty()) throw UsageError("a command is required: " + commands + " (agent-session --help shows them)");
  const std::string& first = args.front();
  const bool option = !first.empty() && first.front() == '-';
  if (option && first != "-h" && first != "--help" && first != "--version") {
    throw UsageError("unknown option \"" + terminal_safe(first) +
                     "\": before the command only --help and --version are options (agent-session --help)");
  }
  if (!option && std::find(names.begin(), names.end(), first) == names.end()) {
    throw UsageError("unknown command \"" + terminal_safe(first) + "\": the commands are " + commands);
  }
}

// CLI11's failure messages in our wording (the arguments still escaped):
//   "--max-chars: At Most 1 required but received 2" -> "--max-chars is given 2 times; it takes one value"
//   "--max-chars: 1 required N missing"              -> "--max-chars needs a value (N)"
//   "The following argument was not expected: b"     -> "unexpected extra argument "b"" (or "unknown option")
std::string usage_reason(const CLI::ParseError& error) {
  const std::string what = error.what();
  const std::size_t colon = what.find(": ");
  const std::string head = what.substr(0, colon), rest = colon == std::string::npos ? "" : what.substr(colon + 2);
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr && !rest.empty()) {
    if (rest.find(' ') != std::string::npos) return "unexpected extra arguments: " + terminal_safe(rest);
    return (rest.front() == '-' ? "unknown option \"" : "unexpected extra argument \"") + terminal_safe(rest) + "\"";
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr && !rest.empty()) {
    const std::string at_most = "At Most 1 required but received ";
    if (rest.rfind(at_most, 0) == 0) {
      return terminal_safe(head) + " is given " + terminal_safe(rest.substr(at_most.size())) +
             " times; it takes one value";
    }
    const std::string one = "1 required ", missing = " missing";
    if (rest.rfind(one, 0) == 0 && rest.ends_with(missing) && rest.size() > one.size() + missing.size()) {
      return terminal_safe(head) + " needs a value (" +
             terminal_safe(rest.substr(one.size(), rest.size() - one.size() - missing.size())) + ")";
    }
  }
  return terminal_safe(what);
}

// The command itself; run() maps what it throws onto exit codes.
int run_command(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  CommandLineLease lease;
  CommandLine& line = *lease;
  check_command_name(line.app, args);
  if (args.front() == "conform") {
    // The kit is a program of its own, run in this process's place by
    // main (kit_forward.hpp): in process there is no kit to run.
    throw UsageError(
        "conform runs agent-session-conform in place of this process (agent-session conform ...), "
        "not in process");
  }
  const bool asks_for_help = args.size() == 2 && (args[1] == "--help" || args[1] == "-h");
  if (args.front() == "harness" && !asks_for_help) {
    if (args.size() > 1) throw UsageError("harness takes no arguments: requests come on standard input");
    return serve_harness_command(in, out);
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
  try {
    line.app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    // --help and --version print on standard output and succeed.
    if (error.get_exit_code() == 0) return line.app.exit(error, out, err) == 0 ? kOk : kUsage;
    // Any other is one line (CLI11's own failure message adds a second,
    // "Run with --help ..."), naming the command, with the arguments'
    // bytes escaped: they come from the caller and may hold anything.
    const std::vector<CLI::App*> chosen = line.app.get_subcommands();
    const std::string command = chosen.empty() ? std::string() : chosen.front()->get_name() + ": ";
    throw UsageError(command + usage_reason(error) + " (agent-session " +
                     (chosen.empty() ? std::string() : chosen.front()->get_name() + " ") + "--help shows the usage)");
  }

  // Usage is settled before any input is read, so a bad budget is a
  // usage error (2) even when the session is invalid too.
  const std::uint64_t budget = *line.trim_command ? parse_budget(line.options.max_chars) : 0;
  if (*line.run_command) {
    std::optional<std::uint64_t> run_budget;
    if (line.run_command->count("--max-chars") > 0) run_budget = parse_budget(line.run.max_chars);
    return run_agent_command(line.run, run_budget, out, err);
  }
  if (*line.append) {
    append_from_stdin(line.options.file, in, append_options(line.options));
    return kOk;
  }
  if (*line.repair_command) return repair(line.options.file, line.options.apply, out);
  const NumberedSession session = load(line.options.file, in);
  const std::vector<Message>& messages = session.messages;
  if (*line.check) out << messages.size() << " messages\n";
  if (*line.estimate) out << estimate_context_chars(messages) << '\n';
  if (*line.canon) out << to_canonical_jsonl(messages);
  if (*line.trim_command) out << to_canonical_jsonl(trim(session, budget, line.options.file));
  if (*line.units) print_units(session, line.options.json, out);
  if (*line.stats) print_stats(session, line.options.json, out);
  return kOk;
}

}  // namespace

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  try {
    const int code = run_command(args, in, out, err);
    // Output is only done once it is written: a full disk or a closed
    // pipe found by this flush is a failure, never exit 0.
    out.flush();
    if (out.bad()) throw std::system_error(EIO, std::generic_category(), "cannot write standard output");
    return code;
  } catch (const UsageError& error) {
    return reported(err, error, kUsage);
  } catch (const PromptError& error) {
    return reported(err, error, kUsage);
  } catch (const SessionError& error) {
    return reported(err, error, kInvalid);
  } catch (const ContextError& error) {
    return reported(err, error, kInvalid);
  } catch (const BudgetError& error) {
    return reported(err, error, kInvalid);
  } catch (const ScriptError& error) {
    return reported(err, error, kInvalid);
  } catch (const std::system_error& error) {
    return reported(err, error, kIo);
  } catch (const std::bad_alloc&) {
    return out_of_memory(err);
  } catch (const std::exception& error) {
    // Nothing else is expected here; a resource or I/O failure is the
    // likeliest cause, and a one-line exit 3 beats an abort.
    return reported(err, error, kIo);
  }
}

}  // namespace agent_session::cli
