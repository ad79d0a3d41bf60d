// Shrinking a violation of the properties mode (trim_judge.hpp): drop
// whole units (SPEC.md §5.1), then runs of messages down to single ones
// (at the same budget, or lowered by what they counted), then make each
// message plain (its text empty, its tool calls dropped or named "f" with
// a null input), then lower the budget, each step kept only while the same
// invariant still breaks, so a case says as little as it takes to show it.
//
// Example:
//   PropCase found{session, 250, Invariant::orphan, "kept tool result 3 ..."};
//   PropCase small = shrink_case(judge, found);  // 3 messages at budget 40
#pragma once

#include "conform/properties/trim_judge.hpp"

#include <cstdint>
#include <string>

namespace agent_session::conform::properties {

struct PropCase {
  PropSession session;
  std::uint64_t budget = 0;
  Invariant invariant = Invariant::orphan;
  std::string detail;
  nlohmann::json returned;  // the trim answer that broke it (Verdict::returned)
};

// At most `max_trials` trims are tried; each costs the adapter a few
// requests.
PropCase shrink_case(TrimJudge& judge, PropCase found, int max_trials = 400);

}  // namespace agent_session::conform::properties
