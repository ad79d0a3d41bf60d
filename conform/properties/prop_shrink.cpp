#include "conform/properties/prop_shrink.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

namespace agent_session::conform::properties {
namespace {

// `message` made plainer in the `step`th way, or none when there is no
// such step: its text emptied, then (an assistant) each tool call dropped
// or named "f" with a null input, then (a result) isError false. Ids stay:
// they are what ties a result to its call (SPEC.md §5.1).
std::optional<Message> plainer(const Message& message, std::size_t step) {
  Message plain = message;
  std::string& content = std::visit([](auto& m) -> std::string& { return m.content; }, plain);
  if (step == 0) {
    if (content.empty()) return plain;
    content.clear();
    return plain;
  }
  --step;
  if (auto* assistant = std::get_if<AssistantMessage>(&plain)) {
    auto& calls = assistant->tool_calls;
    if (step < calls.size()) {
      calls.erase(calls.begin() + static_cast<std::ptrdiff_t>(step));
      return plain;
    }
    step -= calls.size();
    if (step < calls.size()) {
      calls[step].name = "f";
      calls[step].input = ToolInput();
      return plain;
    }
    return std::nullopt;
  }
  if (auto* result = std::get_if<ToolResultMessage>(&plain); result && step == 0) {
    result->is_error = false;
    return plain;
  }
  return std::nullopt;
}

}  // namespace

PropCase shrink_case(TrimJudge& judge, PropCase found, int max_trials) {
  int trials = 0;
  // Whether `session` at `budget` breaks the same invariant; if so, it
  // becomes the case.
  const auto keeps_breaking = [&](PropSession session, std::uint64_t budget) {
    if (session.messages.empty() || trials >= max_trials) return false;
    ++trials;
    const Verdict verdict = judge.judge(session, budget);
    if (verdict.broken != found.invariant) return false;
    found.session = std::move(session);
    found.budget = budget;
    found.detail = verdict.detail;
    found.returned = verdict.returned;
    return true;
  };
  // The same, at the budget lowered by what the dropped messages counted:
  // a trimmer that cuts at a count (OpenAI Agents' items) keeps cutting at
  // the same place only then.
  const auto keeps_breaking_smaller = [&](PropSession smaller) {
    std::string why;
    const auto before = judge.count(found.session.lines, why);
    const auto after = judge.count(smaller.lines, why);
    if (!before || !after || *after >= *before || *before - *after > found.budget) return false;
    return keeps_breaking(std::move(smaller), found.budget - (*before - *after));
  };
  for (bool progress = true; progress && trials < max_trials;) {
    progress = false;
    // Whole units first (fewer trials), newest last: the newest unit is
    // often what the violation is about.
    for (std::size_t u = 0; u < found.session.units.size() && found.session.units.size() > 1;) {
      const ContextUnit unit = found.session.units[u];
      if (keeps_breaking(without(found.session, unit.begin, unit.end), found.budget)) {
        progress = true;
      } else {
        ++u;
      }
    }
    // Runs of messages, halving their length down to one: a trimmer that
    // counts items (OpenAI Agents) moves its cut when one message goes,
    // but not always when the older half does.
    for (std::size_t size = found.session.messages.size() / 2; size >= 1; size /= 2) {
      for (std::size_t i = 0; i < found.session.messages.size() && found.session.messages.size() > 1;) {
        const std::size_t end = std::min(i + size, found.session.messages.size());
        if (keeps_breaking(without(found.session, i, end), found.budget) ||
            keeps_breaking_smaller(without(found.session, i, end))) {
          progress = true;
        } else {
          i = end;
        }
      }
    }
    // Then what the messages hold, message by message: a case shows the
    // structure that breaks, not the generator's random text.
    for (std::size_t i = 0; i < found.session.messages.size() && trials < max_trials; ++i) {
      for (std::size_t step = 0;; ++step) {
        const auto plain = plainer(found.session.messages[i], step);
        if (!plain) break;
        if (*plain == found.session.messages[i]) continue;
        std::vector<Message> messages = found.session.messages;
        messages[i] = *plain;
        PropSession simpler = make_session(std::move(messages));
        if (keeps_breaking(simpler, found.budget) || keeps_breaking_smaller(std::move(simpler))) {
          progress = true;
          step = static_cast<std::size_t>(-1);  // the message changed: its steps from the first again
        }
      }
    }
    // The budget: as low as it goes, halving the distance.
    for (std::uint64_t step = found.budget; step > 0 && trials < max_trials;) {
      step = std::min(step, found.budget);
      if (step == 0) break;
      if (keeps_breaking(found.session, found.budget - step)) {
        progress = true;
      } else {
        step /= 2;
      }
    }
  }
  return found;
}

}  // namespace agent_session::conform::properties
