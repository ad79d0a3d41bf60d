#include "conform/matrix/matrix_html.hpp"

#include "conform/runner/conform_select.hpp"

#include <set>
#include <sstream>

namespace agent_session::conform::matrix {
namespace {

// Inline, so the page needs nothing from anywhere: system fonts, no
// image. Colours keep their meaning in grey scale too (the words differ).
constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1f23; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
p.about { margin: 0 0 1em; color: #444; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: 2px 8px; }
thead th { position: sticky; top: 0; background: #f6f8fa; vertical-align: bottom; }
th.port small { display: block; font-weight: normal; color: #57606a; }
tbody th.section { text-align: left; background: #eaeef2; }
th.vector { text-align: left; font-weight: normal; font-family: ui-monospace, monospace; font-size: 12px; }
td.cell { text-align: center; font-size: 12px; }
td.cell a { color: inherit; text-decoration: none; display: block; }
td.pass { background: #dafbe1; color: #116329; }
td.fail { background: #ffebe9; color: #a40e26; font-weight: bold; }
td.skip { background: #fff8c5; color: #7d4e00; }
td.xfail { background: #fbefff; color: #6e40c9; }
td.absent { color: #8c959f; }
tfoot th { text-align: left; }
tfoot td { text-align: center; font-weight: bold; }
ul.legend { color: #444; }
)";

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

// A byte of a URL that must be percent-encoded to stay one token in HTML
// and in Markdown (matrix_html.hpp).
bool encode_in_base(unsigned char c) {
  return c <= 0x20 || c >= 0x7F || c == '"' || c == '\'' || c == '<' || c == '>' || c == '(' || c == ')' || c == '\\' ||
         c == '|' || c == '`' || c == '{' || c == '}' || c == '^';
}

void percent(std::string& out, unsigned char c) {
  constexpr const char* kHex = "0123456789ABCDEF";
  out += '%';
  out += kHex[c >> 4];
  out += kHex[c & 0xF];
}

std::string fraction(std::size_t part, std::size_t whole) { return std::to_string(part) + "/" + std::to_string(whole); }

}  // namespace

std::string html_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string vector_url(std::string_view link_base, std::string_view name) {
  std::string url;
  for (const char c : link_base) {
    const auto byte = static_cast<unsigned char>(c);
    if (encode_in_base(byte)) {
      percent(url, byte);
    } else {
      url += c;
    }
  }
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (unreserved(byte)) {
      url += c;
    } else {
      percent(url, byte);
    }
  }
  return url;
}

std::string_view cell_word(Cell cell) {
  switch (cell) {
    case Cell::pass: return "pass";
    case Cell::fail: return "fail";
    case Cell::skip: return "skip";
    case Cell::expected_failure: return "xfail";
    case Cell::absent: return "-";
  }
  return "-";
}

std::string_view cell_class(Cell cell) { return cell == Cell::absent ? "absent" : cell_word(cell); }

std::string matrix_html(const Matrix& matrix, std::string_view link_base) {
  std::ostringstream out;
  std::set<std::string> versions;
  for (const auto& port : matrix.ports) versions.insert(port.vectors_version);
  std::string vectors;
  for (const auto& version : versions) vectors += (vectors.empty() ? "" : ", ") + version;
  std::size_t rows = 0;
  for (const auto& section : matrix.sections) rows += section.rows.size();
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>agent-session conformance matrix</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n"
      << "<h1>agent-session conformance matrix</h1>\n<p class=\"about\">" << matrix.ports.size() << " ports, " << rows
      << " vectors (vectors " << html_escaped(vectors) << "), grouped by the section of SPEC.md each one's rule "
      << "names. Hover over a cell for its reason; a cell links to its vector.</p>\n"
      << "<table id=\"matrix\">\n<thead>\n<tr><th scope=\"col\">vector</th>";
  for (const auto& port : matrix.ports) {
    const std::string about = port.file + " (vectors " + port.vectors_version + ", runner " + port.runner_version + ")";
    out << "<th scope=\"col\" class=\"port\" title=\"" << html_escaped(about) << "\">" << html_escaped(port.label);
    if (!port.version.empty()) out << "<small>" << html_escaped(port.version) << "</small>";
    out << "</th>";
  }
  out << "</tr>\n</thead>\n";
  const std::size_t columns = matrix.ports.size() + 1;
  for (const auto& section : matrix.sections) {
    out << "<tbody>\n<tr><th scope=\"rowgroup\" class=\"section\" colspan=\"" << columns << "\">"
        << html_escaped(section.title) << "</th></tr>\n";
    for (const auto& row : section.rows) {
      const bool linked = !is_runners_own(row.name);
      const std::string href = linked ? html_escaped(vector_url(link_base, row.name)) : "";
      out << "<tr><th scope=\"row\" class=\"vector\" title=\"" << html_escaped(row.rule) << "\">";
      if (linked) {
        out << "<a href=\"" << href << "\">" << html_escaped(row.name) << "</a>";
      } else {
        out << html_escaped(row.name);
      }
      out << "</th>";
      for (std::size_t p = 0; p < row.cells.size(); ++p) {
        const Cell cell = row.cells[p];
        const std::string title = std::string(cell_name(cell)) + ": " + row.reasons[p];
        out << "<td class=\"cell " << cell_class(cell) << "\" title=\"" << html_escaped(title) << "\">";
        if (linked && cell != Cell::absent) {
          out << "<a href=\"" << href << "\">" << cell_word(cell) << "</a>";
        } else {
          out << cell_word(cell);
        }
        out << "</td>";
      }
      out << "</tr>\n";
    }
    out << "</tbody>\n";
  }
  out << "<tfoot>\n";
  for (const TotalRow& row : kTotalRows) {
    out << "<tr><th scope=\"row\">" << row.label << "</th>";
    for (const auto& totals : matrix.totals) {
      const std::size_t count = totals.*row.count;
      out << "<td>" << (row.of_vectors ? fraction(count, totals.vectors) : std::to_string(count)) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tfoot>\n</table>\n<ul class=\"legend\">\n"
      << "<li><b>pass</b>, <b>fail</b>: the vector's verdict.</li>\n"
      << "<li><b>xfail</b>: an expected failure: listed in the port's skip file, and it fails.</li>\n"
      << "<li><b>skip</b>: listed in the port's skip file, but it passes (the entry can go).</li>\n"
      << "<li><b>-</b>: not in this port's report (another vectors version, or an --only run).</li>\n"
      << "</ul>\n<p class=\"about\">Made by agent-session-conform report " << runner::runner_version()
      << " (corpus/conformance/reports.md).</p>\n</body>\n</html>\n";
  return out.str();
}

}  // namespace agent_session::conform::matrix
