// What the reference answers for one input: each check as a vector's
// expect.json would state it (runner/conform_judge.hpp: Check), computed in
// this process by the library (load_session, estimate_context_chars,
// to_canonical_jsonl, trim_context) on the same FILE the port reads, loaded
// once for all the checks, and put as SPEC.md §6's table says: the exit
// code, standard output, and on exit 1 the spec's error text (SPEC.md §2,
// §5.2). `agent-session` itself is fuzzed against it (conform_test's
// FuzzPorts), so the two cannot drift apart unnoticed.
//
// Example:
//   for (const Check& check : reference_checks("/tmp/f/input.jsonl", 7)) judge(check, run_port(check), t);
#pragma once

#include "agent_session/message.hpp"
#include "conform/runner/conform_judge.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agent_session::conform::fuzz {

// `check`, `estimate` and `canon`, then `trim --max-chars B` at budgets on
// both sides of the unit boundaries (SPEC.md §5.2): the newest unit's size
// and one less, the size of a suffix of units and one less, the estimate of
// a suffix of messages, now and then 0 or a budget past 2^64. A session
// that does not load gets one trim. `seed` picks among the boundaries.
// `messages`, when given, gets the reference's load of FILE (nullopt when
// it refused it), for what else reads the input (rule_triggers.hpp).
std::vector<runner::Check> reference_checks(const std::string& file, std::uint64_t seed,
                                            std::optional<std::vector<Message>>* messages = nullptr);

// What `PORT ARGS FILE` must answer for one of the four commands, as a Check.
runner::Check reference_check(const std::vector<std::string>& args, const std::string& file);

// The spec's error text in an exit-1 message ("invalid session JSON at
// line 3", "context budget cannot be empty"), or "" when it has none.
std::string spec_error(const std::string& err, bool with_line_number = true);

// The SPEC.md section a check is about, for a vector's "rule": the
// reference's error, else its command (§2 check, §4 estimate, §3 canon,
// §5 trim). A line that is not JSON is §2.1 when only the strict rules
// reject it (JSON.parse would accept it) and §2 when JSON's grammar does:
// the reference's detail on `file`, the input the check ran on, says which.
std::string spec_rule(const runner::Check& check, const std::string& file);

// The IDs of the SPEC.md rules that same check pins (a vector's "rules";
// SPEC.md Conventions, "Rule IDs"), chosen as spec_rule chooses its
// section: the error's rules, else the command's. A starting point that
// the person adding the vector to corpus/conformance narrows down.
std::vector<std::string> spec_rule_ids(const runner::Check& check, const std::string& file);

}  // namespace agent_session::conform::fuzz
