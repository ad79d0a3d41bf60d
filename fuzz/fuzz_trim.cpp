// Bytes decoded (FuzzedDataProvider) into a structured history and a
// budget, then trim_context against a small reference written straight
// from decisions §6: the O(n^3) definition of an allowed cut, units as the
// runs between cuts, packing newest first until the first unit that does
// not fit. On top of equality with the reference, the invariants the
// chapter promises are checked on their own: no orphaned tool result,
// within budget, a suffix of whole units, non-empty or the exact error.
#include "agent_session/context.hpp"
#include "agent_session/message.hpp"

#include "fuzz_support.hpp"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agent_session::fuzz {
namespace {

constexpr std::string_view kEmptyError = "context budget cannot be empty";
constexpr std::string_view kUnitError = "context budget cannot contain the smallest consistent message unit";

// ---- Decoding the bytes into a history -----------------------------------

// Pieces whose UTF-8 bytes and UTF-16 code units differ (é: 2 bytes, 1
// unit; 😀: 4 bytes, 2 units) or that the writer escapes (", \, control).
std::string text(FuzzedDataProvider& in) {
  static constexpr std::string_view kPieces[] = {"x", "\"", "\\", "\n", "\x01", "\xC3\xA9", "\xE4\xB8\xAD",
                                                 "\xF0\x9F\x98\x80"};
  std::string out;
  const auto count = in.ConsumeIntegralInRange<std::size_t>(0, 40);  // past the estimator's 32-byte blocks
  for (std::size_t i = 0; i < count; ++i) out += kPieces[in.ConsumeIntegralInRange<std::size_t>(0, 7)];
  return out;
}

// A small pool, so that tool results find (or miss) their declaring
// assistants, sometimes through a repeated id.
std::string call_id(FuzzedDataProvider& in) {
  static constexpr const char* kIds[] = {"a", "b", "c", "d", "e"};
  return kIds[in.ConsumeIntegralInRange<std::size_t>(0, 4)];
}

Json input(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: return nullptr;
    case 1: return in.ConsumeFloatingPoint<double>();  // always finite
    case 2: return text(in);
    default: return Json{{"path", text(in)}, {"7", in.ConsumeBool()}};
  }
}

Message message(FuzzedDataProvider& in) {
  const int role = in.ConsumeIntegralInRange(0, 2);
  // Rarely, content that cannot be serialized: trimming must name it when
  // packing reaches it, and ignore it otherwise.
  std::string content = in.ConsumeProbability<double>() < 0.02 ? std::string("bad \xFF") : text(in);
  if (role == 0) return UserMessage{std::move(content)};
  if (role == 1) {
    AssistantMessage assistant{std::move(content), {}};
    const auto calls = in.ConsumeIntegralInRange<std::size_t>(0, 3);
    for (std::size_t i = 0; i < calls; ++i) assistant.tool_calls.push_back({call_id(in), text(in), input(in)});
    return assistant;
  }
  return ToolResultMessage{std::move(content), call_id(in), in.ConsumeBool()};
}

// ---- The reference --------------------------------------------------------

bool serializable(const Message& m) {
  return std::visit([](const auto& any) { return decode_utf8(any.content).has_value(); }, m);
}

// UTF-16 length of the canonical line plus its newline (decisions §5).
std::uint64_t chars_of(const Message& m) { return *utf16_length(to_canonical_json(m)) + 1; }

// The nearest earlier assistant whose calls include the result's id.
std::optional<std::size_t> declaring_assistant(const std::vector<Message>& history, std::size_t result) {
  const auto& id = std::get<ToolResultMessage>(history[result]).tool_call_id;
  for (std::size_t i = result; i-- > 0;) {
    if (const auto* assistant = std::get_if<AssistantMessage>(&history[i])) {
      for (const auto& call : assistant->tool_calls) {
        if (call.id == id) return i;
      }
    }
  }
  return std::nullopt;
}

// decisions §6, word for word: a cut before p is allowed when every tool
// result at or after p has its declaring assistant (if any) at or after p.
bool cut_allowed(const std::vector<Message>& history, std::size_t p) {
  for (std::size_t q = p; q < history.size(); ++q) {
    if (!std::holds_alternative<ToolResultMessage>(history[q])) continue;
    const auto declarer = declaring_assistant(history, q);
    if (declarer && *declarer < p) return false;
  }
  return true;
}

// Units as [begin, end) ranges, newest first.
std::vector<std::pair<std::size_t, std::size_t>> units_newest_first(const std::vector<Message>& history) {
  std::vector<std::pair<std::size_t, std::size_t>> units;
  std::size_t end = history.size();
  for (std::size_t p = history.size(); p-- > 0;) {
    if (p == 0 || cut_allowed(history, p)) {
      units.emplace_back(p, end);
      end = p;
    }
  }
  return units;
}

// What trim_context must do: keep messages [start, n), or throw.
struct Expected {
  std::size_t start = 0;
  std::optional<ContextErrorKind> error;
  std::pair<std::size_t, std::size_t> bad_unit{};  // for unserializable_message
  std::uint64_t budget = 0;                         // the budget trimmed to
};

