#include "conform/runner/report_command.hpp"

#include "base/printable.hpp"
#include "conform/runner/report_diff.hpp"

#include <algorithm>
#include <optional>
#include <ostream>

namespace agent_session::conform::runner {
namespace {

struct ReportUsage {
  std::string message;
};

// What `report --diff` was given.
struct DiffOptions {
  std::string before, after;
  bool markdown = false;
};

int run_diff(const DiffOptions& options, const std::string& me, std::ostream& out, std::ostream& err) {
  ReportRun before, after;
  try {
    before = read_report(options.before);
    after = read_report(options.after);
  } catch (const ReportError& error) {
    err << me << "report --diff: " << base::terminal_line(error.what()) << '\n';
    return error.io ? 3 : 2;
  }
  const ReportDiff diff = diff_reports(before, after);
  options.markdown ? write_diff_markdown(before, after, diff, out) : write_diff_text(before, after, diff, out);
  out.flush();
  return diff.clean() ? 0 : 1;
}

}  // namespace

std::string report_help(std::string_view program) {
  const std::string name(program);
  return "Commands on the reports of a run (corpus/conformance/reports.md).\n"
         "Usage: " +
         name +
         " report --diff OLD.json NEW.json [--markdown]\n"
         "\n"
         "Options:\n"
         "  -h,--help                   Print this help message and exit\n"
         "  --diff OLD.json NEW.json    compare two JSON reports (--report json=FILE) of two port versions or two "
         "vector versions: the checks (VECTOR#N) that newly fail, newly pass, appeared and disappeared\n"
         "  --markdown                  write the diff as Markdown (a CI job summary) instead of text\n"
         "\n"
         "Exit 0: nothing newly fails; 1: a check newly fails, or appeared failing; 2: usage error (or a file that is "
         "no JSON report of format_version 1); 3: a report that cannot be read.\n"
         "Examples (from a clone's root, agent-session and agent-session-conform on PATH):\n  " +
         name + " --harness --report json=old.json -- node tests/oracle/cli.mjs\n  " + name +
         " --harness --report json=new.json -- node tests/mutants/literal_case_insensitive.mjs   # exit 1\n  " + name +
         " report --diff old.json new.json --markdown   # exit 1: four checks newly fail\n";
}

std::optional<int> report_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                               std::string_view program) {
  if (args.empty() || args.front() != "report") return std::nullopt;
  const std::string me = std::string(program) + ": ";
  std::optional<DiffOptions> diff;
  bool markdown = false;
  // --help wins wherever it stands, even after a --diff missing its files.
  if (std::find(args.begin(), args.end(), "-h") != args.end() ||
      std::find(args.begin(), args.end(), "--help") != args.end()) {
    out << report_help(program);
    out.flush();
    return 0;
  }
  try {
    for (std::size_t i = 1; i < args.size(); ++i) {
      const std::string& word = args[i];
      if (word == "--markdown") {
        markdown = true;
      } else if (word == "--diff") {
        if (diff) throw ReportUsage{"--diff is given twice"};
        // Two file names, never an option taken for one.
        if (i + 2 >= args.size() || args[i + 1].starts_with("--") || args[i + 2].starts_with("--"))
          throw ReportUsage{"--diff needs two file names: OLD.json NEW.json"};
        diff = DiffOptions{args[i + 1], args[i + 2], false};
        i += 2;
      } else {
        throw ReportUsage{"unknown option \"" + base::terminal_safe(word) + "\""};
      }
    }
    // The other modes of `report` are chosen here, by their own options.
    if (!diff) throw ReportUsage{"say what to do: --diff OLD.json NEW.json"};
  } catch (const ReportUsage& usage) {
    err << me << "report: " << usage.message << " (" << program << " report --help shows the usage)\n";
    return 2;
  }
  diff->markdown = markdown;
  return run_diff(*diff, me, out, err);
}

}  // namespace agent_session::conform::runner
