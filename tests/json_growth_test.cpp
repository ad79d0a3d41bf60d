// Loading stays linear in the input's size, whatever its shape (SPEC.md §2):
// every way a line is read (parse_json_line and the reference line parser,
// when the fast path is built SimdLineParser's values and messages, the
// load the library is built with, a line only the reference reads,
// ToolInput::value) on inputs of n and 10n keys, bytes or containers.
// Nothing is timed: the cost is counted.
// - Key comparisons (reference::object_key_comparisons): how objects are
//   merged and ordered (SPEC §2, §3). 10x the keys may cost 30x the
//   comparisons: n log n is about 13x, the quadratic search Json's own
//   operator[] makes is 100x. Each key must cost at least one counted
//   comparison, so a builder that bypasses the counted one fails too.
// - Heap allocations and peak heap (tests/support/counting_allocator.cpp replaces
//   operator new in this binary) for the shapes without many keys: long
//   strings and numbers, deep nesting, many small containers.
// bench/session_benchmark.cpp (load_shape/...) times the same shapes.
// Each loader is measured alone: the reference line parser in every build,
// SimdLineParser when the fast path is built.
#include "support/counting_allocator.hpp"

#include "agent_session/session.hpp"
#include "entry/implementation.hpp"
#include "entry/load.hpp"
#include "reference/js_object.hpp"
#include "reference/json_line.hpp"
#include "reference/object_building.hpp"
#if AGENT_SESSION_FAST
#include "fast/simd_line_parser.hpp"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace agent_session::reference {
namespace {

constexpr std::size_t kKeys = 1000;  // and 10x that

// The most heap a load may hold at its peak per byte of its longest line:
// with kMaxLineBytes, the 1.3 GiB SPEC.md §8 promises. A line is parsed
// into a tree before it is a message, the largest multiple of the line for
// many tiny values (a 16-byte value and a heap block for each 3-byte
// `[],`). Every loader, reference and fast, is held to it below.
constexpr std::size_t kPeakHeapPerLineByte = 40;
static_assert(kPeakHeapPerLineByte * kMaxLineBytes < (std::size_t{13} << 30) / 10, "SPEC.md §8: under 1.3 GiB");
constexpr std::uint64_t kMaxGrowth = 30;

struct KeyShape {
  const char* name;
  std::function<std::string(std::size_t n, std::size_t i)> key;  // the i-th key of n
  std::function<std::size_t(std::size_t n)> members;             // the members JavaScript keeps
};

std::string k(std::size_t i) { return "k" + std::to_string(i); }

const std::vector<KeyShape>& key_shapes() {
  static const std::vector<KeyShape> shapes = {
      {"distinct", [](std::size_t, std::size_t i) { return k(i); }, [](std::size_t n) { return n; }},
      // The fast path prints the others from simdjson's tape; an index key
      // sends the whole input through the fast path's Json builder.
      {"distinct_then_an_index_key", [](std::size_t n, std::size_t i) { return i + 1 == n ? std::string("7") : k(i); },
       [](std::size_t n) { return n; }},
      {"one_key_repeated", [](std::size_t, std::size_t) { return std::string("k"); }, [](std::size_t) { return 1; }},
      {"distinct_then_one_repeated", [](std::size_t n, std::size_t i) { return i < n / 2 ? k(i) : std::string("z"); },
       [](std::size_t n) { return n / 2 + 1; }},
      {"every_key_twice", [](std::size_t n, std::size_t i) { return k(i < n / 2 ? i : n - 1 - i); },
       [](std::size_t n) { return n / 2; }},
      {"index_keys_descending", [](std::size_t n, std::size_t i) { return std::to_string(n - 1 - i); },
       [](std::size_t n) { return n; }},
      // 7919 is prime: i * 7919 mod n/2 visits every index twice, scattered.
      {"index_keys_scattered_and_repeated",
       [](std::size_t n, std::size_t i) { return std::to_string(i * 7919 % (n / 2)); },
       [](std::size_t n) { return n / 2; }},
      {"long_common_prefix", [](std::size_t, std::size_t i) { return std::string(64, 'p') + k(i); },
       [](std::size_t n) { return n; }},
  };
  return shapes;
}

// The object of `shape` with n keys; the i-th key's value is i.
std::string object_text(const KeyShape& shape, std::size_t n) {
  std::string text = "{";
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) text += ',';
    text += '"' + shape.key(n, i) + "\":" + std::to_string(i);
  }
  return text + "}";
}

// An assistant message whose one tool call has `input`; `extra` members
// go first in the message (a 25-digit integer makes the fast path decline
// the line, so the reference parser alone reads it).
std::string message_line(const std::string& input, const std::string& extra = "") {
  return "{" + extra + R"("role":"assistant","content":"","toolCalls":[{"id":"a","name":"b","input":)" + input + "}]}";
}
const std::string kOnlyTheReferenceReadsThis = R"("big":1234567890123456789012345,)";

