// context.hpp: the estimate (SPEC.md §4) and unit trimming (chapter's
// walkthrough and budget-packing loop; SPEC.md §5), at the API level.
#include "agent_session/context.hpp"

#include "entry/implementation.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory_resource>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace agent_session {
namespace {

using test_support::thrown;

Message user(std::string content) { return UserMessage{std::move(content)}; }
Message assistant(std::vector<std::string> call_ids) {
  AssistantMessage message;
  for (auto& id : call_ids) message.tool_calls.push_back(ToolCall{std::move(id), "t", Json(nullptr)});
  return message;
}
Message result(std::string call_id) { return ToolResultMessage{"r", std::move(call_id), false}; }

std::uint64_t chars(const Message& message) { return to_canonical_json(message).size() + 1; }

// Where the kept suffix starts in `history`, checking that trim_context
// returned a view of history's own newest messages, not a copy.
std::size_t kept_from(const std::vector<Message>& history, std::uint64_t max_chars) {
  const std::span<const Message> sent = trim_context(history, max_chars);
  EXPECT_EQ(sent.data() + sent.size(), history.data() + history.size()) << "not a view of the history's suffix";
  return history.size() - sent.size();
}

TEST(EstimateContextChars, IsTheUtf16LengthOfTheCanonicalJsonl) {
  EXPECT_EQ(estimate_context_chars({}), 0u);
  const std::vector<Message> ascii = {user("hi")};
  EXPECT_EQ(estimate_context_chars(ascii), std::string(R"({"role":"user","content":"hi"})").size() + 1);
  // é and 中 are one UTF-16 unit each (2 and 3 bytes); 🚀 is two (4 bytes).
  const std::vector<Message> unicode = {user("\u00e9\u4e2d\U0001F680")};
  EXPECT_EQ(estimate_context_chars(unicode), estimate_context_chars(std::vector<Message>{user("abcd")}));
  // Escapes count as printed: "\n" is two units, U+0001 is six.
  EXPECT_EQ(estimate_context_chars(std::vector<Message>{user("\n\x01")}),
            estimate_context_chars(std::vector<Message>{user("abcdefgh")}));
}

TEST(EstimateContextChars, NamesTheIndexOfAnUnserializableMessage) {
  const std::vector<Message> messages = {user("fine"), user("also fine"), user("\xc3"), user("\xff")};
  const ContextError error = thrown<ContextError>([&] { estimate_context_chars(messages); });
  EXPECT_EQ(error.kind(), ContextErrorKind::unserializable_message);
  EXPECT_EQ(error.message_index(), 2u);
  EXPECT_EQ(std::string(error.what()).rfind("message 2 cannot be serialized: ", 0), 0u) << error.what();
}

// An input built in memory may nest far past the limit (ToolInput keeps
// it as given): estimating its message is §4's error, on both paths,
// never a walk or a copy of the whole tree (a million levels: a
// recursive copy would overflow the stack).
TEST(EstimateContextChars, AnInputNestedAMillionDeepIsAnUnserializableMessage) {
  Json nested = Json::array();
  Json* innermost = &nested;
  for (int level = 0; level < 1'000'000; ++level) innermost = &innermost->emplace_back(Json::array());
  AssistantMessage assistant;  // built in place: a copy of the tree would recurse through it
  assistant.tool_calls.push_back(ToolCall{"c", "n", ToolInput(std::move(nested))});
  std::vector<Message> messages = {user("q")};
  messages.emplace_back(std::move(assistant));
  for (const auto* path : {&entry::chosen, &entry::reference_path}) {
    const ContextError error = thrown<ContextError>([&] { path->estimate_context_chars(messages); });
    EXPECT_EQ(error.kind(), ContextErrorKind::unserializable_message);
    EXPECT_EQ(error.message_index(), 1u);
  }
}

// The chapter's walkthrough: user, assistant{a,b}, tool a, tool b.
const std::vector<Message> kWalkthrough = {user("question"), assistant({"a", "b"}), result("a"), result("b")};

TEST(TrimContext, KeepsTheMultiToolUnitWhole) {
  const std::uint64_t unit = chars(kWalkthrough[1]) + chars(kWalkthrough[2]) + chars(kWalkthrough[3]);
  EXPECT_EQ(kept_from(kWalkthrough, unit), 1u);
  EXPECT_EQ(kept_from(kWalkthrough, estimate_context_chars(kWalkthrough)), 0u);
  // One unit less than the whole: the user message does not fit.
  EXPECT_EQ(kept_from(kWalkthrough, estimate_context_chars(kWalkthrough) - 1), 1u);
  const ContextError error = thrown<ContextError>([&] { trim_context(kWalkthrough, unit - 1); });
  EXPECT_EQ(error.kind(), ContextErrorKind::unit_exceeds_budget);
  EXPECT_EQ(error.message_index(), std::nullopt);
  // The spec's text, then what a person needs: which unit, its size, the budget.
  EXPECT_EQ(std::string(error.what()),
            "context budget cannot contain the smallest consistent message unit: "
            "the newest unit, messages 1-3, is " +
                std::to_string(unit) + " characters; the budget is " + std::to_string(unit - 1));
  EXPECT_EQ(error.unit(), (ContextUnit{1, 4, unit}));
  EXPECT_EQ(error.budget(), unit - 1);
  // A unit of one message says so.
  const std::vector<Message> one = {user("hi")};
  const ContextError single = thrown<ContextError>([&] { trim_context(one, 3); });
  EXPECT_EQ(std::string(single.what()),
            "context budget cannot contain the smallest consistent message unit: "
            "the newest unit, message 0, is " +
                std::to_string(chars(one[0])) + " characters; the budget is 3");
}

TEST(ContextUnits, AreTheClosedUnitsTrimmingPacks) {
  EXPECT_TRUE(context_units({}).empty());
  const std::vector<ContextUnit> units = context_units(kWalkthrough);
  const std::uint64_t unit = chars(kWalkthrough[1]) + chars(kWalkthrough[2]) + chars(kWalkthrough[3]);
  EXPECT_EQ(units, (std::vector<ContextUnit>{{0, 1, chars(kWalkthrough[0])}, {1, 4, unit}}));
  // Interleaved rounds close into one unit; an orphan and a pending
  // assistant are units of their own.
  const std::vector<Message> interleaved = {assistant({"x"}), assistant({"y"}), result("x"),
                                            result("y"),      result("none"),   assistant({"z"})};
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (const ContextUnit& u : context_units(interleaved)) ranges.emplace_back(u.begin, u.end);
  EXPECT_EQ(ranges, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 4}, {4, 5}, {5, 6}}));
  // The smallest budget trim accepts is the newest unit's size.
  EXPECT_EQ(kept_from(kWalkthrough, units.back().chars), 1u);
}

