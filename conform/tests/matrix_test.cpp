// The conformance matrix (conform/matrix/): the merge of several reports
// (sections in SPEC.md's order, cells, totals), its Markdown table, its
// HTML page and its badges, and hostile text from a report staying text
// in every form.
#include "conform/matrix/matrix.hpp"
#include "conform/matrix/matrix_badges.hpp"
#include "conform/matrix/matrix_html.hpp"
#include "conform/matrix/matrix_markdown.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>

namespace agent_session {
namespace {

using namespace conform::matrix;

// A section past 9, as the prefix and number apart: SPEC.md has none, and
// its citations are checked (tools/check-paths).
const std::string kTen = std::string("SPEC §") + "10";

PortResult result(const std::string& name, const std::string& rule, Cell cell, const std::string& reason = "why") {
  return {name, rule, cell, reason};
}

PortReport port(const std::string& label, std::vector<PortResult> results) {
  PortReport report;
  report.file = label + ".json";
  report.label = label;
  report.vectors_version = "1.4.0";
  report.runner_version = "0.1.0";
  report.results = std::move(results);
  return report;
}

// Two ports: `ours` passes all but one; `mutant` fails one, lists two in
// its skip file, and lacks one vector.
Matrix two_ports() {
  return merge(
      {port("ours", {result("y_b", "SPEC §2: b", Cell::pass), result("y_a", "SPEC §2: a", Cell::pass),
                     result("y_ten", kTen + ": ten", Cell::fail, "exit 1, expected 0"),
                     result("y_sub", "SPEC §2.1: sub / SPEC §3: x", Cell::pass),
                     result("runner_stdin_closed", "SPEC §6: closed", Cell::pass), result("y_norule", "", Cell::pass)}),
       port("mutant", {result("y_a", "", Cell::fail, "stdout differs"), result("y_b", "", Cell::skip),
                       result("y_ten", "", Cell::expected_failure), result("y_sub", "", Cell::pass),
                       result("y_only_here", "SPEC §1: one", Cell::pass)})});
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(SpecSection, IsTheFirstSectionARuleNames) {
  EXPECT_EQ(spec_section("SPEC §2.1: bytes that are not valid UTF-8"), "§2.1");
  EXPECT_EQ(spec_section("SPEC §6: a / SPEC §5.1: b"), "§6");
  EXPECT_EQ(spec_section(kTen), std::string("§") + "10");
  EXPECT_EQ(spec_section("SPEC §2.: x"), "§2");
  EXPECT_EQ(spec_section("SPEC §: x"), "");
  EXPECT_EQ(spec_section("SPEC §.1: x"), "");
  EXPECT_EQ(spec_section("see SPEC §2"), "");
  EXPECT_EQ(spec_section(""), "");
}

TEST(Merge, SectionsFollowSpecOrderRowsTheirNamesAndEveryPortHasACell) {
  const Matrix matrix = two_ports();
  std::vector<std::string> titles;
  for (const auto& section : matrix.sections) titles.push_back(section.title);
  EXPECT_EQ(titles, (std::vector<std::string>{"SPEC §1", "SPEC §2", "SPEC §2.1", "SPEC §6", kTen, "no SPEC section"}));
  const Section& two = matrix.sections[1];
  ASSERT_EQ(two.rows.size(), 2u);
  EXPECT_EQ(two.rows[0].name, "y_a");
  EXPECT_EQ(two.rows[0].rule, "SPEC §2: a");  // the first report that gives one
  EXPECT_EQ(two.rows[0].cells, (std::vector<Cell>{Cell::pass, Cell::fail}));
  EXPECT_EQ(two.rows[0].reasons[1], "stdout differs");
  const Row& only_here = matrix.sections[0].rows.at(0);
  EXPECT_EQ(only_here.cells, (std::vector<Cell>{Cell::absent, Cell::pass}));
  EXPECT_EQ(only_here.reasons[0], "not in this port's report");
  ASSERT_EQ(matrix.totals.size(), 2u);
  EXPECT_EQ(matrix.totals[0].vectors, 6u);
  EXPECT_EQ(matrix.totals[0].passed, 5u);
  EXPECT_EQ(matrix.totals[0].failed, 1u);
  EXPECT_EQ(matrix.totals[0].not_run, 1u);
  EXPECT_EQ(matrix.totals[1].vectors, 5u);
  EXPECT_EQ(matrix.totals[1].passed, 2u);
  EXPECT_EQ(matrix.totals[1].failed, 1u);
  EXPECT_EQ(matrix.totals[1].skipped, 1u);
  EXPECT_EQ(matrix.totals[1].expected_failures, 1u);
  EXPECT_EQ(matrix.totals[1].not_run, 2u);
  EXPECT_EQ(matrix.ports[1].label, "mutant");
}

TEST(MatrixMarkdown, IsATableWithAColumnPerPortARowPerVectorAndTotals) {
  const std::string markdown = matrix_markdown(two_ports(), "https://x.org/c/");
  std::istringstream lines(markdown);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  EXPECT_EQ(rows.at(0), "| vector | ours | mutant |");
  EXPECT_EQ(rows.at(1), "| --- | --- | --- |");
  EXPECT_EQ(rows.at(2), "| **SPEC §1** | | |");
  EXPECT_EQ(rows.at(3),
            "| [y\\_only\\_here](https://x.org/c/y_only_here \"SPEC §1: one\") | - | "
            "[pass](https://x.org/c/y_only_here \"pass: why\") |");
  EXPECT_NE(markdown.find("[**fail**](https://x.org/c/y_a \"fail: stdout differs\")"), std::string::npos);
  EXPECT_NE(markdown.find("[xfail](https://x.org/c/y_ten \"expected failure: why\")"), std::string::npos);
  // The runner's own checks have no folder: no link.
  EXPECT_NE(markdown.find("| runner\\_stdin\\_closed | pass | - |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| **passed** | 5/6 | 2/5 |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| expected failures | 0 | 1 |"), std::string::npos) << markdown;
  for (const auto& row : rows) EXPECT_EQ(std::count(row.begin(), row.end(), '|'), 4) << row;
}

// A report is untrusted: its label, rule, reason and vector name stay
// text in every form.
TEST(MatrixEscaping, HostileTextStaysTextInMarkdownAndHtml) {
  const std::string hostile = "<script>alert(1)</script>|x\"'&amp;`*[a](javascript:b)";
  PortReport evil = port(hostile, {result("y_<b>|\"'", "SPEC §2: " + hostile, Cell::fail, hostile)});
  evil.version = hostile;
  evil.file = hostile;
  const Matrix matrix = merge({std::move(evil)});
  const std::string markdown = matrix_markdown(matrix, "base/");
  EXPECT_EQ(markdown.find("<script"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("](javascript"), std::string::npos) << markdown;
  std::istringstream lines(markdown);
  for (std::string line; std::getline(lines, line);) EXPECT_EQ(std::count(line.begin(), line.end(), '|'), 3) << line;
  EXPECT_NE(markdown.find("base/y_%3Cb%3E%7C%22%27"), std::string::npos) << markdown;
  const std::string html = matrix_html(matrix, "base/");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("y_<b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;|x&quot;&#39;&amp;amp;"), std::string::npos);
  EXPECT_NE(html.find("href=\"base/y_%3Cb%3E%7C%22%27\""), std::string::npos);
  EXPECT_EQ(html_escaped("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(vector_url("https://h/a b(c)/", "y é"), "https://h/a%20b%28c%29/y%20%C3%A9");
}

TEST(MatrixHtml, IsOneStaticPageWithAColumnPerPortAndACellPerVectorAndPort) {
  const std::string html = matrix_html(two_ports(), "corpus/conformance/");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_TRUE(html.ends_with("</html>\n"));
  EXPECT_EQ(count(html, "<th scope=\"col\" class=\"port\""), 2u);
  EXPECT_EQ(count(html, "<td class=\"cell "), 7u * 2u);
  EXPECT_EQ(count(html, "<td class=\"cell fail\""), 2u);
  EXPECT_EQ(count(html, "<td class=\"cell xfail\" title=\"expected failure: why\">"), 1u);
  EXPECT_EQ(count(html, "<td class=\"cell absent\""), 3u);
  EXPECT_NE(html.find("<a href=\"corpus/conformance/y_a\">fail</a>"), std::string::npos);
  EXPECT_NE(html.find("<td>5/6</td><td>2/5</td>"), std::string::npos);
  // Nothing is fetched: no script, stylesheet link, image or external URL.
  for (const char* fetches : {"<script", "<link", "<img", "src=", "url(", "@import", "http:", "https:"}) {
    EXPECT_EQ(html.find(fetches), std::string::npos) << fetches;
  }
}

TEST(MatrixBadges, AreShieldsEndpointJsonWithTheColourOfTheVerdicts) {
  Totals all;
  all.vectors = all.passed = 216;
  EXPECT_EQ(badge_json("ours", all), R"({"schemaVersion":1,"label":"ours","message":"216/216","color":"brightgreen"})"
                                     "\n");
  Totals skipped = all;
  skipped.passed = 215;
  skipped.expected_failures = 1;
  EXPECT_EQ(nlohmann::json::parse(badge_json("x", skipped)).at("color"), "yellow");
  Totals failed = skipped;
  failed.passed = 214;
  failed.failed = 1;
  const auto badge = nlohmann::json::parse(badge_json("a \"b\"", failed));
  EXPECT_EQ(badge.at("color"), "red");
  EXPECT_EQ(badge.at("message"), "214/216");
  EXPECT_EQ(badge.at("label"), "a \"b\"");
}

TEST(MatrixBadges, FileNamesAreSafeAndDistinct) {
  const auto names = badge_file_names({port("ours", {}), port("node tests/oracle/cli.mjs", {}), port("ours", {}),
                                       port("../..", {}), port(std::string(200, 'z'), {})});
  EXPECT_EQ(names, (std::vector<std::string>{"ours.json", "node-tests-oracle-cli.mjs.json", "ours-2.json",
                                             "port..-...json", std::string(64, 'z') + ".json"}));
}

class MatrixBadgeFiles : public test_support::TempDirTest {};

// Written as the kit writes reports: a planted link is refused, its
// target left as it was.
TEST_F(MatrixBadgeFiles, AreWrittenIntoTheFolderNeverThroughALink) {
  const Matrix matrix = two_ports();
  ASSERT_EQ(write_badges(path("badges").string(), matrix), std::nullopt);
  EXPECT_EQ(nlohmann::json::parse(read(path("badges") / "mutant.json")).at("message"), "2/5");
  write(path("target"), "keep");
  std::filesystem::remove(path("badges") / "ours.json");
  std::filesystem::create_symlink(path("target"), path("badges") / "ours.json");
  const auto why = write_badges(path("badges").string(), matrix);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("ours.json': it is a symbolic link"), std::string::npos) << *why;
  EXPECT_EQ(read(path("target")), "keep");
  EXPECT_NE(write_badges((path("no") / "such").string(), matrix)->find("No such file or directory"), std::string::npos);
}

}  // namespace
}  // namespace agent_session
