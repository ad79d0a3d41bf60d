// Arbitrary bytes as a session, through the in-memory load
// (load_session_from_memory, SPEC.md §2) and nothing that touches a file,
// so that it runs at the parser's speed: never a crash, a leak or
// undefined behaviour, and
//   - on success, one message per non-empty line; the canonical JSONL text
//     loads back to equal messages and prints the same text again; the
//     estimate is its UTF-16 length (SPEC.md §3, §4); trimming to that
//     estimate keeps every message, and to one less keeps a shorter
//     suffix or says the newest unit does not fit (SPEC.md §5);
//   - on failure, exactly one of the two spec errors, naming a line that
//     exists, is not empty, fails alone with the same kind, and after
//     every line before it loads.
// The file side of the same contract (load_session, append, repair) is
// fuzz_session_file's. Any other exception escapes and libFuzzer reports it.
#include "agent_session/context.hpp"
#include "agent_session/session.hpp"

#include "base/utf8.hpp"
#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agent_session::fuzz {
namespace {

constexpr std::string_view kJsonError = "invalid session JSON at line ";
constexpr std::string_view kRecordError = "invalid session record at line ";

// The whole history fits its own estimate; one character less drops at
// least the oldest unit, or the newest unit alone does not fit.
void check_trim(const std::vector<Message>& messages, std::uint64_t chars) {
  if (messages.empty()) return;
  FUZZ_CHECK(trim_context(messages, chars).size() == messages.size(), "the whole history does not fit its estimate");
  try {
    const std::span<const Message> kept = trim_context(messages, chars - 1);
    FUZZ_CHECK(kept.size() < messages.size() && !kept.empty() &&
                   kept.data() + kept.size() == messages.data() + messages.size(),
               "trimmed to one less than the estimate: kept " + std::to_string(kept.size()) + " of " +
                   std::to_string(messages.size()));
  } catch (const ContextError& error) {
    FUZZ_CHECK(error.kind() == ContextErrorKind::unit_exceeds_budget, "unexpected error: " + std::string(error.what()));
  }
}

void check_loaded(std::string_view bytes, const std::vector<Message>& messages) {
  std::size_t message_lines = 0;
  for (const auto line : split_lines(bytes)) message_lines += line.empty() ? 0 : 1;
  FUZZ_CHECK(messages.size() == message_lines, "one message per non-empty line");

  // Loaded messages are always serializable: the loader is at least as
  // strict as the writer (SPEC.md §2.1).
  const std::string canonical = to_canonical_jsonl(messages);
  const std::vector<Message> reloaded = load_session_from_memory(canonical);
  FUZZ_CHECK(reloaded == messages, "canonical text loads to other messages: " + escaped(canonical));
  FUZZ_CHECK(to_canonical_jsonl(reloaded) == canonical, "canonical text is not a fixpoint: " + escaped(canonical));

  FUZZ_CHECK(valid_utf8(canonical), "canonical text is not UTF-8: " + escaped(canonical));
  const std::uint64_t chars = estimate_context_chars(messages);
  FUZZ_CHECK(chars == base::utf16_length(canonical), "estimate is not the UTF-16 length of " + escaped(canonical));
  check_trim(messages, chars);
}

// The number after the spec's text, which must be followed by the end of
// the text or by ": " (so that "line 1" never passes for "line 12").
std::size_t line_in_text(std::string_view text, std::string_view prefix) {
  std::size_t at = prefix.size();
  std::size_t line = 0;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9' && line < 1'000'000'000) {
    line = line * 10 + static_cast<std::size_t>(text[at++] - '0');
  }
  FUZZ_CHECK(at > prefix.size(), "no line number in: " + std::string(text));
  FUZZ_CHECK(at == text.size() || text.substr(at, 2) == ": ", "line number not delimited: " + std::string(text));
  return line;
}

void check_rejected(std::string_view bytes, const SessionError& error) {
  const std::string_view text = error.what();
  const bool json_error = text.starts_with(kJsonError);
  FUZZ_CHECK(json_error || text.starts_with(kRecordError), "not a spec error: " + std::string(text));
  FUZZ_CHECK(json_error == (error.kind() == SessionErrorKind::invalid_json), "kind disagrees with text");
  FUZZ_CHECK(text.find('\n') == std::string_view::npos, "error text spans lines: " + escaped(text));
  FUZZ_CHECK(valid_utf8(text), "error text is not UTF-8: " + escaped(text));

  const std::size_t line = line_in_text(text, json_error ? kJsonError : kRecordError);
  FUZZ_CHECK(line == error.line(), "line() disagrees with text");
  const auto lines = split_lines(bytes);
  FUZZ_CHECK(line >= 1 && line <= lines.size(), "line out of range: " + std::string(text));
  FUZZ_CHECK(!lines[line - 1].empty(), "an empty line is skipped, never rejected");

  // The first bad line stops the load: everything before it loads...
  const std::size_t line_start = static_cast<std::size_t>(lines[line - 1].data() - bytes.data());
  load_session_from_memory(bytes.substr(0, line_start));
  // ...and the line fails on its own, for the same reason.
  try {
    load_session_from_memory(lines[line - 1]);
    FUZZ_CHECK(false, "line " + std::to_string(line) + " loads on its own");
  } catch (const SessionError& alone) {
    FUZZ_CHECK(alone.kind() == error.kind() && alone.line() == 1, "the line alone fails otherwise");
  }
}

}  // namespace
}  // namespace agent_session::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agent_session;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto loaded = fuzz::load_from_memory(bytes);
  if (const auto* error = std::get_if<SessionError>(&loaded)) {
    fuzz::check_rejected(bytes, *error);
  } else {
    fuzz::check_loaded(bytes, std::get<std::vector<Message>>(loaded));
  }
  return 0;
}
