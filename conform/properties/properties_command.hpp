// `agent-session-conform properties [OPTIONS] -- ADAPTER...`: judges any
// history trimmer, behind an adapter (corpus/conformance/adapter.md), on
// SPEC.md §5's unit invariants only (trim_judge.hpp), over sessions the
// port fuzzer's generator draws (prop_session.hpp); shrinks each violation
// (prop_shrink.hpp) and writes it as a case a person can replay.
//
// Example:
//   agent-session-conform properties --seed 1 --runs 300 -- node conform/adapters/langchain/adapter.mjs
//   (orphan: 41 / 300 sessions (13.7%), ...; exit 1)
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace agent_session::conform::properties {

// Exit 0 no violation, 1 violations, 2 usage, 3 I/O or an adapter that
// could not be started or judged at all.
int properties_main(const std::vector<std::string>& args, const std::string& program, std::ostream& out,
                    std::ostream& err);

}  // namespace agent_session::conform::properties
