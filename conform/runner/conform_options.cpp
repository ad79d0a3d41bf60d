#include "conform/runner/conform_options.hpp"
#include "base/decimal.hpp"

#include "conform/runner/clean_ends.hpp"
#include "conform/runner/conform.hpp"
#include "conform/runner/exec_adapter.hpp"
#include "conform/runner/temp_folder.hpp"

#include "base/printable.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <ostream>
#include <system_error>

#include <unistd.h>

namespace agent_session::conform::runner {
namespace {

namespace fs = std::filesystem;
using agent_session::base::terminal_safe;

[[noreturn]] void usage(const std::string& message) { throw ConformUsageError{message}; }

std::string quoted(std::string_view text) { return "\"" + terminal_safe(text) + "\""; }

// A whole number from `low` to `high`: decimal digits only, as --jobs and
// --max-output take.
std::size_t whole_number(std::string_view name, std::string_view text, std::size_t low, std::size_t high) {
  const std::optional<std::uint64_t> value = base::parse_decimal(text);
  if (!value || *value < low || *value > high) {
    usage(std::string(name) + ": " + quoted(text) + " is not a whole number from " + std::to_string(low) + " to " +
          std::to_string(high));
  }
  return static_cast<std::size_t>(*value);
}

double timeout(std::string_view text) {
  const auto value = parse_seconds(text, kMinTimeoutSeconds, kMaxSeconds);
  if (!value) usage(seconds_usage("--timeout", text, kMinTimeoutSeconds, kMaxSeconds));
  return *value;
}

// `value` as a person writes it: "0.1", "1000000".
std::string shown(double value) {
  std::string text = std::to_string(value);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

std::string report(std::string_view text) {
  if (!is_report_spec(text)) usage("--report: " + quoted(text) + " is not junit=FILE or json=FILE");
  return std::string(text);
}

// A port's name in the reports (the matrix's column, its badge's label):
// one printable line, short enough for a column heading.
std::string label(std::string_view text) {
  if (text.empty() || text.size() > 100 || base::terminal_line(text) != text) {
    usage("--label: " + quoted(text) + " is not 1 to 100 printable bytes of UTF-8 on one line");
  }
  return std::string(text);
}

std::string format(std::string_view text) {
  if (text != "text" && text != "tap") usage("--format: " + quoted(text) + " is neither text nor tap");
  return std::string(text);
}

// Options that take a value, and whether they may be repeated.
struct ValueOption {
  std::string_view name;
  bool repeatable;
};
constexpr ValueOption kValueOptions[] = {
    {"--vectors", false},   {"--timeout", false}, {"--jobs", false},  {"--max-output", false},     {"--only", true},
    {"--skip-file", false}, {"--format", false},  {"--report", true}, {"--known-failures", false}, {"--label", false}};
constexpr std::string_view kFlags[] = {"-h", "--help", "--version", "--list", "--strict", "--harness"};

void set_value(ConformOptions& options, std::string_view name, std::string_view value) {
  if (name == "--vectors") options.vectors = value;
  if (name == "--timeout") options.timeout_seconds = timeout(value);
  if (name == "--jobs") options.jobs = static_cast<unsigned>(whole_number(name, value, 1, 64));
  if (name == "--max-output") options.max_output = whole_number(name, value, 1, std::size_t{1} << 30);
  if (name == "--only") options.only.emplace_back(value);
  if (name == "--skip-file") options.skip_file = value;
  if (name == "--known-failures") options.known_failures = value;
  if (name == "--format") options.format = format(value);
  if (name == "--report") options.reports.push_back(report(value));
  if (name == "--label") options.label = label(value);
}

void set_flag(ConformOptions& options, std::string_view name) {
  if (name == "-h" || name == "--help") options.show_help = true;
  if (name == "--version") options.show_version = true;
  if (name == "--list") options.list = true;
  if (name == "--strict") options.strict = true;
  if (name == "--harness") options.harness = true;
}

// A mode that runs no port (--version, --list) refuses every option it
// would ignore, and so does a run for --label without a report: what a
// person typed either does something or is an error, never dropped.
void refuse_what_the_mode_ignores(const ConformOptions& options, const std::vector<std::string_view>& named) {
  if (options.show_help) return;
  if (options.show_version && options.list) usage("--version and --list exclude each other: give one");
  const auto allowed = [&](std::string_view mode, std::initializer_list<std::string_view> takes) {
    for (const std::string_view name : named) {
      if (name == mode || std::find(takes.begin(), takes.end(), name) != takes.end()) continue;
      usage(std::string(mode) + " runs no port, so it would ignore " + std::string(name) + "; it takes only " +
            (takes.size() == 1 ? "--vectors" : "--vectors and --only"));
    }
    if (!options.command.empty()) {
      usage(std::string(mode) + " runs no port, so it would ignore the port's command line " +
            quoted(std::string_view(options.command.front())) + "...");
    }
  };
  if (options.show_version) allowed("--version", {"--vectors"});
  if (options.list) allowed("--list", {"--vectors", "--only"});
  if (!options.label.empty() && options.reports.empty()) {
    usage("--label names the port in a report, and no --report is given (--report json=FILE or junit=FILE)");
  }
}

}  // namespace

ConformOptions parse_conform_options(const std::vector<std::string>& args) {
  ConformOptions options;
  std::vector<std::string_view> given;  // value options seen, to refuse a second --timeout
  std::vector<std::string_view> named;  // every option seen, in its long form
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (word == "--") {
      options.command.insert(options.command.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (word.size() < 2 || word[0] != '-') {
      options.command.emplace_back(word);
      continue;
    }
    const auto equals = word.find('=');
    const std::string_view name = word.substr(0, equals);
    bool known = false;
    for (const std::string_view flag : kFlags) {
      if (name != flag) continue;
      if (equals != std::string_view::npos) usage(std::string(name) + " takes no value");
      set_flag(options, name);
      named.push_back(name == "-h" ? "--help" : name);
      known = true;
    }
    for (const ValueOption& option : kValueOptions) {
      if (name != option.name) continue;
      if (!option.repeatable) {
        for (const std::string_view seen : given) {
          if (seen == name) usage(std::string(name) + " is given twice; it takes one value");
        }
        given.push_back(option.name);
      }
      named.push_back(option.name);
      if (equals != std::string_view::npos) {
        set_value(options, name, word.substr(equals + 1));
      } else if (i + 1 < args.size()) {
        set_value(options, name, args[++i]);
      } else {
        usage(std::string(name) + " needs a value");
      }
      known = true;
    }
    if (!known) usage("unknown option " + quoted(word));
  }
  refuse_what_the_mode_ignores(options, named);
  const bool vectors_given = std::find(given.begin(), given.end(), "--vectors") != given.end();
  if (!vectors_given) options.vectors = default_vectors_folder();
  return options;
}

// The help's examples: each runs as written from a clone's root with the
// kit on PATH (tests/help_examples.sh runs them); `# exit N` states an
// exit other than 0.
std::string examples(const std::string& name) {
  std::string text;
  for (const char* example :
       {" --harness -- agent-session",
        " --harness --jobs 2 --label oracle --report json=oracle.json -- node tests/oracle/cli.mjs",
        " --strict --timeout 5 --only 'y_trim_*unit' -- node tests/oracle/cli.mjs",
        " --harness --known-failures conform/examples/literal_case_insensitive.known-failures "
        "--report junit=mutant.xml -- node tests/mutants/literal_case_insensitive.mjs",
        " --harness --skip-file conform/examples/skip.txt --only 'y_estimate_*' -- agent-session",
        " --list --only 'n_json_*'", " exec-adapter --help"}) {
    text += "  " + name + example + "\n";
  }
  return text;
}

std::string conform_help(std::string_view program) {
  const std::string name(program);
  return "Run the conformance vectors against a port: for each check, CMD ARGS... <check args> FILE, then again "
         "with - and the input on standard input. Exit 0: every vector passed; 1: some failed.\n"
         "Usage: " +
         name +
         " [OPTIONS] [-- CMD...]\n"
         "\n"
         "Positionals:\n"
         "  CMD ARGS...                 the port's command line, after -- (every word after -- is the port's)\n"
         "\n"
         "Options:\n"
         "  -h,--help                   Print this help message and exit\n"
         "  --vectors TEXT              the vectors' folder (default: the installed vectors, "
         "<prefix>/share/agent-session/conformance, or in a build tree the source tree's corpus/conformance)\n"
         "  --timeout SECONDS=10\n"
         "                              seconds one run may take, a decimal from 0.1 to 1000000; then it is "
         "killed and fails\n"
         "  --jobs UINT:UINT in [1 - 64]=1\n"
         "                              vectors run at once\n"
         "  --max-output UINT:UINT in [1 - 1073741824]=1048576\n"
         "                              bytes kept of each output stream of a run; a port that writes more is "
         "killed and fails\n"
         "  --version                   print the runner's and the vectors' versions\n"
         "  --list                      print the vectors' names (after --only), one a line; run nothing\n"
         "  --only GLOB                 run only the vectors whose name matches this glob; repeat --only to run "
         "the union\n"
         "  --skip-file TEXT            vectors not to count: one name a line, # comments; they still run, are "
         "counted and printed as skipped, and one that passes is named so it can leave the file\n"
         "  --known-failures TEXT       vectors (NAME) and checks (NAME#N) the port is known to fail, one a line with "
         "a reason and an optional link; they are reported as expected failures (XFAIL) and do not fail the run, and "
         "one that passes is named as an unexpected pass (XPASS)\n"
         "  --strict                    a skipped vector or an unexpected pass fails the run (exit 1)\n"
         "  --harness                   harness mode (corpus/conformance/harness.md): start CMD harness once per job "
         "and send it every command line, judged as in exec mode; a port that does not answer start stops the run "
         "with exit 2\n"
         "  --format TEXT:{text,tap}=text\n"
         "                              standard output: text (FAIL lines) or tap (TAP version 14)\n"
         "  --report KIND=FILE          junit=FILE or json=FILE, written after the run; repeat --report for "
         "both\n"
         "  --label NAME                the port's name in the reports (default: its command line): its column "
         "in the conformance matrix (report, below)\n"
         "\n"
         "Everything after -- is the port's command line. Each run starts in a new empty folder of its own, "
         "removed after it (with --harness: CMD harness starts in a folder of the job, each request's cwd names the "
         "run's folder), so the command's relative words are made absolute first: the program when it contains a "
         "'/', and every other word that names an existing path from the runner's working directory (a word without "
         "'/' only when it names a file, not a folder); FILE is "
         "absolute. With vectors 1.4.0 or later the runner also runs checks of its own, as vectors named runner_* "
         "(SPEC.md §6.1), in exec mode even with --harness: check - with standard input closed (runner_stdin_closed) "
         "or a folder (runner_stdin_directory), canon FILE with standard output /dev/full (runner_stdout_full) or "
         "closed (runner_stdout_closed) must exit 3, check FILE extra (runner_extra_argument) and check --bogus FILE "
         "(runner_unknown_option) exit 2, each with one line on standard error; with 1.6.0 or later also check, "
         "estimate, canon and trim on a folder (runner_file_directory), append to a folder (runner_append_directory) "
         "and append in a folder that does not exist (runner_append_missing_folder), exit 3. Output: one line per "
         "failing check, "
         "ending with the "
         "command that reproduces it, then 'N passed, M failed' (vectors), and ', K skipped' when the skip file "
         "skipped any; names and the port's output are escaped. Exit 2: usage error (no vectors folder, no CMD or "
         "one that cannot run, with --harness one that does not answer start, an --only that matches nothing, a bad "
         "skip file); 3: a vectors folder that cannot "
         "be read, a report that cannot be written, or processes, pipes or memory ran out.\n"
         "'" +
         name +
         " exec-adapter [--timeout S] [--max-output N] -- PORT...' speaks the harness protocol on "
         "standard input and output and runs each request as PORT ARGS... in exec mode, so that any port can be "
         "driven with --harness.\n" +
         "'" + name +
         " fuzz [--seed S] [--runs N | --time SECONDS] ... -- PORT...' fuzzes the port against the reference "
         "(fuzz --help).\n" +
         "'" + name +
         " report --diff OLD.json NEW.json [--markdown]' lists the checks that newly fail, newly pass, appeared "
         "and disappeared between two JSON reports (report --help).\n" +
         "'" + name +
         " report [--html FILE] [--markdown FILE] [--badges DIR] REPORT.json...' merges JSON reports (--report "
         "json=FILE --label NAME) into a conformance matrix of ports and vectors (report --help).\n" +
         "'" + name +
         " export --format json [--vectors DIR] [--out FILE]' writes every vector and the runner's own checks as "
         "one JSON document, for a port's own tests to run without this runner (export --help).\n" +
         "'" + name +
         " rules [--vectors DIR] [--spec FILE] [--json]' prints which vectors pin which rule of SPEC.md "
         "(rules --help).\n" +
         "'" + name +
         " properties [--seed S] [--runs N] [--out DIR] -- ADAPTER...' judges a history trimmer behind an adapter "
         "(corpus/conformance/adapter.md) on SPEC.md §5's unit invariants only (properties --help).\n" +
         "Examples (from a clone's root, agent-session and agent-session-conform on PATH):\n" + examples(name);
}

std::string default_vectors_folder() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path installed = self.parent_path() / ".." / "share" / "agent-session" / "conformance";
    if (fs::is_directory(installed, error)) return installed.lexically_normal().string();
  }
#ifdef AGENT_SESSION_CONFORMANCE_VECTORS
  if (fs::is_directory(AGENT_SESSION_CONFORMANCE_VECTORS, error)) return AGENT_SESSION_CONFORMANCE_VECTORS;
#endif
  return "corpus/conformance";
}

int conform_main(const std::vector<std::string>& args, std::string_view program, std::istream& in, std::ostream& out,
                 std::ostream& err) {
  const CleanEnds clean_ends;  // before any thread is started
  if (!args.empty() && args.front() == "exec-adapter")
    return exec_adapter_main({args.begin() + 1, args.end()}, in, out, err);
  ConformOptions options;
  try {
    options = parse_conform_options(args);
  } catch (const ConformUsageError& error) {
    err << program << ": " << error.message << " (" << program << " --help shows the usage)\n";
    return 2;
  }
  options.program = std::string(program);
  if (options.show_help) {
    out << conform_help(program);
    out.flush();
    return 0;
  }
  const int code = run_conformance(options, out, err);
  return with_folders_left(code, program, err);
}

}  // namespace agent_session::conform::runner

namespace agent_session::conform::runner {

int conform_main(const std::vector<std::string>& args, std::string_view program, std::ostream& out, std::ostream& err) {
  return conform_main(args, program, std::cin, out, err);
}

std::optional<double> parse_seconds(std::string_view text, double low, double high) {
  const std::size_t point = text.find('.');
  const std::string_view whole = text.substr(0, point);
  const std::string_view fraction = point == std::string_view::npos ? std::string_view() : text.substr(point + 1);
  if (!base::is_decimal(whole) || (point != std::string_view::npos && !base::is_decimal(fraction))) {
    return std::nullopt;
  }
  // Only digits and one point are left, which from_chars reads exactly
  // (correctly rounded); very long ones are out of range or overflow.
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !(value >= low && value <= high)) return std::nullopt;
  return value;
}

std::string seconds_usage(std::string_view option, std::string_view text, double low, double high) {
  return std::string(option) + ": " + quoted(text) + " is not a decimal number of seconds from " + shown(low) + " to " +
         shown(high);
}

bool is_report_spec(std::string_view text) {
  const bool kind = text.starts_with("junit=") || text.starts_with("json=");
  return kind && text.find('=') + 1 < text.size();
}

}  // namespace agent_session::conform::runner
