// Arbitrary bytes as one JSON line: parsing (the reference line parser,
// then the discrimination of SPEC.md §1.1) never throws, and a message it
// accepts round-trips through its canonical form: parse, print, parse,
// print gives equal messages and the same bytes (SPEC.md §1, §3).
// The verdict must also agree with the other ways in: why_not_a_message,
// the moving overload, and the loader reading the same bytes as a file,
// whose reason for a record that is not a message is why_not_a_message's
// to the letter (with the fast path, its own discriminator's: this holds
// the two equal on every input of the corpus).
#include "agent_session/message.hpp"
#include "agent_session/session.hpp"

#include "fuzz_support.hpp"
#include "reference/discriminate.hpp"
#include "reference/json_line.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace agent_session::fuzz {
namespace {

// What one line says: the parse error, or the message (nullopt when it is
// JSON but not a message). Nothing here may throw.
struct LineVerdict {
  std::optional<std::string> json_error;
  std::optional<Message> message;
  std::optional<std::string> reason;  // why the JSON value is not a message
};

LineVerdict read_line(std::string_view line) noexcept {
  auto parsed = reference::parse_json_line(line);
  if (auto* detail = std::get_if<std::string>(&parsed)) return {std::move(*detail), std::nullopt, std::nullopt};
  const Json& json = std::get<Json>(parsed);
  std::optional<Message> message = parse_session_message(json);
  std::optional<std::string> reason = reference::why_not_a_message(json);
  FUZZ_CHECK(message.has_value() != reason.has_value(), "why_not_a_message disagrees with the verdict");
  Json moved = json;
  FUZZ_CHECK(parse_session_message(std::move(moved)) == message, "the moving overload disagrees");
  return {std::nullopt, std::move(message), std::move(reason)};
}

void check_error_detail(const std::string& detail) {
  FUZZ_CHECK(!detail.empty(), "a parse error without a reason");
  FUZZ_CHECK(detail.find('\n') == std::string::npos, "detail spans lines: " + escaped(detail));
  FUZZ_CHECK(valid_utf8(detail), "detail is not UTF-8: " + escaped(detail));
}

void check_round_trip(const Message& message) {
  const std::string canonical = to_canonical_json(message);
  FUZZ_CHECK(canonical.find('\n') == std::string::npos, "canonical line holds a newline: " + escaped(canonical));
  const LineVerdict again = read_line(canonical);
  FUZZ_CHECK(!again.json_error, "canonical line is not JSON: " + escaped(canonical));
  FUZZ_CHECK(again.message == message, "canonical line reads back to another message: " + escaped(canonical));
  FUZZ_CHECK(to_canonical_json(*again.message) == canonical, "canonical line is not a fixpoint: " + escaped(canonical));
}

// The loader on the same bytes, when they are one non-empty line, must
// reach the same verdict.
void check_loader_agrees(std::string_view line, const LineVerdict& verdict) {
  if (line.empty() || line.find('\n') != std::string_view::npos) return;
  try {
    const std::vector<Message> loaded = load_session_from_memory(line);
    FUZZ_CHECK(verdict.message && loaded.size() == 1 && loaded[0] == *verdict.message, "loader accepts otherwise");
  } catch (const SessionError& error) {
    FUZZ_CHECK(!verdict.message, "loader rejects a message: " + std::string(error.what()));
    FUZZ_CHECK((error.kind() == SessionErrorKind::invalid_json) == verdict.json_error.has_value(),
               "loader rejects for another reason: " + std::string(error.what()));
    FUZZ_CHECK(verdict.json_error || error.detail() == verdict.reason,
               "loader's reason: " + std::string(error.what()) +
                   "\n  why_not_a_message: " + verdict.reason.value_or("(none)"));
  }
}

}  // namespace
}  // namespace agent_session::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agent_session::fuzz;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const LineVerdict verdict = read_line(line);
  if (verdict.json_error) check_error_detail(*verdict.json_error);
  if (verdict.message) check_round_trip(*verdict.message);
  check_loader_agrees(line, verdict);
  return 0;
}
