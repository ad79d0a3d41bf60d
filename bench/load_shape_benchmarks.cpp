// Loading one line whose tool input grows by shape (linear loading,
// SPEC.md §2): bytes/s must hold from n to 10n.
#include "bench_support.hpp"

#include "agent_session/session.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agent_session::bench {
namespace {

// Growth by input shape (linear loading, SPEC.md §2): one message whose tool input is an
// object of n keys, or a value of about 10 n bytes, n = 1k, 10k, 100k; a
// linear load keeps its bytes/s from n to 10n. `nlohmann_` shapes carry a
// 25-digit integer that the fast path declines, so parse_json_line reads
// the whole line. tests/json_growth_test.cpp counts the same growth.
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
    std::string key = shape.ends_with("one_key_repeated")        ? "k"
                      : shape.ends_with("index_keys_descending") ? std::to_string(n - 1 - i)
                                                                 : "k" + std::to_string(i);
    if (shape.ends_with("then_an_index_key") && i + 1 == n) key = "7";
    text += (i > 0 ? ",\"" : "\"") + key + "\":" + std::to_string(i);
  }
  return text + "}";
}

void load_shape(benchmark::State& state, std::string_view shape, std::size_t n) {
  const std::string input = shape_input(shape, n);
  const std::string line =
      std::string("{") + (shape.starts_with("nlohmann_") ? "\"big\":1234567890123456789012345," : "") +
      R"("role":"assistant","content":"","toolCalls":[{"id":"a","name":"b","input":)" + input + "}]}\n";
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

}  // namespace

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

}  // namespace agent_session::bench
