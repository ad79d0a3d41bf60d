// The conformance runner's hand-written option parser
// (runner/conform_options.hpp): every option in both spellings, the port's
// command line, one-line usage errors with exit 2, the help, and the
// default vectors folder.
#include "conform/runner/conform_options.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using conform::runner::ConformOptions;
using conform::runner::parse_conform_options;

std::string usage_error(const std::vector<std::string>& args) {
  try {
    parse_conform_options(args);
  } catch (const conform::runner::ConformUsageError& error) {
    return error.message;
  }
  return "(no error)";
}

struct MainRun {
  int exit_code;
  std::string out, err;
};

MainRun conform_main(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = conform::runner::conform_main(args, "agent-session-conform", out, err);
  return {code, out.str(), err.str()};
}

TEST(ConformOptions, DefaultsWithoutArguments) {
  const ConformOptions options = parse_conform_options({});
  EXPECT_EQ(options.vectors, conform::runner::default_vectors_folder());
  EXPECT_EQ(options.timeout_seconds, 10);
  EXPECT_EQ(options.jobs, 1u);
  EXPECT_EQ(options.max_output, std::size_t{1} << 20);
  EXPECT_TRUE(options.command.empty());
  EXPECT_FALSE(options.show_version || options.list || options.strict || options.show_help);
  EXPECT_EQ(options.format, "text");
}

TEST(ConformOptions, EveryOptionInBothSpellings) {
  for (const bool equals : {false, true}) {
    std::vector<std::string> args;
    const auto add = [&](const std::string& name, const std::string& value) {
      if (equals) {
        args.push_back(name + "=" + value);
      } else {
        args.insert(args.end(), {name, value});
      }
    };
    add("--vectors", "v");
    add("--timeout", "2.5");
    add("--jobs", "64");
    add("--max-output", "1073741824");
    add("--only", "y_*");
    add("--only", "n_a=b");  // only the first = splits
    add("--skip-file", "skip.txt");
    add("--format", "tap");
    add("--report", "junit=a.xml");
    add("--report", "json=b.json");
    add("--label", "my port 1.0");
    args.insert(args.end(), {"--strict", "--harness"});
    const ConformOptions options = parse_conform_options(args);
    EXPECT_EQ(options.vectors, "v");
    EXPECT_EQ(options.timeout_seconds, 2.5);
    EXPECT_EQ(options.jobs, 64u);
    EXPECT_EQ(options.max_output, std::size_t{1} << 30);
    EXPECT_EQ(options.only, (std::vector<std::string>{"y_*", "n_a=b"}));
    EXPECT_EQ(options.skip_file, "skip.txt");
    EXPECT_EQ(options.format, "tap");
    EXPECT_EQ(options.reports, (std::vector<std::string>{"junit=a.xml", "json=b.json"}));
    EXPECT_EQ(options.label, "my port 1.0");
    EXPECT_TRUE(options.strict && options.harness);
  }
  const ConformOptions version = parse_conform_options({"--version", "--vectors=v"});
  EXPECT_TRUE(version.show_version && !version.list);
  const ConformOptions list = parse_conform_options({"--list", "--vectors", "v", "--only", "y_*"});
  EXPECT_TRUE(list.list && !list.show_version);
}

// An option the mode would ignore is an error naming it, never dropped:
// `--list --report json=F` wrote nothing without a word.
TEST(ConformOptions, AModeRefusesWhatItWouldIgnore) {
  EXPECT_EQ(usage_error({"--list", "--report", "json=F"}),
            "--list runs no port, so it would ignore --report; it takes only --vectors and --only");
  EXPECT_EQ(usage_error({"--version", "--jobs", "2"}),
            "--version runs no port, so it would ignore --jobs; it takes only --vectors");
  EXPECT_EQ(usage_error({"--only", "y_*", "--version"}),
            "--version runs no port, so it would ignore --only; it takes only --vectors");
  for (const char* option : {"--timeout=1", "--jobs=2", "--max-output=9", "--skip-file=s", "--known-failures=k",
                             "--format=tap", "--report=json=r", "--label=l", "--strict", "--harness"}) {
    const std::string name = std::string(option).substr(0, std::string(option).find('='));
    EXPECT_EQ(usage_error({"--list", option}),
              "--list runs no port, so it would ignore " + name + "; it takes only --vectors and --only")
        << option;
  }
  EXPECT_EQ(usage_error({"--list", "--", "./port", "x"}),
            "--list runs no port, so it would ignore the port's command line \"./port\"...");
  EXPECT_EQ(usage_error({"--version", "node", "cli.mjs"}),
            "--version runs no port, so it would ignore the port's command line \"node\"...");
  EXPECT_EQ(usage_error({"--version", "--list"}), "--version and --list exclude each other: give one");
  EXPECT_EQ(usage_error({"--label", "x", "--", "p"}),
            "--label names the port in a report, and no --report is given (--report json=FILE or junit=FILE)");
  EXPECT_EQ(usage_error({"--label", "x", "--report", "junit=r.xml", "--", "p"}), "(no error)");
  // --help shows the help whatever else is given.
  EXPECT_TRUE(parse_conform_options({"--list", "--jobs", "2", "--help"}).show_help);
}