// Whether trim_context(history, n) compiles for a `History` argument: the
// returned view must not outlive the messages, so any temporary that owns
// them is refused, whatever its container.
template <class History>
constexpr bool trimmable = requires(History&& history) {
  trim_context(std::forward<History>(history), std::uint64_t{1});
};

TEST(TrimContext, RefusesEveryTemporaryThatOwnsItsMessages) {
  EXPECT_TRUE(trimmable<std::vector<Message>&>);
  EXPECT_TRUE(trimmable<const std::vector<Message>&>);
  EXPECT_TRUE(trimmable<std::span<const Message>>);  // borrowed: the caller owns the messages
  EXPECT_TRUE((trimmable<std::array<Message, 1>&>));
  EXPECT_FALSE(trimmable<std::vector<Message>>);        // trim_context(load_session(path), n)
  EXPECT_FALSE(trimmable<const std::vector<Message>>);  // a function returning a const vector
  EXPECT_FALSE(trimmable<std::pmr::vector<Message>>);   // an arena-allocated history
  EXPECT_FALSE((trimmable<std::array<Message, 1>>));
}

TEST(TrimContext, EmptyHistoryIsTheEmptyBudgetError) {
  const ContextError error = thrown<ContextError>([] { trim_context(std::span<const Message>{}, 1000); });
  EXPECT_EQ(error.kind(), ContextErrorKind::empty_context);
  EXPECT_STREQ(error.what(), "context budget cannot be empty: there are no messages");
  EXPECT_EQ(error.unit(), std::nullopt);
}

TEST(TrimContext, ZeroBudgetCannotHoldAnyUnit) {
  EXPECT_EQ(thrown<ContextError>([] {
              const std::vector<Message> history = {user("x")};
              trim_context(history, 0);
            }).kind(),
            ContextErrorKind::unit_exceeds_budget);
}

