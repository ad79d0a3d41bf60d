// RapidCheck generators for the property tests: messages of the three
// roles (from value_generators.hpp's strings and JSON tool inputs), structured
// histories (rounds of user -> assistant with tool calls -> results),
// the benchmarks' realistic histories (tests/support/history_generator.hpp), and
// budgets near the points where trimming changes its answer.
//
// Every generator shrinks towards something small and readable: strings
// towards "" and then "a", JSON towards null, histories towards fewer
// rounds, fewer calls and results in declaration order, budgets towards 0.
//
// Example:
//   RC_GTEST_PROP(Trim, Example, ()) {
//     const auto history = *properties::history();
//     const auto max_chars = properties::budget(history, *properties::budget_choice());
//     ...
//   }
#pragma once

#include "agent_session/context.hpp"
#include "agent_session/message.hpp"
#include "support/history_generator.hpp"
#include "support/spec_units.hpp"
#include "value_generators.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace agent_session::properties {

// ---------------------------------------------------------------- messages

// Tool call ids come from a small pool so that ids repeat across rounds
// and within one assistant; now and then a unicode id.
inline rc::Gen<std::string> call_id() {
  return rc::gen::weightedOneOf<std::string>({
      {8, rc::gen::element<std::string>("a", "b", "c", "d", "e")},
      {1, unicode_text()},
  });
}

inline rc::Gen<std::string> tool_name() {
  return rc::gen::weightedOneOf<std::string>({
      {4, rc::gen::element<std::string>("read", "grep", "\u8bfb\u6587\u4ef6", "\U0001F527")},
      {1, unicode_text()},
  });
}

inline rc::Gen<ToolCall> tool_call(rc::Gen<std::string> ids, int input_depth) {
  return rc::gen::apply(
      [](std::string id, std::string name, Json input) {
        return ToolCall{std::move(id), std::move(name), std::move(input)};
      },
      std::move(ids), tool_name(), json_value(input_depth));
}

// 0 to 5 tool calls.
inline rc::Gen<std::vector<ToolCall>> tool_calls(rc::Gen<std::string> ids, int input_depth) {
  auto call = tool_call(std::move(ids), input_depth);
  return rc::gen::mapcat(rc::gen::inRange(0, 6),
                         [call](int count) { return rc::gen::container<std::vector<ToolCall>>(count, call); });
}

inline rc::Gen<Message> user_message() {
  return rc::gen::map(unicode_text(), [](std::string text) -> Message { return UserMessage{std::move(text)}; });
}

inline rc::Gen<Message> assistant_message(int input_depth = 3) {
  return rc::gen::apply(
      [](std::string text, std::vector<ToolCall> calls) -> Message {
        return AssistantMessage{std::move(text), std::move(calls)};
      },
      unicode_text(), tool_calls(call_id(), input_depth));
}

inline rc::Gen<Message> tool_result(rc::Gen<std::string> ids) {
  return rc::gen::apply(
      [](std::string text, std::string id, bool is_error) -> Message {
        return ToolResultMessage{std::move(text), std::move(id), is_error};
      },
      unicode_text(), std::move(ids), rc::gen::arbitrary<bool>());
}

// Any message of any role, unrelated to its neighbours.
inline rc::Gen<Message> message() {
  return rc::gen::oneOf(user_message(), assistant_message(), tool_result(call_id()));
}

// A short list of unrelated messages (a valid session file's content).
inline rc::Gen<std::vector<Message>> messages(int min_count = 0) {
  return rc::gen::withSize([min_count](int size) {
    return rc::gen::mapcat(rc::gen::inRange(min_count, min_count + 1 + size / 10), [size](int count) {
      return rc::gen::container<std::vector<Message>>(static_cast<std::size_t>(count),
                                                      rc::gen::resize(size, message()));
    });
  });
}

// ---------------------------------------------------------------- histories

// One round: an optional user prompt, an assistant with 0-5 calls, then
// what follows it: results for some of the calls (a call may never get
// one) in any order, sometimes a user message between a call and its
// result, sometimes a result nobody declared. The last `postponed` of those
// are held back until after the next round's assistant, which interleaves
// rounds (assistant x, assistant y, result x, result y: SPEC.md §5.1).
struct Round {
  std::vector<Message> before;  // the user prompt, if any
  Message assistant;
  std::vector<Message> after;
  std::size_t postponed = 0;
};

// Results of ids that no assistant ever declares.
inline rc::Gen<std::string> orphan_id() { return rc::gen::element<std::string>("x", "y"); }

