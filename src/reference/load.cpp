#include "reference/load.hpp"

#include "reference/discriminate.hpp"
#include "reference/json_line.hpp"
#include "reference/json_teardown.hpp"

#include <utility>
#include <variant>

namespace agent_session::reference {

std::optional<Line> LinesInMemory::next() {
  if (rest_.empty()) return std::nullopt;
  const std::size_t newline = rest_.find('\n');
  const std::size_t length = newline == std::string_view::npos ? rest_.size() : newline;
  if (length > kMaxLineBytes) throw LineTooLong(number_ + 1);
  const Line line{rest_.substr(0, length), ++number_, newline != std::string_view::npos};
  rest_.remove_prefix(line.terminated ? length + 1 : length);
  return line;
}

Message parse_session_line(std::string_view line, std::size_t line_number) {
  auto parsed = parse_json_line(line);
  if (auto* detail = std::get_if<std::string>(&parsed)) {
    throw SessionError(SessionErrorKind::invalid_json, line_number, *detail);
  }
  Json& json = std::get<Json>(parsed);
  const TornDownOnExit torn_down(json);  // mechanics: what is left is freed without allocating
  auto verdict = discriminate_record(std::move(json));
  if (auto* reason = std::get_if<std::string>(&verdict)) {
    throw SessionError(SessionErrorKind::invalid_record, line_number, *reason);
  }
  return std::move(std::get<Message>(verdict));
}

std::vector<Message> load_lines(Lines& lines, const ParseLine& parse, std::vector<std::size_t>* line_numbers) {
  std::vector<Message> messages;
  while (const std::optional<Line> line = lines.next()) {
    if (line->text.empty()) continue;  // skipped, but counted: the next line's number is still physical
    messages.push_back(parse(*line));  // the first bad line throws: the load stops
    if (line_numbers != nullptr) line_numbers->push_back(line->number);
  }
  return messages;
}

}  // namespace agent_session::reference
