// The fast path's estimate and trim (src/fast/fast_path.hpp) against the
// reference (reference/reference.hpp, SPEC.md §4, §5): the fast canonical
// writer (message_sink.hpp), through a sink that prints, against the
// reference's line byte for byte; fast::measure, the counting sink,
// against the UTF-16 length of the printed line;
// fast::estimate_context_chars and fast::trim_context (declarers found on
// demand, sizes measured in blocks read forwards) against reference::'s,
// on generated histories with messages that cannot be serialized among
// them (built in memory): the same numbers and the same kept suffix, or a
// ContextError of the same kind, index and text.
#include "fast/fast_path.hpp"

#include "agent_session/context.hpp"
#include "base/utf8.hpp"
#include "fast/message_sink.hpp"
#include "reference/canonical.hpp"
#include "reference/canonical_value.hpp"
#include "reference/reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace agent_session::fast {
namespace {

class Histories {
 public:
  explicit Histories(std::uint64_t seed) : random_(seed) {}

  std::size_t below(std::size_t n) { return static_cast<std::size_t>(random_() % n); }

  std::string text() {
    static const char* const kPieces[] = {"a",
                                          "word ",
                                          "\"",
                                          "\\",
                                          "\n",
                                          "\x01",
                                          "\x1f",
                                          "\x7f",
                                          "\xC3\xA9",
                                          "\xE4\xB8\xAD",
                                          "\xE2\x80\xA8",
                                          "\xF0\x9F\x98\x80",
                                          "\xF4\x8F\xBF\xBF"};
    std::string out;
    for (std::size_t n = below(3) == 0 ? below(200) : below(12); n > 0; --n) {
      if (below(8) == 0) {
        out += std::string(below(80), 'x');  // ASCII runs, past a kernel's block
      } else {
        out += kPieces[below(std::size(kPieces))];
      }
    }
    return out;
  }

  Json input() {
    switch (below(6)) {
      case 0: return Json(nullptr);
      case 1: return Json(static_cast<double>(random_() % 100000) / 7.0);
      case 2: return Json{{"path", text()}, {"10", 1}, {"2", Json::array({true, 1e21, -0.0})}};
      case 3: return Json::array({text(), 5e-324, 123456789012345680000.0});
      default: return Json{{"q", text()}};
    }
  }

  // A message that cannot be serialized (SPEC.md §4): not UTF-8, a
  // non-finite number, an input nested past the limit.
  Message unserializable() {
    switch (below(4)) {
      case 0: return UserMessage{"bad \xFF byte"};
      case 1: return ToolResultMessage{"ok", "id\xC3", false};
      case 2: return AssistantMessage{"", {ToolCall{"n1", "f", Json{{"x", std::numeric_limits<double>::infinity()}}}}};
      default: {
        static const Json deep = [] {
          Json value = Json::array();
          for (int level = 0; level < kMaxNestingDepth; ++level) value = Json::array({value});
          return value;
        }();
        return AssistantMessage{"", {ToolCall{"n2", "f", deep}}};
      }
    }
  }

  // Rounds of user, assistant with calls, their results (some far from
  // their assistant, some orphans), and now and then an unserializable
  // message when `bad_one_in` is not 0.
  std::vector<Message> history(std::size_t size, std::size_t bad_one_in) {
    std::vector<Message> messages;
    std::vector<std::string> open_ids;
    while (messages.size() < size) {
      if (bad_one_in != 0 && below(bad_one_in) == 0) {
        messages.push_back(unserializable());
        continue;
      }
      switch (below(4)) {
        case 0: messages.push_back(UserMessage{text()}); break;
        case 1: {
          AssistantMessage assistant{text(), {}};
          for (std::size_t n = below(4); n > 0; --n) {
            // Now and then an id declared before, mostly lately: the
            // nearest declaration is the one (SPEC.md §5.1).
            const bool reuse = !used_ids_.empty() && below(6) == 0;
            if (reuse) {
              const std::size_t back =
                  below(below(4) == 0 ? used_ids_.size() : std::min<std::size_t>(used_ids_.size(), 3));
              open_ids.push_back(used_ids_[used_ids_.size() - 1 - back]);
            } else {
              open_ids.push_back("call" + std::to_string(next_id_++));
            }
            if (!reuse) used_ids_.push_back(open_ids.back());
            assistant.tool_calls.push_back(ToolCall{open_ids.back(), "tool", input()});
          }
          messages.push_back(std::move(assistant));
          break;
        }
        default: {
          std::string id = "orphan" + std::to_string(below(5));
          if (!open_ids.empty() && below(8) != 0) {
            const std::size_t i = below(open_ids.size());
            id = open_ids[i];
            if (below(3) != 0) open_ids.erase(open_ids.begin() + static_cast<std::ptrdiff_t>(i));
          }
          messages.push_back(ToolResultMessage{text(), id, below(2) == 0});
        }
      }
    }
    return messages;
  }

