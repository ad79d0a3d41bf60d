// A port's known failures (conform/runner/known_failures.hpp,
// corpus/conformance/README.md step 4): the file's grammar and its usage
// errors, expected failures (XFAIL) and unexpected passes (XPASS) in the
// text output, the summary, the exit code with and without --strict, the
// JSON report and TAP. The JUnit report is read by a real JUnit reader:
// junit/read_known_failures.py.
#include "conform/runner/known_failures.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using conform::runner::KnownFailures;
using conform::runner::parse_known_failures;
using test_support::conform;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;
using test_support::without_reproduce;

std::string file_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// A vector of two checks: `check` (which the port below passes) and
// `estimate` (which it fails: it answers "1 messages" to everything).
const std::string kTwoChecks =
    R"({"checks":[{"args":["check"],"exit":0,"stdout":"1 messages\n"},{"args":["estimate"],"exit":0,"stdout":"30\n"}]})";
const std::vector<std::string> kPort = shell_port("printf '1 messages\\n'");

conform::runner::VectorProblem only(std::vector<std::string> names) {
  return [names](const std::string& name) -> std::optional<std::string> {
    if (std::find(names.begin(), names.end(), name) != names.end()) return std::nullopt;
    return "no vector named \"" + name + "\"";
  };
}

TEST(KnownFailuresGrammar, AnEntryIsATargetAReasonAndAnOptionalLastLink) {
  const KnownFailures known = parse_known_failures(
      "# our port's known failures\n"
      "\n"
      "y_a   surrogate pairs counted as one unit   https://example.org/issues/7#note\r\n"
      "\ty_b#2 estimate  reads bytes # not a link: a comment\n"
      "y_c see https://example.org/x for why, then more words\n",
      only({"y_a", "y_b", "y_c"}));
  ASSERT_EQ(known.size(), 3u);
  const auto& a = known.at("y_a").at(0);
  EXPECT_FALSE(a.check.has_value());
  EXPECT_EQ(a.note.reason, "surrogate pairs counted as one unit");
  EXPECT_EQ(a.note.link, "https://example.org/issues/7#note");
  EXPECT_EQ(a.note.line, 3u);
  EXPECT_EQ(a.note.text(), "surrogate pairs counted as one unit (https://example.org/issues/7#note)");
  const auto& b = known.at("y_b").at(0);
  EXPECT_EQ(b.check, std::optional<std::size_t>(1));  // written from 1, kept from 0
  EXPECT_EQ(b.note.reason, "estimate  reads bytes");
  EXPECT_EQ(b.note.link, "");
  const auto& c = known.at("y_c").at(0);  // a link inside the reason is the reason's
  EXPECT_EQ(c.note.reason, "see https://example.org/x for why, then more words");
  EXPECT_EQ(c.note.link, "");
}

