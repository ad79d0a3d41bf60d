// `agent-session-conform rules [--vectors DIR] [--spec FILE] [--json]`:
// which vectors pin which rule of SPEC.md §1-§6 and which rules no vector
// pins, with the reason for each (SPEC.md Conventions, "Rule IDs";
// corpus/conformance/README.md, "Which rule each vector pins").
//
// Example:
//   agent-session-conform rules --vectors corpus/conformance --spec SPEC.md
//
// Exit 0 when every rule has a vector or a reason and every vector names
// rules SPEC.md has; 1 with one FAIL line per finding (rules_table.hpp);
// 2 for a usage error; 3 when SPEC.md, the vectors folder or its
// untested-rules.txt cannot be read.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::rules {

// `args` are the words after `rules`; `program` is how the kit was
// called ("agent-session-conform").
int rules_main(const std::vector<std::string>& args, std::string_view program, std::ostream& out, std::ostream& err);

std::string rules_help(std::string_view program);

// SPEC.md when --spec is not given: the first that exists of
// `<this executable's folder>/../share/agent-session/SPEC.md` (installed
// beside the vectors), the source tree's (a kit in its build tree:
// AGENT_SESSION_SPEC), else SPEC.md in the current directory; as
// runner::default_vectors_folder finds the vectors.
std::string default_spec_file();

}  // namespace agent_session::conform::rules
