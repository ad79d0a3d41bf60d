// `agent-session units FILE` and `agent-session stats FILE`: what a person
// needs to choose a budget. Not part of the protocol of SPEC.md §6: ports
// need not implement them. Both print text, or with --json one JSON object
// (shapes in docs/units-and-stats.md, stable: fields are only ever added).
#pragma once

#include "agent_session/session.hpp"
#include "entry/load.hpp"

#include <iosfwd>
#include <string>

namespace agent_session::cli {

using entry::NumberedSession;

// The closed units (SPEC.md §5.1), newest first, each with its messages
// (0-based), lines, characters and the characters of it and every newer
// unit: a budget N keeps the units whose cumulative characters are <= N.
void print_units(const NumberedSession& session, bool json, std::ostream& out);

// Messages by role, tool calls, orphan results, pending calls, units, the
// estimate, the largest unit and the smallest budget `trim` accepts.
void print_stats(const NumberedSession& session, bool json, std::ostream& out);

// "messages 3-5 (lines 4-7)" or "message 3 (line 4)": a unit as a person
// finds it in the file.
std::string describe_unit(const NumberedSession& session, std::size_t begin, std::size_t end);

// "lines 4-7" or "line 4": where messages [begin, end) are in the file.
std::string describe_lines(const NumberedSession& session, std::size_t begin, std::size_t end);

}  // namespace agent_session::cli
