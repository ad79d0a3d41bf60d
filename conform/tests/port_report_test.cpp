// A port's JSON report read back for the conformance matrix
// (conform/matrix/port_report.hpp): each verdict's cell and reason, the
// fields older reports lack, and reports that are untrusted input: not
// JSON, too deep, another format, wrong types, files that cannot be read.
#include "conform/matrix/port_report.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <string>

#include <sys/stat.h>

namespace agent_session {
namespace {

using conform::matrix::Cell;
using conform::matrix::parse_port_report;
using conform::matrix::PortReport;
using conform::matrix::read_port_report;
using conform::matrix::ReportError;
using test_support::TempDirTest;

const std::string kHead = R"({"format":"agent-session-conform-report","format_version":1,)";

std::string report_with(const std::string& fields, const std::string& results) {
  return kHead + fields + R"("results":[)" + results + "]}";
}

ReportError refusal(const std::string& text) {
  try {
    parse_port_report(text, "r.json");
  } catch (const ReportError& error) {
    return error;
  }
  return {0, "accepted"};
}

TEST(PortReport, EachVerdictBecomesItsCellWithItsReason) {
  const PortReport report = parse_port_report(
      report_with(R"("runner_version":"0.1.0","vectors_version":"1.4.0","command":["node","cli.mjs"],)"
                  R"("label":"oracle","port":{"name":"o","version":"1.2.0","language":"JavaScript"},)",
                  R"({"name":"y_pass","rule":"SPEC §4: estimate","verdict":"pass","checks":[{},{}]},)"
                  R"({"name":"y_fail","rule":"SPEC §2: x","verdict":"fail","checks":[)"
                  R"({"args":["check"],"input":"file","verdict":"pass"},)"
                  R"({"args":["estimate"],"input":"stdin","verdict":"fail","message":"stdout differs"},)"
                  R"({"args":["canon"],"input":"file","verdict":"fail","message":"exit 1"}]},)"
                  R"({"name":"n_bad","verdict":"fail","problem":"unusable vector: no checks","checks":[]},)"
                  R"({"name":"y_stale","verdict":"skip","message":"listed in the skip file but passes; )"
                  R"(remove it from the skip file","checks":[]},)"
                  R"({"name":"y_known","verdict":"skip","message":"listed in the skip file","checks":[]})"),
      "r.json");
  EXPECT_EQ(report.label, "oracle");
  EXPECT_EQ(report.version, "1.2.0");
  EXPECT_EQ(report.vectors_version, "1.4.0");
  EXPECT_EQ(report.runner_version, "0.1.0");
  ASSERT_EQ(report.results.size(), 5u);
  EXPECT_EQ(report.results[0].cell, Cell::pass);
  EXPECT_EQ(report.results[0].rule, "SPEC §4: estimate");
  EXPECT_EQ(report.results[0].reason, "passed (2 runs)");
  EXPECT_EQ(report.results[1].cell, Cell::fail);
  EXPECT_EQ(report.results[1].reason, "estimate -: stdout differs (and 1 more failing runs)");
  EXPECT_EQ(report.results[2].cell, Cell::fail);
  EXPECT_EQ(report.results[2].reason, "unusable vector: no checks");
  EXPECT_EQ(report.results[2].rule, "");
  EXPECT_EQ(report.results[3].cell, Cell::skip);
  EXPECT_EQ(report.results[4].cell, Cell::expected_failure);
  EXPECT_EQ(report.results[4].reason, "listed in the skip file");
}

// A report written before "label", "port" and "rule": still read, the
// label being its command line, or else the file's name.
TEST(PortReport, AnOlderReportIsReadWithItsCommandAsItsLabel) {
  PortReport report = parse_port_report(report_with(R"("vectors_version":null,"command":["./my-port","--fast"],)",
                                                    R"({"name":"y_a","verdict":"pass","checks":[]})"),
                                        "old.json");
  EXPECT_EQ(report.label, "./my-port --fast");
  EXPECT_EQ(report.version, "");
  EXPECT_EQ(report.vectors_version, "unknown");
  EXPECT_EQ(report.results.at(0).rule, "");
  report = parse_port_report(report_with("", ""), "dir/bare.json");
  EXPECT_EQ(report.label, "bare.json");
  EXPECT_TRUE(report.results.empty());
}