// One tool call of a round and what becomes of it. Every part is drawn
// independently (no gen::exec), so shrinking one part never reshuffles the
// others: that is what lets counterexamples shrink to a few messages.
struct PlannedCall {
  ToolCall call;
  bool answered = true;
  ToolResultMessage result;  // its toolCallId is set to the call's id
  int order = 0;             // results are sorted by this; shrinks to declaration order
};

struct PlannedRound {
  std::optional<Message> prompt;
  std::string assistant_text;
  std::vector<PlannedCall> calls;
  std::vector<std::pair<int, Message>> orphans;         // insert position, result
  std::optional<std::pair<int, Message>> interruption;  // a user message between
  int postponed = 0;
};

inline rc::Gen<PlannedCall> planned_call() {
  return rc::gen::apply(
      [](ToolCall call, bool answered, std::string text, bool is_error, int order) {
        ToolResultMessage result{std::move(text), call.id, is_error};
        return PlannedCall{std::move(call), answered, std::move(result), order};
      },
      tool_call(call_id(), 2), rc::gen::weightedElement<bool>({{1, false}, {5, true}}), unicode_text(),
      rc::gen::arbitrary<bool>(), rc::gen::inRange(0, 8));
}

template <class T>
rc::Gen<std::optional<T>> sometimes(rc::Gen<T> gen, std::size_t weight_of_nothing) {
  return rc::gen::weightedOneOf<std::optional<T>>({
      {weight_of_nothing, rc::gen::just(std::optional<T>())},
      {1, rc::gen::map(std::move(gen), [](T value) { return std::optional<T>(std::move(value)); })},
  });
}

inline rc::Gen<PlannedRound> planned_round() {
  auto positioned = [](rc::Gen<Message> message) { return rc::gen::pair(rc::gen::inRange(0, 8), std::move(message)); };
  return rc::gen::withSize([positioned](int size) {
    return rc::gen::apply(
        [](std::optional<Message> prompt, std::string text, std::vector<PlannedCall> calls,
           std::vector<std::pair<int, Message>> orphans, std::optional<std::pair<int, Message>> interruption,
           std::optional<int> postponed) {
          return PlannedRound{std::move(prompt),  std::move(text),         std::move(calls),
                              std::move(orphans), std::move(interruption), postponed.value_or(0)};
        },
        // The smaller outcome comes first in each choice: that is where it shrinks to.
        rc::gen::weightedOneOf<std::optional<Message>>({
            {1, rc::gen::just(std::optional<Message>())},
            {3, rc::gen::cast<std::optional<Message>>(user_message())},
        }),
        unicode_text(),
        rc::gen::resize(5, rc::gen::container<std::vector<PlannedCall>>(rc::gen::resize(size, planned_call()))),
        rc::gen::weightedOneOf<std::vector<std::pair<int, Message>>>({
            {6, rc::gen::just(std::vector<std::pair<int, Message>>())},
            {2, rc::gen::resize(2, rc::gen::container<std::vector<std::pair<int, Message>>>(
                                       rc::gen::resize(size, positioned(tool_result(orphan_id())))))},
        }),
        sometimes(positioned(user_message()), 3), sometimes(rc::gen::inRange(1, 8), 3));
  });
}

// The round's messages after its assistant: the answered calls' results by
// their order keys, then orphans and the interruption at their positions.
inline Round lay_out(const PlannedRound& plan) {
  Round round;
  if (plan.prompt) round.before.push_back(*plan.prompt);
  AssistantMessage assistant{plan.assistant_text, {}};
  std::vector<const PlannedCall*> answered;
  for (const auto& planned : plan.calls) {
    assistant.tool_calls.push_back(planned.call);
    if (planned.answered) answered.push_back(&planned);
  }
  round.assistant = std::move(assistant);
  std::stable_sort(answered.begin(), answered.end(), [](const auto* a, const auto* b) { return a->order < b->order; });
  for (const auto* planned : answered) round.after.push_back(planned->result);
  const auto insert_at = [&](int position, const Message& message) {
    const auto at = std::min(static_cast<std::size_t>(position), round.after.size());
    round.after.insert(round.after.begin() + static_cast<std::ptrdiff_t>(at), message);
  };
  for (const auto& [position, orphan] : plan.orphans) insert_at(position, orphan);
  if (plan.interruption) insert_at(plan.interruption->first, plan.interruption->second);
  round.postponed = std::min(static_cast<std::size_t>(plan.postponed), round.after.size());
  return round;
}

inline rc::Gen<Round> round() { return rc::gen::map(planned_round(), lay_out); }

