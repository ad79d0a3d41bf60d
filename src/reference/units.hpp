// SPEC.md §5's walk over a history's units, newest first, and the packing
// of §5.2, written once for the reference trim (reference/reference.cpp) and the fast
// one. Both answer the walk's two questions their own way: which assistant
// declares the tool result at p, and how many characters message p is.
#pragma once

#include "agent_session/context.hpp"
#include "reference/work_counters.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace agent_session::reference {

// The error of SPEC.md §4 for messages[index], which `measure_of` (UTF-16
// code units of a message's canonical line, SerializationError when it has
// none) could not measure; else the message's characters, newline included.
template <class Measure>
std::uint64_t message_chars(std::span<const Message> messages, std::size_t index, Measure&& measure_of) {
  ++work_counters().measured;  // mechanics: counted for the cost tests
  try {
    return measure_of(messages[index]) + 1;
  } catch (const SerializationError& error) {
    throw ContextError(ContextErrorKind::unserializable_message, index,
                       "message " + std::to_string(index) + " cannot be serialized: " + error.what());
  }
}

// Calls visit(unit) for each unit of a history of `count` messages, newest
// first, until it returns false. `declarer_of(p)` is the index of the
// declaring assistant of message p (nullopt: not a tool result, or an
// orphan); `chars_of(p)` is message p's characters, called for p
// decreasing, only for the messages of the units visited. A unit holding a
// message that cannot be serialized throws the ContextError of its first
// such message, when the walk reaches the unit's start.
template <class DeclarerOf, class CharsOf, class Visit>
void for_each_unit_newest_first(std::size_t count, DeclarerOf&& declarer_of, CharsOf&& chars_of, Visit&& visit) {
  // A cut before p is allowed when every tool result at or after p has its
  // declaring assistant (if any) at or after p (SPEC.md §5.1).
  std::size_t earliest_declarer = count;
  ContextUnit unit{count, count, 0};
  // The error of the unit's first message that cannot be serialized:
  // walking back, the last one caught.
  std::optional<ContextError> unserializable;
  for (std::size_t p = count; p-- > 0;) {
    try {
      unit.chars += chars_of(p);
    } catch (const ContextError& error) {
      unserializable = error;
    }
    ++work_counters().declarer_steps;  // mechanics: counted for the cost tests
    if (const std::optional<std::size_t> declarer = declarer_of(p); declarer && *declarer < earliest_declarer) {
      earliest_declarer = *declarer;
    }
    if (earliest_declarer < p) continue;  // p is inside a unit that starts earlier
    if (unserializable) throw *unserializable;
    unit.begin = p;
    if (!visit(unit)) return;
    unit = ContextUnit{p, p, 0};
  }
}

// SPEC.md §5.2: where the kept suffix starts. Units are taken newest first
// while the estimate of what would be kept fits `max_chars` (estimates add
// up, so it is the sum of the units'); the first that does not fit stops
// the packing, and if it is the newest unit, that is the error.
template <class DeclarerOf, class CharsOf>
std::size_t kept_from(std::size_t count, std::uint64_t max_chars, DeclarerOf&& declarer_of, CharsOf&& chars_of) {
  if (count == 0) {
    throw ContextError(ContextErrorKind::empty_context, std::nullopt,
                       "context budget cannot be empty: there are no messages");
  }
  std::size_t first_kept = count;
  std::uint64_t kept_chars = 0;
  for_each_unit_newest_first(count, declarer_of, chars_of, [&](const ContextUnit& unit) {
    if (kept_chars + unit.chars > max_chars) {
      if (first_kept == count) throw ContextError(unit, max_chars);
      return false;  // older, smaller units are never tried
    }
    kept_chars += unit.chars;
    first_kept = unit.begin;
    return true;
  });
  return first_kept;
}

}  // namespace agent_session::reference