TEST(ConformOptions, EverythingAfterTheSeparatorIsThePortsCommandLine) {
  const ConformOptions options =
      parse_conform_options({"--jobs", "2", "--", "./port", "--strict", "--", "-", "--timeout=x"});
  EXPECT_EQ(options.command, (std::vector<std::string>{"./port", "--strict", "--", "-", "--timeout=x"}));
  EXPECT_FALSE(options.strict);
  // Before --, a word that is no option starts the command line too.
  EXPECT_EQ(parse_conform_options({"node", "cli.mjs", "-"}).command,
            (std::vector<std::string>{"node", "cli.mjs", "-"}));
  EXPECT_TRUE(parse_conform_options({"-h"}).show_help);
  EXPECT_TRUE(parse_conform_options({"--harness", "--", "p"}).harness);
  EXPECT_FALSE(parse_conform_options({"--", "p"}).harness);
  EXPECT_TRUE(parse_conform_options({"--help"}).show_help);
}

TEST(ConformOptions, BadValuesAreUsageErrorsThatNameTheOptionAndValue) {
  EXPECT_EQ(usage_error({"--jobs", "0"}), "--jobs: \"0\" is not a whole number from 1 to 64");
  EXPECT_EQ(usage_error({"--timeout", "nan"}),
            "--timeout: \"nan\" is not a decimal number of seconds from 0.1 to 1000000");
  EXPECT_EQ(usage_error({"--report", "xml=a"}), "--report: \"xml=a\" is not junit=FILE or json=FILE");
  EXPECT_EQ(usage_error({"--format", "xml"}), "--format: \"xml\" is neither text nor tap");
  for (const char* bad : {"", "65", "-1", "1.5", "+2", " 2", "2 ", "0x2", "99999999999999999999999"}) {
    EXPECT_NE(usage_error({"--jobs", bad}).find("--jobs: "), std::string::npos) << bad;
  }
  for (const char* bad : {"", "0", "-1", "inf", "-inf", "nan", "1e400", "5s", " 5"}) {
    EXPECT_NE(usage_error({"--timeout", bad}).find("--timeout: "), std::string::npos) << bad;
  }
  for (const char* bad : {"0", "1073741825", "-5"}) {
    EXPECT_NE(usage_error({"--max-output", bad}).find("--max-output: "), std::string::npos) << bad;
  }
  for (const char* bad : {"junit=", "json=", "junit", "=a", ""}) {
    EXPECT_NE(usage_error({"--report", bad}).find("--report: "), std::string::npos) << bad;
  }
  EXPECT_EQ(usage_error({"--jobs", "007"}), "(no error)");
}

// Found by an attacker: --timeout 0.0001 became 0 ms and failed every check, and
// strtod's forms (hex floats, exponents) were taken. One rule for conform,
// exec-adapter and fuzz (parse_seconds): decimal only, 0.1 s at least.
TEST(ConformOptions, SecondsAreDecimalOnlyFromAStatedMinimum) {
  for (const char* bad :
       {"0x10", "0x1p3", "1e3", "1e-3",  "1E2",    " 5",   "5 ",       "+5",        "-5",    "inf", "nan",
        "INF",  ".5",    "5.",  "1.2.3", "0.0001", "0.09", "0.099999", "1000000.5", "1e400", "",    "\xff"}) {
    EXPECT_EQ(usage_error({"--timeout", bad}).rfind("--timeout: ", 0), 0u) << bad;
    EXPECT_EQ(conform::runner::parse_seconds(bad, conform::runner::kMinTimeoutSeconds, conform::runner::kMaxSeconds),
              std::nullopt)
        << bad;
  }
  EXPECT_EQ(usage_error({"--timeout", "0.0001"}),
            "--timeout: \"0.0001\" is not a decimal number of seconds from 0.1 to 1000000");
  for (const auto& [good, value] : std::vector<std::pair<const char*, double>>{
           {"0.1", 0.1}, {"10", 10}, {"2.50", 2.5}, {"007", 7}, {"1000000", 1e6}, {"0.100", 0.1}}) {
    EXPECT_EQ(parse_conform_options({"--timeout", good, "--", "p"}).timeout_seconds, value) << good;
  }
  EXPECT_NE(conform::runner::conform_help("x").find("a decimal from 0.1 to 1000000"), std::string::npos);
}

