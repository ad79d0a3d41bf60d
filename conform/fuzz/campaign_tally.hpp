// What a fuzz campaign (fuzz_command.hpp) found, rule by rule: which of
// SPEC.md's rules its inputs exercised and how many differences each
// produced (the coverage), and its differences grouped by signature, the
// rule's section and how the port's answer differs, so that a campaign
// that goes on after a difference keeps one vector per signature, not one
// per difference. Written on standard output and in the JSON report's
// "fuzz" member (corpus/conformance/reports.md).
//
// Example:
//   const Signature s = signature_of(mismatch, file);  // {"§2.1", DifferenceKind::exit}
//   campaign_json(campaign)["signatures"][0]["count"]
#pragma once

#include "agent_session/message.hpp"
#include "conform/fuzz/compare.hpp"
#include "conform/runner/conform_judge.hpp"
#include "conform/runner/subprocess.hpp"

#include <nlohmann/json.hpp>

#include <compare>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::fuzz {

// How a port's answer differs from the reference's, the first that holds
// in the judge's order (runner/conform_judge.hpp, judge):
//   no-exit  it did not exit by itself: killed by a signal, timed out, or
//            it broke the harness protocol
//   exit     it exited with another code than the reference's
//   stdout   exit 0 as the reference, other bytes on standard output
//   streams  SPEC.md §6's stream rules: output on standard output after a
//            failure, or on standard error after a success
//   error    exit 1 as the reference, but standard error lacks the spec's
//            error text (SPEC.md §2, §5.2)
enum class DifferenceKind { no_exit, exit, stdout_bytes, streams, error_text };

std::string_view kind_name(DifferenceKind kind);

// The kind of a run that fails `check` (judge gave a reason).
DifferenceKind difference_kind(const runner::Check& check, const runner::ProcessResult& result);

// A difference's signature: the SPEC.md section of the rule it breaks and
// its kind. The section is spec_rule's for the reference's check ("§2" for
// JSON's grammar, "§2.1" for the strict rules, "§1.1", "§3", "§4", "§5",
// "§5.2"), but "§6" for a stream rule's break, which is §6's whatever the
// command.
struct Signature {
  std::string section;
  DifferenceKind kind = DifferenceKind::exit;
  auto operator<=>(const Signature&) const = default;
  std::string text() const;  // "§2.1 exit"
};

// `file`: the input the mismatch was found on, for spec_rule.
Signature signature_of(const Mismatch& mismatch, const std::string& file);

// The IDs of the rules one input exercises: what it holds (rule_triggers.hpp),
// each of the reference's checks' spec_rule_ids, and the SPEC.md §6 rules the judge holds every
// check to: R6-16 (nothing on standard error on exit 0), R6-15 (nothing on
// standard output on a failure), R6-14, R2-21 and R2-22 (the spec's error text on exit 1, written as §2 says);
// each ID once, sorted.
// `bytes`: the input, `messages`: the reference's load of it (nullopt when
// refused), `file`: where it is, for spec_rule_ids.
std::vector<std::string> exercised_rules(const std::vector<runner::Check>& checks, const std::string& file,
                                         std::string_view bytes, const std::optional<std::vector<Message>>& messages);

// The IDs of the rules a difference breaks: a stream rule's break R6-15 or
// R6-16 (SPEC.md §6), an exit-1 answer without the spec's text R6-14 with
// the check's spec_rule_ids, any other the check's spec_rule_ids.
std::vector<std::string> broken_rules(const Mismatch& mismatch, const std::string& file);

struct RuleCount {
  std::string id;
  std::uint64_t inputs = 0;       // inputs whose checks exercised it
  std::uint64_t differences = 0;  // differences whose failing check pins it
};

struct SignatureRow {
  Signature signature;
  std::uint64_t count = 0;        // differences with this signature
  std::uint64_t first_input = 0;  // the lowest input number that showed it
  std::string vector;             // the folder its shrunk input was written as
  std::string check;              // the failing check of that input: "trim --max-chars 5"
  std::string reason;             // how the port's answer differed (the judge's words)
};

struct Campaign {
  std::uint64_t seed = 0;
  std::uint64_t inputs = 0;
  std::uint64_t differences = 0;
  bool stop_at_first = false;
  std::vector<RuleCount> coverage;       // every rule of SPEC.md, in its order, then any other reached
  std::vector<SignatureRow> signatures;  // by first input
};

// Every ID of `spec_rules` (SPEC.md's order) with its counts in `reached`,
// 0 when it is not there, then the IDs of `reached` SPEC.md lacks.
std::vector<RuleCount> coverage_table(const std::vector<std::string>& spec_rules,
                                      const std::map<std::string, RuleCount>& reached);

// The report's "fuzz" member (corpus/conformance/reports.md).
nlohmann::ordered_json campaign_json(const Campaign& campaign);

// The signatures' table, then the coverage: the rules reached with their
// counts, then those never reached.
void write_campaign_text(const Campaign& campaign, std::ostream& out);

}  // namespace agent_session::conform::fuzz
