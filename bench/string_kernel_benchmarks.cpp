// The estimator's string counters alone, on one string of a profile
// (history_generator's profile_text: whole words and characters, a few
// bytes over the size in the name): GB/s of input bytes. The reference
// counters (base/utf8.hpp) always; with the fast path, each of its
// kernels (fast/utf8_kernels.hpp) too, checked against the reference.
//   json_string_units/<kernel>/<profile>/<bytes>   utf16_length/<kernel>/<profile>/<bytes>
// where <kernel> is "reference" or a fast kernel ("scalar", "avx2", "avx512").
#include "bench_support.hpp"
#include "support/history_generator.hpp"

#include "base/utf8.hpp"
#include "support/json_string_units.hpp"
#if AGENT_SESSION_FAST
#include "fast/utf8_kernels.hpp"
#endif

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace agent_session::bench {
namespace {

using Counter = std::function<std::optional<std::uint64_t>(std::string_view)>;

// The reference's answer: json_string_units, or utf16_length plus the two
// quotes (the texts have nothing to escape but what both count alike).
std::optional<std::uint64_t> reference_count(bool json, std::string_view text) {
  if (json) return test_support::json_string_units(text);
  return base::utf16_length(text) + 2;
}

void string_counter(benchmark::State& state, bool json, std::string kernel, Counter count, Profile profile,
                    std::size_t bytes) {
  const std::string text = profile_text(profile, bytes, bytes);
  std::optional<std::uint64_t> units;
  for (auto _ : state) {
    units = count(text);
    benchmark::DoNotOptimize(units);
  }
  if (units != reference_count(json, text)) {
    return wrong_answer(state, "the " + kernel + " kernel counts " + std::to_string(units.value_or(0)) +
                                   " units, the reference " + std::to_string(reference_count(json, text).value_or(0)));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void register_counter(std::string_view kernel, bool json, Counter count) {
  for (const Profile profile : {Profile::ascii_prose, Profile::cjk, Profile::emoji}) {
    for (const std::size_t bytes : {16, 1024, 65536}) {
      const std::string name = std::string(json ? "json_string_units/" : "utf16_length/") + std::string(kernel) + "/" +
                               std::string(profile_name(profile)) + "/" + std::to_string(bytes);
      benchmark::RegisterBenchmark(name.c_str(), string_counter, json, std::string(kernel), count, profile, bytes);
    }
  }
}

}  // namespace

void register_string_kernel_benchmarks() {
  for (const bool json : {true, false}) {
    register_counter("reference", json, [json](std::string_view text) { return reference_count(json, text); });
#if AGENT_SESSION_FAST
    for (const fast::Utf8Kernel kernel : fast::kUtf8Kernels) {
      if (!fast::kernel_supported(kernel)) continue;  // this CPU cannot run it
      register_counter(fast::kernel_name(kernel), json, [json, kernel](std::string_view text) {
        return json ? fast::json_string_units_with(kernel, text)
                    : std::optional<std::uint64_t>(fast::utf16_length_with(kernel, text) + 2);
      });
    }
#endif
  }
}

}  // namespace agent_session::bench
