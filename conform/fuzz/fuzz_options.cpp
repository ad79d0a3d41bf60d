#include "conform/fuzz/fuzz_options.hpp"

#include "base/printable.hpp"
#include "conform/rules/rules_command.hpp"  // default_spec_file
#include "conform/runner/conform_options.hpp"

#include <cerrno>
#include <cstdlib>
#include <set>

namespace agent_session::conform::fuzz {
namespace {

// What the user typed, in double quotes and made safe for a terminal.
std::string quoted(const std::string& text) { return "\"" + base::terminal_safe(text) + "\""; }

std::uint64_t whole_number(const std::string& option, const std::string& text, std::uint64_t low, std::uint64_t high) {
  const bool digits = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long value = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE || value < low || value > high) {
    throw FuzzUsageError{option + ": " + quoted(text) + " is not a whole number from " + std::to_string(low) + " to " +
                         std::to_string(high)};
  }
  return value;
}

// The runner's rule for seconds (runner/conform_options.hpp): decimal
// only; a --timeout of at least kMinTimeoutSeconds, the others of at
// least a millisecond.
double seconds(const std::string& option, const std::string& text) {
  const double low = option == "--timeout" ? runner::kMinTimeoutSeconds : 0.001;
  const auto value = runner::parse_seconds(text, low, runner::kMaxSeconds);
  if (!value) throw FuzzUsageError{runner::seconds_usage(option, text, low, runner::kMaxSeconds)};
  return *value;
}

}  // namespace

FuzzOptions parse_fuzz_options(const std::vector<std::string>& args) {
  FuzzOptions options;
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
    if (word == "--harness" || word == "--stop-at-first") {
      (word == "--harness" ? options.harness : options.stop_at_first) = true;
      continue;
    }
    std::optional<std::string> inline_value;
    if (const auto eq = word.find('='); eq != std::string::npos) {
      inline_value = word.substr(eq + 1);
      word.resize(eq);
    }
    static const std::set<std::string> kOptions = {"--seed",    "--runs",    "--time",        "--jobs",   "--out",
                                                   "--vectors", "--timeout", "--shrink-time", "--report", "--spec"};
    if (!kOptions.count(word)) throw FuzzUsageError{"unknown option " + quoted(word)};
    if (word != "--report" && !seen.insert(word).second)
      throw FuzzUsageError{word + " is given twice; it takes one value"};
    if (!inline_value && i + 1 >= args.size()) throw FuzzUsageError{word + " needs a value"};
    const std::string value = inline_value ? *inline_value : args[++i];
    if (word == "--seed") options.seed = whole_number(word, value, 0, ~std::uint64_t{0});
    if (word == "--runs") options.runs = whole_number(word, value, 1, std::uint64_t{1} << 40);
    if (word == "--time") options.time_seconds = seconds(word, value);
    if (word == "--jobs") options.jobs = static_cast<unsigned>(whole_number(word, value, 1, 64));
    if (word == "--out") options.out = value;
    if (word == "--spec") options.spec = value;
    if (word == "--vectors") options.vectors = value;
    if (word == "--timeout") options.timeout_seconds = seconds(word, value);
    if (word == "--shrink-time") options.shrink_seconds = seconds(word, value);
    if (word == "--report") {
      if (!runner::is_report_spec(value))
        throw FuzzUsageError{"--report: " + quoted(value) + " is not junit=FILE or json=FILE"};
      options.reports.push_back(value);
    }
    if ((word == "--out" || word == "--vectors") && value.empty()) throw FuzzUsageError{word + " needs a folder"};
    if (word == "--spec" && value.empty()) throw FuzzUsageError{"--spec needs a file"};
  }
  if (options.show_help) return options;
  if (options.runs && options.time_seconds) throw FuzzUsageError{"--runs and --time exclude each other: give one"};
  if (options.command.empty()) throw FuzzUsageError{"no port to run: give it after --, e.g. -- node port.mjs"};
  return options;
}

