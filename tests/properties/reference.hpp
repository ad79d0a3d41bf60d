// An independent, deliberately naive reading of decisions §6 (units and
// declaring assistants) and §5 (UTF-16 length), for the properties to
// compare the library against. Quadratic and obvious on purpose: nothing
// here calls the library's internals, so a bug there cannot hide by being
// shared with the oracle.
#pragma once

#include "agent_session/message.hpp"
#include "support/utf8_reference.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agent_session::properties::reference {

inline bool declares(const Message& message, const std::string& call_id) {
  const auto* assistant = std::get_if<AssistantMessage>(&message);
  if (assistant == nullptr) return false;
  for (const auto& call : assistant->tool_calls) {
    if (call.id == call_id) return true;
  }
  return false;
}

// §6: "A tool result's declaring assistant is the nearest earlier
// assistant whose tool calls include its toolCallId; a tool result with
// none is an orphan." nullopt for orphans and for anything not a result.
inline std::optional<std::size_t> declaring_assistant(const std::vector<Message>& history, std::size_t index) {
  const auto* result = std::get_if<ToolResultMessage>(&history[index]);
  if (result == nullptr) return std::nullopt;
  for (std::size_t i = index; i-- > 0;) {
    if (declares(history[i], result->tool_call_id)) return i;
  }
  return std::nullopt;
}

// §6: "a cut before message p is allowed only if every tool result at or
// after p has its declaring assistant (if any) at or after p".
inline std::vector<bool> allowed_cuts(const std::vector<Message>& history) {
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

// [begin, end) of one unit.
struct Unit {
  std::size_t begin;
  std::size_t end;

  friend bool operator==(const Unit&, const Unit&) = default;
};

// §6: "units are the runs between allowed cuts", oldest first.
inline std::vector<Unit> units(const std::vector<Message>& history) {
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

// The chapter's own backward scan, without §6's closing correction. Only
// used to classify generated histories: where it differs from units(), the
// history has interleaved rounds.
inline std::vector<Unit> chapter_units(const std::vector<Message>& history) {
  std::vector<Unit> result;
  for (std::size_t end = history.size(); end > 0;) {
    const std::size_t begin = declaring_assistant(history, end - 1).value_or(end - 1);
    result.insert(result.begin(), Unit{begin, end});
    end = begin;
  }
  return result;
}

inline bool is_unit_boundary(const std::vector<Message>& history, std::size_t p) {
  return allowed_cuts(history)[p];
}

// §5's UTF-16 length: the tests' strict UTF-8 decoder, counting code units.
using test_support::utf16_length;

}  // namespace agent_session::properties::reference