TEST(TrimContext, StopsAtTheFirstUnitThatDoesNotFit) {
  const std::vector<Message> history = {user("tiny"), user(std::string(500, 'x')), user("newest")};
  // Room for "newest" and "tiny" but not the big one between them: stop.
  const std::uint64_t budget = chars(history[2]) + chars(history[0]) + 10;
  EXPECT_EQ(kept_from(history, budget), 2u);
}

TEST(TrimContext, InterleavedRoundsFormOneClosedUnit) {
  // assistant x, assistant y, result x, result y: the chapter's slice from
  // y to result y would carry result x without its assistant.
  const std::vector<Message> history = {user("u"), assistant({"x"}), assistant({"y"}), result("x"), result("y")};
  const std::uint64_t tail = chars(history[2]) + chars(history[3]) + chars(history[4]);
  EXPECT_EQ(thrown<ContextError>([&] { trim_context(history, tail); }).kind(), ContextErrorKind::unit_exceeds_budget);
  EXPECT_EQ(kept_from(history, tail + chars(history[1])), 1u);
}

TEST(TrimContext, OrphanResultAndUnansweredCallAreUnitsOfTheirOwn) {
  const std::vector<Message> history = {user("u"), result("ghost"), assistant({"pending"})};
  EXPECT_EQ(kept_from(history, chars(history[2])), 2u);
  EXPECT_EQ(kept_from(history, chars(history[2]) + chars(history[1])), 1u);
}

TEST(TrimContext, RepeatedIdsBindToTheNearestEarlierAssistant) {
  // Round one and round two both use id "a"; round two's result belongs to
  // round two's assistant, so the rounds are separate units.
  const std::vector<Message> history = {assistant({"a"}), result("a"), assistant({"a"}), result("a")};
  EXPECT_EQ(kept_from(history, chars(history[2]) + chars(history[3])), 2u);
}

TEST(TrimContext, MessagesBetweenACallAndItsResultTravelWithIt) {
  const std::vector<Message> history = {assistant({"a"}), user("interjection"), result("a")};
  EXPECT_EQ(thrown<ContextError>([&] { trim_context(history, chars(history[1]) + chars(history[2])); }).kind(),
            ContextErrorKind::unit_exceeds_budget);
}

TEST(TrimContext, UnreachedUnserializableMessagesAreNeverSerialized) {
  const std::vector<Message> history = {user("\xff"), user(std::string(100, 'x')), user("newest")};
  EXPECT_EQ(kept_from(history, chars(history[2])), 2u);
  const ContextError error = thrown<ContextError>([&] { trim_context(history, 1u << 20); });
  EXPECT_EQ(error.kind(), ContextErrorKind::unserializable_message);
  EXPECT_EQ(error.message_index(), 0u);
}

TEST(TrimContext, NamesTheFirstUnserializableMessageOfTheUnitItReaches) {
  // One unit, assistant a to result a, with two bad messages inside.
  const std::vector<Message> history = {user("old"), assistant({"a"}), user("\xff"), user("\xfe"), result("a")};
  const ContextError error = thrown<ContextError>([&] { trim_context(history, 1u << 20); });
  EXPECT_EQ(error.kind(), ContextErrorKind::unserializable_message);
  EXPECT_EQ(error.message_index(), 2u);
}