std::string fuzz_help(const std::string& program) {
  return "Usage: " + program +
         " fuzz [--seed S] [--runs N | --time SECONDS] [--jobs J] [--out DIR] [--vectors DIR]\n"
         "       [--timeout SECONDS] [--shrink-time SECONDS] [--report KIND=FILE] [--stop-at-first] [--spec FILE]\n"
         "       [--harness] -- PORT [ARGS...]\n"
         "\n"
         "Differential fuzzing of a port against the reference (agent-session's own code, run in this process).\n"
         "Each input is a generated session file (the three records; astral characters, lone escapes, control\n"
         "characters; numbers at the printer's and parser's edges; index-like keys, duplicate keys, deep nesting;\n"
         "parallel, interleaved and nested rounds, pending calls, orphan results, repeated ids; invalid UTF-8,\n"
         "torn last lines, BOM, CR, NUL, whitespace-only lines) or a vector's input mutated. For each it runs\n"
         "PORT ARGS... check FILE, estimate FILE, canon FILE and trim --max-chars B FILE at budgets on both sides\n"
         "of the unit boundaries, judged as the vectors are. The campaign goes on after a difference (all the\n"
         "inputs of --runs, or until --time) and labels each by its signature: the SPEC.md section of the rule it\n"
         "breaks (§1.1, §2 JSON's grammar, §2.1 the strict rules, §3, §4, §5, §5.2, §6 the stream rules) and its\n"
         "kind (no-exit: a signal, a timeout or a broken harness; exit: another exit code; stdout: other output;\n"
         "streams: output on the wrong stream; error: exit 1 without the spec's error text). For each signature\n"
         "it shrinks the difference at the lowest input number and writes one vector folder under --out\n"
         "(input.jsonl, expect.json, reproduce.sh), fuzz_SEED_INPUT made new, never through a link: when that\n"
         "name is taken (an earlier run, a link), the next free one, fuzz_SEED_INPUT_2, _3, ..., and the run\n"
         "prints the one it wrote. At the end, the signatures with their counts, and the rule coverage: per rule\n"
         "ID of SPEC.md, the inputs that exercised it and the differences it produced, and the rules never reached.\n"
         "\n"
         "  --seed S          the run's seed (default: drawn, printed); the same seed tries the same inputs\n"
         "  --runs N          inputs to try (default 1000)\n"
         "  --time SECONDS    or: try inputs for this long (a decimal, at least 0.001)\n"
         "  --jobs J          inputs tried at once, 1 to 64 (default 1)\n"
         "  --out DIR         where the differences' vector folders go (default fuzz-found)\n"
         "  --vectors DIR     the vectors whose inputs are mutated (default: the runner's vectors)\n"
         "  --timeout SECONDS per run of the port, a decimal from 0.1 to 1000000 (default 10)\n"
         "  --shrink-time S   at most this long shrinking each signature's difference (default 60; a decimal, at\n"
         "                    least 0.001)\n"
         "  --report KIND=FILE  junit=FILE or json=FILE, as conform writes them (repeatable): the vectors the\n"
         "                    differences became, their checks judged on PORT; or one passing case naming the\n"
         "                    seed; the JSON report also holds the signatures and the rule coverage (\"fuzz\")\n"
         "  --stop-at-first   stop at the first difference (the lowest input number that differs): one vector\n"
         "  --spec FILE       the SPEC.md whose rule IDs the coverage lists (default: " +
         rules::default_spec_file() +
         ")\n"
         "  --harness         start PORT harness once per job and send it every run (harness.md), as conform "
         "--harness\n"
         "\n"
         "Exit: 0 no difference, 1 a difference (a vector per signature written), 2 usage, 3 I/O (an unreadable\n"
         "SPEC.md too).\n"
         "Examples (from a clone's root, agent-session and agent-session-conform on PATH):\n"
         "  " +
         program +
         " fuzz --seed 7 --runs 200 --harness -- agent-session\n"
         "  " +
         program +
         " fuzz --runs 500 --harness --report json=fuzz.json -- agent-session   # fuzz.json: \"fuzz\", the coverage\n"
         "  " +
         program +
         " fuzz --seed 1 --time 60 --stop-at-first --harness --out found -- node "
         "tests/mutants/trim_first_result_only.mjs "
         "# exit 1\n"
         "  sh found/fuzz_1_*/reproduce.sh   # exit 1: the mutant fails the vector it found\n";
}

}  // namespace agent_session::conform::fuzz
