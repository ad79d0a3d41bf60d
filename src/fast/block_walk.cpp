// trim_context at the cost of what the packing reaches (SPEC.md §5.2): the
// packing loop is the reference's (reference/units.hpp); only the answers to
// its two questions are found differently.
#include "fast/block_walk.hpp"
#include "fast/measure.hpp"

#include "agent_session/context.hpp"
#include "reference/units.hpp"

#include <algorithm>
#include <limits>
#include <string_view>
#include <vector>

namespace agent_session::fast {
namespace {

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
// A result whose assistant is farther back, or an orphan, triggers the
// reference's one forward pass over the whole history instead.
class Declarers {
 public:
  explicit Declarers(std::span<const Message> messages) : messages_(messages) {}

  std::optional<std::size_t> of(std::size_t index) {
    const auto* result = std::get_if<ToolResultMessage>(&messages_[index]);
    if (result == nullptr) return std::nullopt;
    if (all_.empty()) {
      constexpr std::size_t kNearby = 16;
      const std::size_t stop = index > kNearby ? index - kNearby : 0;
      for (std::size_t i = index; i-- > stop;) {
        ++reference::work_counters().declarer_steps;
        if (declares(messages_[i], result->tool_call_id)) return i;
      }
      all_ = declaring_assistants(messages_);
    }
    return all_[index];
  }

 private:
  std::span<const Message> messages_;
  std::vector<std::optional<std::size_t>> all_;  // empty until needed (a trimmed history is never empty)
};

// Message sizes for a walk from the newest message backwards, measured
// ahead in blocks read forwards: the loader allocates a history's strings
// in message order, and the hardware prefetches forward streams, not
// backward ones. Blocks grow from 16 to 4096 messages, so a budget that
// stops early measures at most as many messages again as it reached, plus
// the first block, ahead of where it stops. A message that cannot be
// serialized is measured again, to throw its error, only if the walk
// reaches it.
class BackwardMessageChars {
 public:
  explicit BackwardMessageChars(std::span<const Message> messages)
      : messages_(messages), block_begin_(messages.size()) {}

  // Call with indices in decreasing order.
  std::uint64_t at(std::size_t index) {
    if (index < block_begin_) measure_block_ending_at(index + 1);
    const std::uint64_t chars = chars_[index - block_begin_];
    return chars != kUnserializable ? chars : reference::message_chars(messages_, index, measure);
  }

 private:
  static constexpr std::size_t kFirstBlock = 16;
  static constexpr std::size_t kLargestBlock = 4096;
  static constexpr std::uint64_t kUnserializable = std::numeric_limits<std::uint64_t>::max();

  void measure_block_ending_at(std::size_t end) {
    block_begin_ = end > block_size_ ? end - block_size_ : 0;
    chars_.resize(end - block_begin_);
    reference::work_counters().measured += end - block_begin_;
    for (std::size_t i = block_begin_; i < end; ++i) {
      try {
        chars_[i - block_begin_] = measure(messages_[i]) + 1;
      } catch (const SerializationError&) {
        chars_[i - block_begin_] = kUnserializable;
      }
    }
    block_size_ = std::min(block_size_ * 2, kLargestBlock);
  }

  std::span<const Message> messages_;
  std::vector<std::uint64_t> chars_;  // of messages [block_begin_, block_begin_ + chars_.size())
  std::size_t block_begin_;
  std::size_t block_size_ = kFirstBlock;
};

}  // namespace

std::span<const Message> trim_context(std::span<const Message> messages, std::uint64_t max_chars) {
  Declarers declarers(messages);
  BackwardMessageChars chars(messages);
  return messages.subspan(reference::kept_from(
      messages.size(), max_chars, [&](std::size_t p) { return declarers.of(p); },
      [&](std::size_t p) { return chars.at(p); }));
}

std::span<const Message> trim_context_given_declarers(std::span<const Message> messages,
                                                      std::span<const std::optional<std::size_t>> declarers,
                                                      std::uint64_t max_chars) {
  BackwardMessageChars chars(messages);
  return messages.subspan(reference::kept_from(
      messages.size(), max_chars, [&](std::size_t p) { return declarers[p]; },
      [&](std::size_t p) { return chars.at(p); }));
}

}  // namespace agent_session::fast
