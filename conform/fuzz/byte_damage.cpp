// Damage to a session's bytes and mutations of the vectors' inputs.
#include "conform/fuzz/byte_damage.hpp"

#include <algorithm>
#include <utility>

namespace agent_session::conform::fuzz {

std::vector<std::string> split_lines(const std::string& bytes) {
  std::vector<std::string> lines;
  std::size_t from = 0;
  while (from < bytes.size()) {
    const std::size_t end = bytes.find('\n', from);
    const std::size_t to = end == std::string::npos ? bytes.size() : end + 1;
    lines.push_back(bytes.substr(from, to - from));
    from = to;
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string bytes;
  for (const auto& line : lines) bytes += line;
  return bytes;
}

namespace {

// A line's start in `bytes`, chosen at random (0 when it has none).
std::size_t line_start(const std::string& bytes, SessionWriter& writer) {
  std::vector<std::size_t> starts = {0};
  for (std::size_t i = 0; i + 1 < bytes.size(); ++i) {
    if (bytes[i] == '\n') starts.push_back(i + 1);
  }
  return writer.pick(starts);
}

// Somewhere inside a JSON string when there is one, else anywhere.
std::size_t inside_a_string(const std::string& bytes, SessionWriter& writer) {
  if (bytes.empty()) return 0;
  const std::size_t quote = bytes.find('"', writer.below(bytes.size()));
  return quote == std::string::npos ? writer.below(bytes.size() + 1) : quote + 1;
}

void damage_once(std::string& bytes, SessionWriter& writer) {
  switch (writer.below(9)) {
    case 0: {
      writer.note(Shape::invalid_utf8);
      static const std::vector<std::string> kBytes = {
          "\xFF", "\xC0\x80", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\x80", "\xE4\xB8", "\xF0\x9F\x98"};
      bytes.insert(inside_a_string(bytes, writer), writer.pick(kBytes));
      return;
    }
    case 1: {  // a crash mid-append: the last line cut short, no newline
      writer.note(Shape::torn_last_line);
      std::string body = bytes;
      while (!body.empty() && body.back() == '\n') body.pop_back();
      const std::size_t last = body.rfind('\n');
      const std::size_t from = last == std::string::npos ? 0 : last + 1;
      if (body.size() > from + 1) body.resize(from + 1 + writer.below(body.size() - from - 1));
      bytes = body;
      return;
    }
    case 2:
      writer.note(Shape::bom);
      bytes.insert(writer.chance(0.6) ? 0 : line_start(bytes, writer), "\xEF\xBB\xBF");
      return;
    case 3:
      writer.note(Shape::cr);
      if (writer.chance(0.5)) {
        bytes.insert(line_start(bytes, writer), writer.chance(0.5) ? "\r\n" : "\r");
      } else if (const std::size_t at = bytes.find('\n', writer.below(bytes.size() + 1)); at != std::string::npos) {
        bytes.insert(at, "\r");
      }
      return;
    case 5: {  // an escaped lone surrogate (SPEC §2.1 rejects what JSON.parse keeps)
      writer.note(Shape::lone_escape);
      static const std::vector<std::string> kEscapes = {"\\ud800", "\\uDFFF", "\\udbff\\u0041", "\\udc00\\ud800"};
      bytes.insert(inside_a_string(bytes, writer), writer.pick(kEscapes));
      return;
    }
    case 6: {  // an integer of 309 digits or more past the largest double (SPEC §2.1: overflow)
      writer.note(Shape::digits_309);
      static const std::vector<std::string> kHuge = {std::string(309, '9'), "17976931348623159" + std::string(292, '0'),
                                                     "18" + std::string(307, '0'), "1" + std::string(309, '0')};
      const std::size_t colon = bytes.find(':', writer.below(bytes.size() + 1));
      if (colon != std::string::npos) bytes.insert(colon + 1, writer.pick(kHuge) + ",\"n\":");
      return;
    }
    case 7:  // a token edge inside a string: an escape, a surrogate order, a control, UTF-8
      bytes.insert(inside_a_string(bytes, writer), writer.string_edge());
      return;
    case 4:
      writer.note(Shape::nul);
      bytes.insert(writer.chance(0.5) ? inside_a_string(bytes, writer) : writer.below(bytes.size() + 1),
                   std::string(1, '\0'));
      return;
    default: {
      writer.note(Shape::whitespace_line);
      static const std::vector<std::string> kBlank = {" \n", "\t\n", "  \t \n", " \r\n", "\f\n", "\xC2\xA0\n"};
      bytes.insert(line_start(bytes, writer), writer.pick(kBlank));
      return;
    }
  }
}

// One token of `line` replaced by a token edge of its kind (token_edges.cpp):
// a literal by a near miss (nulx, nUll), a number by a form at an edge or
// past it (01, -, 1e+, the overflow midpoint), a `\u` escape by an escape
// edge or a surrogate order. Nothing when the line has no such token.
void replace_token(std::string& line, SessionWriter& writer) {
  const std::size_t from = writer.below(line.size() + 1);
  switch (writer.below(3)) {
    case 0: {
      static const std::vector<std::string> kLiterals = {"null", "true", "false"};
      for (const std::string& literal : kLiterals) {
        const std::size_t at = line.find(literal, from);
        if (at != std::string::npos) return void(line.replace(at, literal.size(), writer.literal_edge()));
      }
      return;
    }
    case 1: {
      const std::size_t at = line.find_first_of("-0123456789", from);
      if (at == std::string::npos || at == 0 || line[at - 1] == '"' || line[at - 1] == '\\') return;
      const std::size_t end = line.find_first_not_of("0123456789.eE+-", at);
      line.replace(at, (end == std::string::npos ? line.size() : end) - at, writer.number_edge_form());
      return;
    }
    default: {
      const std::size_t at = line.find("\\u", from);
      if (at != std::string::npos && at + 6 <= line.size()) line.replace(at, 6, writer.string_edge());
      return;
    }
  }
}

}  // namespace

std::string damage(std::string bytes, SessionWriter& writer) {
  for (std::size_t n = 1 + writer.below(writer.chance(0.7) ? 1 : 3); n > 0; --n) damage_once(bytes, writer);
  return bytes;
}

std::string mutate_vector(const std::vector<std::string>& inputs, SessionWriter& writer) {
  writer.note(Shape::vector_mutation);
  std::vector<std::string> lines = split_lines(writer.pick(inputs));
  for (std::size_t n = 1 + writer.below(3); n > 0; --n) {
    const std::size_t at = lines.empty() ? 0 : writer.below(lines.size());
    switch (writer.below(lines.empty() ? 1 : 9)) {
      case 0: {  // a generated message, or a line of another vector
        const std::vector<std::string> other = split_lines(writer.pick(inputs));
        std::string line = other.empty() || writer.chance(0.5) ? writer.message() + "\n" : writer.pick(other);
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(std::min(at, lines.size())), std::move(line));
        break;
      }
      case 1: lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at)); break;
      case 2: lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), lines[at]); break;
      case 3: std::swap(lines[at], lines[writer.below(lines.size())]); break;
      case 4: {  // a digit changed: a budget, a number's edge, an index key
        std::string& line = lines[at];
        const std::size_t digit = line.find_first_of("0123456789", writer.below(line.size() + 1));
        if (digit != std::string::npos) line[digit] = static_cast<char>('0' + writer.below(10));
        break;
      }
      case 5: {  // a byte changed
        std::string& line = lines[at];
        if (!line.empty()) line[writer.below(line.size())] = static_cast<char>(writer.below(256));
        break;
      }
      case 6: {  // a number replaced by one at the printer's edges
        std::string& line = lines[at];
        const std::size_t digit = line.find_first_of("0123456789", writer.below(line.size() + 1));
        if (digit == std::string::npos || digit == 0 || line[digit - 1] == '"') break;
        const std::size_t end = line.find_first_not_of("0123456789.eE+-", digit);
        line.replace(digit, (end == std::string::npos ? line.size() : end) - digit, writer.edge_number());
        break;
      }
      case 7: replace_token(lines[at], writer); break;
      default: {
        std::string bytes = damage(join_lines(lines), writer);
        lines = split_lines(bytes);
        break;
      }
    }
  }
  return join_lines(lines);
}

}  // namespace agent_session::conform::fuzz