TEST(KnownFailuresGrammar, EachMistakeIsRefusedWithItsLine) {
  const auto refused = [](const std::string& text) {
    try {
      parse_known_failures(text, only({"y_a", "y_b"}));
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused("y_a why\ny_tpyo why\n"), "line 2: no vector named \"y_tpyo\"");
  EXPECT_EQ(refused("y_a\n"), "line 1: y_a has no reason: say after it why it fails");
  EXPECT_EQ(refused("y_a https://example.org/1\n"), "line 1: y_a has no reason: say after it why it fails");
  for (const char* number : {"y_a#0", "y_a#", "y_a#01", "y_a#x", "y_a#-1", "y_a#99999999999999999999"}) {
    EXPECT_NE(refused(std::string(number) + " why\n").find(": a check is numbered from 1"), std::string::npos)
        << number;
  }
  EXPECT_EQ(refused("y_a one\ny_a two\n"), "line 2: y_a is covered by line 1 already");
  EXPECT_EQ(refused("y_a one\ny_a#2 two\n"), "line 2: y_a#2 is covered by line 1 already");
  EXPECT_EQ(refused("y_a#2 one\ny_a#2 two\n"), "line 2: y_a#2 is covered by line 1 already");
  EXPECT_EQ(refused("y_a#2 one\ny_a#3 two\ny_b three\n"), "accepted");
  // A vector whose name holds a '#' is named whole; its checks after the last '#'.
  EXPECT_FALSE(parse_known_failures("y_b#1 one\n", only({"y_b#1"})).at("y_b#1").at(0).check.has_value());
  EXPECT_EQ(parse_known_failures("y_b#1#2 two\n", only({"y_b#1"})).at("y_b#1").at(0).check,
            std::optional<std::size_t>(1));
  // No byte a terminal must not see raw: an escape sequence, a NUL, a
  // byte that is not UTF-8, a bidi control.
  for (const std::string& bad : {std::string("y_a why \x1b[2J\n"), std::string("y_a wh\0y\n", 8),
                                 std::string("y_a \xff\n"), std::string("y_a \xe2\x80\xae reversed\n")}) {
    EXPECT_NE(refused("\n" + bad).find("line 2: byte "), std::string::npos) << bad;
    EXPECT_NE(refused("\n" + bad).find(" is a control character or not UTF-8"), std::string::npos) << bad;
  }
  EXPECT_EQ(refused("y_a " + std::string(1021, 'x') + "\n"), "line 1: holds 1025 bytes, more than the 1024 a line may");
  EXPECT_EQ(refused(std::string(conform::runner::kMaxKnownFailuresFile + 1, '\n')),
            "holds 1048577 bytes, more than the 1048576 a known-failures file may");
}

// A listed failure does not fail the run, and says why it is expected;
// the summary counts it.
TEST_F(FakeVectors, AListedFailureIsAnExpectedFailure) {
  add("y_a", "{}\n", kOneMessage);
  add("y_b", "{}\n", kTwoChecks);
  add("y_c", "{}\n", kTwoChecks);
  std::ofstream(dir_ / "kf.txt") << "y_b  estimate counts bytes  https://example.org/issues/3\ny_c#2 the same\n";
  const auto r = conform(dir_, kPort, {"--known-failures", (dir_ / "kf.txt").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(without_reproduce(r.out),
            "XFAIL y_b (estimate FILE, and with -): stdout differs at byte 0 (line 1): expected \"30\\n\", got \"1 "
            "messages\\n\" (3 bytes expected, 11 got); known failure (line 1): estimate counts bytes "
            "(https://example.org/issues/3)\n"
            "XFAIL y_c (estimate FILE, and with -): stdout differs at byte 0 (line 1): expected \"30\\n\", got \"1 "
            "messages\\n\" (3 bytes expected, 11 got); known failure (line 2): the same\n"
            "1 passed, 0 failed, 2 expected failures\n");
  EXPECT_EQ(r.err, "");
  // Without the file, the same run fails.
  EXPECT_EQ(conform(dir_, kPort).exit_code, 1);
}

// A listed check does not cover the vector's other checks.
TEST_F(FakeVectors, AListedCheckCoversThatCheckAlone) {
  add("y_b", "{}\n",
      R"({"checks":[{"args":["check"],"exit":0,"stdout":"2 messages\n"},{"args":["estimate"],"exit":0,"stdout":"30\n"}]})");
  std::ofstream(dir_ / "kf.txt") << "y_b#2 estimate counts bytes\n";
  const auto r = conform(dir_, kPort, {"--known-failures", (dir_ / "kf.txt").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL y_b (check FILE, and with -)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("XFAIL y_b (estimate FILE, and with -)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n0 passed, 1 failed\n"), std::string::npos) << r.out;
}

// A listed vector or check that passes is named, so that the entry can
// go; it fails the run with --strict only.
TEST_F(FakeVectors, AListedVectorOrCheckThatPassesIsAnUnexpectedPass) {
  add("y_a", "{}\n", kOneMessage);
  add("y_b", "{}\n", kTwoChecks);
  add("y_c", "{}\n", kTwoChecks);
  std::ofstream(dir_ / "kf.txt") << "y_a fixed since\ny_b#1 fixed too\ny_b#2 still fails\n# y_c is not listed\n";
  const std::string kf = (dir_ / "kf.txt").string();
  auto r = conform(dir_, kPort, {"--known-failures", kf, "--only", "y_[ab]"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(without_reproduce(r.out),
            "XPASS y_a: line 1 of the known-failures file lists it, but it passes; remove that line (fixed since)\n"
            "XFAIL y_b (estimate FILE, and with -): stdout differs at byte 0 (line 1): expected \"30\\n\", got \"1 "
            "messages\\n\" (3 bytes expected, 11 got); known failure (line 3): still fails\n"
            "XPASS y_b#1 (check): line 2 of the known-failures file lists it, but it passes; remove that line (fixed "
            "too)\n"
            "0 passed, 0 failed, 2 unexpected passes\n");
  EXPECT_EQ(r.err, "");
  r = conform(dir_, kPort, {"--known-failures", kf, "--only", "y_[ab]", "--strict"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.err,
            "agent-session-conform: --strict: 2 vectors with unexpected passes (remove their lines from the "
            "known-failures file)\n");
}

TEST_F(FakeVectors, AnEntryNamingNoVectorOrCheckIsAUsageErrorNamingTheFileAndLine) {
  add("y_a", "{}\n", kOneMessage);
  add("y_b", "{}\n", kTwoChecks);
  add("y_unusable", "{}\n", R"({"checks":[]})");
  const fs::path kf = dir_.string() + "-kf.txt";
  const auto refused = [&](const std::string& text, const std::vector<std::string>& more = {}) {
    std::ofstream(kf, std::ios::trunc) << text;
    std::vector<std::string> options = {"--known-failures", kf.string()};
    options.insert(options.end(), more.begin(), more.end());
    const auto r = conform(dir_, kPort, options);
    EXPECT_EQ(r.exit_code, 2) << text << r.out << r.err;
    EXPECT_EQ(r.out, "") << text;
    return r.err;
  };
  const std::string file = "agent-session-conform: known-failures file '" + kf.string() + "' ";
  EXPECT_EQ(refused("y_a why\n\ny_tpyo why\n"), file + "line 3: no vector named \"y_tpyo\"\n");
  EXPECT_EQ(refused("y_b#3 why\n"), file + "line 1: y_b#3: y_b has 2 checks, numbered from 1 to 2\n");
  EXPECT_EQ(refused("y_a#2 why\n"), file + "line 1: y_a#2: y_a has 1 check, numbered from 1 to 1\n");
  EXPECT_EQ(
      refused("y_unusable#1 why\n"),
      file + "line 1: y_unusable is unusable (expect.json has no checks): list the vector, not one of its checks\n");
  std::ofstream(dir_ / "skip.txt") << "y_a\n";
  EXPECT_EQ(refused("y_a why\n", {"--skip-file", (dir_ / "skip.txt").string()}),
            file + "line 1: y_a is in the skip file too: a skipped vector is not judged\n");
  fs::remove(kf);
  const auto r = conform(dir_, kPort, {"--known-failures", kf.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "agent-session-conform: cannot read the known-failures file '" + kf.string() +
                       "': No such file or directory\n");
  // An unusable vector itself may be listed: its failure is then expected.
  std::ofstream(kf, std::ios::trunc) << "y_unusable our generator writes none\n";
  const auto listed = conform(dir_, kPort, {"--known-failures", kf.string()});
  EXPECT_EQ(listed.exit_code, 1) << listed.out;  // y_b's estimate still fails
  EXPECT_NE(listed.out.find("XFAIL y_unusable: expect.json has no checks; known failure (line 1): our generator"),
            std::string::npos)
      << listed.out;
  fs::remove(kf);
}

TEST_F(FakeVectors, TheJsonReportAndTapGiveEachResultItsStatusAndReason) {
  add("y_a", "{}\n", kOneMessage);
  add("y_b", "{}\n", kTwoChecks);
  std::ofstream(dir_ / "kf.txt") << "y_a fixed # gone\ny_b#2 counts bytes https://example.org/9\n";
  const fs::path json = dir_ / "report.json";
  const auto r =
      conform(dir_, kPort,
              {"--known-failures", (dir_ / "kf.txt").string(), "--report", "json=" + json.string(), "--format", "tap"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto report = nlohmann::json::parse(file_text(json));
  EXPECT_EQ(report.at("summary").at("expected_failures"), 1);
  EXPECT_EQ(report.at("summary").at("unexpected_passes"), 1);
  EXPECT_EQ(report.at("summary").at("passed"), 0);
  const auto& a = report.at("results").at(0);
  EXPECT_EQ(a.at("verdict"), "xpass");
  EXPECT_EQ(a.at("known_failure"), nlohmann::json({{"line", 1}, {"reason", "fixed"}}));
  EXPECT_EQ(a.at("checks").at(0).at("verdict"), "xpass");
  const auto& b = report.at("results").at(1);
  EXPECT_EQ(b.at("verdict"), "xfail");
  EXPECT_FALSE(b.contains("known_failure"));
  EXPECT_EQ(b.at("checks").at(0).at("verdict"), "pass");
  EXPECT_EQ(b.at("checks").at(2).at("verdict"), "xfail");
  EXPECT_EQ(b.at("checks").at(2).at("known_failure"),
            nlohmann::json({{"line", 2}, {"reason", "counts bytes"}, {"link", "https://example.org/9"}}));
  EXPECT_NE(r.out.find("\nok 1 - y_a # TODO fixed\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nnot ok 2 - y_b # TODO check 2: counts bytes (https://example.org/9)\n  ---\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("      verdict: xfail\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n# 0 passed, 0 failed, 1 expected failure, 1 unexpected pass\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace agent_session
