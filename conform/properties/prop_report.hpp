// The reports of `agent-session-conform properties` (properties_command.hpp):
// what one run found, each of SPEC.md §5's unit invariants by name, as JSON
// (counts, rates and the shrunk cases' files, for a script or a later
// run), JUnit XML (one test case per invariant, for CI) and Markdown (the
// rates as a table, for a job summary).
//
// Example:
//   PropRun run;  // filled while judging
//   junit_report(run);  // <testcase classname="properties" name="orphan"><failure message="41 of 300 ...
#pragma once

#include "conform/properties/prop_shrink.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace agent_session::conform::properties {

// A shrunk violation and the file it was written to: session.jsonl in the
// case's folder (LABEL-N under --out), beside `budget`, `returned.json`,
// `adapter` and `broke.txt`.
struct WrittenCase {
  PropCase found;
  std::string file;
};

struct PropRun {
  std::uint64_t seed = 0;
  std::uint64_t runs = 0;
  std::uint64_t judged = 0;
  std::uint64_t unjudged = 0;
  std::vector<std::string> command;  // the adapter: CMD [ARGS...]
  std::string name;                  // the start answer's port name and version
  std::string version;
  nlohmann::json adapter;  // the start answer's adapter object; null for a port
  std::array<std::uint64_t, kInvariantCount> violations{};
  std::vector<WrittenCase> cases;  // in the order found; at most --cases per invariant
};

// "41 of 300 sessions (13.7%)": an invariant's violations over the sessions judged.
std::string rate_text(std::uint64_t violations, std::uint64_t judged);
// "13.7%", with `decimals` digits after the point.
std::string rate_percent(std::uint64_t violations, std::uint64_t judged, int decimals = 1);

// {"format":"agent-session-conform-properties","format_version":1,...,
//  "invariants":{"orphan":{"violations":N,"rate":R,"cases":[FILE...]},...},"cases":[...]}
// (corpus/conformance-schema/properties-report.schema.json).
std::string json_report(const PropRun& run);
// One <testcase name="LABEL"> per invariant, failed when it was broken.
std::string junit_report(const PropRun& run);
// A heading, then | invariant | violations | rate | first case | per invariant.
std::string markdown_report(const PropRun& run);

}  // namespace agent_session::conform::properties
