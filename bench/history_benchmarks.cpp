// The suite's workloads on the generated histories (history_generator):
// estimate, serialize, trim (a fixed budget and an unlimited one), load
// from a file and from memory, and a runtime's append-then-trim step.
// Each checks its own answer (bench_support.hpp).
#include "bench_support.hpp"
#include "support/counting_allocator.hpp"
#include "support/history_generator.hpp"

#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "agent_session/session_object.hpp"
#include "base/utf8.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace agent_session::bench {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kFixedBudget = 200'000;  // UTF-16 code units: bench/RESULTS.md's targets
constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

fs::path history_dir;

// The history of `count` messages, as load_session builds it from its
// file: the way an agent has its history, and the way the JavaScript side
// has it (JSON.parse of each line), with each message's strings allocated
// together. A history built by the generator's appends has its strings
// scattered over the heap instead, and estimating it measures cache misses
// more than the estimator (bench/RESULTS.md).
// Histories are prefixes of one stream, and the suite runs each profile's
// sizes from the largest down, so one history serves every size of its
// profile.
std::span<const Message> history(Profile profile, std::size_t count) {
  static std::optional<Profile> cached_profile;
  static std::vector<Message> cached;
  if (cached_profile != profile || cached.size() < count) {
    cached = {};  // free the old history before building the next one
    cached = load_session_from_memory(to_canonical_jsonl(generate_history(profile, count)));
    cached_profile = profile;
  }
  return std::span<const Message>(cached).first(count);
}

using Counter = benchmark::Counter;

void per_message_counters(benchmark::State& state, std::size_t messages) {
  state.counters["messages"] = static_cast<double>(messages);
  // Seconds per message, averaged over iterations: the linearity check.
  state.counters["time_per_message"] =
      Counter(static_cast<double>(messages), Counter::kIsIterationInvariantRate | Counter::kInvert);
}

void estimate(benchmark::State& state, Profile profile, std::size_t count) {
  const auto messages = history(profile, count);
  const std::string jsonl = to_canonical_jsonl(messages);
  const std::uint64_t expected = base::utf16_length(jsonl);  // the plain count of SPEC.md §4
  std::uint64_t chars = 0;
  const std::uint64_t allocations_before = heap_counters().allocations;
  for (auto _ : state) {
    chars = estimate_context_chars(messages);
    benchmark::DoNotOptimize(chars);
  }
  const std::uint64_t allocations = heap_counters().allocations - allocations_before;
  if (chars != expected) {
    return wrong_answer(state, "estimate " + std::to_string(chars) + " != " + std::to_string(expected));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * jsonl.size()));
  state.counters["utf16_units/s"] = Counter(static_cast<double>(chars), Counter::kIsIterationInvariantRate);
  state.counters["allocs/iter"] = Counter(static_cast<double>(allocations), Counter::kAvgIterations);
  state.counters["chars"] = static_cast<double>(chars);
  per_message_counters(state, count);
}

void serialize(benchmark::State& state, Profile profile, std::size_t count) {
  const auto messages = history(profile, count);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string jsonl = to_canonical_jsonl(messages);
    bytes = jsonl.size();
    benchmark::DoNotOptimize(jsonl.data());
  }
  // The round trip is checked on small histories only: it costs more than
  // the measurement on large ones.
  if (count <= 10'000 && load_session_from_memory(to_canonical_jsonl(messages)) !=
                             std::vector<Message>(messages.begin(), messages.end())) {
    return wrong_answer(state, "the canonical text does not load back as the history");
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  per_message_counters(state, count);
}

void trim(benchmark::State& state, Profile profile, std::size_t count, std::uint64_t budget) {
  const auto messages = history(profile, count);
  std::size_t kept = 0;
  for (auto _ : state) {
    const std::span<const Message> sent = trim_context(messages, budget);
    kept = sent.size();
    benchmark::DoNotOptimize(sent.data());
  }
  const auto suffix = messages.last(kept);
  if (kept == 0 || estimate_context_chars(suffix) > budget || (budget == kUnlimited && kept != count)) {
    return wrong_answer(state, "trim kept " + std::to_string(kept) + " messages that do not fit");
  }
  state.counters["kept"] = static_cast<double>(kept);
  per_message_counters(state, count);
}

