// The table of `agent-session-conform rules` (conform/rules/rules_command.hpp):
// SPEC.md's rules against the vectors that name them (expect.json's
// "rules"), both ways, the rules no vector pins with their reasons
// (corpus/conformance/untested-rules.txt), and what breaks the tracing,
// each a finding of one line.
#pragma once

#include "conform/rules/spec_rules.hpp"

#include <cstddef>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::rules {

// The file of reasons, in the vectors folder.
inline constexpr const char* kUntestedRulesFile = "untested-rules.txt";

// What a vector names: its name and rules escaped for a terminal, or why
// it is unusable.
struct VectorRules {
  std::string name;
  std::vector<std::string> rules;
  std::string problem;
};

// A line of untested-rules.txt: `R6-20 a vector's FILE is never ""`.
struct Reason {
  std::size_t line = 0;
  std::string id;
  std::string reason;
};

// The reasons in `text` (untested-rules.txt): one a line, an ID, a space,
// the reason; `#` lines and empty ones are comments. A line of any other
// shape is a finding (added to `findings`, named `file`), and skipped.
std::vector<Reason> parse_reasons(std::string_view text, const std::string& file, std::vector<std::string>& findings);

struct RulesTable {
  std::vector<SpecRule> rules;                                 // SPEC.md's, in its order
  std::map<std::string, std::vector<std::string>> vectors_of;  // a rule's vectors, in vector order
  std::vector<VectorRules> vectors;                            // in the order given
  std::vector<Reason> untested;                                // the rules without a vector, with their reasons
  std::vector<std::string> findings;                           // one line each; any makes the command exit 1
};

// Where the files came from, as findings name them (escaped).
struct TableSources {
  std::string spec;     // SPEC.md's path
  std::string reasons;  // untested-rules.txt's path
};

// The table of `spec` against `vectors` and `reasons`, its findings in
// this order: SPEC.md's (an untraced sentence, an ID written twice), the
// vectors' (unusable, naming no rule or one SPEC.md lacks), the reasons'
// (for no rule of SPEC.md, twice, for a rule a vector pins), then every
// rule with neither a vector nor a reason.
RulesTable build_table(const SpecRules& spec, std::vector<VectorRules> vectors, const std::vector<Reason>& reasons,
                       const TableSources& sources);

// The text form: "rule -> vectors", "vector -> rules", "rules without a
// vector" (each with its reason), a summary line, then the findings as
// FAIL lines.
void write_text(const RulesTable& table, std::ostream& out);

// The JSON form (corpus/conformance/README.md, "Which rule each vector
// pins"): the same, as one object.
void write_json(const RulesTable& table, const TableSources& sources, const std::string& vectors, std::ostream& out);

}  // namespace agent_session::conform::rules
