#include "conform/exporter/export_command.hpp"

#include "base/printable.hpp"
#include "conform/exporter/export_options.hpp"
#include "conform/exporter/vectors_document.hpp"
#include "conform/runner/report_file.hpp"

#include <ostream>

namespace agent_session::conform::exporter {

int export_main(const std::vector<std::string>& args, const std::string& program, std::ostream& out,
                std::ostream& err) {
  const std::string me = program + " export: ";
  ExportOptions options;
  try {
    options = parse_export_options(args);
  } catch (const ExportUsageError& error) {
    err << me << error.message << " (" << program << " export --help)\n";  // made safe where thrown
    return 2;
  }
  if (options.show_help) {
    out << export_help(program);
    return 0;
  }
  VectorsDocument document;
  try {
    document = vectors_document(options.vectors);
  } catch (const ExportFailure& failure) {
    err << me << failure.message << '\n';
    return failure.code;
  }
  if (!document.unusable.empty()) {
    for (const auto& line : document.unusable) err << me << line << '\n';
    return 1;
  }
  if (options.out.empty()) {
    out << document.text;
    return 0;
  }
  if (const auto why = runner::write_report_file(options.out, document.text)) {
    err << me << "cannot write '" << base::terminal_safe(options.out) << "': " << *why << '\n';
    return 3;
  }
  return 0;
}

}  // namespace agent_session::conform::exporter
