#include "agent_session/context.hpp"

#include "internal/canonical_writer.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>

namespace agent_session {
namespace {

constexpr std::size_t kNoAssistant = std::numeric_limits<std::size_t>::max();

// UTF-16 length of the canonical line of messages[index], plus its newline.
std::uint64_t message_chars(std::span<const Message> messages, std::size_t index) {
  internal::Utf16CountSink sink;
  try {
    internal::write_message(sink, messages[index]);
  } catch (const SerializationError& error) {
    throw ContextError(ContextErrorKind::unserializable_message, index,
                       "message " + std::to_string(index) + " cannot be serialized: " + error.what());
  }
  return sink.units + 1;
}

bool declares(const Message& message, std::string_view tool_call_id) {
  const auto* assistant = std::get_if<AssistantMessage>(&message);
  if (assistant == nullptr) return false;
  return std::any_of(assistant->tool_calls.begin(), assistant->tool_calls.end(),
                     [&](const ToolCall& call) { return call.id == tool_call_id; });
}

// The declaring assistant of each tool result, found on demand while the
// trim walks backwards, so a fixed budget costs only the messages it
// reaches. Nearly always the declaring assistant is a few messages back:
// the nearest one found scanning back is by definition the declaring one.
// A result whose assistant is farther back, or an orphan, triggers one
// forward pass over the whole history (declaring_assistants) instead.
class Declarers {
 public:
  explicit Declarers(std::span<const Message> messages) : messages_(messages) {}

  // The index of messages[index]'s declaring assistant, or kNoAssistant
  // (not a tool result, or an orphan).
  std::size_t of(std::size_t index) {
    const auto* result = std::get_if<ToolResultMessage>(&messages_[index]);
    if (result == nullptr) return kNoAssistant;
    if (all_.empty()) {
      constexpr std::size_t kNearby = 16;
      const std::size_t stop = index > kNearby ? index - kNearby : 0;
      for (std::size_t i = index; i-- > stop;) {
        if (declares(messages_[i], result->tool_call_id)) return i;
      }
      all_ = declaring_assistants(messages_);
    }
    return all_[index].value_or(kNoAssistant);
  }

 private:
  std::span<const Message> messages_;
  std::vector<std::optional<std::size_t>> all_;  // empty until needed (histories here are never empty)
};

std::uint64_t range_chars(std::span<const Message> messages, std::size_t begin, std::size_t end) {
  std::uint64_t chars = 0;
  for (std::size_t i = begin; i < end; ++i) chars += message_chars(messages, i);
  return chars;
}

constexpr std::uint64_t kUnserializable = std::numeric_limits<std::uint64_t>::max();

// message_chars for a walk from the newest message backwards, measured
// ahead in blocks read forwards: the loader allocates a history's strings
// in message order, and a backward walk over a history larger than the
// cache ran 2-4x slower per message than a forward one (the hardware
// prefetches forward streams). Blocks grow from 16 to 4096 messages
// (256 left 1M messages 1.5x slower per message than 10k, 4096 1.2x), so
// a budget that stops early measures at most as many messages again as it
// reached, plus 16, ahead of where it stops. A message that cannot be serialized is
// kUnserializable here; the walk reports it only if it reaches it.
class BackwardMessageChars {
 public:
  explicit BackwardMessageChars(std::span<const Message> messages)
      : messages_(messages), block_begin_(messages.size()) {}

  // Call with indices in decreasing order.
  std::uint64_t at(std::size_t index) {
    if (index < block_begin_) measure_block_ending_at(index + 1);
    return chars_[index - block_begin_];
  }

 private:
  static constexpr std::size_t kFirstBlock = 16;
  static constexpr std::size_t kLargestBlock = 4096;

  void measure_block_ending_at(std::size_t end) {
    block_begin_ = end > block_size_ ? end - block_size_ : 0;
    chars_.resize(end - block_begin_);
    for (std::size_t i = block_begin_; i < end; ++i) chars_[i - block_begin_] = measure(i);
    block_size_ = std::min(block_size_ * 2, kLargestBlock);
  }

  std::uint64_t measure(std::size_t index) const {
    try {
      return message_chars(messages_, index);
    } catch (const ContextError&) {
      return kUnserializable;
    }
  }

