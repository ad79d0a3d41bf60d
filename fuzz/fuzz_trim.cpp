// Differential: the fast path's trim (fast::trim_context, the block walk)
// against the reference trim (reference::trim_context, SPEC.md §5), on
// histories and budgets decoded from the bytes with FuzzedDataProvider:
// the same span of the caller's messages, or a ContextError equal in
// kind, text, message, unit and budget. On top, the promises of SPEC.md §5
// checked on the result alone: a non-empty suffix of whole units, within
// budget, no tool result without its declaring assistant.
// Built with the fast path only (AGENT_SESSION_FAST).
#include "agent_session/context.hpp"
#include "agent_session/message.hpp"

#include "base/utf8.hpp"
#include "fast/fast_path.hpp"
#include "fuzz_support.hpp"
#include "reference/reference.hpp"
#include "support/spec_units.hpp"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace agent_session::fuzz {
namespace {

// ---- Decoding the bytes into a history -----------------------------------

// Pieces whose UTF-8 bytes and UTF-16 code units differ (é: 2 bytes, 1
// unit; 😀: 4 bytes, 2 units) or that the writer escapes (", \, control).
std::string text(FuzzedDataProvider& in) {
  static constexpr std::string_view kPieces[] = {"x",    "\"",       "\\",           "\n",
                                                 "\x01", "\xC3\xA9", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80"};
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

// ---- The checks ------------------------------------------------------------

bool serializable(const Message& m) {
  return std::visit([](const auto& any) { return valid_utf8(any.content); }, m);
}

// UTF-16 length of the canonical line plus its newline (SPEC.md §4).
std::uint64_t chars_of(const Message& m) { return base::utf16_length(to_canonical_json(m)) + 1; }

// SPEC.md §5's promises, checked on the result alone.
void check_invariants(const std::vector<Message>& history, std::uint64_t budget, std::span<const Message> kept) {
  FUZZ_CHECK(!kept.empty(), "an empty result instead of an error");
  FUZZ_CHECK(kept.data() + kept.size() == history.data() + history.size() && kept.size() <= history.size(),
             "not a view of the history's suffix");
  FUZZ_CHECK(reference::estimate_context_chars(kept) <= budget, "over budget");
  const std::size_t start = history.size() - kept.size();
  for (std::size_t q = start; q < history.size(); ++q) {
    if (!std::holds_alternative<ToolResultMessage>(history[q])) continue;
    const auto declarer = test_support::spec::declaring_assistant(history, q);
    FUZZ_CHECK(!declarer || *declarer >= start, "orphaned tool result at " + std::to_string(q));
  }
}

using Trimmed = std::variant<std::span<const Message>, ContextError>;

template <class Trim>
Trimmed trim_with(Trim&& trim, const std::vector<Message>& history, std::uint64_t budget) {
  try {
    return trim(std::span<const Message>(history), budget);
  } catch (const ContextError& error) {
    return error;
  }
}

std::string describe(const Trimmed& trimmed, const std::vector<Message>& history) {
  if (const auto* error = std::get_if<ContextError>(&trimmed)) return describe_context_error(*error);
  return "kept from message " + std::to_string(history.size() - std::get<0>(trimmed).size());
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

  const Trimmed expected = trim_with(reference::trim_context, history, budget);
  const Trimmed got = trim_with(fast::trim_context, history, budget);
  const auto* expected_error = std::get_if<ContextError>(&expected);
  const auto* error = std::get_if<ContextError>(&got);
  const bool same = error ? expected_error && same_error(*error, *expected_error)
                          : !expected_error && std::get<0>(got).size() == std::get<0>(expected).size();
  FUZZ_CHECK(same, "budget " + std::to_string(budget) + ", " + std::to_string(history.size()) + " messages: fast " +
                       describe(got, history) + "\n  reference " + describe(expected, history));
  if (!error) check_invariants(history, budget, std::get<0>(got));
  return 0;
}
