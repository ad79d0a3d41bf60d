// Judges one trim of one session at one budget by SPEC.md §5's unit
// invariants only (corpus/conformance/adapter.md §4), through an adapter's
// `count` and `trim` requests: never the packing of §5.2, never its error
// texts, never a unit of measure (the adapter's own `count` decides what
// fits).
//
// Example:
//   TrimJudge judge(client);  // a started HarnessClient on the adapter
//   const Verdict verdict = judge.judge(session, 120);
//   if (verdict.broken) std::cout << invariant_name(*verdict.broken) << ": " << verdict.detail;
#pragma once

#include "conform/properties/prop_session.hpp"
#include "conform/runner/harness_client.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace agent_session::conform::properties {

// Each a label of SPEC.md §5's promises as a trim answer can break them.
enum class Invariant : std::size_t {
  orphan,     // (a) a kept tool result whose declaring assistant was dropped (§5.1)
  split,      // (a) a kept assistant one of whose results in the input was dropped (§5.1)
  suffix,     // (a) kept is not a run of indices ending at the newest message (§5.2)
  unaltered,  // (b) a kept message mapped back differs from the input's
  non_empty,  // (c) nothing kept, or refused, though the newest unit fits (§5.2)
  budget,     // (d) the kept messages' count is over the budget (§5.2)
  count
};
inline constexpr std::size_t kInvariantCount = static_cast<std::size_t>(Invariant::count);
const char* invariant_name(Invariant invariant);
std::optional<Invariant> invariant_named(const std::string& name);

struct Verdict {
  std::optional<Invariant> broken;  // none: the answer keeps every invariant
  std::string detail;               // what broke, one line
  std::string failure;              // not empty: no verdict (the adapter failed the protocol, or its count refused)
  nlohmann::json returned;          // the trim answer judged: {"kept","messages"} or {"refused"} (adapter.md §3)
};

class TrimJudge {
 public:
  // `port`: the harness speaks SPEC.md §6's commands (harness.md), not
  // adapter.md's count and trim; send() translates.
  explicit TrimJudge(runner::HarnessClient& adapter, bool port = false) : adapter_(adapter), port_(port) {}

  // The adapter's count of `lines`; none when it refused (`why` says so)
  // or failed the protocol. A count is a function of the messages
  // (adapter.md §3), so one already answered is not asked again: a judged
  // session costs the adapter a trim and one or two counts, not one count
  // per unit.
  std::optional<std::uint64_t> count(const std::vector<std::string>& lines, std::string& why);
  // The count of the session's newest `units` whole units (SPEC.md §5.1).
  std::optional<std::uint64_t> suffix_count(const PropSession& session, std::size_t units, std::string& why);
  Verdict judge(const PropSession& session, std::uint64_t budget);
  std::uint64_t requests() const { return requests_; }

 private:
  // One request and its answer in adapter.md §3's form (op "count" or
  // "trim"), from an adapter or translated from a port's runs.
  runner::HarnessAnswer send(const char* op, std::uint64_t budget, const std::vector<std::string>& lines);
  runner::HarnessClient& adapter_;
  bool port_ = false;
  std::uint64_t requests_ = 0;
  // Counts answered, by the messages' lines joined; forgotten past a few
  // hundred (a run judges one session after another).
  std::unordered_map<std::string, std::uint64_t> counted_;
};

}  // namespace agent_session::conform::properties