  std::span<const Message> messages_;
  std::vector<std::uint64_t> chars_;  // of messages [block_begin_, block_begin_ + chars_.size())
  std::size_t block_begin_;
  std::size_t block_size_ = kFirstBlock;
};

}  // namespace

ContextError::ContextError(ContextErrorKind kind, std::optional<std::size_t> message_index, const std::string& what)
    : std::runtime_error(what), kind_(kind), message_index_(message_index) {}

namespace {

std::string unit_exceeds_text(const ContextUnit& unit, std::uint64_t budget) {
  const std::string messages = unit.end - unit.begin == 1
                                   ? "message " + std::to_string(unit.begin)
                                   : "messages " + std::to_string(unit.begin) + "-" + std::to_string(unit.end - 1);
  return "context budget cannot contain the smallest consistent message unit: the newest unit, " + messages +
         ", is " + std::to_string(unit.chars) + " characters; the budget is " + std::to_string(budget);
}

}  // namespace

ContextError::ContextError(const ContextUnit& unit, std::uint64_t budget)
    : ContextError(unit, budget, unit_exceeds_text(unit, budget)) {}

ContextError::ContextError(const ContextUnit& unit, std::uint64_t budget, const std::string& what)
    : std::runtime_error(what), kind_(ContextErrorKind::unit_exceeds_budget), unit_(unit), budget_(budget) {}

std::vector<std::optional<std::size_t>> declaring_assistants(std::span<const Message> messages) {
  // One forward pass: the latest assistant seen declaring an id is the
  // nearest earlier one for what follows.
  std::vector<std::optional<std::size_t>> declarer(messages.size());
  std::unordered_map<std::string_view, std::size_t> latest;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (const auto* assistant = std::get_if<AssistantMessage>(&messages[i])) {
      for (const auto& call : assistant->tool_calls) latest[call.id] = i;
    } else if (const auto* result = std::get_if<ToolResultMessage>(&messages[i])) {
      if (auto it = latest.find(result->tool_call_id); it != latest.end()) declarer[i] = it->second;
    }
  }
  return declarer;
}

std::vector<ContextUnit> context_units(std::span<const Message> messages) {
  const std::vector<std::optional<std::size_t>> declarer = declaring_assistants(messages);
  std::vector<ContextUnit> units;
  // As in trim_context: walking backwards, a unit closes at p when no tool
  // result at or after p has its declaring assistant before p.
  std::size_t earliest_declarer = messages.size();
  std::size_t end = messages.size();
  std::uint64_t chars = 0;
  for (std::size_t p = messages.size(); p-- > 0;) {
    chars += message_chars(messages, p);
    if (declarer[p] && *declarer[p] < earliest_declarer) earliest_declarer = *declarer[p];
    if (earliest_declarer < p) continue;
    units.push_back({p, end, chars});
    end = p;
    chars = 0;
  }
  std::reverse(units.begin(), units.end());
  return units;
}

std::uint64_t estimate_context_chars(std::span<const Message> messages) {
  return range_chars(messages, 0, messages.size());
}

std::span<const Message> trim_context(std::span<const Message> messages, std::uint64_t max_chars) {
  if (messages.empty()) {
    throw ContextError(ContextErrorKind::empty_context, std::nullopt,
                       "context budget cannot be empty: there are no messages");
  }
  Declarers declarers(messages);
  BackwardMessageChars chars(messages);
  // Walking backwards, a cut before p is allowed when every tool result at
  // or after p has its declaring assistant (if any) at or after p: then no
  // unit ever holds a result without its request (decisions §6).
  std::size_t earliest_declarer = messages.size();
  std::size_t kept_from = messages.size();
  std::uint64_t kept_chars = 0;
  // The unit [p, kept_from) being gathered: estimates are additive, so the
  // estimate of unit ∪ kept is the sum of the messages' own.
  std::uint64_t unit_chars = 0;
  std::optional<std::size_t> unit_unserializable;  // its first such message
  for (std::size_t p = messages.size(); p-- > 0;) {
    if (const std::uint64_t message = chars.at(p); message == kUnserializable) {
      unit_unserializable = p;
    } else {
      unit_chars += message;
    }
    const std::size_t declarer = declarers.of(p);
    if (declarer != kNoAssistant && declarer < earliest_declarer) earliest_declarer = declarer;
    if (earliest_declarer < p) continue;  // p is inside a unit that starts earlier
    if (unit_unserializable) message_chars(messages, *unit_unserializable);  // throws its ContextError
    if (kept_chars + unit_chars > max_chars) {
      if (kept_from == messages.size()) throw ContextError(ContextUnit{p, kept_from, unit_chars}, max_chars);
      break;
    }
    kept_chars += unit_chars;
    unit_chars = 0;
    kept_from = p;
  }
  return messages.subspan(kept_from);
}

}  // namespace agent_session
