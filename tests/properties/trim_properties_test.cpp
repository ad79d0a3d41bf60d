// Properties 1-8 of tests/properties/README.md: trimming (decisions §6)
// and the estimate (decisions §5), on generated structured histories and
// budgets near the points where the answer changes. Units and declaring
// assistants come from the independent reference in reference.hpp.
#include "generators.hpp"
#include "reference.hpp"

#include "agent_session/context.hpp"

// GoogleTest first: RapidCheck's integration header builds on it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agent_session::properties {
namespace {

constexpr std::string_view kUnitExceedsText = "context budget cannot contain the smallest consistent message unit";
constexpr std::string_view kEmptyText = "context budget cannot be empty";

using History = std::vector<Message>;

// What trim_context did: the kept messages, or which of the two budget
// errors it threw. Any other exception, or a budget error whose text is
// not exactly the spec's, fails the property on the spot.
using Outcome = std::variant<History, ContextErrorKind>;

std::uint64_t estimate(const History& history, std::size_t begin, std::size_t end) {
  return estimate_context_chars(std::span<const Message>(history).subspan(begin, end - begin));
}

Outcome trim(const History& history, std::uint64_t max_chars) {
  try {
    const std::span<const Message> sent = trim_context(history, max_chars);
    // A view of the input's own messages, ending where the input ends.
    RC_ASSERT(sent.data() + sent.size() == history.data() + history.size());
    return History(sent.begin(), sent.end());
  } catch (const ContextError& error) {
    RC_ASSERT(error.kind() != ContextErrorKind::unserializable_message);
    RC_ASSERT(!error.message_index().has_value());
    const std::string what = error.what();
    if (error.kind() == ContextErrorKind::empty_context) {
      RC_ASSERT(what == std::string(kEmptyText) + ": there are no messages");
      return error.kind();
    }
    // The detail names the newest unit (as the reference finds it), the
    // characters it needs and the budget, in the text and in the fields.
    const auto newest = reference::units(history).back();
    const ContextUnit unit{newest.begin, newest.end, estimate(history, newest.begin, newest.end)};
    RC_ASSERT(error.unit() == unit);
    RC_ASSERT(error.budget() == max_chars);
    const std::string range = unit.end - unit.begin == 1
                                  ? "message " + std::to_string(unit.begin)
                                  : "messages " + std::to_string(unit.begin) + "-" + std::to_string(unit.end - 1);
    RC_ASSERT(what == std::string(kUnitExceedsText) + ": the newest unit, " + range + ", is " +
                          std::to_string(unit.chars) + " characters; the budget is " + std::to_string(max_chars));
    return error.kind();
  }
}

// The kept messages, or nullptr (tagged, so the distribution shows how
// often a property had nothing to check) when trimming threw.
const History* kept_of(const Outcome& outcome) {
  if (const auto* kept = std::get_if<History>(&outcome)) return kept;
  RC_TAG("budget error");
  return nullptr;
}
const History* kept_of(const Outcome&& outcome) = delete;  // would dangle

// Where `kept` starts in `history` if it is a suffix of it.
std::optional<std::size_t> suffix_start(const History& history, const History& kept) {
  if (kept.size() > history.size()) return std::nullopt;
  const std::size_t start = history.size() - kept.size();
  if (!std::equal(kept.begin(), kept.end(), history.begin() + static_cast<std::ptrdiff_t>(start))) {
    return std::nullopt;
  }
  return start;
}

// A history and a budget near one of its interesting points. The budget
// is logged: a counterexample shows the choice and the number it became.
struct Case {
  History history;
  std::uint64_t max_chars;
};

std::uint64_t logged_budget(const History& history, const BudgetChoice& choice) {
  const std::uint64_t max_chars = budget(history, choice);
  RC_LOG() << "max_chars = " << max_chars << "\n";
  return max_chars;
}

Case any_case() {
  Case c;
  c.history = *history();
  c.max_chars = logged_budget(c.history, *budget_choice());
  return c;
}

// 1. Never empty: a non-empty result or exactly one of the two errors,
// each exactly when the spec says.
RC_GTEST_PROP(TrimProperties, NeverEmpty, ()) {
  const auto [history, max_chars] = any_case();
  const Outcome outcome = trim(history, max_chars);
  if (history.empty()) {
    RC_TAG("empty history");
    RC_ASSERT(std::holds_alternative<ContextErrorKind>(outcome));
    RC_ASSERT(std::get<ContextErrorKind>(outcome) == ContextErrorKind::empty_context);
    return;
  }
  const auto newest = reference::units(history).back();
  if (estimate(history, newest.begin, newest.end) > max_chars) {
    RC_TAG("newest unit too large");
    RC_ASSERT(std::holds_alternative<ContextErrorKind>(outcome));
    RC_ASSERT(std::get<ContextErrorKind>(outcome) == ContextErrorKind::unit_exceeds_budget);
  } else {
    RC_ASSERT(std::holds_alternative<History>(outcome));
    RC_ASSERT(!std::get<History>(outcome).empty());
    RC_TAG(std::get<History>(outcome).size() == history.size() ? "kept everything" : "trimmed");
  }
}

// 2. No orphan: a kept tool result whose declaring assistant is in the
// input keeps that assistant and everything between them.
RC_GTEST_PROP(TrimProperties, NoOrphanResult, ()) {
  const auto [history, max_chars] = any_case();
  const Outcome outcome = trim(history, max_chars);
  const History* kept = kept_of(outcome);
  if (kept == nullptr) return;
  const auto start = suffix_start(history, *kept);
  RC_ASSERT(start.has_value());  // the positions below are the input's
  bool kept_a_declared_result = false;
  for (std::size_t i = *start; i < history.size(); ++i) {
    if (const auto assistant = reference::declaring_assistant(history, i)) {
      kept_a_declared_result = true;
      // history[*assistant .. i] are all kept exactly when the suffix
      // starts at or before the assistant.
      RC_ASSERT(*assistant >= *start);
    }
  }
  RC_TAG(kept_a_declared_result ? "kept a result and its assistant" : "kept no declared result");
  RC_CLASSIFY(reference::units(history) != reference::chapter_units(history), "interleaved rounds");
}

// 3. The output is a contiguous suffix of the input and a concatenation of
// whole units.
RC_GTEST_PROP(TrimProperties, SuffixOfWholeUnits, ()) {
  const auto [history, max_chars] = any_case();
  const Outcome outcome = trim(history, max_chars);
  const History* kept = kept_of(outcome);
  if (kept == nullptr) return;
  const auto start = suffix_start(history, *kept);
  RC_ASSERT(start.has_value());
  RC_ASSERT(reference::is_unit_boundary(history, *start));
  RC_TAG(reference::units(history).size() < history.size() ? "some unit has several messages"
                                                            : "every unit is one message");
}

// 4. Within budget.
RC_GTEST_PROP(TrimProperties, WithinBudget, ()) {
  const auto [history, max_chars] = any_case();
  const Outcome outcome = trim(history, max_chars);
  const History* kept = kept_of(outcome);
  if (kept == nullptr) return;
  RC_ASSERT(estimate_context_chars(*kept) <= max_chars);
}

// 5. Maximal: when something was dropped, the next older unit would not
// have fit together with what was kept.
RC_GTEST_PROP(TrimProperties, Maximal, ()) {
  const auto [history, max_chars] = any_case();
  const Outcome outcome = trim(history, max_chars);
  const History* kept = kept_of(outcome);
  if (kept == nullptr) return;
  const auto start = suffix_start(history, *kept);
  RC_ASSERT(start.has_value());
  RC_TAG(*start == 0 ? "kept everything" : "dropped something");
  if (*start == 0) return;
  const auto all = reference::units(history);
  const auto next_older = std::find_if(all.begin(), all.end(), [&](const auto& unit) { return unit.end == *start; });
  RC_ASSERT(next_older != all.end());
  RC_ASSERT(estimate(history, next_older->begin, history.size()) > max_chars);
}

// 6. Idempotent: trimming what was trimmed, to the same budget, changes
// nothing.
RC_GTEST_PROP(TrimProperties, Idempotent, ()) {
  const auto [history, max_chars] = any_case();
  const Outcome outcome = trim(history, max_chars);
  const History* once = kept_of(outcome);
  if (once == nullptr) return;
  const Outcome twice = trim(*once, max_chars);
  RC_ASSERT(std::holds_alternative<History>(twice));
  RC_ASSERT(std::get<History>(twice) == *once);
  RC_TAG(once->size() < history.size() ? "trimmed" : "kept everything");
}

// 7. Monotone: with a smaller budget the result is a suffix of the result
// with a larger one (and fails whenever the larger one fails).
RC_GTEST_PROP(TrimProperties, Monotone, ()) {
  const History history = *properties::history();
  auto small = logged_budget(history, *budget_choice());
  auto large = logged_budget(history, *budget_choice());
  if (small > large) std::swap(small, large);
  const Outcome with_small = trim(history, small);
  const Outcome with_large = trim(history, large);
  if (std::holds_alternative<ContextErrorKind>(with_large)) {
    RC_TAG("both budget errors");
    RC_ASSERT(std::holds_alternative<ContextErrorKind>(with_small));
    return;
  }
  if (std::holds_alternative<ContextErrorKind>(with_small)) {
    RC_TAG("budget error with the smaller budget only");
    return;
  }
  RC_TAG(std::get<History>(with_small).size() < std::get<History>(with_large).size() ? "strictly shorter"
                                                                                   : "same");
  RC_ASSERT(suffix_start(std::get<History>(with_large), std::get<History>(with_small)).has_value());
}

// 9. context_units are the reference's closed units, and packing them as
// SPEC §5.2 says (newest first, stop at the first that does not fit) gives
// exactly what trim_context returns, errors and their unit included.
RC_GTEST_PROP(TrimProperties, ContextUnitsAreWhatTrimmingPacks, ()) {
  const auto [history, max_chars] = any_case();
  const std::vector<ContextUnit> units = context_units(history);
  const auto reference_units = reference::units(history);
  RC_ASSERT(units.size() == reference_units.size());
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < units.size(); ++k) {
    RC_ASSERT(units[k].begin == reference_units[k].begin && units[k].end == reference_units[k].end);
    RC_ASSERT(units[k].chars == estimate(history, units[k].begin, units[k].end));
    total += units[k].chars;
  }
  RC_ASSERT(total == estimate_context_chars(history));
  const Outcome outcome = trim(history, max_chars);
  if (units.empty()) {
    RC_ASSERT(std::get<ContextErrorKind>(outcome) == ContextErrorKind::empty_context);
    return;
  }
  std::size_t kept_units = 0;
  std::uint64_t kept = 0;
  while (kept_units < units.size() && kept + units[units.size() - 1 - kept_units].chars <= max_chars) {
    kept += units[units.size() - 1 - kept_units].chars;
    ++kept_units;
  }
  if (kept_units == 0) {
    RC_TAG("newest unit too large");
    RC_ASSERT(std::get<ContextErrorKind>(outcome) == ContextErrorKind::unit_exceeds_budget);
    return;
  }
  const std::size_t start = units[units.size() - kept_units].begin;
  RC_ASSERT(std::get<History>(outcome) == History(history.begin() + static_cast<std::ptrdiff_t>(start), history.end()));
}

// 8. The estimate is additive over messages and equals the UTF-16 length
// of the canonical JSONL text, counted here by decoding the UTF-8.
RC_GTEST_PROP(EstimateProperties, AdditiveAndUtf16LengthOfCanonicalJsonl, ()) {
  const History history = *rc::gen::oneOf(properties::history(), messages());
  const std::uint64_t whole = estimate_context_chars(history);
  std::uint64_t sum = 0;
  for (const auto& message : history) {
    const auto line = reference::utf16_length(to_canonical_json(message));
    RC_ASSERT(line.has_value());  // canonical text is valid UTF-8
    RC_ASSERT(estimate_context_chars(std::span<const Message>(&message, 1)) == *line + 1);
    sum += *line + 1;
  }
  RC_ASSERT(whole == sum);
  RC_ASSERT(reference::utf16_length(to_canonical_jsonl(history)) == std::optional<std::uint64_t>(whole));
  const auto split = *rc::gen::inRange<std::size_t>(0, history.size() + 1);
  RC_ASSERT(estimate(history, 0, split) + estimate(history, split, history.size()) == whole);
}

}  // namespace
}  // namespace agent_session::properties
