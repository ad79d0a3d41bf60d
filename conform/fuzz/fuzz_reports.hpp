// The reports of a fuzz run (--report junit=FILE, json=FILE), in the forms
// `agent-session conform` writes (runner/conform_report.hpp,
// corpus/conformance/reports.md), so that CI reads a fuzz run as it reads
// a conformance run.
//
// Example:
//   if (!found) write_no_difference_reports(options, seed, inputs, seconds, err);
//   else code = report_difference(options, "fuzz_7_123", err);
#pragma once

#include "conform/fuzz/fuzz_options.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>

namespace agent_session::conform::fuzz {

// No difference: one vector named fuzz_SEED with one passing check, the
// fuzz command line, its message how many inputs were tried. False when a
// report could not be written (said on `err`).
bool write_no_difference_reports(const FuzzOptions& options, std::uint64_t seed, std::uint64_t inputs, double seconds,
                                 std::ostream& err);

// A difference: the runner's own run of the vector written for it
// (`--vectors OUT --only NAME`, in the fuzz run's mode and timeout), so
// the reports hold every check of the vector judged on the port, failures
// with their reproduce lines. Returns that run's exit code: 1 while the
// port fails the vector, 3 when a report cannot be written.
int report_difference(const FuzzOptions& options, const std::string& vector_name, std::ostream& err);

}  // namespace agent_session::conform::fuzz