// A runtime's step (session_object.hpp): append one message to an open
// session of `count` messages, then cut the next request's context. Per
// append it costs what the message costs (a write, a trim that stops at
// the budget), not the history: no reload, no copy. The appends continue
// the profile's stream (from a user message when it wraps).
void session_append_and_trim(benchmark::State& state, Profile profile, std::size_t count, std::uint64_t budget) {
  const fs::path file = history_dir / ("append-" + std::to_string(count) + ".jsonl");
  fs::copy_file(history_file(history_dir, profile, count), file, fs::copy_options::overwrite_existing);
  const std::vector<Message> stream = generate_history(profile, count + 4096);
  std::size_t wrap = count;
  while (!std::holds_alternative<UserMessage>(stream[wrap])) ++wrap;
  Session session = Session::open(file);
  std::size_t next = count;
  for (auto _ : state) {
    session.append(stream[next]);
    next = next + 1 < stream.size() ? next + 1 : wrap;
    benchmark::DoNotOptimize(session.context(budget).messages().data());
  }
  const std::span<const Message> kept = trim_context(session.messages(), budget);
  if (session.size() - count != static_cast<std::size_t>(state.iterations()) ||
      load_session(file).size() != session.size() || session.context(budget).messages().data() != kept.data()) {
    return wrong_answer(state, "the session's memory, file and context disagree");
  }
  fs::remove(file);
  state.counters["kept"] = static_cast<double>(kept.size());
}

// Loads from the file (`from_memory` false) or from its bytes in memory.
// Reports the heap's high-water mark during one load as a multiple of the
// file size (the file's bytes themselves included).
void load(benchmark::State& state, Profile profile, std::size_t count, bool from_memory) {
  const fs::path path = history_file(history_dir, profile, count);
  std::string bytes;
  if (from_memory) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    bytes = std::move(text).str();
  }
  const auto file_size = static_cast<std::size_t>(fs::file_size(path));
  std::size_t loaded = 0;
  std::size_t peak = 0;
  for (auto _ : state) {
    const std::size_t live_before = heap_counters().live_bytes;
    reset_heap_peak();
    std::vector<Message> messages = from_memory ? load_session_from_memory(bytes) : load_session(path);
    peak = std::max(peak, heap_counters().peak_bytes - live_before);
    loaded = messages.size();
    benchmark::DoNotOptimize(messages.data());
    state.PauseTiming();  // as in JavaScript, where freeing is the collector's, later
    messages = {};
    state.ResumeTiming();
  }
  if (loaded != count) return wrong_answer(state, "loaded " + std::to_string(loaded) + " messages");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * file_size));
  state.counters["file_MB"] = static_cast<double>(file_size) / 1e6;
  state.counters["peak_heap/file"] =
      static_cast<double>(peak + (from_memory ? file_size : 0)) / static_cast<double>(file_size);
  per_message_counters(state, count);
}

std::string name(std::string_view workload, Profile profile, std::size_t count) {
  return std::string(workload) + "/" + std::string(profile_name(profile)) + "/" + std::to_string(count);
}

}  // namespace

void register_history_benchmarks(const fs::path& dir) {
  history_dir = dir;
  for (const Profile profile : kProfiles) {
    for (const std::size_t count : kSizes) {
      // 40k is the JavaScript comparison's trim size only.
      const bool all_workloads = count != 40'000;
      if (all_workloads) {
        benchmark::RegisterBenchmark(name("estimate", profile, count).c_str(), estimate, profile, count);
        benchmark::RegisterBenchmark(name("serialize", profile, count).c_str(), serialize, profile, count);
      }
      benchmark::RegisterBenchmark((name("trim", profile, count) + "/budget:" + std::to_string(kFixedBudget)).c_str(),
                                   trim, profile, count, kFixedBudget);
      benchmark::RegisterBenchmark((name("trim", profile, count) + "/budget:unlimited").c_str(), trim, profile, count,
                                   kUnlimited);
      if (all_workloads) {
        benchmark::RegisterBenchmark(name("load", profile, count).c_str(), load, profile, count, false);
        benchmark::RegisterBenchmark(name("load_from_memory", profile, count).c_str(), load, profile, count, true);
      }
    }
  }
  for (const std::size_t count : {1'000, 10'000, 100'000}) {  // 20k characters: less than even 1k messages hold
    const std::string bench = name("session_append_and_trim", Profile::ascii_prose, count) + "/budget:20000";
    benchmark::RegisterBenchmark(bench.c_str(), session_append_and_trim, Profile::ascii_prose, count, 20'000);
  }
}

}  // namespace agent_session::bench
