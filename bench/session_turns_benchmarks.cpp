// session_turns/<k>_calls/<turns>/budget:4000: what an agent's requests
// cost over a whole run, as `agent-session run --max-chars 4000` makes
// them, without its file: an in-memory Session grown turn by turn (the
// prompt, then per turn an assistant calling k tools and their k results)
// and its context cut at a fixed budget before each request. A run whose
// contexts cost what they reach costs the same per turn at 1,000 and
// 4,000 turns; one that searches the history per request grows with it.
// tests/context_growth_test.cpp counts the same work without a clock.
#include "bench_support.hpp"

#include "agent_session/context.hpp"
#include "agent_session/session_object.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace agent_session::bench {
namespace {

constexpr std::uint64_t kBudget = 4000;

// Turn t's assistant and results, as the demo's echo tool would answer.
std::vector<Message> turn(std::size_t t, std::size_t calls) {
  std::vector<ToolCall> declared;
  for (std::size_t i = 0; i < calls; ++i) {
    declared.push_back(ToolCall{"t" + std::to_string(t) + "." + std::to_string(i), "echo", Json{{"text", "x"}}});
  }
  std::vector<Message> messages{AssistantMessage{"", declared}};
  for (const ToolCall& call : declared) messages.push_back(ToolResultMessage{"x", call.id, false});
  return messages;
}

void session_turns(benchmark::State& state, std::size_t calls, std::size_t turns) {
  std::vector<std::vector<Message>> script;
  for (std::size_t t = 0; t < turns; ++t) script.push_back(turn(t, calls));
  std::size_t kept = 0;
  bool right = true;
  for (auto _ : state) {
    state.PauseTiming();  // the copies the run appends are made outside the clock
    std::vector<std::vector<Message>> run = script;
    Session session;
    state.ResumeTiming();
    session.append(UserMessage{"go"});
    for (std::vector<Message>& messages : run) {
      kept = session.context(kBudget).size();  // the request before this turn's reply
      benchmark::DoNotOptimize(kept);
      for (Message& message : messages) session.append(std::move(message));
    }
    kept = session.context(kBudget).size();
    state.PauseTiming();
    right = right && kept == trim_context(session.messages(), kBudget).size();
    state.ResumeTiming();
  }
  if (!right) return wrong_answer(state, "the session's context is not trim_context's");
  state.counters["kept"] = static_cast<double>(kept);
  state.counters["per_turn"] = benchmark::Counter(
      static_cast<double>(turns), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace

void register_session_turns_benchmarks() {
  for (const std::size_t calls : {1, 16, 17, 32}) {  // 32 results and their assistant fit in 4,000 characters
    for (const std::size_t turns : {4000, 1000}) {
      const std::string name = "session_turns/" + std::to_string(calls) + "_calls/" + std::to_string(turns) +
                               "/budget:" + std::to_string(kBudget);
      benchmark::RegisterBenchmark(name.c_str(), session_turns, calls, turns)->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace agent_session::bench
