// The vectors as one JSON document (`agent-session-conform export`;
// corpus/conformance/README.md "The vectors as one document", its schema
// corpus/conformance-schema/export.schema.json), so that a port's own
// tests can run them without the runner. The vectors are read by the
// runner's own reader (runner/conform_judge.hpp load_vector: no link
// followed, every file bounded, expect.json one check at a time), and the
// runner's own checks (SPEC.md §6.1) are written as data from the same
// tables the runner runs (missing_file_vector, runner_check_vector).
//
// Example:
//   const VectorsDocument document = vectors_document("corpus/conformance");
//   if (document.unusable.empty()) out << document.text;
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace agent_session::conform::exporter {

// What the document is and which version of its shape.
inline constexpr const char* kDocumentName = "agent-session conformance vectors";
// 2: a runner check's "file" may be "folder" (vectors 1.6.0), which a
// consumer of shape 1 would take for "input".
inline constexpr int kDocumentVersion = 2;

// The most bytes a document may hold: the vectors are untrusted input, and
// this bounds what an export holds at once (the document, then one vector
// as the runner holds it). The corpus's is under 1 MB.
inline constexpr std::size_t kMaxDocumentBytes = std::size_t{256} << 20;

// Why no document can be made: `code` 2 for the caller's mistake (no such
// folder, no vector, no VERSION), 3 for I/O (a folder that cannot be read,
// the document past kMaxDocumentBytes). One printable line.
struct ExportFailure {
  int code;
  std::string message;
};

struct VectorsDocument {
  std::string text;                   // the JSON document; empty when a vector is unusable
  std::vector<std::string> unusable;  // "NAME: unusable vector: WHY", one printable line each
};

// The document for the vectors in `vectors`. Throws ExportFailure.
VectorsDocument vectors_document(const std::filesystem::path& vectors);

}  // namespace agent_session::conform::exporter
