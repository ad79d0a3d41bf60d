#include "conform/exporter/vectors_document.hpp"

#include "base/printable.hpp"
#include "base/utf8.hpp"
#include "conform/runner/conform_judge.hpp"
#include "conform/runner/conform_select.hpp"
#include "conform/runner/stream_checks.hpp"
#include "conform/runner/vector_files.hpp"
#include "harness/base64.hpp"

#include <nlohmann/json.hpp>

#include <system_error>

namespace agent_session::conform::exporter {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using base::terminal_safe;
using runner::Check;
using runner::StreamSource;

// Stand-ins for the paths the runner makes for its own checks at run time
// (a temporary folder's session file, that folder, a path that does not
// exist in a folder that does not exist): in the document they are named
// by what they are ("input", "folder", "missing").
const fs::path kSessionStandIn = "/agent-session-conform-export/session.jsonl";
const fs::path kFolderStandIn = "/agent-session-conform-export";
const fs::path kMissingStandIn = "/agent-session-conform-export/absent/session.jsonl";

// `bytes` under `key` as text when it is UTF-8, else under `key`_b64 as
// base64 (RFC 4648 §4, padded): expect.json's own convention for stdin and
// file_after (corpus/conformance/README.md "Checks that write FILE"), so
// that every byte a vector holds survives JSON, which holds only text.
void put_bytes(Json& object, const std::string& key, const std::string& bytes) {
  if (base::valid_utf8_prefix(bytes) == bytes.size()) {
    object[key] = bytes;
  } else {
    object[key + "_b64"] = harness::base64_encode(bytes);
  }
}

// A check as expect.json states it: the same fields, the same meaning.
Json vector_check(const Check& check) {
  Json json;
  json["args"] = check.args;
  json["exit"] = check.exit;
  if (check.exit == 0 && !check.stdin_bytes) json["stdout"] = check.stdout_bytes;
  if (check.exit == 1) json["error"] = check.error;
  if (check.stdin_bytes) {
    put_bytes(json, "stdin", *check.stdin_bytes);
    if (check.file_before == Check::FileBefore::absent) json["file"] = "absent";
    if (check.file_before == Check::FileBefore::dash) json["file"] = "-";
    if (check.file_before != Check::FileBefore::dash) {
      if (check.file_after) {
        put_bytes(json, "file_after", *check.file_after);
      } else {
        json["file_after"] = nullptr;
      }
    }
  }
  return json;
}

std::string stream(const StreamSource& source) {
  if (source.kind == StreamSource::Kind::closed) return "closed";
  if (source.kind == StreamSource::Kind::path) return source.path;
  return "pipe";
}

// One of the runner's own checks (SPEC.md §6, §6.1) as data: FILE is the
// vector's input in a file ("input"), `-`, a folder ("folder"), or a path
// that does not exist in a folder that does not exist ("missing").
std::string own_file(const std::string& file) {
  if (file == "-") return "-";
  if (file == kMissingStandIn.string()) return "missing";
  if (file == kFolderStandIn.string()) return "folder";
  return "input";
}

Json own_check(const Check& check) {
  Json json;
  json["args"] = check.args;
  json["file"] = own_file(check.file);
  json["after_file"] = check.after_file;
  json["stdin_stream"] = stream(check.streams.in);
  json["stdout_stream"] = stream(check.streams.out);
  if (!check.redirection.empty()) json["redirection"] = check.redirection;
  json["exit"] = check.exit;
  json["stderr_one_line"] = check.one_stderr_line;
  Json mentions = Json::array();
  bool names_file = false;
  for (const auto& mention : check.stderr_mentions) {
    if (mention == kMissingStandIn.string()) {
      names_file = true;
    } else {
      mentions.push_back(mention);
    }
  }
  json["stderr_mentions"] = mentions;
  json["stderr_names_file"] = names_file;
  return json;
}

std::string words(const std::vector<std::string>& all) {
  std::string text;
  for (const auto& word : all) text += (text.empty() ? "" : " ") + word;
  return text;
}

// What a runner's vector asks, in words: the run, what FILE is, the exit.
std::string about(const runner::Vector& vector) {
  if (vector.name == runner::kMissingFileVector) {
    return "check, estimate, canon and trim --max-chars 100 on a FILE that does not exist must exit 3, print nothing "
           "on standard output, and name FILE and \"no such file\" on standard error, letter case aside";
  }
  const Check& first = vector.checks.front();
  std::string run = vector.checks.size() > 1 ? "check, estimate, canon and trim --max-chars 100 on FILE"
                                             : words(first.args) + (first.file == "-" ? " -" : " FILE");
  if (!first.after_file.empty()) run += " " + words(first.after_file);
  if (!first.redirection.empty()) run += " " + first.redirection;
  const std::string file = own_file(first.file);
  if (file == "folder") run += ", FILE a folder,";
  if (file == "missing") run += ", FILE in a folder that does not exist,";
  if (first.args[0] == "append") run += " with standard input empty,";
  return run + (vector.checks.size() > 1 ? " must each exit " : " must exit ") + std::to_string(first.exit) +
         ", never a signal, with standard output empty and exactly one line on standard error";
}

Json own_vector(const runner::Vector& vector, const std::string& since, const std::string& rule,
                const std::string& input) {
  Json json;
  json["name"] = vector.name;
  json["since"] = since;
  json["rule"] = rule;
  json["about"] = about(vector);
  json["input"] = input;
  json["checks"] = Json::array();
  for (const auto& check : vector.checks) json["checks"].push_back(own_check(check));
  return json;
}

std::string since(unsigned long long minor) { return "1." + std::to_string(minor) + ".0"; }

// Adds `line` to `text`, which stays within kMaxDocumentBytes.
void append(std::string& text, const std::string& line) {
  if (text.size() + line.size() > kMaxDocumentBytes) {
    throw ExportFailure{3, "the document would hold more than " + std::to_string(kMaxDocumentBytes) + " bytes"};
  }
  text += line;
}

}  // namespace

