// The conformance matrix (matrix.hpp) as one static HTML5 page: nothing
// fetched (no script, font, stylesheet or image from anywhere: the style
// is inline), every text from a report HTML-escaped (a report is untrusted
// input, SPEC.md §6.1), each cell's reason in its title attribute (shown
// on hover) and a link to its vector. docs/conformance-matrix.png shows
// one; corpus/conformance/reports.md says what each cell means.
//
// Example:
//   write_report_file("matrix.html", matrix_html(matrix, "corpus/conformance/"));
#pragma once

#include "conform/matrix/matrix.hpp"

#include <string>
#include <string_view>

namespace agent_session::conform::matrix {

// `text` for HTML character data or a quoted attribute value: & < > " '
// as character references.
std::string html_escaped(std::string_view text);

// The URL of vector `name`: `link_base` followed by the name, each byte
// that is not a letter, digit or one of "-._~" percent-encoded (RFC 3986
// §2.1), and in `link_base` the bytes a URL cannot carry raw (space,
// controls, non-ASCII, quotes, angle brackets, parentheses, backslash,
// `|`, backtick), so the link is one token in HTML and in Markdown.
std::string vector_url(std::string_view link_base, std::string_view name);

// The short word a cell shows: "pass", "fail", "skip", "xfail", "-".
std::string_view cell_word(Cell cell);

// The class of a cell's <td>, also its CSS: "pass", "fail", "skip", "xfail", "absent".
std::string_view cell_class(Cell cell);

// The whole page. Its table has id "matrix", one <th class="port"> per
// port, one <td class="cell KIND"> per row and port.
std::string matrix_html(const Matrix& matrix, std::string_view link_base);

}  // namespace agent_session::conform::matrix