// How one way of reading a line treats `text`: the key comparisons that
// took, after checking the answer's member count.
using Reader = std::function<void(const std::string& text, std::size_t members)>;

struct Way {
  std::string name;
  Reader read;
};

Json input_of(const Message& message) { return std::get<AssistantMessage>(message).tool_calls.at(0).input.value(); }

// The load loop of SPEC.md §2 over `bytes` with a chosen path's line parser.
std::vector<Message> load_with(const entry::Implementation& path, const std::string& bytes) {
  return entry::load_lines(*path.make_line_parser(), entry::read_from(bytes), false);
}

// The loads: each line parser, and the library's own load (the fast one
// when it is built).
struct Loader {
  const char* name;
  std::function<std::vector<Message>(const std::string& bytes)> load;
};

std::vector<Loader> loaders() {
  std::vector<Loader> all = {
      {"parse_session_line", [](const std::string& bytes) { return load_with(entry::reference_path, bytes); }},
      {"load_session_from_memory", [](const std::string& bytes) { return load_session_from_memory(bytes); }},
  };
#if AGENT_SESSION_FAST
  all.push_back({"SimdLineParser", [](const std::string& bytes) { return load_with(entry::fast_path, bytes); }});
#endif
  return all;
}

std::vector<Way> ways() {
  std::vector<Way> all = {
    {"parse_json_line",
     [](const std::string& text, std::size_t members) {
       auto parsed = parse_json_line(text);
       ASSERT_TRUE(std::holds_alternative<Json>(parsed)) << std::get<std::string>(parsed);
       EXPECT_EQ(std::get<Json>(parsed).size(), members);
     }},
#if AGENT_SESSION_FAST
    {"SimdLineParser::json",
     [](const std::string& text, std::size_t members) {
       fast::SimdLineParser parser;
       auto value = parser.json(text, 0);
       ASSERT_TRUE(value.has_value());
       EXPECT_EQ(value->size(), members);
     }},
#endif
  };
  for (const Loader& loader : loaders()) {
    for (const std::string& extra : {std::string(), kOnlyTheReferenceReadsThis}) {
      all.push_back({std::string(loader.name) + (extra.empty() ? "" : ", a line only the reference reads"),
                     [loader, extra](const std::string& text, std::size_t members) {
                       auto messages = loader.load(message_line(text, extra) + "\n");
                       ASSERT_EQ(messages.size(), 1u);
                       EXPECT_EQ(input_of(messages[0]).size(), members);
                     }});
    }
  }
  return all;
}

std::uint64_t comparisons_to_read(const Reader& read, const std::string& text, std::size_t members) {
  const std::uint64_t before = object_key_comparisons();
  read(text, members);
  return object_key_comparisons() - before;
}

TEST(JsonGrowthTest, KeyComparisonsGrowAtMostAsNLogNForEveryKeyShapeAndWayOfReading) {
  for (const auto& shape : key_shapes()) {
    const std::string small = object_text(shape, kKeys);
    const std::string large = object_text(shape, 10 * kKeys);
    for (const auto& way : ways()) {
      SCOPED_TRACE(std::string(shape.name) + " read by " + way.name);
      const std::uint64_t small_cost = comparisons_to_read(way.read, small, shape.members(kKeys));
      const std::uint64_t large_cost = comparisons_to_read(way.read, large, shape.members(10 * kKeys));
      // The load ways also build the message and the call: each key at
      // least once, each way at most n log n.
      EXPECT_GE(small_cost, kKeys - 1) << "keys merged by an uncounted builder";
      EXPECT_LE(large_cost, kMaxGrowth * small_cost)
          << kKeys << " keys cost " << small_cost << " key comparisons, " << 10 * kKeys << " cost " << large_cost;
    }
  }
}

TEST(JsonGrowthTest, ToolInputValueOfAHugeObjectCostsAtMostNLogNComparisons) {
  const KeyShape& shape = key_shapes().at(0);
  std::vector<std::uint64_t> costs;
  for (const std::size_t n : {kKeys, 10 * kKeys}) {
    const auto messages = load_session_from_memory(message_line(object_text(shape, n)) + "\n");
    const std::uint64_t before = object_key_comparisons();
    EXPECT_EQ(input_of(messages.at(0)).size(), n);
    costs.push_back(object_key_comparisons() - before);
  }
  EXPECT_GE(costs[0], kKeys - 1);
  EXPECT_LE(costs[1], kMaxGrowth * costs[0]) << costs[0] << " vs " << costs[1];
}

// Shapes with few keys per object, and how their load's heap use grows.
struct SizeShape {
  const char* name;
  std::function<std::string(std::size_t n)> input;  // about 100 n bytes
};

std::string repeated(const std::string& piece, std::size_t count, const char* open = "[", const char* close = "]") {
  std::string text = open;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) text += ',';
    text += piece;
  }
  return text + close;
}

