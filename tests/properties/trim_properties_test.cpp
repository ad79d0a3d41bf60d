// Properties 1-7, 12, 13 and 16 of tests/properties/README.md: trimming
// (SPEC.md §5), on generated structured histories, the benchmarks'
// realistic ones, and budgets near the points where the answer changes.
// Units and declaring assistants come from SPEC.md §5.1's definitions as
// written (spec_units.hpp); property 13 checks the public trim against the
// product's reference trim (the fast path, when built, against the
// reference) and both against the definition by brute force; property 16
// checks Session::context, which trims with the declarers it keeps,
// against the reference trim of the same messages.
#include "generators.hpp"
#include "support/spec_units.hpp"

#include "agent_session/context.hpp"
#include "agent_session/session_object.hpp"
#include "reference/reference.hpp"

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

// `trim_with` is the public trim_context or reference::trim_context.
using Trim = std::span<const Message> (*)(std::span<const Message>, std::uint64_t);

Outcome trim(const History& history, std::uint64_t max_chars, Trim trim_with = &trim_context) {
  try {
    const std::span<const Message> sent = trim_with(history, max_chars);
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
    // The detail names the newest unit (as SPEC.md §5.1 defines it), the
    // characters it needs and the budget, in the text and in the fields.
    const auto newest = test_support::spec::units(history).back();
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

// Mostly the structured histories, which reach every corner of §5.1; now
// and then a realistic one, long and with every content profile.
rc::Gen<History> any_history() { return rc::gen::weightedOneOf<History>({{4, history()}, {1, realistic_history()}}); }

Case any_case() {
  Case c;
  c.history = *any_history();
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
  const auto newest = test_support::spec::units(history).back();
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
    if (const auto assistant = test_support::spec::declaring_assistant(history, i)) {
      kept_a_declared_result = true;
      // history[*assistant .. i] are all kept exactly when the suffix
      // starts at or before the assistant.
      RC_ASSERT(*assistant >= *start);
    }
  }
  RC_TAG(kept_a_declared_result ? "kept a result and its assistant" : "kept no declared result");
  RC_CLASSIFY(test_support::spec::rounds_interleave(history), "interleaved rounds");
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
  RC_ASSERT(test_support::spec::allowed_cut(history, *start));
  RC_TAG(test_support::spec::units(history).size() < history.size() ? "some unit has several messages"
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
  const auto all = test_support::spec::units(history);
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
  const History history = *any_history();
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
  RC_TAG(std::get<History>(with_small).size() < std::get<History>(with_large).size() ? "strictly shorter" : "same");
  RC_ASSERT(suffix_start(std::get<History>(with_large), std::get<History>(with_small)).has_value());
}

// 12. context_units are the reference's closed units, and packing them as
// SPEC.md §5.2 says (newest first, stop at the first that does not fit) gives
// exactly what trim_context returns, errors and their unit included.
RC_GTEST_PROP(TrimProperties, ContextUnitsAreWhatTrimmingPacks, ()) {
  const auto [history, max_chars] = any_case();
  const std::vector<ContextUnit> units = context_units(history);
  const auto reference_units = test_support::spec::units(history);
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

// 13. The public trim is the reference trim (with the fast path built,
// a differential check of its block walk; without it, the same function),
// and both are what SPEC.md §5 defines, found here by brute force: the
// longest suffix that starts at an allowed cut before the last message
// and whose estimate (the sum of its messages', SPEC.md §4) fits; none
// when even the newest unit does not fit; the empty-context error for an
// empty history.
Outcome by_definition(const History& history, std::uint64_t max_chars) {
  if (history.empty()) return ContextErrorKind::empty_context;
  const std::vector<bool> allowed = test_support::spec::allowed_cuts(history);
  std::vector<std::uint64_t> suffix_chars(history.size() + 1, 0);
  for (std::size_t p = history.size(); p-- > 0;) {
    suffix_chars[p] = suffix_chars[p + 1] + reference::estimate_context_chars(std::span(&history[p], 1));
  }
  for (std::size_t p = 0; p < history.size(); ++p) {
    if (allowed[p] && suffix_chars[p] <= max_chars)
      return History(history.begin() + static_cast<std::ptrdiff_t>(p), history.end());
  }
  return ContextErrorKind::unit_exceeds_budget;
}

RC_GTEST_PROP(TrimProperties, PublicIsReferenceIsDefinition, ()) {
  const auto [history, max_chars] = any_case();
  const Outcome public_trim = trim(history, max_chars, &trim_context);
  const Outcome reference_trim = trim(history, max_chars, &reference::trim_context);
  RC_ASSERT(public_trim == reference_trim);
  RC_ASSERT(reference_trim == by_definition(history, max_chars));
  RC_TAG(std::holds_alternative<History>(public_trim) ? "kept messages" : "budget error");
}

// 16. Session::context is the reference trim of the session's messages,
// at every step of a session that loads a prefix of the history (its
// declarer index built at once) and appends the rest (built one message at
// a time): the same suffix, or the same error with the same text.
using Answer = std::variant<std::size_t, std::string>;  // the kept size, or the error's text

template <class Trim>
Answer answer_of(Trim&& trim) {
  try {
    return trim();
  } catch (const ContextError& error) {
    return std::string(error.what());
  }
}

RC_GTEST_PROP(TrimProperties, SessionContextIsReferenceTrim, ()) {
  const Case c = any_case();
  const History& history = c.history;
  const std::uint64_t max_chars = c.max_chars;  // a lambda cannot capture a structured binding in clang 14
  const auto loaded = *rc::gen::inRange<std::size_t>(0, history.size() + 1);
  Session session = Session::in_memory(History(history.begin(), history.begin() + static_cast<std::ptrdiff_t>(loaded)));
  for (std::size_t size = loaded;; ++size) {
    const std::span<const Message> prefix(history.data(), size);
    const Answer expected = answer_of([&] { return reference::trim_context(prefix, max_chars).size(); });
    RC_ASSERT(answer_of([&] { return session.context(max_chars).size(); }) == expected);
    if (size == history.size()) break;
    session.append(history[size]);
  }
  RC_TAG(loaded == history.size() ? "loaded whole" : "appended");
}

}  // namespace
}  // namespace agent_session::properties