// The rounds laid out as one history, postponed messages after the next
// round's assistant.
inline std::vector<Message> flatten(const std::vector<Round>& rounds) {
  std::vector<Message> history;
  std::vector<Message> held;
  for (const auto& round : rounds) {
    history.insert(history.end(), round.before.begin(), round.before.end());
    history.push_back(round.assistant);
    history.insert(history.end(), held.begin(), held.end());
    const auto split = round.after.end() - static_cast<std::ptrdiff_t>(round.postponed);
    history.insert(history.end(), round.after.begin(), split);
    held.assign(split, round.after.end());
  }
  history.insert(history.end(), held.begin(), held.end());
  return history;
}

// A structured history of 1 to about size/8 rounds; now and then the
// empty history.
inline rc::Gen<std::vector<Message>> history() {
  auto rounds = rc::gen::withSize([](int size) {
    return rc::gen::resize(std::max(1, size / 8),
                           rc::gen::nonEmpty(rc::gen::container<std::vector<Round>>(rc::gen::resize(size, round()))));
  });
  return rc::gen::weightedOneOf<std::vector<Message>>({
      {1, rc::gen::just(std::vector<Message>{})},
      {30, rc::gen::map(rounds, flatten)},
  });
}

// The first 1 to about 2 size messages of one of the benchmarks' realistic
// histories (tests/support/history_generator.hpp: rounds of a user, an assistant
// with 1-3 calls, their results, an answer; every content profile).
// Deterministic in (profile, count), so it shrinks to fewer messages.
inline rc::Gen<std::vector<Message>> realistic_history() {
  return rc::gen::withSize([](int size) {
    return rc::gen::apply(
        [](bench::Profile profile, std::size_t count) { return bench::generate_history(profile, count); },
        rc::gen::elementOf(bench::kProfiles), rc::gen::inRange<std::size_t>(1, 2 + 2 * static_cast<std::size_t>(size)));
  });
}

// ---------------------------------------------------------------- budgets

// How to pick a budget for a history, drawn independently of the history:
// the estimate of its newest `units + 1` units exactly, one less or one
// more; a fraction of its whole estimate; zero; huge. Because the choice
// is not a number, it keeps its meaning while the history shrinks (shorter
// strings, fewer rounds), and counterexamples come out small.
struct BudgetChoice {
  enum class Kind { unit_boundary, fraction, zero, huge };
  Kind kind = Kind::unit_boundary;
  std::size_t units = 0;   // unit_boundary: newest units + 1, clamped to the history
  int offset = 0;          // unit_boundary: -1, 0 or +1
  unsigned per_mille = 0;  // fraction: of (whole estimate + 2)
};

inline void showValue(const BudgetChoice& choice, std::ostream& os) {
  switch (choice.kind) {
    case BudgetChoice::Kind::unit_boundary:
      os << "estimate of the newest " << choice.units + 1 << " unit(s) "
         << (choice.offset < 0   ? "- 1"
             : choice.offset > 0 ? "+ 1"
                                 : "exactly");
      break;
    case BudgetChoice::Kind::fraction: os << choice.per_mille << "/1000 of (whole estimate + 2)"; break;
    case BudgetChoice::Kind::zero: os << "zero"; break;
    case BudgetChoice::Kind::huge: os << "2^64 - 1"; break;
  }
}

inline rc::Gen<BudgetChoice> budget_choice() {
  using Kind = BudgetChoice::Kind;
  return rc::gen::apply(
      [](Kind kind, std::size_t units, int offset, unsigned per_mille) {
        return BudgetChoice{kind, units, offset, per_mille};
      },
      rc::gen::weightedElement<Kind>({{8, Kind::unit_boundary}, {2, Kind::fraction}, {1, Kind::zero}, {1, Kind::huge}}),
      rc::gen::inRange<std::size_t>(0, 12), rc::gen::element(0, -1, 1), rc::gen::inRange(0u, 1001u));
}

// The budget `choice` describes for `history`, in UTF-16 code units.
inline std::uint64_t budget(const std::vector<Message>& history, const BudgetChoice& choice) {
  const std::span<const Message> messages(history);
  switch (choice.kind) {
    case BudgetChoice::Kind::zero: return 0;
    case BudgetChoice::Kind::huge: return std::numeric_limits<std::uint64_t>::max();
    case BudgetChoice::Kind::fraction: return (estimate_context_chars(messages) + 2) * choice.per_mille / 1000;
    case BudgetChoice::Kind::unit_boundary: break;
  }
  const auto all = test_support::spec::units(history);
  if (all.empty()) return choice.offset > 0 ? 1 : 0;
  const auto& oldest_kept = all[all.size() - 1 - std::min(choice.units, all.size() - 1)];
  const std::uint64_t chars = estimate_context_chars(messages.subspan(oldest_kept.begin));  // > 0
  return choice.offset < 0 ? chars - 1 : choice.offset > 0 ? chars + 1 : chars;
}

}  // namespace agent_session::properties