const std::vector<SizeShape>& size_shapes() {
  // The input sits at level 4 (SPEC §2.1): 508 more levels fit in it.
  static const std::string chain = std::string(500, '[') + std::string(500, ']');
  static const std::string object_chain = [] {
    std::string text;
    for (int level = 0; level < 250; ++level) text += R"({"a":)";
    return text + "1" + std::string(250, '}');
  }();
  static const std::vector<SizeShape> shapes = {
      {"long_string", [](std::size_t n) { return '"' + std::string(100 * n, 'x') + '"'; }},
      {"long_escaped_string", [](std::size_t n) { return repeated(R"(\u00e9\n\ud83d\ude00)", 5 * n, "\"", "\""); }},
      {"long_number", [](std::size_t n) { return "0." + std::string(100 * n, '7'); }},
      {"long_integer_scaled_down",
       [](std::size_t n) { return "1" + std::string(100 * n, '0') + "e-" + std::to_string(100 * n); }},
      {"many_small_arrays", [](std::size_t n) { return repeated("[]", 30 * n); }},
      {"many_small_objects", [](std::size_t n) { return repeated(R"({"a":1,"a":2})", 8 * n); }},
      {"deep_nesting", [](std::size_t n) { return repeated(chain, n / 10); }},
      {"deep_object_nesting", [](std::size_t n) { return repeated(object_chain, n / 10); }},
  };
  return shapes;
}

struct HeapCost {
  std::uint64_t allocations;
  std::size_t peak_bytes;
};

HeapCost heap_to_load(const Loader& loader, const std::string& line) {
  const auto before = bench::heap_counters();
  bench::reset_heap_peak();
  {
    auto messages = loader.load(line);
    EXPECT_EQ(messages.size(), 1u);
  }
  const auto after = bench::heap_counters();
  return {after.allocations - before.allocations, after.peak_bytes - before.live_bytes};
}

// What loading costs beyond loading the same message with the input `0`
// (the parser's own buffers are most of a small load's peak).
HeapCost net_heap_to_load(const Loader& loader, const std::string& input, const std::string& extra) {
  const HeapCost base = heap_to_load(loader, message_line("0", extra) + "\n");
  const HeapCost cost = heap_to_load(loader, message_line(input, extra) + "\n");
  return {cost.allocations - std::min(cost.allocations, base.allocations),
          cost.peak_bytes - std::min(cost.peak_bytes, base.peak_bytes)};
}

TEST(JsonGrowthTest, HeapUseGrowsLinearlyForLongValuesDeepNestingAndManySmallContainers) {
  constexpr std::size_t n = 100;
  for (const Loader& loader : loaders()) {
    for (const auto& shape : size_shapes()) {
      for (const std::string& extra : {std::string(), kOnlyTheReferenceReadsThis}) {
        SCOPED_TRACE(std::string(shape.name) + " loaded by " + loader.name +
                     (extra.empty() ? "" : ", a line only the reference reads"));
        const HeapCost small = net_heap_to_load(loader, shape.input(n), extra);
        const HeapCost large = net_heap_to_load(loader, shape.input(10 * n), extra);
        EXPECT_GT(small.peak_bytes, 0u);
        EXPECT_LE(large.allocations, kMaxGrowth * std::max<std::uint64_t>(small.allocations, 1))
            << small.allocations << " allocations for " << n << ", " << large.allocations << " for " << 10 * n;
        EXPECT_LE(large.peak_bytes, kMaxGrowth * small.peak_bytes)
            << "peak heap " << small.peak_bytes << " bytes for " << n << ", " << large.peak_bytes << " for " << 10 * n;
      }
    }
  }
}

// The peak heap of loading one line of about 4 MiB of every shape above
// (key shapes too), as a multiple of the line: at most
// kPeakHeapPerLineByte (above), which with the line limit bounds a
// load's memory (SPEC.md §8). Loaders that read the line twice (the fast
// path, then the reference) must not hold both.
TEST(JsonGrowthTest, ALoadsPeakHeapIsABoundedMultipleOfItsLine) {
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const auto& shape : size_shapes()) inputs.emplace_back(shape.name, shape.input(40'000));
  for (const auto& shape : key_shapes()) inputs.emplace_back(shape.name, object_text(shape, 200'000));
  inputs.emplace_back("many_empty_strings", repeated(R"("")", 1'400'000));
  for (const Loader& loader : loaders()) {
    for (const auto& [name, input] : inputs) {
      for (const std::string& extra : {std::string(), kOnlyTheReferenceReadsThis}) {
        const std::string line = message_line(input, extra) + "\n";
        const HeapCost cost = heap_to_load(loader, line);
        EXPECT_LE(cost.peak_bytes, kPeakHeapPerLineByte * line.size())
            << name << " loaded by " << loader.name << (extra.empty() ? "" : ", a line only the reference reads")
            << ": " << line.size() << "-byte line, peak " << cost.peak_bytes << " bytes";
      }
    }
  }
}

}  // namespace
}  // namespace agent_session::reference
