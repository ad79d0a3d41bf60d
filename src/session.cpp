#include "agent_session/session.hpp"

#include "internal/json_line.hpp"
#include "internal/posix_file.hpp"
#include "internal/record.hpp"

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

}  // namespace

SessionError::SessionError(SessionErrorKind kind, std::size_t line, const std::string& detail)
    : std::runtime_error(session_error_text(kind, line, detail)), kind_(kind), line_(line) {}

std::vector<Message> load_session_from_memory(std::string_view bytes) {
  std::vector<Message> messages;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < bytes.size()) {
    ++line_number;
    const void* newline = std::memchr(bytes.data() + start, '\n', bytes.size() - start);
    const std::size_t end =
        newline == nullptr ? bytes.size() : static_cast<std::size_t>(static_cast<const char*>(newline) - bytes.data());
    // Only a line of zero bytes is skipped; it still counts (decisions §2).
    if (end > start) messages.push_back(load_line(bytes.substr(start, end - start), line_number));
    start = end + 1;
  }
  return messages;
}

std::vector<Message> load_session(const std::filesystem::path& path) {
  std::optional<std::string> bytes = internal::read_file_if_exists(path);
  if (!bytes) return {};  // ENOENT: no session yet, not a corrupt one
  return load_session_from_memory(*bytes);
}

void append_session(const std::filesystem::path& path, const Message& message) {
  append_session(path, std::span<const Message>(&message, 1));
}

void append_session(const std::filesystem::path& path, std::span<const Message> messages) {
  internal::append_to_file(path, to_canonical_jsonl(messages));
}

}  // namespace agent_session
