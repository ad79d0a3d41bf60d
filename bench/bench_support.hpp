// What the benchmark files share: the wrong-answer flag every benchmark
// sets when its own check fails (main exits 1), and the registration of
// each file's benchmarks.
#pragma once

#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

namespace agent_session::bench {

// Marks the run as wrong (main exits 1) and the benchmark as failed.
void wrong_answer(benchmark::State& state, const std::string& why);

// history_benchmarks.cpp: estimate, serialize, trim, load and a session's
// step on the generated histories; load benchmarks read (or write) their
// files in `history_dir`.
void register_history_benchmarks(const std::filesystem::path& history_dir);

// load_shape_benchmarks.cpp: loading single lines of growing shapes.
void register_shape_benchmarks();

// string_kernel_benchmarks.cpp: the UTF-16 counters alone.
void register_string_kernel_benchmarks();

// session_turns_benchmarks.cpp: a run's requests, turn by turn, at a fixed
// budget.
void register_session_turns_benchmarks();

// The sizes of the suite's histories (messages), largest first.
inline constexpr std::size_t kSizes[] = {1'000'000, 100'000, 40'000, 10'000, 1'000};

}  // namespace agent_session::bench