VectorsDocument vectors_document(const fs::path& vectors) {
  const std::string shown = "'" + terminal_safe(vectors.string()) + "'";
  std::error_code error;
  const std::vector<runner::VectorDir> dirs = runner::vector_dirs(vectors, error);
  if (error) {
    // As conform: a path that names no folder is the caller's mistake; a
    // folder that cannot be read is not.
    const bool usage = error == std::errc::no_such_file_or_directory || error == std::errc::not_a_directory;
    throw ExportFailure{usage ? 2 : 3,
                        "cannot read the vectors folder " + shown + ": " + terminal_safe(error.message())};
  }
  if (dirs.empty()) throw ExportFailure{2, "no vectors in " + shown};
  const runner::VectorsVersion version = runner::read_vectors_version(vectors);
  if (!version.problem.empty())
    throw ExportFailure{2, "the vectors in " + shown + " have no version: " + version.problem};

  VectorsDocument document;
  Json head;
  head["document"] = kDocumentName;
  head["document_version"] = kDocumentVersion;
  head["vectors_version"] = version.version;
  head["bytes"] =
      "input, stdin and file_after hold UTF-8 text; when the bytes are not UTF-8, input_b64, stdin_b64 and "
      "file_after_b64 hold them in base64 (RFC 4648 section 4, padded) instead: one form or the other, never both";
  std::string text = head.dump();
  text.pop_back();  // the closing brace: the arrays follow, one vector a line
  text += ",\n\"vectors\":[";
  bool first = true;
  for (const auto& dir : dirs) {
    // One vector at a time, as the runner holds them: its checks are
    // released before the next is read.
    const runner::Vector vector = runner::load_vector(dir);
    if (!vector.problem.empty()) {
      document.unusable.push_back(terminal_safe(vector.name) + ": " + vector.problem);
      continue;
    }
    // A name is a JSON string, so text: a folder named in other bytes has
    // no name a port could report.
    if (base::valid_utf8_prefix(vector.name) != vector.name.size()) {
      document.unusable.push_back(terminal_safe(vector.name) + ": unusable vector: its name is not UTF-8");
      continue;
    }
    Json json;
    json["name"] = vector.name;
    if (!vector.rule.empty()) json["rule"] = vector.rule;
    if (!vector.rules.empty()) json["rules"] = vector.rules;
    if (vector.about) json["about"] = *vector.about;
    put_bytes(json, "input", vector.input);
    json["checks"] = Json::array();
    for (const auto& check : vector.checks) json["checks"].push_back(vector_check(check));
    append(text, (first ? "\n" : ",\n") + json.dump());
    first = false;
  }
  if (!document.unusable.empty()) return document;
  text += "\n],\n\"runner_checks\":[";
  // The runner adds these from the version that made them part of the
  // suite (runner/conform_select.hpp), so the document does too.
  std::vector<std::string> own;
  if (runner::version_at_least(version, runner::kMissingFileSinceMinor)) {
    own.push_back(own_vector(runner::missing_file_vector(kMissingStandIn), since(runner::kMissingFileSinceMinor),
                             "SPEC §6: a FILE that does not exist is exit 3", "")
                      .dump());
  }
  for (const auto& name : runner::runner_check_names()) {
    const unsigned long long minor = runner::runner_check_since_minor(name);
    if (!runner::version_at_least(version, minor)) continue;
    own.push_back(own_vector(runner::runner_check_vector(name, kSessionStandIn), since(minor),
                             "SPEC §6.1: the runner's own checks (SPEC §6's streams, usage and I/O errors)",
                             std::string(runner::kRunnerSession))
                      .dump());
  }
  for (std::size_t i = 0; i < own.size(); ++i) append(text, (i == 0 ? "\n" : ",\n") + own[i]);
  append(text, "\n]}\n");
  document.text = std::move(text);
  return document;
}

}  // namespace agent_session::conform::exporter