// What a report shows is one printable line, cut short, whatever it holds.
TEST(PortReport, TextsAreOnePrintableLineAndCut) {
  const std::string long_message(10000, 'x');
  const PortReport report = parse_port_report(
      report_with(R"("label":"a\u001b[2Jb\nc",)", R"({"name":"y_a","verdict":"skip","message":")" + long_message +
                                                      R"("}, {"name":"y_b","verdict":"fail","problem":"\u0007bell"})"),
      "r.json");
  EXPECT_EQ(report.label.find('\x1b'), std::string::npos) << report.label;
  EXPECT_EQ(report.label.find('\n'), std::string::npos) << report.label;
  EXPECT_LE(report.results[0].reason.size(), conform::matrix::kMaxShownBytes + 10);
  EXPECT_EQ(report.results[1].reason.find('\a'), std::string::npos);
}

TEST(PortReport, WhatIsNotAReportIsRefusedNamingTheFile) {
  const std::string nested = std::string(100, '[') + std::string(100, ']');
  for (const std::string& bad : {
           std::string("not json"),
           std::string("[]"),
           nested,
           std::string(R"({"format":"other","format_version":1,"results":[]})"),
           std::string(R"({"format":"agent-session-conform-report","format_version":2,"results":[]})"),
           std::string(R"({"format":"agent-session-conform-report","format_version":1})"),
           report_with("", R"({"verdict":"pass"})"),
           report_with("", R"({"name":"","verdict":"pass"})"),
           report_with("", R"({"name":"a\nb","verdict":"pass"})"),
           report_with("", R"({"name":)" + std::string("\"") + std::string(300, 'n') + R"(","verdict":"pass"})"),
           report_with("", R"({"name":"y_a","verdict":"maybe"})"),
           report_with("", R"({"name":"y_a","verdict":"pass"},{"name":"y_a","verdict":"fail"})"),
           report_with("", R"({"name":"y_a","verdict":"pass","rule":["SPEC"]})"),
           report_with(R"("label":7,)", ""),
           report_with("", R"({"name":"y_a","verdict":"pass","checks":[)" + nested + "]}"),
       }) {
    const ReportError error = refusal(bad);
    EXPECT_EQ(error.exit_code, 2) << bad.substr(0, 200);
    EXPECT_EQ(error.message.rfind("cannot use the report 'r.json': ", 0), 0u) << error.message;
    EXPECT_EQ(error.message.find('\n'), std::string::npos) << error.message;
  }
}

// Bounded however long the report is: past kMaxResults it is refused.
TEST(PortReport, MoreResultsThanTheBoundAreRefused) {
  std::string results;
  for (std::size_t i = 0; i <= conform::matrix::kMaxResults; ++i) {
    results += (i ? "," : "") + std::string(R"({"name":"v)") + std::to_string(i) + R"(","verdict":"pass"})";
  }
  const ReportError error = refusal(report_with("", results));
  EXPECT_EQ(error.exit_code, 2);
  EXPECT_NE(error.message.find("more than 100000 results"), std::string::npos) << error.message;
}

class PortReportFile : public TempDirTest {};

TEST_F(PortReportFile, AFileThatCannotBeReadIsExit3NamingIt) {
  for (const std::string& name : {std::string("missing.json"), std::string("folder"), std::string("fifo")}) {
    if (name == "folder") std::filesystem::create_directory(path(name));
    if (name == "fifo") {
      ASSERT_EQ(::mkfifo(path(name).c_str(), 0600), 0);  // never waited on
    }
    try {
      read_port_report(path(name).string());
      ADD_FAILURE() << name << " was read";
    } catch (const ReportError& error) {
      EXPECT_EQ(error.exit_code, 3) << error.message;
      EXPECT_EQ(error.message.rfind("cannot read the report '" + path(name).string() + "': ", 0), 0u) << error.message;
    }
  }
  write(path("ok.json"), report_with("", R"({"name":"y_a","verdict":"pass"})"));
  EXPECT_EQ(read_port_report(path("ok.json").string()).results.size(), 1u);
}

}  // namespace
}  // namespace agent_session
