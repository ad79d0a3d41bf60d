#include "agent_session/session.hpp"

#include "internal/json_line.hpp"
#include "internal/posix_file.hpp"
#include "internal/record.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <system_error>
#include <utility>

namespace agent_session {
namespace {

std::string session_error_text(SessionErrorKind kind, std::size_t line, const std::string& detail) {
  std::string text = kind == SessionErrorKind::invalid_json ? "invalid session JSON at line "
                                                            : "invalid session record at line ";
  text += std::to_string(line);
  if (!detail.empty()) text += ": " + detail;
  return text;
}

Message load_line(std::string_view line, std::size_t line_number) {
  auto parsed = internal::parse_json_line(line);
  if (auto* detail = std::get_if<std::string>(&parsed)) {
    throw SessionError(SessionErrorKind::invalid_json, line_number, *detail);
  }
  auto verdict = internal::discriminate_record(std::move(std::get<Json>(parsed)));
  if (auto* reason = std::get_if<std::string_view>(&verdict)) {
    throw SessionError(SessionErrorKind::invalid_record, line_number, std::string(*reason));
  }
  return std::move(std::get<Message>(verdict));
}

// The detail a SessionError carries after "...at line N: ", or "".
std::string detail_of(const SessionError& error) {
  const std::string_view what = error.what();
  const std::size_t colon = what.find(": ");
  return colon == std::string_view::npos ? std::string() : std::string(what.substr(colon + 2));
}

// The detail for a failing last line with no trailing newline: the mark
// of a write cut short, which `agent-session repair` exists for.
std::string with_torn_tail_hint(const SessionError& error, std::string_view more = {}) {
  std::string detail = detail_of(error);
  if (!detail.empty()) detail += "; ";
  detail += "the last line has no newline, as a write cut short leaves it: ";
  detail += "`agent-session repair FILE` shows it and `--apply` cuts it off";
  detail += more;
  return detail;
}

}  // namespace

SessionError::SessionError(SessionErrorKind kind, std::size_t line, const std::string& detail)
    : std::runtime_error(session_error_text(kind, line, detail)), kind_(kind), line_(line) {}

namespace {

// Loads `bytes`; `from_file` adds the repair hint to the error for a torn
// last line (on standard input there is no file to repair).
std::vector<Message> load_bytes(std::string_view bytes, bool from_file) {
  std::vector<Message> messages;
  // One message per line at most: reserving spares the regrowth copies and
  // the up-to-2x slack of a doubling vector (peak memory, issue 6).
  messages.reserve(static_cast<std::size_t>(std::count(bytes.begin(), bytes.end(), '\n')) + 1);
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < bytes.size()) {
    ++line_number;
    const void* newline = std::memchr(bytes.data() + start, '\n', bytes.size() - start);
    const std::size_t end =
        newline == nullptr ? bytes.size() : static_cast<std::size_t>(static_cast<const char*>(newline) - bytes.data());
    // Only a line of zero bytes is skipped; it still counts (decisions §2).
    if (end > start) {
      try {
        messages.push_back(load_line(bytes.substr(start, end - start), line_number));
      } catch (const SessionError& error) {
        if (!from_file || newline != nullptr) throw;
        throw SessionError(error.kind(), line_number, with_torn_tail_hint(error));
      }
    }
    start = end + 1;
  }
  return messages;
}

// The torn-tail guard of append_session: returns what must precede the
// batch (a `\n` after a valid unterminated last line), or throws the
// SessionError load_session would throw for a torn one.
std::string_view separator_before_append(const internal::LockedFile& file) {
  if (file.size() == 0 || file.last_byte() == '\n') return {};
  const std::string bytes = file.read_all();  // rare: only after a crash or a hand edit
  const std::size_t last_newline = bytes.rfind('\n');
  const std::size_t start = last_newline == std::string::npos ? 0 : last_newline + 1;
  const std::size_t line_number =
      static_cast<std::size_t>(std::count(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(start), '\n')) + 1;
  try {
    load_line(std::string_view(bytes).substr(start), line_number);
  } catch (const SessionError& error) {
    throw SessionError(error.kind(), line_number, with_torn_tail_hint(error, "; nothing was appended"));
  }
  return "\n";
}

}  // namespace

std::vector<Message> load_session_from_memory(std::string_view bytes) { return load_bytes(bytes, false); }

std::vector<Message> load_session(const std::filesystem::path& path) {
  std::optional<std::string> bytes = internal::read_file_if_exists(path);
  if (!bytes) return {};  // ENOENT: no session yet, not a corrupt one
  return load_bytes(*bytes, true);
}

void append_session(const std::filesystem::path& path, const Message& message, const AppendOptions& options) {
  append_session(path, std::span<const Message>(&message, 1), options);
}

void append_session(const std::filesystem::path& path, std::span<const Message> messages,
                    const AppendOptions& options) {
  const std::string lines = to_canonical_jsonl(messages);  // may throw: the file is not touched yet
  internal::LockedFile file = internal::LockedFile::for_append(path);
  const std::uint64_t size_before = file.size();
  const std::string_view separator = separator_before_append(file);
  // One write for the whole batch: all or nothing.
  if (separator.empty()) {
    file.append(lines);
  } else {
    file.append(std::string(separator) + lines);
  }
  if (options.sync == SyncPolicy::data) file.sync_data(size_before);
}

}  // namespace agent_session
