// Properties 8, 14 and 15 of tests/properties/README.md: the estimate
// (SPEC.md §4) on generated histories, the benchmarks' realistic ones, and
// histories with a string that is not valid UTF-8. Property 8 counts the
// canonical text's UTF-16 units with the reference counter (itself checked
// against every scalar value's encoding in tests/utf8_test.cpp); 14 and 15
// compare the public
// estimate, and the fast path's per-message measure when it is built,
// with the reference's printing and counting.
#include "generators.hpp"

#include "agent_session/context.hpp"
#include "base/utf8.hpp"
#include "reference/reference.hpp"
#if AGENT_SESSION_FAST
#include "fast/fast_path.hpp"
#endif

// GoogleTest first: RapidCheck's integration header builds on it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agent_session::properties {
namespace {

using History = std::vector<Message>;

std::uint64_t estimate(const History& history, std::size_t begin, std::size_t end) {
  return estimate_context_chars(std::span<const Message>(history).subspan(begin, end - begin));
}

rc::Gen<History> any_history() {
  return rc::gen::weightedOneOf<History>({{3, history()}, {2, messages()}, {1, realistic_history()}});
}

// Bytes that are not UTF-8 (SPEC.md §2.1): a stray continuation byte, a
// truncated sequence, an overlong form, a surrogate, past U+10FFFF.
rc::Gen<std::string> invalid_utf8() {
  return rc::gen::element<std::string>("\x80", "\xFF", "\xE4\xB8", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80");
}

// The history with, now and then, invalid bytes inserted into one
// message's content or into its first tool call's name: a message the
// estimate cannot measure (SPEC.md §4's error names it).
History maybe_unserializable(History history) {
  if (history.empty() || !*rc::gen::weightedElement<bool>({{3, false}, {1, true}})) return history;
  const auto index = *rc::gen::inRange<std::size_t>(0, history.size());
  const std::string bad = *invalid_utf8();
  std::visit(
      [&](auto& message) {
        std::string* text = &message.content;
        if constexpr (std::is_same_v<std::decay_t<decltype(message)>, AssistantMessage>) {
          if (!message.tool_calls.empty() && *rc::gen::arbitrary<bool>()) text = &message.tool_calls[0].name;
        }
        const auto at = *rc::gen::inRange<std::size_t>(0, text->size() + 1);
        text->insert(at, bad);  // between bytes: may split a character, still not UTF-8
      },
      history[index]);
  RC_LOG() << "invalid bytes in message " << index << "\n";
  return history;
}

// The UTF-16 length of `text`, nullopt when it is not valid UTF-8.
std::optional<std::uint64_t> utf16_units(std::string_view text) {
  if (base::valid_utf8_prefix(text) != text.size()) return std::nullopt;
  return base::utf16_length(text);
}

// 8. The estimate is additive over messages and equals the UTF-16 length
// of the canonical JSONL text.
RC_GTEST_PROP(EstimateProperties, AdditiveAndUtf16LengthOfCanonicalJsonl, ()) {
  const History history = *any_history();
  const std::uint64_t whole = estimate_context_chars(history);
  std::uint64_t sum = 0;
  for (const auto& message : history) {
    const auto line = utf16_units(to_canonical_json(message));
    RC_ASSERT(line.has_value());  // canonical text is valid UTF-8
    RC_ASSERT(estimate_context_chars(std::span<const Message>(&message, 1)) == *line + 1);
    sum += *line + 1;
  }
  RC_ASSERT(whole == sum);
  RC_ASSERT(utf16_units(to_canonical_jsonl(history)) == std::optional<std::uint64_t>(whole));
  const auto split = *rc::gen::inRange<std::size_t>(0, history.size() + 1);
  RC_ASSERT(estimate(history, 0, split) + estimate(history, split, history.size()) == whole);
}

// What an estimate gave: the characters, or the error's message index and
// text (ContextError is the only exception SPEC.md §4 allows).
using EstimateOutcome = std::variant<std::uint64_t, std::pair<std::optional<std::size_t>, std::string>>;

template <class Estimate>
EstimateOutcome outcome_of(Estimate&& estimate_with, const History& history) {
  try {
    return estimate_with(std::span<const Message>(history));
  } catch (const ContextError& error) {
    RC_ASSERT(error.kind() == ContextErrorKind::unserializable_message);
    return std::pair(error.message_index(), std::string(error.what()));
  }
}

// 14. The public estimate is the reference's (with the fast path built, a
// differential check of its counting sink and kernels; without it, the
// same function, which property 8 checks independently), errors included:
// the same message index and text for the first message that cannot be
// serialized.
RC_GTEST_PROP(EstimateProperties, PublicIsReference, ()) {
  const History history = maybe_unserializable(*any_history());
  const EstimateOutcome public_estimate = outcome_of(&estimate_context_chars, history);
  const EstimateOutcome reference_estimate = outcome_of(&reference::estimate_context_chars, history);
  RC_ASSERT(public_estimate == reference_estimate);
  RC_TAG(std::holds_alternative<std::uint64_t>(public_estimate) ? "measured" : "unserializable message");
}

#if AGENT_SESSION_FAST
// 15. The fast path's measure of one message (a counting sink, no text
// printed) is the UTF-16 length of the message's canonical line as the
// reference prints and counts it; a message the reference cannot print,
// the fast path cannot measure (SerializationError both).
RC_GTEST_PROP(EstimateProperties, FastMeasureIsPrintingAndCounting, ()) {
  const History history = maybe_unserializable(*any_history());
  for (const auto& message : history) {
    std::optional<std::uint64_t> printed;
    try {
      printed = base::utf16_length(to_canonical_json(message));
    } catch (const SerializationError&) {
    }
    std::optional<std::uint64_t> measured;
    try {
      measured = fast::measure(message);
    } catch (const SerializationError&) {
    }
    RC_ASSERT(measured == printed);
  }
}
#endif

}  // namespace
}  // namespace agent_session::properties
