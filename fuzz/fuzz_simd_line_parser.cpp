// Differential: the fast path's line parser (fast::SimdLineParser,
// simdjson in front of the reference) against the reference's
// (reference::parse_session_line: parse_json_line, then SPEC.md §1.1's
// discrimination), each through the seam (entry::fast_path,
// entry::reference_path), must never change an answer. On arbitrary bytes:
// - parse() gives an equal Message, or throws a SessionError of the same
//   kind, line and what() (SPEC.md §2);
// - whenever json() answers, parse_json_line accepts the same line and
//   gives an identical value: same types, every number a double with the
//   same bits (-0 included), same key order, same duplicate-key outcome;
// - neither answer depends on the bytes past the line's end (the padding
//   simdjson reads) or on whether the line is copied or read in place;
// - the load (entry::load_lines: the line reader, then §2's loop) gives the
//   same messages, or the same error, with either parser, and the same as
//   §2's loop over the bytes split in memory (reference::LinesInMemory).
// Built with the fast path only (AGENT_SESSION_FAST).
#include "agent_session/message.hpp"
#include "agent_session/session.hpp"

#include "entry/implementation.hpp"
#include "entry/load.hpp"
#include "fast/simd_line_parser.hpp"
#include "fuzz_support.hpp"
#include "reference/json_line.hpp"
#include "reference/load.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agent_session::fuzz {
namespace {

// Identical, not just equal: nlohmann's == takes -0.0 for 0.0 and an
// integer 1 for a double 1.0.
bool identical(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Json::value_t::object: {
      const auto& x = *a.get_ptr<const Json::object_t*>();
      const auto& y = *b.get_ptr<const Json::object_t*>();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const auto& [x_key, x_value] = *(x.begin() + static_cast<std::ptrdiff_t>(i));
        const auto& [y_key, y_value] = *(y.begin() + static_cast<std::ptrdiff_t>(i));
        if (x_key != y_key || !identical(x_value, y_value)) return false;
      }
      return true;
    }
    case Json::value_t::array: {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!identical(a[i], b[i])) return false;
      }
      return true;
    }
    case Json::value_t::number_float:
      return std::bit_cast<std::uint64_t>(a.get<double>()) == std::bit_cast<std::uint64_t>(b.get<double>());
    default: return a == b;
  }
}

using Verdict = std::variant<Message, SessionError>;
using LoadVerdict = std::variant<std::vector<Message>, SessionError>;

// The line followed by kSimdPadding bytes taken from the line itself
// (quotes, backslashes, digits: whatever the fuzzer put there), so that a
// parser that let the padding change its answer would be caught.
std::string with_hostile_padding(std::string_view line) {
  std::string padded(line);
  for (std::size_t i = 0; i < fast::kSimdPadding; ++i) padded.push_back(line.empty() ? '"' : line[i % line.size()]);
  return padded;
}

Verdict parse_with(entry::LineParser& parser, std::string_view line, std::size_t readable_after) {
  try {
    return parser.parse(line, 7, readable_after);
  } catch (const SessionError& error) {
    return error;
  }
}

LoadVerdict load_with(entry::LineParser& parser, std::string_view bytes) {
  try {
    return entry::load_lines(parser, entry::read_from(bytes), /*from_file=*/false, nullptr, bytes.size());
  } catch (const SessionError& error) {
    return error;
  }
}

LoadVerdict load_in_memory(std::string_view bytes) {
  try {
    reference::LinesInMemory lines(bytes);
    return reference::load_lines(
        lines, [](const reference::Line& line) { return reference::parse_session_line(line.text, line.number); });
  } catch (const SessionError& error) {
    return error;
  }
}

std::string describe(const SessionError& error) {
  return "SessionError(kind " + std::to_string(static_cast<int>(error.kind())) + ", line " +
         std::to_string(error.line()) + "): " + error.what();
}

// The same message, or the same error to the letter.
template <class Value>
void check_same(const std::variant<Value, SessionError>& fast, const std::variant<Value, SessionError>& reference,
                std::string_view bytes) {
  const auto* fast_error = std::get_if<SessionError>(&fast);
  const auto* reference_error = std::get_if<SessionError>(&reference);
  FUZZ_CHECK((fast_error != nullptr) == (reference_error != nullptr),
             "one parser accepts, the other says " + describe(fast_error ? *fast_error : *reference_error) + ": " +
                 escaped(bytes));
  if (fast_error) {
    FUZZ_CHECK(
        fast_error->kind() == reference_error->kind() && fast_error->line() == reference_error->line() &&
            std::string_view(fast_error->what()) == reference_error->what(),
        "fast: " + describe(*fast_error) + "\n  reference: " + describe(*reference_error) + "\n  on " + escaped(bytes));
    return;
  }
  FUZZ_CHECK(std::get<Value>(fast) == std::get<Value>(reference), "the parsers read otherwise: " + escaped(bytes));
}

void check_line(entry::LineParser& fast, entry::LineParser& reference, std::string_view line) {
  if (line.empty()) return;  // parse() takes non-empty lines (entry/implementation.hpp)
  const Verdict expected = parse_with(reference, line, 0);
  check_same(parse_with(fast, line, 0), expected, line);
  const std::string padded = with_hostile_padding(line);
  check_same(parse_with(fast, std::string_view(padded).substr(0, line.size()), fast::kSimdPadding), expected, line);
}

void check_json(fast::SimdLineParser& fast, std::string_view line) {
  const std::optional<Json> copied = fast.json(line, 0);
  const std::string padded = with_hostile_padding(line);
  const std::optional<Json> in_place = fast.json(std::string_view(padded).substr(0, line.size()), fast::kSimdPadding);
  FUZZ_CHECK(copied.has_value() == in_place.has_value(), "the padding changed the verdict: " + escaped(line));
  if (!copied) return;
  FUZZ_CHECK(identical(*copied, *in_place), "the padding changed the value: " + escaped(line));
  auto parsed = reference::parse_json_line(line);
  auto* reference = std::get_if<Json>(&parsed);
  FUZZ_CHECK(reference != nullptr,
             "simdjson accepts what parse_json_line rejects (" + std::get<std::string>(parsed) + "): " + escaped(line));
  FUZZ_CHECK(identical(*copied, *reference), "simdjson reads another value: " + escaped(line) +
                                                 "\n  fast: " + copied->dump() + "\n  reference: " + reference->dump());
}

}  // namespace
}  // namespace agent_session::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agent_session;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // Reused, as the loader reuses them line after line.
  static fast::SimdLineParser simd;
  static const auto fast_parser = entry::fast_path.make_line_parser();
  static const auto reference_parser = entry::reference_path.make_line_parser();
  fuzz::check_json(simd, bytes);
  for (const std::string_view line : fuzz::split_lines(bytes)) {
    if (line.size() != bytes.size()) fuzz::check_json(simd, line);
    fuzz::check_line(*fast_parser, *reference_parser, line);
  }
  const fuzz::LoadVerdict loaded = fuzz::load_with(*reference_parser, bytes);
  fuzz::check_same(fuzz::load_with(*fast_parser, bytes), loaded, bytes);
  fuzz::check_same(fuzz::load_in_memory(bytes), loaded, bytes);
  return 0;
}
