#include "conform/properties/properties_options.hpp"

#include "base/printable.hpp"
#include "conform/runner/conform_options.hpp"

#include <cerrno>
#include <cstdlib>
#include <set>

namespace agent_session::conform::properties {
namespace {

std::string quoted(const std::string& text) { return "\"" + base::terminal_safe(text) + "\""; }

std::uint64_t whole_number(const std::string& option, const std::string& text, std::uint64_t low, std::uint64_t high) {
  const bool digits = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long value = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE || value < low || value > high) {
    throw PropertiesUsageError{option + ": " + quoted(text) + " is not a whole number from " + std::to_string(low) +
                               " to " + std::to_string(high)};
  }
  return value;
}

}  // namespace

PropertiesOptions parse_properties_options(const std::vector<std::string>& args) {
  PropertiesOptions options;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string word = args[i];
    if (word == "--") {
      options.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (word.size() < 2 || word[0] != '-') {
      options.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (word == "-h" || word == "--help") {
      options.show_help = true;
      continue;
    }
    std::optional<std::string> value;
    if (const auto eq = word.find('='); eq != std::string::npos && word.rfind("--", 0) == 0) {
      value = word.substr(eq + 1);
      word = word.substr(0, eq);
    }
    static const std::set<std::string> kOptions = {"--seed", "--runs", "--out", "--cases", "--timeout", "--report"};
    if (!kOptions.count(word)) throw PropertiesUsageError{"unknown option " + quoted(word)};
    if (!value) {
      if (i + 1 >= args.size()) throw PropertiesUsageError{word + " needs a value"};
      value = args[++i];
    }
    if (word != "--report" && !seen.insert(word).second) throw PropertiesUsageError{word + " given twice"};
    if (word == "--seed") {
      options.seed = whole_number(word, *value, 0, UINT64_MAX);
    } else if (word == "--runs") {
      options.runs = whole_number(word, *value, 1, 100000000);
    } else if (word == "--cases") {
      options.cases = whole_number(word, *value, 0, 1000);
    } else if (word == "--out") {
      if (value->empty()) throw PropertiesUsageError{"--out needs a folder"};
      options.out = *value;
    } else if (word == "--timeout") {
      const auto seconds = runner::parse_seconds(*value, runner::kMinTimeoutSeconds, runner::kMaxSeconds);
      if (!seconds) {
        throw PropertiesUsageError{
            runner::seconds_usage(word, *value, runner::kMinTimeoutSeconds, runner::kMaxSeconds)};
      }
      options.timeout_seconds = *seconds;
    } else {
      const auto eq = value->find('=');
      const std::string kind = eq == std::string::npos ? "" : value->substr(0, eq);
      if ((kind != "json" && kind != "junit" && kind != "markdown") || eq + 1 >= value->size()) {
        throw PropertiesUsageError{"--report: " + quoted(*value) + " is not json=FILE, junit=FILE or markdown=FILE"};
      }
      options.reports.push_back(*value);
    }
  }
  if (!options.show_help && options.command.empty()) {
    throw PropertiesUsageError{"no adapter: give its command after -- (properties -- node adapter.mjs)"};
  }
  return options;
}

std::string properties_help(const std::string& program) {
  return "Usage: " + program + R"( properties [OPTIONS] -- ADAPTER [ARGS...]

Judges a history trimmer on SPEC.md §5's unit invariants only: the adapter
(corpus/conformance/adapter.md) is started as `ADAPTER [ARGS...] harness`
and sent generated sessions (users, assistants with 0-3 tool calls, tool
results; parallel, interleaved and nested rounds, orphans, pending calls)
as `trim` requests, one budget per session, drawn around the adapter's own
`count` of each suffix of whole units (SPEC.md §5.1). Each answer is judged:
  orphan     a kept tool result whose declaring assistant was dropped
  split      a kept assistant one of whose tool results was dropped
  suffix     kept is not a run of indices ending at the newest message
  unaltered  a kept message mapped back is not the input's
  non-empty  nothing kept, or refused, though the newest unit fits
  budget     the adapter's count of what was kept is over the budget
The packing of SPEC.md §5.2 (which suffix) and its error texts are not
judged. A port's harness (corpus/conformance/harness.md: estimate and trim
among its commands, no count) is judged too: `estimate -` is its count,
`trim --max-chars B -` its trim (exit 1 its refusal), its output lines the
newest messages. A violation is shrunk (units, messages and the budget lowered while
the same invariant breaks) and written to OUT/INVARIANT-N/ (session.jsonl,
budget, adapter, broke.txt, returned.json), announced by one line
`VIOLATION INVARIANT: what broke (N messages, budget B; OUT/INVARIANT-N/session.jsonl)`;
the summary gives each invariant's rate (violations / sessions judged).

Options:
  --seed N          the generator's seed (default: drawn and printed)
  --runs N          sessions to judge (default 200)
  --out DIR         where shrunk cases are written (default properties-found)
  --cases N         violations shrunk and written per invariant (default 3)
  --timeout SECONDS per request to the adapter (default 10)
  --report KIND=FILE  repeatable; each names every invariant: json= counts,
                    rates and the shrunk cases' files; junit= one test case
                    per invariant, failed when broken; markdown= the rates
                    as a table (a CI job summary)
  -h, --help        this text

Exit: 0 no violation, 1 violations found, 2 usage, 3 I/O or an adapter that
fails the protocol.

Examples:
  )" + program +
         R"( properties --seed 1 --runs 300 -- node conform/adapters/langchain/adapter.mjs   # exit 1: orphans
  )" + program +
         R"( properties --seed 1 --report json=lc.json -- node conform/adapters/langchain/adapter.mjs --start-on human   # exit 1
  )" + program +
         R"( properties --seed 1 --out found -- node conform/adapters/openai-agents/adapter.mjs   # exit 1
  )" + program +
         R"( properties --seed 1 --runs 300 -- agent-session   # a port, through its harness: exit 0
(The adapters' packages first: node conform/adapters/selftest.mjs --install.)
)";
}

}  // namespace agent_session::conform::properties
