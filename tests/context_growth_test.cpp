// What a request's context costs while a session grows, counted, never
// timed (like json_growth_test): reference::work_counters() counts the
// messages measured (SPEC.md §4) and the steps spent finding declaring
// assistants (SPEC.md §5.1), in whichever build this is.
// - Session::context (session_object.hpp) costs what its packing reaches
//   (SPEC.md §5.2): the kept suffix and the unit before it, whatever the
//   history's length and shape: many calls per turn (16 were found near
//   the assistant, 17 sent the fast trim over the whole history on every
//   request), interleaved rounds, pending calls, orphans, repeated ids.
// - run_agent's report for `--verbose` (agent.hpp, RequestReport) costs
//   what the request adds and sends, not the stored history.
// bench/session_turns_benchmarks.cpp (session_turns/...) times the first.
#include "agent_session/agent.hpp"
#include "agent_session/context.hpp"
#include "agent_session/session_object.hpp"

#include "reference/units.hpp"
#include "support/message_builders.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace agent_session {
namespace {

using test_support::answer;
using test_support::call;
using test_support::calling;
using test_support::result;
using test_support::user;

std::uint64_t work() {
  const reference::WorkCounters& counters = reference::work_counters();
  return counters.measured + counters.declarer_steps;
}

// ---------------------------------------------------------------------------
// The shapes: the messages of turn t, as an agent appends them. In every
// shape a unit spans at most `unit_turns` consecutive turns.

struct Shape {
  const char* name;
  std::function<std::vector<Message>(std::size_t t)> turn;
  std::size_t unit_turns = 1;  // the most turns one unit spans
};

void PrintTo(const Shape& shape, std::ostream* out) { *out << shape.name; }

// Turns enough for about 8,000 messages, 40 at least, so that the last
// request sees ten times the history of the tenth.
std::size_t turns_of(const Shape& shape) { return std::max<std::size_t>(40, 8000 / shape.turn(0).size()); }

std::string id(std::size_t t, std::size_t i) { return "t" + std::to_string(t) + "." + std::to_string(i); }

// A user prompt, an assistant calling `calls` tools, their results in
// order, the answer.
std::vector<Message> calls_turn(std::size_t t, std::size_t calls) {
  std::vector<ToolCall> declared;
  for (std::size_t i = 0; i < calls; ++i) declared.push_back(call(id(t, i), "read_file", {{"path", "f"}}));
  std::vector<Message> turn{user("question " + std::to_string(t)), calling(std::move(declared))};
  for (std::size_t i = 0; i < calls; ++i) turn.push_back(result("contents", id(t, i)));
  turn.push_back(answer("answer " + std::to_string(t)));
  return turn;
}

Shape calls_per_turn(const char* name, std::size_t calls) {
  return {name, [calls](std::size_t t) { return calls_turn(t, calls); }};
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> all = {
      calls_per_turn("1_call_per_turn", 1),
      calls_per_turn("16_calls_per_turn", 16),
      calls_per_turn("17_calls_per_turn", 17),
      calls_per_turn("100_calls_per_turn", 100),
      calls_per_turn("1000_calls_per_turn", 1000),
      // Three assistants whose 4 calls each are answered round-robin (a0
      // b0 c0 a1 b1 c1 ...): one closed unit per turn (SPEC.md §5.1).
      {"interleaved_rounds",
       [](std::size_t t) {
         std::vector<Message> turn{user("go")};
         for (std::size_t a = 0; a < 3; ++a) {
           std::vector<ToolCall> declared;
           for (std::size_t i = 0; i < 4; ++i) declared.push_back(call(id(t, a * 100 + i), "grep"));
           turn.push_back(calling(std::move(declared)));
         }
         for (std::size_t i = 0; i < 4; ++i) {
           for (std::size_t a = 0; a < 3; ++a) turn.push_back(result("hit", id(t, a * 100 + i)));
         }
         return turn;
       }},
      // Every other turn postpones its last result past the next turn's
      // assistant: units of two turns.
      {"interleaved_across_turns",
       [](std::size_t t) {
         std::vector<ToolCall> declared;
         for (std::size_t i = 0; i < 4; ++i) declared.push_back(call(id(t, i), "grep"));
         std::vector<Message> turn{user("go"), calling(std::move(declared))};
         if (t % 2 == 1) turn.push_back(result("late", id(t - 1, 3)));
         for (std::size_t i = 0; i + (t % 2 == 0 ? 1 : 0) < 4; ++i) turn.push_back(result("hit", id(t, i)));
         return turn;
       },
       2},
      // 6 calls, 4 answered; the turn ends with an assistant whose calls
      // have no results (a run stopped by --max-turns).
      {"pending_calls",
       [](std::size_t t) {
         std::vector<ToolCall> declared;
         for (std::size_t i = 0; i < 6; ++i) declared.push_back(call(id(t, i), "read_file"));
         std::vector<Message> turn{user("go"), calling(std::move(declared))};
         for (std::size_t i = 0; i < 4; ++i) turn.push_back(result("text", id(t, i)));
         turn.push_back(calling({call(id(t, 99), "read_file"), call(id(t, 98), "echo")}));
         return turn;
       }},
      // 4 answered calls among orphans: ids never declared, and one
      // declared only in the next turn (a result before its declaration).
      {"orphan_results",
       [](std::size_t t) {
         std::vector<ToolCall> declared;
         for (std::size_t i = 0; i < 4; ++i) declared.push_back(call(id(t, i), "read_file"));
         std::vector<Message> turn{user("go"), result("early", id(t + 1, 0)), calling(std::move(declared))};
         for (std::size_t i = 0; i < 4; ++i) {
           turn.push_back(result("text", id(t, i)));
           turn.push_back(result("ghost", "never-" + std::to_string(t) + "-" + std::to_string(i)));
         }
         return turn;
       }},
      // The same 4 ids in every turn, one of them declared twice in the
      // same assistant: each result's declaring assistant is its turn's,
      // the nearest (SPEC.md §5.1), never an older one.
      {"repeated_ids",
       [](std::size_t) {
         std::vector<ToolCall> declared;
         for (std::size_t i = 0; i < 4; ++i) declared.push_back(call("call_" + std::to_string(i), "read_file"));
         declared.push_back(call("call_0", "echo"));
         std::vector<Message> turn{user("go"), calling(std::move(declared))};
         for (std::size_t i = 0; i < 4; ++i) turn.push_back(result("text", "call_" + std::to_string(i)));
         turn.push_back(result("again", "call_0"));
         return turn;
       }},
  };
  return all;
}

// ---------------------------------------------------------------------------
// Session::context: append a turn, take the context at a fixed budget,
// again and again.

struct Request {
  std::uint64_t work;     // of the context call alone
  std::size_t reachable;  // the messages it may reach: what it kept, and the next older unit at most
  std::size_t history;
};

class ContextGrowth : public ::testing::TestWithParam<Shape> {};

TEST_P(ContextGrowth, EachRequestCostsWhatItReachesNotTheHistory) {
  const Shape& shape = GetParam();
  // Room for about three of the largest units: they always fit, and the
  // history soon outgrows the budget.
  const std::size_t turns = turns_of(shape);
  std::vector<Message> sample;
  for (std::size_t t = 0; t < 2 * shape.unit_turns; ++t) {
    for (Message& message : shape.turn(turns + t)) sample.push_back(std::move(message));
  }
  const std::uint64_t budget = estimate_context_chars(sample) * 3 / 2;
  const std::size_t largest_unit = sample.size() / 2;

  Session session;
  std::vector<Request> requests;
  std::uint64_t append_work = 0;
  for (std::size_t t = 0; t < turns; ++t) {
    const std::uint64_t before_append = work();
    for (Message& message : shape.turn(t)) session.append(std::move(message));
    append_work += work() - before_append;
    const std::uint64_t before = work();
    const Session::Context sent = session.context(budget);
    requests.push_back({work() - before, sent.size() + largest_unit, session.size()});
  }
  EXPECT_EQ(session.context(budget).size(), trim_context(session.messages(), budget).size());

  // Linear in what it reaches: each message reached is measured once and
  // its declaring assistant looked up once; the fast path also measures
  // ahead of its walk, at most as many messages again plus its first block
  // of 16 (block_walk.cpp).
  const auto over =
      std::find_if(requests.begin(), requests.end(), [](const Request& r) { return r.work > 3 * r.reachable + 16; });
  EXPECT_EQ(over, requests.end()) << "first at request " << over - requests.begin() + 1 << ", history " << over->history
                                  << " messages: " << over->work << " steps for at most " << over->reachable
                                  << " messages reached";
  // So flat: the last request, over ten times the history, costs what the
  // tenth did.
  const Request& tenth = requests[requests.size() / 10];
  const Request& last = requests.back();
  EXPECT_LE(last.work, 2 * tenth.work + 16) << "history " << tenth.history << " messages: " << tenth.work << " steps; "
                                            << last.history << " messages: " << last.work;
  // Appending keeps the declarer index, one step per call and per result,
  // and the history's estimate, one message measured.
  EXPECT_LE(append_work, 3 * session.size()) << append_work << " steps to append " << session.size() << " messages";
}

// Found by a fresh-eyes attack: with a budget the whole history fits in
// (a generous budget, or any session while it is young), every request
// walked the whole history, so a run cost the square of its turns.
// Everything fits, so nothing is walked: each request costs the same.
TEST_P(ContextGrowth, ABudgetTheWholeHistoryFitsInCostsNothingPerRequest) {
  const Shape& shape = GetParam();
  const std::size_t turns = turns_of(shape);
  Session session;
  std::uint64_t context_work = 0;
  for (std::size_t t = 0; t < turns; ++t) {
    for (Message& message : shape.turn(t)) session.append(std::move(message));
    const std::uint64_t before = work();
    const Session::Context sent = session.context(std::uint64_t{1} << 50);
    context_work += work() - before;
    ASSERT_EQ(sent.size(), session.size());
  }
  EXPECT_LE(context_work, 16 * turns) << context_work << " steps for " << turns << " requests over " << session.size()
                                      << " messages";
  EXPECT_EQ(session.context(estimate_context_chars(session.messages())).size(), session.size())
      << "a budget of exactly the history keeps it all";
  EXPECT_LT(session.context(estimate_context_chars(session.messages()) - 1).size(), session.size())
      << "one less does not";
}

INSTANTIATE_TEST_SUITE_P(Shapes, ContextGrowth, ::testing::ValuesIn(shapes()),
                         [](const ::testing::TestParamInfo<Shape>& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------
// run_agent's RequestReport (--verbose): the stored history's characters
// are a sum per message (SPEC.md §4), so a request's report costs what the
// request adds and what it sends, not the history.

// Calls echo `turns` times, one call per reply, then answers.
class EchoingModel : public ModelClient {
 public:
  explicit EchoingModel(std::size_t turns) : turns_(turns) {}
  AssistantMessage next_message(std::span<const Message>, std::span<const ToolSpec>) override {
    if (replies_ == turns_) return answer("done");
    ++replies_;
    return calling({call("c" + std::to_string(replies_), "echo", {{"text", "echoed"}})});
  }

 private:
  std::size_t turns_;
  std::size_t replies_ = 0;
};

class ReportGrowth : public ::testing::TestWithParam<std::optional<std::uint64_t>> {};

TEST_P(ReportGrowth, EachRequestCostsWhatItAddsAndSendsNotTheHistory) {
  constexpr std::size_t kTurns = 2000;
  EchoingModel model(kTurns);
  std::map<std::string, Tool> tools;
  tools["echo"] = {"returns input.text", [](const Json& input) { return input.at("text").get<std::string>(); }};
  std::vector<std::uint64_t> work_at;  // when each report arrives
  std::vector<RequestReport> reports;
  const AgentResult run = run_agent({.prompt = "go",
                                     .client = model,
                                     .tools = tools,
                                     .context_max_chars = GetParam(),
                                     .max_turns = kTurns + 1,
                                     .on_request = [&](const RequestReport& report) {
                                       work_at.push_back(work());
                                       reports.push_back(report);
                                     }});
  ASSERT_EQ(reports.size(), kTurns + 1);
  // The work from one report to the next is one request's: its appends,
  // its context, its report. Request 200 stores 400 messages, the last
  // 4,000: it costs no more for that.
  const std::uint64_t tenth = work_at[200] - work_at[199];
  const std::uint64_t last = work_at[kTurns] - work_at[kTurns - 1];
  EXPECT_LE(last, 2 * tenth + 16) << "request 200 (" << reports[199].stored_messages << " messages stored): " << tenth
                                  << " steps; request " << kTurns + 1 << " (" << reports[kTurns].stored_messages
                                  << "): " << last;
  // And the totals kept are the estimates.
  for (std::size_t r = 0; r < reports.size(); r += 100) {
    const std::span<const Message> stored(run.messages.data(), reports[r].stored_messages);
    ASSERT_EQ(reports[r].stored_chars, estimate_context_chars(stored)) << "request " << r + 1;
    ASSERT_EQ(reports[r].sent_chars, estimate_context_chars(stored.last(reports[r].sent_messages)))
        << "request " << r + 1;
  }
}

INSTANTIATE_TEST_SUITE_P(Budgets, ReportGrowth, ::testing::Values(std::nullopt, std::uint64_t{2000}),
                         [](const ::testing::TestParamInfo<std::optional<std::uint64_t>>& info) {
                           return info.param ? "budget_" + std::to_string(*info.param) : std::string("no_budget");
                         });

}  // namespace
}  // namespace agent_session
