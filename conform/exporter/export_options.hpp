// The command line of `agent-session-conform export`, parsed by hand as
// the runner's and fuzz's own (runner/conform_options.hpp), so that the
// kit's words follow one grammar: `--name value` or `--name=value`, each
// option at most once.
//
// Example:
//   agent-session-conform export --format json --out vectors.json
#pragma once

#include <string>
#include <vector>

namespace agent_session::conform::exporter {

struct ExportOptions {
  std::string format;   // "json", the one format (required: a second may come)
  std::string vectors;  // the vectors' folder; the runner's default_vectors_folder() when not given
  std::string out;      // the document's file; "" for standard output
  bool show_help = false;
};

struct ExportUsageError {
  std::string message;  // one line, safe for a terminal: what the user typed is escaped in it
};

// What `args` (the words after `export`) ask for; throws ExportUsageError
// for an unknown option or word, a missing or empty value, an option given
// twice, a --format other than json, or no --format.
ExportOptions parse_export_options(const std::vector<std::string>& args);

std::string export_help(const std::string& program);

}  // namespace agent_session::conform::exporter