 private:
  std::mt19937_64 random_;
  std::size_t next_id_ = 0;
  std::vector<std::string> used_ids_;
};

// What an estimate or a trim gave: a number (the estimate, or where the kept
// suffix starts and how long it is) or its ContextError.
struct Outcome {
  std::uint64_t first = 0, second = 0;
  std::string error;  // "kind K index I: what()"
  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Outcome& o) {
  return o.error.empty() ? out << o.first << "/" << o.second : out << o.error;
}

template <class F>
Outcome outcome_of(F&& f) {
  try {
    return f();
  } catch (const ContextError& error) {
    return {0, 0,
            "kind " + std::to_string(static_cast<int>(error.kind())) + " index " +
                (error.message_index() ? std::to_string(*error.message_index()) : "none") + ": " + error.what()};
  }
}

Outcome estimate_by(std::uint64_t (*estimate)(std::span<const Message>), std::span<const Message> messages) {
  return outcome_of([&] { return Outcome{estimate(messages), 0, ""}; });
}

Outcome trim_by(std::span<const Message> (*trim)(std::span<const Message>, std::uint64_t),
                std::span<const Message> messages, std::uint64_t budget) {
  return outcome_of([&] {
    const std::span<const Message> kept = trim(messages, budget);
    return Outcome{static_cast<std::uint64_t>(kept.data() - messages.data()), kept.size(), ""};
  });
}

// A sink that prints, as the reference does.
struct PrintingSink {
  std::string& out;
  void ascii(std::string_view text) { out.append(text); }
  void utf8(std::string_view text) { out.append(text); }
  void string(std::string_view text) { reference::append_json_string(out, text); }
};

// A line, or "SerializationError: " and its text.
template <class Print>
std::string printed_by(Print&& print) {
  std::string out;
  try {
    print(out);
  } catch (const SerializationError& error) {
    return std::string("SerializationError: ") + error.what();
  }
  return out;
}

// The fast writer's keys, their text and their order, against the
// reference's line (SPEC.md §3). The counting sink sees only lengths: a
// key written otherwise, or in another order, would leave the estimate
// right and go unseen by the tests below.
TEST(MessageSink, PrintsTheReferencesLineOrThrowsItsError) {
  Histories histories(5);
  std::size_t failures = 0;
  for (int round = 0; round < 40; ++round) {
    for (const Message& message : histories.history(60, 8)) {
      const std::string expected =
          printed_by([&](std::string& out) { reference::append_canonical_line(out, message); });
      if (expected.starts_with("SerializationError")) ++failures;
      ASSERT_EQ(printed_by([&](std::string& out) {
                  PrintingSink sink{out};
                  write_message(sink, message);
                }),
                expected);
    }
  }
  EXPECT_GT(failures, 50u) << "messages that cannot be printed are among them";
}

// fast::measure against printing and counting, message by message:
// property 15 (tests/properties/estimate_properties_test.cpp).

TEST(EstimateContextChars, GivesTheReferencesNumberOrError) {
  Histories histories(2);
  for (int round = 0; round < 300; ++round) {
    const auto messages = histories.history(histories.below(round % 30 == 0 ? 3000 : 60), round % 3 == 0 ? 0 : 25);
    ASSERT_EQ(estimate_by(estimate_context_chars, messages), estimate_by(reference::estimate_context_chars, messages))
        << round << ": " << messages.size() << " messages";
  }
}

// Budgets at every point where the answer may change: each suffix's
// estimate and one less, none, everything, and random ones.
TEST(TrimContext, KeepsWhatTheReferenceKeepsOrThrowsItsError) {
  Histories histories(3);
  for (int round = 0; round < 200; ++round) {
    // Now and then longer than the fast trim's largest block (4096).
    const std::size_t size = round % 50 == 0 ? 4000 + histories.below(6000) : histories.below(80);
    const auto messages = histories.history(size, round % 2 == 0 ? 0 : 60);
    std::vector<std::uint64_t> budgets = {0, 1, std::numeric_limits<std::uint64_t>::max()};
    std::uint64_t suffix = 0;
    const std::size_t most = size > 1000 ? 12 : 40;  // a long history's budgets each cost the whole reference trim
    for (std::size_t i = messages.size(); i-- > 0 && budgets.size() < most;) {
      try {
        suffix += base::utf16_length(to_canonical_json(messages[i])) + 1;
      } catch (const SerializationError&) {
        break;
      }
      budgets.push_back(suffix);
      budgets.push_back(suffix - 1);
      budgets.push_back(suffix + histories.below(50));
    }
    for (const std::uint64_t budget : budgets) {
      ASSERT_EQ(trim_by(trim_context, messages, budget), trim_by(reference::trim_context, messages, budget))
          << round << ": " << messages.size() << " messages, budget " << budget;
    }
  }
}

// A tool result whose declaring assistant is far back (past the few
// messages the fast trim looks back first), and one that is an orphan.
TEST(TrimContext, FindsDeclaringAssistantsFarBack) {
  for (const std::size_t gap : {1u, 15u, 16u, 17u, 100u, 5000u}) {
    std::vector<Message> messages = {UserMessage{"start"}, AssistantMessage{"", {ToolCall{"far", "f", Json(nullptr)}}}};
    for (std::size_t i = 0; i < gap; ++i) messages.push_back(UserMessage{"filler " + std::to_string(i)});
    messages.push_back(ToolResultMessage{"late", "far", false});
    messages.push_back(ToolResultMessage{"lost", "nobody", true});
    const std::uint64_t total = reference::estimate_context_chars(messages);
    for (const std::uint64_t budget : {total, total - 1, total / 2, std::uint64_t{200}, std::uint64_t{60}}) {
      ASSERT_EQ(trim_by(trim_context, messages, budget), trim_by(reference::trim_context, messages, budget))
          << "gap " << gap << ", budget " << budget;
    }
  }
}

// An id declared twice: the result's declaring assistant is the nearest
// earlier one, so the unit starts there, not at the first declaration.
TEST(TrimContext, TheNearestDeclarationOfARepeatedIdCounts) {
  for (const std::size_t gap : {0u, 3u, 20u}) {
    std::vector<Message> messages = {AssistantMessage{"first", {ToolCall{"x", "f", Json(nullptr)}}}};
    for (std::size_t i = 0; i < gap; ++i) messages.push_back(UserMessage{"between " + std::to_string(i)});
    messages.push_back(AssistantMessage{"again", {ToolCall{"x", "f", Json(nullptr)}}});
    messages.push_back(ToolResultMessage{"result", "x", false});
    const std::uint64_t last_two = reference::estimate_context_chars(std::span<const Message>(messages).last(2));
    for (const std::uint64_t budget : {last_two, last_two + 20, reference::estimate_context_chars(messages)}) {
      const Outcome expected = trim_by(reference::trim_context, messages, budget);
      ASSERT_EQ(trim_by(trim_context, messages, budget), expected) << "gap " << gap << ", budget " << budget;
    }
    EXPECT_EQ(trim_by(reference::trim_context, messages, last_two), (Outcome{messages.size() - 2, 2, ""}));
  }
}

}  // namespace
}  // namespace agent_session::fast
