#include "reference/line_parser.hpp"

#include "agent_session/session.hpp"
#include "reference/discriminate.hpp"
#include "reference/json_line.hpp"
#include "reference/json_teardown.hpp"

#include <utility>
#include <variant>

namespace agent_session::reference {

Message JsonLineParser::parse(std::string_view line, std::size_t line_number, std::size_t) {
  auto parsed = parse_json_line(line);
  if (auto* detail = std::get_if<std::string>(&parsed)) {
    throw SessionError(SessionErrorKind::invalid_json, line_number, *detail);
  }
  Json& json = std::get<Json>(parsed);
  const TornDownOnExit torn_down(json);
  auto verdict = discriminate_record(std::move(json));
  if (auto* reason = std::get_if<std::string>(&verdict)) {
    throw SessionError(SessionErrorKind::invalid_record, line_number, *reason);
  }
  return std::move(std::get<Message>(verdict));
}

}  // namespace agent_session::reference
