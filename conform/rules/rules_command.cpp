#include "conform/rules/rules_command.hpp"

#include "base/printable.hpp"
#include "conform/rules/rules_table.hpp"
#include "conform/rules/spec_rules.hpp"
#include "conform/runner/conform_judge.hpp"
#include "conform/runner/conform_options.hpp"  // default_vectors_folder
#include "conform/runner/conform_vector.hpp"   // kMaxProblemBytes
#include "conform/runner/stream_checks.hpp"
#include "conform/runner/vector_files.hpp"

#include <CLI/CLI.hpp>

#include <sys/stat.h>

#include <fcntl.h>
#include <cerrno>
#include <filesystem>
#include <new>
#include <ostream>
#include <stdexcept>

namespace agent_session::conform::rules {
namespace {

namespace fs = std::filesystem;
using base::terminal_line;
using base::terminal_safe;

struct Options {
  std::string vectors;
  std::string spec;
  bool json = false;
  bool help = false;
};

// Thrown for a usage error: one line, what the user typed escaped.
struct UsageError {
  std::string message;
};

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  CLI::App app{"", "rules"};
  app.set_help_flag();  // ours, with rules_help's text
  app.add_flag("-h,--help", options.help);
  app.add_flag("--json", options.json);
  CLI::Option* vectors = app.add_option("--vectors", options.vectors);
  CLI::Option* spec = app.add_option("--spec", options.spec);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    throw UsageError{terminal_safe(error.what())};
  }
  if (*vectors && options.vectors.empty()) throw UsageError{"--vectors needs a folder, not the empty string"};
  if (*spec && options.spec.empty()) throw UsageError{"--spec needs a file, not the empty string"};
  if (!*vectors) options.vectors = runner::default_vectors_folder();
  if (!*spec) options.spec = default_spec_file();
  return options;
}

// untested-rules.txt of the vectors folder, read as a vector's files are
// (no link followed, bounded); none there is no reason at all.
std::string read_reasons(const std::string& vectors) {
  const base::Fd folder = runner::open_folder(vectors);
  struct stat info {};
  if (fstatat(folder.get(), kUntestedRulesFile, &info, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) return "";
  return runner::read_file_at(folder.get(), kUntestedRulesFile, kUntestedRulesFile,
                              "the vectors folder's files are its own");
}

// Every vector's rules: the folders', then the runner's built-in vector
// and its own checks, which name theirs in its code.
std::vector<VectorRules> vector_rules(const std::vector<runner::VectorDir>& dirs) {
  std::vector<VectorRules> all;
  const auto add = [&](const runner::Vector& vector, const std::string& name) {
    all.push_back({terminal_safe(name), vector.rules,
                   vector.problem.empty() ? "" : runner::shown(vector.problem, runner::kMaxProblemBytes)});
  };
  for (const auto& dir : dirs) add(runner::load_vector(dir), dir.path.filename().string());
  add(runner::missing_file_vector("/"), runner::kMissingFileVector);
  for (const auto& name : runner::runner_check_names()) add(runner::runner_check_vector(name, "/"), name);
  return all;
}

}  // namespace

std::string default_spec_file() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path installed = self.parent_path() / ".." / "share" / "agent-session" / "SPEC.md";
    if (fs::is_regular_file(installed, error)) return installed.lexically_normal().string();
  }
#ifdef AGENT_SESSION_SPEC
  if (fs::is_regular_file(AGENT_SESSION_SPEC, error)) return AGENT_SESSION_SPEC;
#endif
  return "SPEC.md";
}

std::string rules_help(std::string_view program) {
  const std::string me(program);
  return "Usage: " + me +
         " rules [--vectors DIR] [--spec FILE] [--json]\n"
         "Prints which conformance vectors pin which rule of SPEC.md sections 1 to 6 (each rule ends with its ID,\n"
         "[R2.1-4]; a vector names its rules in expect.json's \"rules\"), both ways: rule -> vectors and\n"
         "vector -> rules, then the rules no vector pins, each with its reason from DIR/untested-rules.txt.\n"
         "Exit 1, with one FAIL line each, when a sentence of SPEC.md with MUST, SHALL or REQUIRED has no ID, a\n"
         "rule has neither a vector nor a reason, or a vector names no rule or one SPEC.md lacks; 2 for a usage\n"
         "error; 3 when a file cannot be read.\n"
         "  --vectors DIR  the vectors (default: " +
         runner::default_vectors_folder() +
         ")\n"
         "  --spec FILE    the specification (default: " +
         default_spec_file() +
         ")\n"
         "  --json         the same as one JSON object (corpus/conformance/README.md)\n"
         "Examples (from a clone's root, agent-session and agent-session-conform on PATH):\n"
         "  " +
         me +
         " rules\n"
         "  " +
         me + " rules --json --vectors corpus/conformance --spec SPEC.md > rules.json\n";
}

int rules_main(const std::vector<std::string>& args, std::string_view program, std::ostream& out, std::ostream& err) {
  const std::string me = std::string(program) + " rules";
  Options options;
  try {
    options = parse_options(args);
  } catch (const UsageError& error) {
    err << me << ": " << error.message << " (" << me << " --help shows the usage)\n";
    return 2;
  }
  if (options.help) {
    out << rules_help(program);
    return 0;
  }
  const std::string spec_name = terminal_safe(options.spec);
  const std::string reasons_name = terminal_safe((fs::path(options.vectors) / kUntestedRulesFile).string());
  std::string spec_text, reasons_text;
  std::vector<runner::VectorDir> dirs;
  try {
    spec_text = runner::read_named_file(options.spec);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& error) {
    err << me << ": cannot read the specification '" << spec_name << "': " << terminal_line(error.what()) << '\n';
    return 3;
  }
  std::error_code error;
  dirs = runner::vector_dirs(options.vectors, error);
  if (error) {
    err << me << ": cannot read the vectors folder '" << terminal_safe(options.vectors) << "': " << error.message()
        << '\n';
    return 3;
  }
  try {
    reasons_text = read_reasons(options.vectors);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& failure) {
    err << me << ": cannot read '" << reasons_name << "': " << terminal_line(failure.what()) << '\n';
    return 3;
  }
  const TableSources sources{spec_name, reasons_name};
  std::vector<std::string> findings;
  const auto reasons = parse_reasons(reasons_text, reasons_name, findings);
  RulesTable table = build_table(read_spec_rules(spec_text), vector_rules(dirs), reasons, sources);
  table.findings.insert(table.findings.begin(), findings.begin(), findings.end());
  if (options.json) {
    write_json(table, sources, terminal_safe(options.vectors), out);
  } else {
    write_text(table, out);
  }
  return table.findings.empty() ? 0 : 1;
}

}  // namespace agent_session::conform::rules