// Trimming measures messages ahead of its backward walk in blocks of 16
// to 4096 messages; this history has 9000 messages (the blocks reach
// their largest size) and units longer than the smaller blocks
// (assistant, up to 300 messages, its result), and the kept suffix must
// be exactly the newest whole units that fit, computed here from how the
// history was built.
TEST(TrimContext, KeepsTheNewestWholeUnitsThatFitInLongHistories) {
  std::uint64_t state = 7;
  const auto next = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  std::vector<Message> history;
  std::vector<std::size_t> unit_starts;
  while (history.size() < 9000) {
    unit_starts.push_back(history.size());
    if (next(3) == 0) {
      history.push_back(user(std::string(next(60), 'u')));
      continue;
    }
    const std::string id = "call_" + std::to_string(unit_starts.size());
    history.push_back(assistant({id}));
    const std::size_t between = next(8) == 0 ? next(300) : next(3);
    for (std::size_t i = 0; i < between; ++i) history.push_back(user(std::string(next(60), 'b')));
    history.push_back(result(id));
  }
  std::vector<std::uint64_t> suffix_chars(history.size() + 1, 0);  // ASCII: bytes are UTF-16 code units
  for (std::size_t i = history.size(); i-- > 0;) suffix_chars[i] = suffix_chars[i + 1] + chars(history[i]);
  std::vector<std::uint64_t> budgets = {0, suffix_chars[0], suffix_chars[0] + 1};
  for (int i = 0; i < 40; ++i) {
    const std::uint64_t start = suffix_chars[unit_starts[next(unit_starts.size())]];
    budgets.insert(budgets.end(), {start, start - 1, next(suffix_chars[0])});
  }
  for (const std::uint64_t budget : budgets) {
    // Suffix estimates grow with every older unit, so "stop at the first
    // unit that does not fit" keeps the oldest unit start that fits.
    const auto fits = std::find_if(unit_starts.begin(), unit_starts.end(),
                                   [&](std::size_t start) { return suffix_chars[start] <= budget; });
    if (fits == unit_starts.end()) {
      EXPECT_EQ(thrown<ContextError>([&] { trim_context(history, budget); }).kind(),
                ContextErrorKind::unit_exceeds_budget)
          << "budget " << budget;
    } else {
      EXPECT_EQ(kept_from(history, budget), *fits) << "budget " << budget;
    }
  }
}

// Trimming looks for a result's assistant nearby first; these histories
// put it far back (past any nearby window), behind orphans and behind
// redeclarations of the same id, and compare with SPEC.md §5 computed
// the slow, obvious way.
std::size_t naive_declarer(const std::vector<Message>& history, std::size_t index) {
  const auto* tool = std::get_if<ToolResultMessage>(&history[index]);
  if (tool == nullptr) return history.size();
  for (std::size_t i = index; i-- > 0;) {
    if (const auto* a = std::get_if<AssistantMessage>(&history[i])) {
      for (const auto& call : a->tool_calls) {
        if (call.id == tool->tool_call_id) return i;
      }
    }
  }
  return history.size();  // orphan
}

// SPEC.md §5 literally: a cut before p is allowed when every tool result
// at or after p has its declaring assistant (if any) at or after p; pack
// whole units from the newest while the suffix's estimate fits.
std::size_t naive_kept(const std::vector<Message>& history, std::uint64_t max_chars) {
  const auto cut_allowed = [&](std::size_t p) {
    for (std::size_t q = p; q < history.size(); ++q) {
      const std::size_t d = naive_declarer(history, q);
      if (d != history.size() && d < p) return false;
    }
    return true;
  };
  std::size_t kept_from = history.size();
  for (std::size_t p = history.size(); p-- > 0;) {
    if (!cut_allowed(p)) continue;
    const std::vector<Message> suffix(history.begin() + static_cast<std::ptrdiff_t>(p), history.end());
    if (estimate_context_chars(suffix) > max_chars) break;
    kept_from = p;
  }
  return history.size() - kept_from;
}

TEST(TrimContext, FarDeclaringAssistantsMatchTheRuleComputedNaively) {
  std::uint64_t state = 42;
  const auto next = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  const std::vector<std::string> ids = {"a", "b", "c"};
  for (int round = 0; round < 300; ++round) {
    std::vector<Message> history;
    const std::size_t length = 1 + next(90);
    while (history.size() < length) {
      switch (next(8)) {
        case 0: history.push_back(assistant({ids[next(3)]})); break;
        case 1: history.push_back(result(ids[next(3)])); break;
        case 2: history.push_back(result("orphan")); break;
        default: history.push_back(user(std::string(next(5), 'u'))); break;
      }
    }
    const std::uint64_t total = estimate_context_chars(history);
    for (const std::uint64_t budget : {total, total / 2, total / 5, total / 20, std::uint64_t{60}}) {
      const std::size_t expected = naive_kept(history, budget);
      if (expected == 0) {
        EXPECT_EQ(thrown<ContextError>([&] { trim_context(history, budget); }).kind(),
                  ContextErrorKind::unit_exceeds_budget);
      } else {
        EXPECT_EQ(history.size() - kept_from(history, budget), expected) << "round " << round << ", budget " << budget;
      }
    }
  }
}

}  // namespace
}  // namespace agent_session
