// What the reference answers for one input: each check as a vector's
// expect.json would state it (runner/conform_judge.hpp: Check), computed in
// this process by `agent-session`'s own code (cli::run, cli/cli.hpp) on
// the same FILE the port reads, so the expectation is exactly what
// `agent-session ARGS FILE` prints: its exit code, its standard output, and
// on exit 1 the spec's error text (SPEC.md §2, §5.2) from its message.
//
// Example:
//   for (const Check& check : reference_checks(bytes, "/tmp/f/input.jsonl", 7)) judge(check, run_port(check), t);
#pragma once

#include "runner/conform_judge.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace agent_session::fuzz {

// `check`, `estimate` and `canon`, then `trim --max-chars B` at budgets on
// both sides of the unit boundaries (SPEC.md §5.2): the newest unit's size
// and one less, the size of a suffix of units and one less, the estimate of
// a suffix of messages, now and then 0 or a budget past 2^64. A session
// that does not load gets one trim. `bytes` are FILE's contents (the
// budgets come from them); `seed` picks among the boundaries.
std::vector<cli::Check> reference_checks(const std::string& bytes, const std::string& file, std::uint64_t seed);

// `agent-session ARGS FILE`, run in process, as a Check.
cli::Check reference_check(const std::vector<std::string>& args, const std::string& file);

// The spec's error text in an exit-1 message ("invalid session JSON at
// line 3", "context budget cannot be empty"), or "" when it has none.
std::string spec_error(const std::string& err, bool with_line_number = true);

// The SPEC.md section a check is about, for a vector's "rule": the
// reference's error, else its command (§2 check, §4 estimate, §3 canon,
// §5 trim).
std::string spec_rule(const cli::Check& check);

}  // namespace agent_session::fuzz
