// One badge per port of the conformance matrix (matrix.hpp), in the
// shields.io endpoint format (https://shields.io/badges/endpoint-badge):
//   {"schemaVersion":1,"label":"ours","message":"214/216","color":"red"}
// `message` is the vectors passed of those in the port's report; `color`
// brightgreen when every one passed, yellow when none failed but some are
// in its skip file, red when one failed.
//
// Example:
//   if (const auto why = write_badges("build/matrix/badges", matrix)) fail(*why);
#pragma once

#include "conform/matrix/matrix.hpp"

#include <optional>
#include <string>
#include <vector>

namespace agent_session::conform::matrix {

// The badge of a port labelled `label` with `totals`, as one line of JSON.
std::string badge_json(const std::string& label, const Totals& totals);

// The file names of the ports' badges, in their order: each label with
// every byte but letters, digits, "-", "_" and "." replaced by "-" (at
// most 64 bytes, never starting with "."), then "-2", "-3"... for a name
// taken, then ".json".
std::vector<std::string> badge_file_names(const std::vector<PortReport>& ports);

// Writes every port's badge into the folder `dir` (made when it does not
// exist; its parent must), each file as the kit writes reports
// (runner/report_file.hpp: never through a link). Nothing when all were
// written; else why not, one line naming the path.
std::optional<std::string> write_badges(const std::string& dir, const Matrix& matrix);

}  // namespace agent_session::conform::matrix
