// Differential: simdjson in front of nlohmann (internal/fast_json_line.hpp)
// must never change an answer. On arbitrary bytes:
// - whenever FastJsonLine::json answers, parse_json_line accepts the same
//   line and gives an identical value: same types, every number a double
//   with the same bits (-0 included), same key order, same duplicate-key
//   outcome;
// - whenever FastJsonLine::message answers, parse_json_line then
//   discriminate_record give an equal message;
// - both answers are the same whatever the bytes past the line's end (the
//   padding simdjson reads) and whether the line is copied or read in place;
// - load_session_from_memory (which goes through the fast path) gives
//   exactly what a loader built on parse_json_line alone gives: the same
//   messages, or the same error text and line.
#include "agent_session/message.hpp"
#include "agent_session/session.hpp"

#include "fuzz_support.hpp"
#include "internal/fast_json_line.hpp"
#include "internal/json_line.hpp"
#include "internal/record.hpp"

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
    default:
      return a == b;
  }
}

// What the loader did before simdjson, for comparison: parse_json_line and
// discriminate_record on every non-empty line, decisions §2's error texts.
std::variant<std::vector<Message>, SessionError> load_with_nlohmann_only(std::string_view bytes) {
  std::vector<Message> messages;
  const std::vector<std::string_view> lines = split_lines(bytes);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    auto parsed = internal::parse_json_line(lines[i]);
    if (auto* detail = std::get_if<std::string>(&parsed)) {
      return SessionError(SessionErrorKind::invalid_json, i + 1, *detail);
    }
    auto verdict = internal::discriminate_record(std::move(std::get<Json>(parsed)));
    if (auto* reason = std::get_if<std::string>(&verdict)) {
      return SessionError(SessionErrorKind::invalid_record, i + 1, std::string(*reason));
    }
    messages.push_back(std::move(std::get<Message>(verdict)));
  }
  return messages;
}

std::variant<std::vector<Message>, SessionError> load_through_fast_path(std::string_view bytes) {
  try {
    return load_session_from_memory(bytes);
  } catch (const SessionError& error) {
    return error;
  }
}

// The line followed by `kFastJsonLinePadding` bytes taken from the line
// itself (quotes, backslashes, digits: whatever the fuzzer put there), so
// that a parser that let the padding change its answer would be caught.
std::string with_hostile_padding(std::string_view line) {
  std::string padded(line);
  for (std::size_t i = 0; i < internal::kFastJsonLinePadding; ++i) {
    padded.push_back(line.empty() ? '"' : line[i % line.size()]);
  }
  return padded;
}

void check_json(internal::FastJsonLine& fast, std::string_view line) {
  const std::optional<Json> copied = fast.json(line, 0);
  const std::string padded = with_hostile_padding(line);
  const std::optional<Json> in_place =
      fast.json(std::string_view(padded).substr(0, line.size()), internal::kFastJsonLinePadding);
  FUZZ_CHECK(copied.has_value() == in_place.has_value(), "the padding changed the verdict: " + escaped(line));
  if (!copied) return;
  FUZZ_CHECK(identical(*copied, *in_place), "the padding changed the value: " + escaped(line));
  auto parsed = internal::parse_json_line(line);
  auto* reference = std::get_if<Json>(&parsed);
  FUZZ_CHECK(reference != nullptr,
             "simdjson accepts what parse_json_line rejects (" + std::get<std::string>(parsed) + "): " + escaped(line));
  FUZZ_CHECK(identical(*copied, *reference), "simdjson reads another value: " + escaped(line) + "\n  fast: " +
                                                 copied->dump() + "\n  nlohmann: " + reference->dump());
}

void check_message(internal::FastJsonLine& fast, std::string_view line) {
  const std::optional<Message> fast_message = fast.message(line, 0);
  const std::string padded = with_hostile_padding(line);
  const std::optional<Message> in_place =
      fast.message(std::string_view(padded).substr(0, line.size()), internal::kFastJsonLinePadding);
  FUZZ_CHECK(fast_message == in_place, "the padding changed the message: " + escaped(line));
  if (!fast_message) return;
  auto parsed = internal::parse_json_line(line);
  FUZZ_CHECK(std::holds_alternative<Json>(parsed), "a fast message from a line nlohmann rejects: " + escaped(line));
  auto verdict = internal::discriminate_record(std::move(std::get<Json>(parsed)));
  auto* reference = std::get_if<Message>(&verdict);
  FUZZ_CHECK(reference != nullptr, "a fast message from a record that is not one: " + escaped(line));
  FUZZ_CHECK(*reference == *fast_message, "simdjson reads another message: " + escaped(line));
}

void check_loader(std::string_view bytes) {
  const auto fast = load_through_fast_path(bytes);
  const auto reference = load_with_nlohmann_only(bytes);
  FUZZ_CHECK(fast.index() == reference.index(), "the loaders disagree on success: " + escaped(bytes));
  if (const auto* error = std::get_if<SessionError>(&fast)) {
    const auto& expected = std::get<SessionError>(reference);
    FUZZ_CHECK(std::string_view(error->what()) == expected.what(),
               std::string("error text: ") + error->what() + " vs " + expected.what());
    FUZZ_CHECK(error->line() == expected.line() && error->kind() == expected.kind(), "error line or kind");
  } else {
    FUZZ_CHECK(std::get<std::vector<Message>>(fast) == std::get<std::vector<Message>>(reference),
               "the loaders read other messages: " + escaped(bytes));
  }
}

}  // namespace
}  // namespace agent_session::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agent_session;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  static internal::FastJsonLine fast;  // reused, as the loader reuses it line after line
  fuzz::check_json(fast, bytes);
  fuzz::check_message(fast, bytes);
  for (const std::string_view line : fuzz::split_lines(bytes)) {
    if (line.size() != bytes.size()) fuzz::check_json(fast, line);
  }
  fuzz::check_loader(bytes);
  return 0;
}
