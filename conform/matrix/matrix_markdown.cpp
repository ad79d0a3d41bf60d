#include "conform/matrix/matrix_markdown.hpp"

#include "conform/matrix/matrix_html.hpp"

#include <sstream>

namespace agent_session::conform::matrix {

std::string markdown_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '|': out += "&#124;"; break;  // a cell ends at a raw `|`, escaped or not, in some readers
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '(':
      case ')':
      case '#':
      case '!':
      case '~':
      case '$':
        out += '\\';
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

std::string matrix_markdown(const Matrix& matrix, std::string_view link_base) {
  std::ostringstream out;
  out << "| vector |";
  for (const auto& port : matrix.ports) {
    out << ' ' << markdown_escaped(port.label);
    if (!port.version.empty()) out << ' ' << markdown_escaped(port.version);
    out << " |";
  }
  out << "\n| --- |";
  for (std::size_t p = 0; p < matrix.ports.size(); ++p) out << " --- |";
  out << '\n';
  for (const auto& section : matrix.sections) {
    out << "| **" << markdown_escaped(section.title) << "** |";
    for (std::size_t p = 0; p < matrix.ports.size(); ++p) out << " |";
    out << '\n';
    for (const auto& row : section.rows) {
      const bool linked = !is_runners_own(row.name);
      const std::string url = vector_url(link_base, row.name);
      const auto link = [&](std::string_view text, const std::string& title) {
        if (!linked) return std::string(text);
        return "[" + std::string(text) + "](" + url + " \"" + markdown_escaped(title) + "\")";
      };
      out << "| " << link(markdown_escaped(row.name), row.rule) << " |";
      for (std::size_t p = 0; p < row.cells.size(); ++p) {
        const Cell cell = row.cells[p];
        const std::string title = std::string(cell_name(cell)) + ": " + row.reasons[p];
        out << ' ' << (cell == Cell::absent ? "-" : link(cell == Cell::fail ? "**fail**" : cell_word(cell), title))
            << " |";
      }
      out << '\n';
    }
  }
  for (const TotalRow& row : kTotalRows) {
    // The first row (passed), bold: the one a reader looks for.
    const bool first = &row == &kTotalRows[0];
    out << "| " << (first ? "**" : "") << row.label << (first ? "**" : "") << " |";
    for (const auto& totals : matrix.totals) {
      out << ' ' << totals.*row.count;
      if (row.of_vectors) out << '/' << totals.vectors;
      out << " |";
    }
    out << '\n';
  }
  return out.str();
}

}  // namespace agent_session::conform::matrix
