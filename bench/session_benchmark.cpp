// The Google Benchmark suite: the estimator, trimming, loading and the
// canonical serialization on deterministic histories (history_generator)
// of 1k to 1M messages, one content profile at a time, through the public
// functions: the fast path in a default build, the reference path with
// AGENT_SESSION_FAST=OFF.
//
// Names: <workload>/<profile>/<messages>[/budget:<max_chars>], e.g.
//   estimate/cjk/100000   trim/ascii/40000/budget:unlimited   load/numbers/1000000
//   session_append_and_trim/ascii/100000/budget:20000
// and load_shape/... (load_shape_benchmarks.cpp), json_string_units/... and
// utf16_length/... (string_kernel_benchmarks.cpp), session_turns/...
// (session_turns_benchmarks.cpp).
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
#include "bench_support.hpp"
#include "support/history_generator.hpp"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace agent_session::bench {
namespace {

bool answers_wrong = false;

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
int write_histories(const std::filesystem::path& dir, const std::string& sizes) {
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

void wrong_answer(benchmark::State& state, const std::string& why) {
  answers_wrong = true;
  state.SkipWithError(why.c_str());
}

}  // namespace agent_session::bench

int main(int argc, char** argv) {
  namespace bench = agent_session::bench;
  if (const std::string dir = bench::take_flag(argc, argv, "write_histories"); !dir.empty()) {
    return bench::write_histories(dir, bench::take_flag(argc, argv, "history_sizes"));
  }
  std::filesystem::path history_dir = bench::take_flag(argc, argv, "history_dir");
  const bool own_dir = history_dir.empty();
  if (own_dir) {
    history_dir = std::filesystem::temp_directory_path() / ("agent-session-bench-" + std::to_string(::getpid()));
  }
  // In the JSON report's context: which path the public functions take
  // (compare-js --reference checks it).
  benchmark::AddCustomContext("agent_session_fast", AGENT_SESSION_FAST ? "1" : "0");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  bench::register_history_benchmarks(history_dir);
  bench::register_string_kernel_benchmarks();
  bench::register_shape_benchmarks();
  bench::register_session_turns_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (own_dir) std::filesystem::remove_all(history_dir);
  if (bench::answers_wrong) std::cerr << "agent_session_bench: a benchmark computed a wrong answer\n";
  return bench::answers_wrong ? 1 : 0;
}
