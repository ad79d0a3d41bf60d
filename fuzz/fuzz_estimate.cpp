// Differential: the fast path's estimate (fast::measure and
// fast::estimate_context_chars: the canonical writer into a counting sink,
// strings counted by the SIMD kernels) against the reference
// (to_canonical_json then base::utf16_length, and
// reference::estimate_context_chars; SPEC.md §4), on messages built in
// memory from raw bytes, as an embedding program would build them:
// strings may be invalid UTF-8, numbers may be NaN, infinite or 64-bit
// integers, inputs may nest past the limit or hold binary values. The same
// count, or the same error (SerializationError for one message,
// ContextError(unserializable_message) naming the same message for a
// list). Every UTF-8 kernel (scalar, AVX2, AVX-512, through
// json_string_units_with and utf16_length_with), not only the one the
// estimator picks, must agree with test_support::json_string_units and
// base::utf16_length on the whole input as one string.
// Built with the fast path only (AGENT_SESSION_FAST).
#include "agent_session/context.hpp"
#include "agent_session/message.hpp"

#include "base/utf8.hpp"
#include "fast/fast_path.hpp"
#include "fast/utf8_kernels.hpp"
#include "fuzz_support.hpp"
#include "reference/reference.hpp"
#include "support/json_string_units.hpp"

#include <fuzzer/FuzzedDataProvider.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace agent_session::fuzz {
namespace {

// ---- Building messages from raw bytes ---------------------------------------

// Up to 96 bytes: long enough to cross the estimator's 32-byte blocks.
std::string raw_string(FuzzedDataProvider& in) { return in.ConsumeRandomLengthString(96); }

Json value(FuzzedDataProvider& in, int recursion_left);

Json container(FuzzedDataProvider& in, bool object, int recursion_left) {
  Json out = object ? Json::object() : Json::array();
  const auto count = in.ConsumeIntegralInRange<std::size_t>(0, 4);
  for (std::size_t i = 0; i < count; ++i) {
    if (object) {
      out[raw_string(in)] = value(in, recursion_left - 1);
    } else {
      out.push_back(value(in, recursion_left - 1));
    }
  }
  return out;
}

// Around the 512-level limit: the input is level 4 of its line.
Json deeply_nested(FuzzedDataProvider& in) {
  const auto levels = in.ConsumeIntegralInRange<int>(500, 520);
  const bool objects = in.ConsumeBool();
  Json inner = nullptr;
  for (int i = 0; i < levels; ++i) {
    Json outer = objects ? Json::object() : Json::array();
    if (objects) {
      outer["k"] = std::move(inner);
    } else {
      outer.push_back(std::move(inner));
    }
    inner = std::move(outer);
  }
  return inner;
}

Json value(FuzzedDataProvider& in, int recursion_left) {
  switch (in.ConsumeIntegralInRange(0, recursion_left > 0 ? 8 : 5)) {
    case 0: return nullptr;
    case 1: return in.ConsumeBool();
    case 2: return std::bit_cast<double>(in.ConsumeIntegral<std::uint64_t>());  // NaN and ±inf included
    case 3: return in.ConsumeIntegral<std::int64_t>();
    case 4: return in.ConsumeIntegral<std::uint64_t>();
    case 5: return raw_string(in);
    case 6: return container(in, false, recursion_left);
    case 7: return container(in, true, recursion_left);
    default: return Json::binary({1, 2, 3});
  }
}

// A tool call's input: now and then one nested around the limit (costly to
// build and print, so not anywhere in the tree).
Json input(FuzzedDataProvider& in) { return in.ConsumeIntegralInRange(0, 15) == 0 ? deeply_nested(in) : value(in, 3); }

Message message(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 2)) {
    case 0: return UserMessage{raw_string(in)};
    case 1: {
      AssistantMessage assistant{raw_string(in), {}};
      const auto calls = in.ConsumeIntegralInRange<std::size_t>(0, 3);
      for (std::size_t i = 0; i < calls; ++i) {
        std::string id = raw_string(in);
        std::string name = raw_string(in);
        assistant.tool_calls.push_back({std::move(id), std::move(name), input(in)});
      }
      return assistant;
    }
    default: {
      std::string content = raw_string(in);
      std::string id = raw_string(in);
      return ToolResultMessage{std::move(content), std::move(id), in.ConsumeBool()};
    }
  }
}

