// The Google Benchmark suite: the estimator, trimming, loading and the
// canonical serialization on deterministic histories (history_generator)
// of 1k to 1M messages, one content profile at a time.
//
// Names: <workload>/<profile>/<messages>[/budget:<max_chars>], e.g.
//   estimate/cjk/100000   trim/ascii/40000/budget:unlimited   load/numbers/1000000
//   session_append_and_trim/ascii/100000/budget:20000
//
// Extra flags (before Google Benchmark's own):
//   --history_dir=DIR      where load benchmarks find (or write) the JSONL files;
//                          default: a fresh directory under the system temp dir
//   --write_histories=DIR  write every history file the suite uses, then exit
//                          (bench/compare-js feeds the same files to Node.js);
//   --history_sizes=N,M    with it: only these sizes
//
// Every benchmark checks its own answer (the estimate equals the UTF-16
// length of the canonical JSONL text, a load returns the history, ...); a
// wrong answer fails the run with exit status 1, so the ctest smoke run
// catches an optimization that changes answers, not only one that crashes.
#include "counting_allocator.hpp"
#include "history_generator.hpp"

#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "agent_session/session_object.hpp"
#include "internal/utf8.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace agent_session::bench {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kSizes[] = {1'000'000, 100'000, 40'000, 10'000, 1'000};  // largest first: see history()
constexpr std::uint64_t kFixedBudget = 200'000;  // UTF-16 code units, as in issue 6
constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

fs::path history_dir;
bool answers_wrong = false;

// The history of `count` messages, as load_session builds it from its
// file: the way an agent has its history, and the way the JavaScript side
// has it (JSON.parse of each line), with each message's strings allocated
// together. A history built by the generator's appends has its strings
// scattered over the heap instead, and estimating it measures cache misses
// more than the estimator (2.5x slower on cjk at 100k messages).
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

// UTF-16 code units of valid UTF-8 text, counted the plain way, one byte at
// a time, independent of the library's fast paths it checks.
std::uint64_t plain_utf16_length(std::string_view text) {
  std::uint64_t units = 0;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c & 0xC0) != 0x80) ++units;
    if (c >= 0xF0) ++units;
  }
  return units;
}

void wrong_answer(benchmark::State& state, const std::string& why) {
  answers_wrong = true;
  state.SkipWithError(why.c_str());
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
  const std::uint64_t expected = plain_utf16_length(jsonl);
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
  if (count <= 10'000 &&
      load_session_from_memory(to_canonical_jsonl(messages)) != std::vector<Message>(messages.begin(), messages.end())) {
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
  state.counters["peak_heap/file"] = static_cast<double>(peak + (from_memory ? file_size : 0)) /
                                     static_cast<double>(file_size);
  per_message_counters(state, count);
}

// Growth by input shape (linear loading, SPEC.md §2): one message whose tool input is an
// object of n keys, or a value of about 10 n bytes, n = 1k, 10k, 100k; a
// linear load keeps its bytes/s from n to 10n. `nlohmann_` shapes carry a
// 25-digit integer that the fast path declines, so parse_json_line reads
// the whole line. tests/json_growth_test counts the same growth.
//   load_shape/<shape>/<n>
std::string shape_input(std::string_view shape, std::size_t n) {
  if (shape == "long_string") return '"' + std::string(10 * n, 'x') + '"';
  if (shape == "long_number") return "0." + std::string(10 * n, '7');
  if (shape == "many_small_arrays" || shape == "deep_nesting") {
    const std::string piece = shape == "deep_nesting" ? std::string(500, '[') + std::string(500, ']') : "[]";
    std::string text = "[";
    for (std::size_t i = 0; i < (shape == "deep_nesting" ? n / 100 : 3 * n); ++i) text += (i > 0 ? "," : "") + piece;
    return text + "]";
  }
  std::string text = "{";
  for (std::size_t i = 0; i < n; ++i) {
    std::string key = shape.ends_with("one_key_repeated") ? "k"
                      : shape.ends_with("index_keys_descending") ? std::to_string(n - 1 - i)
                                                                 : "k" + std::to_string(i);
    if (shape.ends_with("then_an_index_key") && i + 1 == n) key = "7";
    text += (i > 0 ? ",\"" : "\"") + key + "\":" + std::to_string(i);
  }
  return text + "}";
}

void load_shape(benchmark::State& state, std::string_view shape, std::size_t n) {
  const std::string input = shape_input(shape, n);
  const std::string line = std::string("{") + (shape.starts_with("nlohmann_") ? "\"big\":1234567890123456789012345," : "") +
                           R"("role":"assistant","content":"","toolCalls":[{"id":"a","name":"b","input":)" + input +
                           "}]}\n";
  std::size_t input_size = 0;
  for (auto _ : state) {
    const std::vector<Message> messages = load_session_from_memory(line);
    input_size = std::get<AssistantMessage>(messages.at(0)).tool_calls.at(0).input.canonical_json()->size();
    benchmark::DoNotOptimize(messages.data());
  }
  // Canonical printing keeps every input's size but for merged keys and digits past a double's.
  if (shape != "long_number" && !shape.ends_with("one_key_repeated") && input_size != input.size()) {
    return wrong_answer(state, "the input's canonical text has " + std::to_string(input_size) + " bytes");
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * line.size()));
}

