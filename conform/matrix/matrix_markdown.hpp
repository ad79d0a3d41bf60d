// The conformance matrix (matrix.hpp) as a Markdown table (GitHub
// Flavored Markdown): a column per port, a bold row per SPEC.md section
// then one per vector, each cell a link to its vector whose title (shown
// on hover) is its reason, the totals last. Every text from a report is
// escaped so that it stays text in its cell: & < > " ' and | as HTML
// character references, the other characters Markdown acts on
// backslash-escaped (a report is untrusted input, SPEC.md §6.1).
//
// Example:
//   std::cout << matrix_markdown(matrix, "https://example.org/corpus/conformance/");
#pragma once

#include "conform/matrix/matrix.hpp"

#include <string>
#include <string_view>

namespace agent_session::conform::matrix {

// `text` as inert Markdown inline text, also inside a link's quoted title
// and a table cell (above).
std::string markdown_escaped(std::string_view text);

std::string matrix_markdown(const Matrix& matrix, std::string_view link_base);

}  // namespace agent_session::conform::matrix
