// The reports of a fuzz run (--report junit=FILE, json=FILE), in the forms
// `agent-session conform` writes (runner/conform_report.hpp,
// corpus/conformance/reports.md), so that CI reads a fuzz run as it reads
// a conformance run.
//
// Example:
//   if (!found) write_no_difference_reports(options, seed, inputs, seconds, err);
//   else code = report_difference(options, {"fuzz_7_123", "fuzz_7_200"}, err);
#pragma once

#include "conform/fuzz/fuzz_options.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace agent_session::conform::fuzz {

// No difference: one vector named fuzz_SEED with one passing check, the
// fuzz command line, its message how many inputs were tried. False when a
// report could not be written (said on `err`).
bool write_no_difference_reports(const FuzzOptions& options, std::uint64_t seed, std::uint64_t inputs, double seconds,
                                 std::ostream& err);

// Differences: the runner's own run of the vectors written for them, one
// per signature (`--vectors OUT --only NAME...`, in the fuzz run's mode
// and timeout), so the reports hold every check of each vector judged on
// the port, failures with their reproduce lines. Returns that run's exit
// code: 1 while the port fails a vector, 3 when a report cannot be written.
int report_difference(const FuzzOptions& options, const std::vector<std::string>& vector_names, std::ostream& err);

// Adds `fuzz` (campaign_tally.hpp's campaign_json: the signatures and the
// rule coverage) to each JSON report as its member "fuzz", once the
// runner's writer has written it (corpus/conformance/reports.md). False
// when one could not be read back or written (said on `err`).
bool add_campaign_to_reports(const FuzzOptions& options, const nlohmann::ordered_json& fuzz, std::ostream& err);

// The rule IDs of SPEC.md (options.spec, or the rules command's default
// file), in its order, for the coverage table; nothing when it cannot be
// read (said on `err`: the run then exits 3, as `rules` does).
std::optional<std::vector<std::string>> read_coverage_rules(const FuzzOptions& options, std::ostream& err);

}  // namespace agent_session::conform::fuzz
