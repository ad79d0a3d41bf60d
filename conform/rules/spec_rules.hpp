// The rules of SPEC.md §1-§6 as its rule IDs mark them (SPEC.md
// Conventions, "Rule IDs"): each ID with its line, and every sentence of
// those sections that holds a key word (MUST, MUST NOT, REQUIRED, SHALL,
// SHALL NOT) but no ID, for `agent-session-conform rules`
// (conform/rules/rules_command.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::rules {

// One rule: its ID and the line (1-based) that carries it.
struct SpecRule {
  std::string id;
  std::size_t line = 0;
};

// A sentence that holds a key word and no rule ID.
struct UntracedSentence {
  std::size_t line = 0;  // where the sentence starts
  std::string keyword;   // the first key word in it: "MUST"
  std::string text;      // the sentence, code spans as written, on one line
};

// An ID written twice: it tags one rule only.
struct RepeatedId {
  std::string id;
  std::size_t first_line = 0, line = 0;
};

struct SpecRules {
  std::vector<SpecRule> rules;  // in the order SPEC.md writes them
  std::vector<UntracedSentence> untraced;
  std::vector<RepeatedId> repeated;
};

// Reads SPEC.md's text. The sections are those whose headings
// (`## 2. Loading`, `### 2.1 ...`) number 1 to 6; in them, outside fenced
// code blocks and code spans, a rule ID is `[R<section>-<n>]` (an ID
// runner::is_rule_id accepts) and a sentence ends at a `.` followed by
// white space, outside parentheses, or where its paragraph, list item or
// table row ends; an ID right after a sentence's end tags that sentence.
// A key word used as a noun ("a MUST") is not one.
SpecRules read_spec_rules(std::string_view spec);

}  // namespace agent_session::conform::rules