void register_shape_benchmarks() {
  for (const char* shape : {"distinct_keys", "distinct_keys_then_an_index_key", "one_key_repeated",
                            "index_keys_descending", "nlohmann_distinct_keys", "nlohmann_one_key_repeated",
                            "long_string", "long_number", "many_small_arrays", "deep_nesting"}) {
    for (const std::size_t n : {1'000, 10'000, 100'000}) {
      const std::string name = "load_shape/" + std::string(shape) + "/" + std::to_string(n);
      benchmark::RegisterBenchmark(name.c_str(), load_shape, std::string_view(shape), n);
    }
  }
}

// The estimator's string kernels alone (internal/utf8.hpp), one kernel at
// a time, on one string of a profile (whole characters: up to 3 bytes over
// the size in the name): GB/s of input bytes.
//   json_string_units/<kernel>/<profile>/<bytes>   utf16_length/<kernel>/<profile>/<bytes>
std::string kernel_text(Profile profile, std::size_t bytes) {
  std::string out;
  const auto append = [&](char32_t c) {  // UTF-8 of c
    if (c < 0x80) return out.push_back(static_cast<char>(c));
    const int tail = c < 0x800 ? 1 : c < 0x10000 ? 2 : 3;
    out.push_back(static_cast<char>((0xF0 << (3 - tail)) | (c >> (6 * tail))));
    for (int k = tail - 1; k >= 0; --k) out.push_back(static_cast<char>(0x80 | ((c >> (6 * k)) & 0x3F)));
  };
  for (std::uint32_t i = 0; out.size() < bytes; ++i) {
    const std::uint32_t r = i * 2654435761U >> 8;
    if (profile == Profile::cjk) append(i % 16 == 15 ? U'\uFF0C' : 0x4E00 + r % 0x51A6);
    if (profile == Profile::emoji) append(i % 3 == 0 ? U' ' : 0x1F300 + r % 0x300);
    if (profile == Profile::ascii_prose) append(i % 6 == 5 ? U' ' : U'a' + r % 26);
  }
  return out;
}

void string_kernel(benchmark::State& state, bool json, internal::Utf8Kernel kernel, Profile profile, std::size_t bytes) {
  if (!internal::kernel_supported(kernel)) return state.SkipWithError("this CPU cannot run this kernel");
  const std::string text = kernel_text(profile, bytes);
  const auto run = [&](internal::Utf8Kernel k) {
    return json ? internal::json_string_units_with(k, text) : internal::utf16_length_with(k, text) + 2;
  };
  std::optional<std::uint64_t> units;
  for (auto _ : state) {
    units = run(kernel);
    benchmark::DoNotOptimize(units);
  }
  if (units != run(internal::Utf8Kernel::scalar) || units != plain_utf16_length(text) + 2) {
    return wrong_answer(state, "the " + std::string(internal::kernel_name(kernel)) + " kernel counts differently");
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void register_string_kernel_benchmarks() {
  for (const bool json : {true, false}) {
    for (const internal::Utf8Kernel kernel : internal::kUtf8Kernels) {
      for (const Profile profile : {Profile::ascii_prose, Profile::cjk, Profile::emoji}) {
        for (const std::size_t bytes : {16, 1024, 65536}) {
          const std::string name = std::string(json ? "json_string_units/" : "utf16_length/") +
                                   std::string(internal::kernel_name(kernel)) + "/" +
                                   std::string(profile_name(profile)) + "/" + std::to_string(bytes);
          benchmark::RegisterBenchmark(name.c_str(), string_kernel, json, kernel, profile, bytes);
        }
      }
    }
  }
}

std::string name(std::string_view workload, Profile profile, std::size_t count) {
  return std::string(workload) + "/" + std::string(profile_name(profile)) + "/" + std::to_string(count);
}

void register_benchmarks() {
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
  register_string_kernel_benchmarks();
  register_shape_benchmarks();
}

// Takes `--name=value` out of argv (Google Benchmark rejects flags it does
// not know); empty when absent.
std::string take_flag(int& argc, char** argv, std::string_view flag) {
  const std::string prefix = "--" + std::string(flag) + "=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument.substr(0, prefix.size()) != prefix) continue;
    std::string value(argument.substr(prefix.size()));
    for (int k = i; k + 1 < argc; ++k) argv[k] = argv[k + 1];
    --argc;
    return value;
  }
  return {};
}

// Writes the history files of every profile for `sizes` ("1000,40000"),
// or for every size of the suite when empty.
int write_histories(const fs::path& dir, const std::string& sizes) {
  std::vector<std::size_t> counts(std::begin(kSizes), std::end(kSizes));
  if (!sizes.empty()) {
    counts.clear();
    std::istringstream list(sizes);
    for (std::string count; std::getline(list, count, ',');) counts.push_back(std::stoul(count));
  }
  for (const Profile profile : kProfiles) {
    for (const std::size_t count : counts) std::cout << history_file(dir, profile, count).string() << '\n';
  }
  return 0;
}

}  // namespace
}  // namespace agent_session::bench

int main(int argc, char** argv) {
  namespace bench = agent_session::bench;
  if (const std::string dir = bench::take_flag(argc, argv, "write_histories"); !dir.empty()) {
    return bench::write_histories(dir, bench::take_flag(argc, argv, "history_sizes"));
  }
  bench::history_dir = bench::take_flag(argc, argv, "history_dir");
  const bool own_dir = bench::history_dir.empty();
  if (own_dir) {
    bench::history_dir = std::filesystem::temp_directory_path() / ("agent-session-bench-" + std::to_string(::getpid()));
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  bench::register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (own_dir) std::filesystem::remove_all(bench::history_dir);
  if (bench::answers_wrong) std::cerr << "agent_session_bench: a benchmark computed a wrong answer\n";
  return bench::answers_wrong ? 1 : 0;
}
