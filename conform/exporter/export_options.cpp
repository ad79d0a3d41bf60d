#include "conform/exporter/export_options.hpp"

#include "base/printable.hpp"
#include "conform/runner/conform_options.hpp"

#include <optional>
#include <set>

namespace agent_session::conform::exporter {
namespace {

std::string quoted(const std::string& text) { return "\"" + base::terminal_safe(text) + "\""; }

}  // namespace

ExportOptions parse_export_options(const std::vector<std::string>& args) {
  ExportOptions options;
  std::set<std::string> seen;
  bool vectors_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string word = args[i];
    if (word == "-h" || word == "--help") {
      options.show_help = true;
      continue;
    }
    if (word.size() < 2 || word.substr(0, 2) != "--") throw ExportUsageError{"unexpected argument " + quoted(word)};
    std::optional<std::string> value;
    if (const auto equals = word.find('='); equals != std::string::npos) {
      value = word.substr(equals + 1);
      word.resize(equals);
    }
    if (word != "--format" && word != "--vectors" && word != "--out") {
      throw ExportUsageError{"unknown option " + quoted(word)};
    }
    if (!seen.insert(word).second) throw ExportUsageError{word + " given twice"};
    if (!value) {
      if (i + 1 == args.size()) throw ExportUsageError{word + " needs a value"};
      value = args[++i];
    }
    if (value->empty()) throw ExportUsageError{word + " needs a value, not the empty string"};
    if (word == "--format") {
      if (*value != "json") throw ExportUsageError{"--format: " + quoted(*value) + " is not json (the one format)"};
      options.format = *value;
    } else if (word == "--vectors") {
      options.vectors = *value;
      vectors_given = true;
    } else {
      options.out = *value;
    }
  }
  if (options.show_help) return options;
  if (options.format.empty()) throw ExportUsageError{"--format is required (--format json)"};
  if (!vectors_given) options.vectors = runner::default_vectors_folder();
  return options;
}

std::string export_help(const std::string& program) {
  return "Usage: " + program +
         " export --format json [--vectors DIR] [--out FILE]\n"
         "\n"
         "Writes every vector as one JSON document (corpus/conformance-schema/export.schema.json), so that a port\n"
         "can run the vectors from its own tests (pytest, go test) without this runner: each vector's name, rule,\n"
         "about and input, each check's args and expected exit, stdout, error, stdin and FILE after the run as\n"
         "expect.json states them, the vectors' VERSION, and the runner's own checks (builtin_missing_file,\n"
         "runner_*) as data. Bytes that are not UTF-8 (input, stdin, file_after) are written as base64 in\n"
         "input_b64, stdin_b64, file_after_b64 (RFC 4648 section 4, padded). The vectors are read as conform\n"
         "reads them: no link followed, each file at most 64 MiB; a vector conform would find unusable is named\n"
         "on standard error and nothing is written (exit 1). How to judge a check: corpus/conformance/README.md,\n"
         "\"The vectors as one document\".\n"
         "\n"
         "  --format json     the document's format (required; json is the one there is)\n"
         "  --vectors DIR     the vectors' folder (default: the installed vectors, or in a build tree the source\n"
         "                    tree's corpus/conformance)\n"
         "  --out FILE        write the document to FILE (default: standard output); only a regular file is\n"
         "                    written, never through a symbolic link, as conform's reports\n"
         "\n"
         "Example:\n"
         "  " +
         program +
         " export --format json --out vectors.json\n"
         "\n"
         "Exit: 0 written, 1 an unusable vector (nothing written), 2 usage (also: a vectors folder that does not\n"
         "exist or has no VERSION), 3 I/O.\n";
}

}  // namespace agent_session::conform::exporter
