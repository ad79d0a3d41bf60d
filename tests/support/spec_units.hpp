// SPEC.md §5.1's definitions, written as the definitions read, for the
// properties to check the library's trims against: a declaring assistant,
// an allowed cut, the units between allowed cuts. Quadratic on purpose and
// not a walk: nothing here resembles the library's single backward pass
// (reference/units.hpp), so a bug in the pass cannot be shared by the check.
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <variant>
#include <vector>

namespace agent_session::test_support::spec {

// "A tool result's declaring assistant is the nearest earlier assistant
// whose tool calls include its toolCallId; a tool result with none is an
// orphan." nullopt for orphans and for anything not a tool result.
inline std::optional<std::size_t> declaring_assistant(std::span<const Message> history, std::size_t index) {
  const auto* result = std::get_if<ToolResultMessage>(&history[index]);
  if (result == nullptr) return std::nullopt;
  for (std::size_t i = index; i-- > 0;) {
    if (const auto* assistant = std::get_if<AssistantMessage>(&history[i])) {
      for (const auto& call : assistant->tool_calls) {
        if (call.id == result->tool_call_id) return i;
      }
    }
  }
  return std::nullopt;
}

// "A cut before message p is allowed only if every tool result at or
// after p has its declaring assistant (if any) at or after p", for every
// p from 0 to size (0 and size are always allowed).
inline std::vector<bool> allowed_cuts(std::span<const Message> history) {
  std::vector<std::optional<std::size_t>> declarer(history.size());
  for (std::size_t q = 0; q < history.size(); ++q) declarer[q] = declaring_assistant(history, q);
  std::vector<bool> allowed(history.size() + 1, true);
  for (std::size_t p = 0; p <= history.size(); ++p) {
    for (std::size_t q = p; q < history.size(); ++q) {
      if (declarer[q] && *declarer[q] < p) allowed[p] = false;
    }
  }
  return allowed;
}

inline bool allowed_cut(std::span<const Message> history, std::size_t p) { return allowed_cuts(history)[p]; }

// [begin, end) of one unit.
struct Unit {
  std::size_t begin;
  std::size_t end;

  friend bool operator==(const Unit&, const Unit&) = default;
};

// "Units are the runs between allowed cuts", oldest first.
inline std::vector<Unit> units(std::span<const Message> history) {
  const std::vector<bool> allowed = allowed_cuts(history);
  std::vector<Unit> result;
  std::size_t begin = 0;
  for (std::size_t p = 1; p <= history.size(); ++p) {
    if (allowed[p]) {
      result.push_back({begin, p});
      begin = p;
    }
  }
  return result;
}

// True when some tool result's declaring assistant is not the nearest
// earlier assistant (rounds interleave: assistant x, assistant y, result x):
// the histories for which a unit must reach back past the nearest one.
inline bool rounds_interleave(std::span<const Message> history) {
  for (std::size_t q = 0; q < history.size(); ++q) {
    const auto declarer = declaring_assistant(history, q);
    if (!declarer) continue;
    for (std::size_t i = *declarer + 1; i < q; ++i) {
      if (std::holds_alternative<AssistantMessage>(history[i])) return true;
    }
  }
  return false;
}

}  // namespace agent_session::test_support::spec