// ---- The checks -------------------------------------------------------------

// A count, or the error's text.
using Counted = std::variant<std::uint64_t, std::string>;

std::string describe(const Counted& counted) {
  if (const auto* error = std::get_if<std::string>(&counted)) return "SerializationError: " + *error;
  return std::to_string(std::get<std::uint64_t>(counted)) + " units";
}

// fast::measure against the printed line's length.
void check_measure(const Message& m) {
  Counted expected;
  try {
    expected = base::utf16_length(to_canonical_json(m));
  } catch (const SerializationError& error) {
    expected = std::string(error.what());
  }
  Counted got;
  try {
    got = fast::measure(m);
  } catch (const SerializationError& error) {
    got = std::string(error.what());
  }
  FUZZ_CHECK(got == expected, "measure: " + describe(got) + ", reference " + describe(expected));
}

using Estimated = std::variant<std::uint64_t, ContextError>;

template <class Estimate>
Estimated estimate_with(Estimate&& estimate, const std::vector<Message>& messages) {
  try {
    return estimate(std::span<const Message>(messages));
  } catch (const ContextError& error) {
    return error;
  }
}

std::string describe(const Estimated& estimated) {
  if (const auto* error = std::get_if<ContextError>(&estimated)) return describe_context_error(*error);
  return std::to_string(std::get<std::uint64_t>(estimated)) + " chars";
}

void check_estimate(const std::vector<Message>& messages) {
  const Estimated expected = estimate_with(reference::estimate_context_chars, messages);
  const Estimated got = estimate_with(fast::estimate_context_chars, messages);
  const auto* expected_error = std::get_if<ContextError>(&expected);
  const auto* error = std::get_if<ContextError>(&got);
  const bool same = error ? expected_error && same_error(*error, *expected_error)
                          : !expected_error && std::get<std::uint64_t>(got) == std::get<std::uint64_t>(expected);
  FUZZ_CHECK(same, "estimate: fast " + describe(got) + "\n  reference " + describe(expected));
}

// Every kernel (one this CPU cannot run falls back to the scalar one) and
// the entry points that pick the fastest, on the raw input as one string:
// it crosses every block size, and its ends fall anywhere inside a
// sequence.
void check_kernels(std::string_view text) {
  const std::optional<std::uint64_t> literal = test_support::json_string_units(text);
  const bool valid = valid_utf8(text);
  const std::uint64_t length = base::utf16_length(text);
  FUZZ_CHECK(fast::json_string_units(text) == literal, "json_string_units differs: " + escaped(text));
  FUZZ_CHECK(fast::json_string_units_or_zero(text) == literal.value_or(0),
             "json_string_units_or_zero differs: " + escaped(text));
  FUZZ_CHECK(!valid || fast::utf16_length(text) == length, "utf16_length differs: " + escaped(text));
  for (const fast::Utf8Kernel kernel : fast::kUtf8Kernels) {
    const std::string name(fast::kernel_name(kernel));
    const std::optional<std::uint64_t> units = fast::json_string_units_with(kernel, text);
    FUZZ_CHECK(units == literal, name + " kernel: " + (units ? std::to_string(*units) : "invalid") +
                                     " units != reference " + (literal ? std::to_string(*literal) : "invalid") + ": " +
                                     escaped(text));
    // utf16_length promises an answer for valid UTF-8 only.
    FUZZ_CHECK(!valid || fast::utf16_length_with(kernel, text) == length,
               name + " kernel: utf16_length differs: " + escaped(text));
  }
}

}  // namespace
}  // namespace agent_session::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agent_session;
  fuzz::check_kernels(std::string_view(reinterpret_cast<const char*>(data), size));
  FuzzedDataProvider in(data, size);
  std::vector<Message> messages(in.ConsumeIntegralInRange<std::size_t>(0, 8));
  for (auto& m : messages) m = fuzz::message(in);
  for (const Message& m : messages) fuzz::check_measure(m);
  fuzz::check_estimate(messages);
  return 0;
}
