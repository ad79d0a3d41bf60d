// `agent-session-conform fuzz`: differential fuzzing of a port against the
// reference. For each generated input (fuzz/fuzz_inputs.hpp) it runs the
// port on check, estimate, canon and trim at budgets around the unit
// boundaries (`PORT ARGS... FILE`, run_process), compares each with the
// reference's answer computed in process (fuzz/reference_checks.hpp) with
// the vectors' judge (runner/conform_judge.hpp). It goes on after a
// difference (or, with --stop-at-first, stops at the first), groups the
// differences by signature (fuzz/campaign_tally.hpp: the SPEC.md section
// of the rule broken and the kind of difference), and for each signature
// shrinks the input (fuzz/shrink.hpp) and writes it as a vector folder
// (fuzz/vector_out.hpp); it counts per rule of SPEC.md the inputs that
// exercised it and the differences it produced.
//
// Deterministic for a seed: input I of seed S is always the same bytes,
// and with --runs each signature's vector is of its lowest input number,
// its count the same, whatever --jobs is. Prints inputs/s, the signatures
// and the rule coverage at the end.
//
// Example:
//   agent-session-conform fuzz --seed 1 --time 60 --jobs 2 --out found -- node tests/mutants/utf8_bytes.mjs
#pragma once

#include "conform/fuzz/fuzz_options.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace agent_session::conform::fuzz {

// Exit 0 when no input showed a difference, 1 when one did (a vector per
// signature written under options.out), 2 when the port cannot be run, 3
// on an I/O error (the temporary folder, a vector's folder, a report,
// SPEC.md unreadable).
int run_fuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err);

// Parses `args` (the words after `fuzz`) and runs, or prints the help. A
// usage error is one line on `err` and exit 2. `program` names the kit in
// messages; `runner` is the path it was run by (its argv[0]:
// "agent-session-conform" from PATH, "build/conform/agent-session-conform"
// in a build tree), which a vector's reproduce lines run, so that they
// work as written from where the fuzzer ran.
int fuzz_main(const std::vector<std::string>& args, const std::string& program, std::ostream& out, std::ostream& err,
              const std::string& runner = "agent-session-conform");

}  // namespace agent_session::conform::fuzz
