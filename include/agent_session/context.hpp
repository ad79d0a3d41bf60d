// The trimmed context: what is sent to the model, bound by a character
// budget, cut only between coherent units so that no tool result ever
// travels without the assistant that requested it.
//
// Spec: SPEC.md §4 (the character estimate) and §5 (units and packing).
//
// Characters here are UTF-16 code units, what JavaScript's `.length`
// counts: "é" and "中" are 1, an emoji is 2, never bytes. The budget is an
// approximation of a model's window, not a token count.
//
// Example:
//   using namespace agent_session;
//   std::vector<Message> history = load_session("s.jsonl");
//   std::uint64_t chars = estimate_context_chars(history);
//   std::span<const Message> sent = trim_context(history, 20000);
//   // sent is the newest suffix of history that fits, cut between units:
//   // a view of history's own messages, valid while history is unchanged.
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ranges>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace agent_session {

enum class ContextErrorKind {
  unserializable_message,  // "message I cannot be serialized"
  unit_exceeds_budget,     // "context budget cannot contain the smallest consistent message unit"
  empty_context,           // "context budget cannot be empty"
};

// A closed unit of SPEC.md §5.1: messages [begin, end) of a history, which
// trimming keeps or drops whole, and its estimate in UTF-16 code units.
struct ContextUnit {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::uint64_t chars = 0;
  friend bool operator==(const ContextUnit&, const ContextUnit&) = default;
};

// A context that cannot be estimated or trimmed. what() starts with the
// spec's exact text; a detail follows after ": ":
//   unserializable_message  "message 3 cannot be serialized: <why>"
//   unit_exceeds_budget     "context budget cannot contain the smallest
//                           consistent message unit: the newest unit,
//                           messages 460-461, is 847 characters; the
//                           budget is 800" ("message 462" for a unit of one)
//   empty_context           "context budget cannot be empty: there are no
//                           messages"
class ContextError : public std::runtime_error {
 public:
  ContextError(ContextErrorKind kind, std::optional<std::size_t> message_index, const std::string& what);
  // unit_exceeds_budget: `unit` is the newest unit, which alone does not
  // fit in `budget` characters.
  ContextError(const ContextUnit& unit, std::uint64_t budget);

  ContextErrorKind kind() const noexcept { return kind_; }
  // 0-based index, in the caller's list, of the message that cannot be
  // serialized; nullopt for the two budget errors.
  std::optional<std::size_t> message_index() const noexcept { return message_index_; }
  // unit_exceeds_budget only: the newest unit (0-based [begin, end), and
  // chars, the characters it needs: the smallest budget trim_context
  // accepts) and the budget it did not fit; nullopt otherwise.
  std::optional<ContextUnit> unit() const noexcept { return unit_; }
  std::optional<std::uint64_t> budget() const noexcept { return budget_; }

 private:
  ContextErrorKind kind_;
  std::optional<std::size_t> message_index_;
  std::optional<ContextUnit> unit_;
  std::optional<std::uint64_t> budget_;
};

// The character estimate of `messages`, in UTF-16 code units (SPEC.md §4):
//   Σ (UTF-16 length of the canonical line of m) + 1
// the `+ 1` being one newline per message, so the estimate of a list is the
// length of its canonical JSONL text. An empty list is 0. (The fast path
// allocates nothing: it counts without printing; the reference prints each
// line, reference/reference.cpp.)
// Throws ContextError(unserializable_message) naming the first message that
// cannot be serialized (see SerializationError).
std::uint64_t estimate_context_chars(std::span<const Message> messages);

// The newest messages that fit in `max_chars` UTF-16 code units: a
// contiguous suffix of `messages` (SPEC.md §5), returned as a view of the
// caller's own messages, not a copy, as a JavaScript trim returns the same
// message objects. It is valid as long as `messages` is: copy it
// (std::vector<Message>(sent.begin(), sent.end())) to keep it longer.
//
// Messages are grouped into closed units: an assistant, its tool results
// and everything between them travel together, extended until no tool
// result in a unit has its declaring assistant (the nearest earlier
// assistant whose tool calls include its toolCallId) outside it. Units are
// packed from the newest backwards; packing stops at the first unit that
// does not fit (older, smaller units are never tried).
//
// `max_chars` is unsigned: a negative int converts to a budget of about
// 1.8e19, which keeps everything; check a computed budget before passing it.
//
// Throws ContextError:
//   empty_context            when `messages` is empty;
//   unit_exceeds_budget      when the newest unit alone does not fit (the
//                            error carries that unit and the budget);
//   unserializable_message   for a message the packing reached that cannot
//                            be serialized (its index in `messages`; the
//                            first such message of its unit).
// Runs in time linear in the history; with the fast path, linear in the
// messages it reaches (a fixed budget stops early; it may measure some
// older messages ahead of where it stops, never reporting them), plus at
// most one linear pass over the history when a tool result's declaring
// assistant is far back or missing.
std::span<const Message> trim_context(std::span<const Message> messages, std::uint64_t max_chars);

// For each message: when it is a tool result, the index of its declaring
// assistant (SPEC.md §5.1: the nearest earlier assistant whose tool calls
// include its toolCallId); nullopt for an orphan result and for every
// other message. Linear in the history.
std::vector<std::optional<std::size_t>> declaring_assistants(std::span<const Message> messages);

// The closed units of `messages` (SPEC.md §5.1), oldest first: they
// partition the history, and trim_context keeps a suffix of them, packed
// newest first (SPEC.md §5.2). So the smallest budget trim_context accepts
// is the newest unit's chars, and a budget B keeps the longest suffix of
// units whose chars sum to at most B. Empty for an empty history.
// Measures every message: throws ContextError(unserializable_message) for
// the first one that cannot be serialized. Linear in the history.
std::vector<ContextUnit> context_units(std::span<const Message> messages);

// A temporary history would leave the returned view dangling, so any
// temporary container that owns its messages is refused at compile time
// (trim_context(load_session(path), n), a std::pmr::vector or std::array
// returned by value, ...): only a borrowed range (a std::span, a
// reference to a container) outlives the call.
template <class Range>
requires(!std::is_lvalue_reference_v<Range> &&
         !std::ranges::borrowed_range<Range>) std::span<const Message> trim_context(Range&& messages,
                                                                                    std::uint64_t max_chars)
= delete;

}  // namespace agent_session
