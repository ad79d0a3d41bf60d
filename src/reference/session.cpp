#include "agent_session/session.hpp"

#include <cerrno>
#include <system_error>

namespace agent_session {
namespace {

std::string session_error_text(SessionErrorKind kind, std::size_t line, const std::string& detail) {
  std::string text =
      kind == SessionErrorKind::invalid_json ? "invalid session JSON at line " : "invalid session record at line ";
  text += std::to_string(line);
  if (!detail.empty()) text += ": " + detail;
  return text;
}

}  // namespace

SessionError::SessionError(SessionErrorKind kind, std::size_t line, const std::string& detail)
    : std::runtime_error(session_error_text(kind, line, detail)), kind_(kind), line_(line), detail_(detail) {}

LineTooLong::LineTooLong(std::size_t line)
    : std::system_error(EFBIG, std::generic_category(),
                        "cannot load line " + std::to_string(line) + ": it is longer than " +
                            std::to_string(kMaxLineBytes) + " bytes, the longest line this implementation loads"),
      line_(line) {}

}  // namespace agent_session
