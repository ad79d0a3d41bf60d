// The conformance runner's command line, parsed by hand so that the
// runner needs nothing but the standard library, POSIX and nlohmann/json
// (the library is linked for the port fuzzer alone). agent-session-conform
// (conform/fuzz/main.cpp, which `agent-session conform ...` runs) calls
// conform_main with the words after its name.
//
// Example:
//   agent-session-conform --timeout 5 --report junit=out.xml -- ./my-port
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::runner {

struct ConformOptions {
  std::string vectors = "corpus/conformance";     // the parser's default: default_vectors_folder()
  double timeout_seconds = 10;                    // per run of the port; then it is killed and the check fails
  unsigned jobs = 1;                              // vectors run at once
  std::size_t max_output = std::size_t{1} << 20;  // bytes kept per output stream of a run; more fails the check
  std::vector<std::string> command;               // the port: CMD [ARGS...]; not needed by --version, --list
  bool show_version = false;                      // print the runner's and the vectors' versions, run nothing
  bool list = false;                              // print the chosen vectors' names, run nothing
  std::vector<std::string> only;                  // fnmatch globs: run the vectors matching any (all when empty)
  std::string skip_file;                          // vectors not to run, one name a line; counted as skipped
  std::string known_failures;                     // vectors and checks known to fail, each with a reason (xfail)
  bool strict = false;                            // a skipped vector or an unexpected pass (xpass) fails the run
  bool harness = false;              // one long-lived `CMD harness` per job (corpus/conformance/harness.md)
  std::string format = "text";       // on `out`: "text" (FAIL lines) or "tap" (TAP version 14)
  std::vector<std::string> reports;  // "junit=FILE", "json=FILE": written after the run
  std::string label;                 // the port's name in the reports; empty: its command line
  bool show_help = false;            // -h, --help: print conform_help, run nothing
  std::string program = "agent-session-conform";  // set by conform_main: who errors are from
};

// What `args` (the words after the program's name) ask for. Throws
// ConformUsageError with one line ("--jobs: 0 is not a whole number from 1
// to 64") for an unknown option, a missing or bad value, or an option
// given twice that takes one value, and for an option the mode would
// ignore: --version takes only --vectors, --list only --vectors and
// --only (neither takes a port's command line, nor both together), and
// --label needs a --report. Without --vectors, `vectors` is
// default_vectors_folder(). Before `--`, a word that starts with
// `-` (but `-` itself) is an option, `--name=value` as `--name value`;
// every other word, and every word after `--`, is the port's command line.
struct ConformUsageError {
  std::string message;
};
ConformOptions parse_conform_options(const std::vector<std::string>& args);

// The --help text; `program` is how the runner was called
// ("agent-session-conform"; a test may name another).
std::string conform_help(std::string_view program);

// The vectors used when --vectors is not given: the first folder that
// exists of `<this executable's folder>/../share/agent-session/conformance`
// (an installed runner), the source tree's corpus/conformance (a runner
// in its build tree: AGENT_SESSION_CONFORMANCE_VECTORS), else
// corpus/conformance relative to the current directory.
std::string default_vectors_folder();

// Whether `text` is what --report takes: junit=FILE or json=FILE, FILE
// not empty (conform's --report and fuzz's).
bool is_report_spec(std::string_view text);

// Seconds as conform's and fuzz's options take them: a plain decimal,
// digits with an optional fraction ("10", "0.5"), from `low` to
// `high`. Nothing else: not "0x10" (a hex float strtod takes), "1e3",
// " 5", "+5", "inf" or "nan", so what a person reads is what runs.
// Nothing when `text` is not such a number or out of range.
std::optional<double> parse_seconds(std::string_view text, double low, double high);
// Its error, one line: `--timeout: "0x10" is not a decimal number of
// seconds from 0.1 to 1000000`.
std::string seconds_usage(std::string_view option, std::string_view text, double low, double high);

// The least --timeout (conform's, exec-adapter's and fuzz's): a port's run
// must be able to start at all. 0.0001 s became 0 ms, and every check (and
// fuzz's reference itself) failed as timed out.
inline constexpr double kMinTimeoutSeconds = 0.1;
// The most any seconds option takes (11.5 days): far past any use, and
// its milliseconds fit every clock the runner converts them to.
inline constexpr double kMaxSeconds = 1e6;

// Parses `args` and runs the vectors (run_conformance, runner/conform.hpp),
// or prints the help. A usage error is one line on `err`, ending with how
// to see the help, and exit 2. A failed write to `out` throws, as `out` does.
// `exec-adapter ...` as the first word serves the harness protocol on
// `in` and `out` instead (runner/exec_adapter.hpp); without `in`, std::cin.
int conform_main(const std::vector<std::string>& args, std::string_view program, std::ostream& out, std::ostream& err);
int conform_main(const std::vector<std::string>& args, std::string_view program, std::istream& in, std::ostream& out,
                 std::ostream& err);

}  // namespace agent_session::conform::runner