TEST(ConformOptions, UnknownMissingRepeatedAndValuedFlags) {
  EXPECT_EQ(usage_error({"--bogus"}), "unknown option \"--bogus\"");
  EXPECT_EQ(usage_error({"-x"}), "unknown option \"-x\"");
  EXPECT_EQ(usage_error({"--jobs"}), "--jobs needs a value");
  EXPECT_EQ(usage_error({"--vectors", "a", "--vectors", "b"}), "--vectors is given twice; it takes one value");
  EXPECT_EQ(usage_error({"--timeout=1", "--timeout", "2"}), "--timeout is given twice; it takes one value");
  EXPECT_EQ(usage_error({"--strict=yes"}), "--strict takes no value");
  EXPECT_EQ(usage_error({"--bad\x1b[2J"}), "unknown option \"--bad\\x1b[2J\"");  // escaped for a terminal
}

TEST(ConformMain, AUsageErrorIsOneLineAndExitTwo) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--jobs", "0"}, {"--frobnicate"}, {"--timeout"}, {"--format", "xml", "--", "x"}}) {
    const MainRun r = conform_main(args);
    EXPECT_EQ(r.exit_code, 2) << args.front();
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("agent-session-conform: ", 0), 0u) << r.err;  // the program that was run
    EXPECT_TRUE(r.err.ends_with(" (agent-session-conform --help shows the usage)\n")) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
}

TEST(ConformMain, EveryErrorOfTheRunnerNamesIt) {
  const std::string vectors = (fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus" / "conformance").string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--vectors", "/nonexistent/vectors", "--", "true"},
        {"--vectors", vectors},
        {"--vectors", vectors, "--only", "no_such_vector_*", "--", "true"}}) {
    const MainRun r = conform_main(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind("agent-session-conform: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find("agent-session conform"), std::string::npos) << r.err;
  }
}

TEST(ConformMain, HelpNamesEveryOptionAndTheProgram) {
  const MainRun r = conform_main({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("Usage: agent-session-conform [OPTIONS]"), std::string::npos) << r.out;
  for (const char* option : {"-h,--help", "--vectors", "--timeout", "--jobs", "--max-output", "--version", "--list",
                             "--only", "--skip-file", "--known-failures", "--strict", "--harness", "--format",
                             "--report", "exec-adapter", "report --diff", "Examples ("}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
  // Called by another name, the help and its examples use that name.
  const std::string other = conform::runner::conform_help("agent-session conform");
  EXPECT_NE(other.find("Usage: agent-session conform [OPTIONS]"), std::string::npos) << other;
  std::istringstream examples(other.substr(other.find("\nExamples (") + 1));
  std::string line;
  std::getline(examples, line);  // the heading
  int shown = 0;
  for (; std::getline(examples, line); ++shown) EXPECT_EQ(line.rfind("  agent-session conform ", 0), 0u) << line;
  EXPECT_GE(shown, 5);
  // Every runner option of an example comes before --: after it, a word is the port's.
  EXPECT_NE(
      r.out.find("agent-session-conform --strict --timeout 5 --only 'y_trim_*unit' -- node tests/oracle/cli.mjs\n"),
      std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("./my-port"), std::string::npos) << r.out;  // every example runs as written
  // Repeatable options say so, and take one value each time.
  EXPECT_NE(r.out.find("--report KIND=FILE "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--only GLOB "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("TEXT ..."), std::string::npos) << r.out;
}

TEST(ConformMain, TheDefaultVectorsAreTheSourceTreesInABuildTree) {
  // No share/agent-session/conformance beside this test binary, so the
  // runner falls back to the source tree it was built from.
  EXPECT_EQ(fs::canonical(conform::runner::default_vectors_folder()),
            fs::canonical(fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus" / "conformance"));
  const MainRun r = conform_main({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream version(fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus" / "conformance" / "VERSION");
  std::string expected;
  std::getline(version, expected);
  EXPECT_NE(r.out.find("vectors " + expected + " ("), std::string::npos) << r.out;
}

}  // namespace
}  // namespace agent_session