Expected reference_trim(const std::vector<Message>& history, std::uint64_t budget) {
  if (history.empty()) return {0, ContextErrorKind::empty_context, {}, budget};
  Expected expected{history.size(), std::nullopt, {}, budget};
  std::uint64_t kept = 0;
  for (const auto& [begin, end] : units_newest_first(history)) {
    std::uint64_t unit = 0;
    for (std::size_t i = begin; i < end; ++i) {
      if (!serializable(history[i])) return {0, ContextErrorKind::unserializable_message, {begin, end}, budget};
      unit += chars_of(history[i]);
    }
    if (kept + unit > budget) break;
    kept += unit;
    expected.start = begin;
  }
  if (expected.start == history.size()) expected.error = ContextErrorKind::unit_exceeds_budget;
  return expected;
}

// ---- The checks ------------------------------------------------------------

// The chapter's promises, checked on the result alone.
void check_invariants(const std::vector<Message>& history, std::uint64_t budget, const std::vector<Message>& kept) {
  FUZZ_CHECK(!kept.empty(), "an empty result instead of an error");
  FUZZ_CHECK(kept.size() <= history.size(), "more kept than given");
  const std::size_t start = history.size() - kept.size();
  for (std::size_t i = 0; i < kept.size(); ++i) FUZZ_CHECK(kept[i] == history[start + i], "not a suffix");
  FUZZ_CHECK(estimate_context_chars(kept) <= budget, "over budget");
  FUZZ_CHECK(start == 0 || cut_allowed(history, start), "cut inside a unit at " + std::to_string(start));
  for (std::size_t q = start; q < history.size(); ++q) {
    if (!std::holds_alternative<ToolResultMessage>(history[q])) continue;
    const auto declarer = declaring_assistant(history, q);
    FUZZ_CHECK(!declarer || *declarer >= start, "orphaned tool result at " + std::to_string(q));
  }
}

void check_error(const ContextError& error, const std::vector<Message>& history, const Expected& expected) {
  const std::string_view text = error.what();
  FUZZ_CHECK(expected.error == error.kind(), "unexpected error: " + std::string(text));
  switch (error.kind()) {
    case ContextErrorKind::empty_context:
      FUZZ_CHECK(text == std::string(kEmptyError) + ": there are no messages" && !error.message_index(),
                 "wrong text: " + std::string(text));
      return;
    case ContextErrorKind::unit_exceeds_budget: {
      // The detail names the newest unit, its size and the budget.
      const auto [begin, end] = units_newest_first(history).front();
      std::uint64_t chars = 0;
      for (std::size_t i = begin; i < end; ++i) chars += chars_of(history[i]);
      FUZZ_CHECK(text.starts_with(std::string(kUnitError) + ": the newest unit, ") && !error.message_index(),
                 "wrong text: " + std::string(text));
      FUZZ_CHECK(error.unit() == (ContextUnit{begin, end, chars}), "wrong unit: " + std::string(text));
      FUZZ_CHECK(error.budget() == expected.budget, "wrong budget: " + std::string(text));
      return;
    }
    case ContextErrorKind::unserializable_message: {
      const auto index = error.message_index();
      FUZZ_CHECK(index && *index >= expected.bad_unit.first && *index < expected.bad_unit.second &&
                     !serializable(history[*index]),
                 "names the wrong message: " + std::string(text));
      FUZZ_CHECK(text.starts_with("message " + std::to_string(*index) + " cannot be serialized"),
                 "wrong text: " + std::string(text));
      return;
    }
  }
  FUZZ_CHECK(false, "unknown error kind");
}

// Budgets where the answers differ: anything, near the history's size, or
// exactly the size of some suffix (or one off), where `>` and `>=` part.
std::uint64_t budget(FuzzedDataProvider& in, const std::vector<Message>& history) {
  const auto chars_from = [&](std::size_t first) {
    std::uint64_t chars = 0;
    for (std::size_t i = first; i < history.size(); ++i) chars += serializable(history[i]) ? chars_of(history[i]) : 0;
    return chars;
  };
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: return in.ConsumeIntegral<std::uint64_t>();
    case 1: return in.ConsumeIntegralInRange<std::uint64_t>(0, chars_from(0) + 8);
    default: {
      const std::uint64_t suffix = chars_from(in.ConsumeIntegralInRange<std::size_t>(0, history.size()));
      const int off_by = in.ConsumeIntegralInRange(-1, 1);
      return off_by < 0 && suffix == 0 ? 0 : suffix + static_cast<std::uint64_t>(off_by);
    }
  }
}

}  // namespace
}  // namespace agent_session::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agent_session;
  using namespace agent_session::fuzz;
  FuzzedDataProvider in(data, size);
  std::vector<Message> history(in.ConsumeIntegralInRange<std::size_t>(0, 24));
  for (auto& m : history) m = message(in);
  const std::uint64_t budget = fuzz::budget(in, history);

  const Expected expected = reference_trim(history, budget);
  try {
    const std::span<const Message> sent = trim_context(history, budget);
    FUZZ_CHECK(sent.data() + sent.size() == history.data() + history.size(), "not a view of the history's suffix");
    const std::vector<Message> kept(sent.begin(), sent.end());
    FUZZ_CHECK(!expected.error, "trimmed where an error was due");
    FUZZ_CHECK(history.size() - kept.size() == expected.start, "kept another suffix than the reference");
    check_invariants(history, budget, kept);
  } catch (const ContextError& error) {
    check_error(error, history, expected);
  }
  return 0;
}
