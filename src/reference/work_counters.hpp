// Mechanics, not spec: counts of the work of trimming and estimating
// (SPEC.md §4, §5), for tests that check a cost by counting it.
#pragma once

#include <cstdint>

namespace agent_session::reference {

// This thread's count of the work of trimming and estimating, for tests
// that check a cost by counting it, never by timing it
// (tests/context_growth_test.cpp), as object_key_comparisons does for
// loading. Both paths count alike:
// - measured: messages measured (SPEC.md §4's L(canonical(m)) + 1), by
//   message_chars (units.hpp) or the fast path's measuring ahead;
// - declarer_steps: work spent on declaring assistants (SPEC.md §5.1): one
//   per message whose declarer the walk of units.hpp asks for, one per message a
//   search for declarers examined, one per call or result Session indexes.
struct WorkCounters {
  std::uint64_t measured = 0;
  std::uint64_t declarer_steps = 0;
};
inline WorkCounters& work_counters() noexcept {
  thread_local WorkCounters counters;
  return counters;
}

}  // namespace agent_session::reference
