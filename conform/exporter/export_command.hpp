// `agent-session-conform export`: the vectors as one JSON document
// (exporter/vectors_document.hpp), on standard output or in --out's file,
// which is written as conform's reports are (runner/report_file.hpp: only
// a regular file, never through a link).
//
// Example:
//   agent-session-conform export --format json --out vectors.json
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace agent_session::conform::exporter {

// Parses `args` (the words after `export`) and writes the document, or
// prints the help. Exit 0 written; 1 a vector is unusable (each named, one
// line each on `err`, nothing written); 2 a usage error (also a vectors
// folder that does not exist, holds no vector or has no VERSION); 3 I/O
// (a folder that cannot be read, --out that cannot be written). Every error
// is one line on `err` naming `program` export. A failed write to `out`
// throws, as `out` does.
int export_main(const std::vector<std::string>& args, const std::string& program, std::ostream& out, std::ostream& err);

}  // namespace agent_session::conform::exporter
