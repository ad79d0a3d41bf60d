#include "conform/matrix/matrix_command.hpp"

#include "base/printable.hpp"
#include "conform/matrix/matrix.hpp"
#include "conform/matrix/matrix_badges.hpp"
#include "conform/matrix/matrix_html.hpp"
#include "conform/matrix/matrix_markdown.hpp"
#include "conform/matrix/port_report.hpp"
#include "conform/runner/report_file.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

namespace agent_session::conform::matrix {
namespace {

std::unique_ptr<CLI::App> make_app(MatrixOptions& options, std::string_view program) {
  const std::string name(program);
  auto app = std::make_unique<CLI::App>(
      "Merge the JSON reports of conformance runs (" + name +
          " --report json=FILE --label NAME -- PORT) into one matrix: ports as columns, vectors grouped by "
          "SPEC.md section as rows, each cell pass, fail, skip (in the skip file but passing), xfail (in the skip "
          "file, failing) or - (not in that report), with its reason on hover and a link to its vector, and each "
          "port's totals. Without --html, --markdown or --badges the Markdown table goes to standard output. Exit "
          "0: written (whatever the ports' verdicts); 2: a usage error or a file that is not such a report; 3: a "
          "report that cannot be read or an output that cannot be written.",
      name + " report");
  app->add_option("--html", options.html, "a static HTML page (nothing fetched, everything inline)")->type_name("FILE");
  app->add_option("--markdown", options.markdown, "a Markdown table (GitHub Flavored Markdown)")->type_name("FILE");
  app->add_option("--badges", options.badges,
                  "one shields.io endpoint badge per port, DIR/LABEL.json: {\"schemaVersion\":1,\"label\":...,"
                  "\"message\":\"214/216\",\"color\":...}; DIR is made when missing")
      ->type_name("DIR");
  app->add_option("--link-base", options.link_base, "a vector's link is URL followed by its name")
      ->type_name("URL")
      ->capture_default_str();
  app->add_option("REPORT.json", options.reports, "the JSON reports, one column each, in this order")
      ->required()
      ->type_name("REPORT.json");
  app->footer("Examples (from a clone's root, agent-session and agent-session-conform on PATH):\n  " + name +
              " --harness --jobs 2 --report json=oracle.json --label oracle -- node tests/oracle/cli.mjs\n  " + name +
              " --harness --report json=reference.json --label reference -- agent-session\n  " + name +
              " report --html matrix.html --badges badges oracle.json reference.json");
  return app;
}

}  // namespace

int render_matrix(const MatrixOptions& options, const std::string& me, std::ostream& out, std::ostream& err) {
  std::vector<PortReport> ports;
  try {
    for (const auto& path : options.reports) ports.push_back(read_port_report(path));
  } catch (const ReportError& error) {
    err << me << error.message << '\n';
    return error.exit_code;
  }
  const Matrix matrix = merge(std::move(ports));
  bool written = true;
  const auto write = [&](const std::string& path, const char* what, const std::string& bytes) {
    if (path.empty()) return;
    if (const auto why = runner::write_report_file(path, bytes)) {
      err << me << "cannot write the " << what << " '" << base::terminal_safe(path) << "': " << *why << '\n';
      written = false;
    }
  };
  write(options.html, "HTML matrix", matrix_html(matrix, options.link_base));
  write(options.markdown, "Markdown matrix", matrix_markdown(matrix, options.link_base));
  if (!options.badges.empty()) {
    if (const auto why = write_badges(options.badges, matrix)) {
      err << me << *why << '\n';
      written = false;
    }
  }
  if (options.html.empty() && options.markdown.empty() && options.badges.empty()) {
    out << matrix_markdown(matrix, options.link_base);
  }
  return written ? 0 : 3;
}

std::string report_help(std::string_view program) {
  MatrixOptions options;
  return make_app(options, program)->help();
}

int report_main(const std::vector<std::string>& args, std::string_view program, std::ostream& out, std::ostream& err) {
  const std::string me = std::string(program) + ": ";
  MatrixOptions options;
  const auto app = make_app(options, program);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
  try {
    app->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app->help();
    return 0;
  } catch (const CLI::ParseError& error) {
    err << me << "report: " << base::terminal_safe(error.what()) << " (" << program
        << " report --help shows the usage)\n";
    return 2;
  }
  // Badges link nowhere: a --link-base for them alone would be ignored.
  if (app->count("--link-base") > 0 && options.html.empty() && options.markdown.empty() && !options.badges.empty()) {
    err << me << "report: --link-base sets the vectors' links of --html and --markdown, and badges have none: give "
        << "--html or --markdown, or leave --link-base out (" << program << " report --help shows the usage)\n";
    return 2;
  }
  return render_matrix(options, me, out, err);
}

}  // namespace agent_session::conform::matrix
