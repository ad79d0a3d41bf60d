// The judge (runner/conform_judge.hpp) holds every check to SPEC.md §6's
// two stream rules, whatever the vector says: nothing on standard output
// when the exit code is not 0, nothing on standard error on exit 0. Ports
// that break one and pass everything else fail, with the rule named. And
// the reader: a vector's "rules" read, refused when malformed, and carried
// into the JSON report.
#include "conform/runner/conform_judge.hpp"
#include "conform/runner/text_search.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace agent_session {
namespace {

using test_support::conform;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;
using test_support::without_reproduce;

std::string text_of(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

const std::string kInvalid = R"({"checks":[{"args":["check"],"exit":1,"error":"invalid session JSON at line 1"}]})";
const std::string kUsage = R"({"checks":[{"args":["trim","--max-chars","x"],"exit":2}]})";

TEST_F(FakeVectors, APortThatPrintsPartOfItsOutputBeforeFailingFails) {
  add("n_bad", "{\n", kInvalid);
  const auto r = conform(dir_, shell_port("printf partial; echo 'invalid session JSON at line 1: broken' >&2; exit 1"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL n_bad (check FILE, and with -): stdout is not empty (7 bytes: \"partial\"), expected nothing after a "
            "failure (SPEC.md §6: no output on standard output but on exit 0)\n0 passed, 1 failed\n");
}

TEST_F(FakeVectors, AUsageErrorWithOutputFailsToo) {
  add("n_usage", "{}\n", kUsage);
  const auto r = conform(dir_, shell_port("echo 'usage: trim --max-chars N FILE'; exit 2"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("stdout is not empty (31 bytes"), std::string::npos) << r.out;
}

TEST_F(FakeVectors, APortThatWritesToStandardErrorOnSuccessFails) {
  add("y_one", "{}\n", kOneMessage);
  const auto r = conform(dir_, shell_port("echo 'warning: slow disk' >&2; printf '1 messages\\n'"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_one (check FILE, and with -): stderr is not empty (19 bytes: \"warning: slow disk\\n\"), expected "
            "nothing on success (SPEC.md §6: nothing on standard error on exit 0)\n0 passed, 1 failed\n");
}

TEST_F(FakeVectors, APortThatKeepsBothStreamsCleanPasses) {
  add("y_one", "{}\n", kOneMessage);
  add("n_bad", "{\n", kInvalid);
  add("n_usage", "{}\n", kUsage);
  const std::string port =
      "case $1 in check) if [ \"$2\" = - ]; then c=$(cat); else c=$(cat \"$2\"); fi; "
      "if [ \"$c\" = '{}' ]; then printf '1 messages\\n'; else echo 'invalid session JSON at line 1' >&2; exit 1; fi;; "
      "*) echo usage >&2; exit 2;; esac";
  const auto r = conform(dir_, shell_port(port), {"--jobs", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "3 passed, 0 failed\n");
}

// The expected error is looked for in the port's standard error (SPEC.md
// §6) in time linear in both, whatever their bytes: both are untrusted
// and may be megabytes. The bound is counted in byte comparisons, never
// timed: 2 × the text + 5 × the pattern (runner/text_search.hpp).
std::vector<std::size_t> every_place(const std::string& text, const std::string& pattern, std::size_t* count) {
  std::vector<std::size_t> places;
  conform::runner::find_each(
      text, pattern,
      [&](std::size_t at) {
        places.push_back(at);
        return false;
      },
      count);
  return places;
}

std::size_t linear_bound(const std::string& text, const std::string& pattern) {
  return 2 * text.size() + 5 * pattern.size();
}

TEST(TextSearch, FindsEveryPlaceANaiveSearchFinds) {
  std::mt19937 random(7);
  for (int round = 0; round < 20000; ++round) {
    const char alphabet = static_cast<char>('a' + 1 + random() % 3);  // few letters: many repeats and periods
    const auto word = [&](std::size_t most) {
      std::string text(random() % (most + 1), 'a');
      for (auto& c : text) c = static_cast<char>('a' + random() % (alphabet - 'a'));
      return text;
    };
    const std::string text = word(40), pattern = word(round % 2 ? 4 : 12);
    std::vector<std::size_t> naive;
    for (std::size_t at = 0; !pattern.empty() && at + pattern.size() <= text.size(); ++at) {
      if (text.compare(at, pattern.size(), pattern) == 0) naive.push_back(at);
    }
    std::size_t count = 0;
    ASSERT_EQ(every_place(text, pattern, &count), naive) << "text " << text << ", pattern " << pattern;
    ASSERT_LE(count, linear_bound(text, pattern)) << "text " << text << ", pattern " << pattern;
  }
}

// The shapes that make a naive search quadratic: a pattern that matches
// almost everywhere and fails at its last byte, or at its first, or that
// matches everywhere (every place then reported).
TEST(TextSearch, ComparesLinearlyOnTheShapesANaiveSearchIsQuadraticOn) {
  const std::size_t n = std::size_t{1} << 20;
  const std::string as(n, 'a');
  const struct {
    std::string text, pattern;
  } shapes[] = {
      {as, std::string(n / 2, 'a') + "b"},
      {as, "b" + std::string(n / 2, 'a')},
      {as, std::string(n / 2, 'a')},
      {as, std::string(1000, 'a') + "b" + std::string(1000, 'a')},
      {std::string(n / 2, 'a') + std::string(n / 2, 'b'), std::string(n / 4, 'a') + std::string(n / 4, 'b') + "a"},
  };
  for (const auto& shape : shapes) {
    std::size_t count = 0;
    every_place(shape.text, shape.pattern, &count);
    std::cout << shape.pattern.size() << "-byte pattern in " << shape.text.size() << " bytes: " << count
              << " comparisons\n";
    EXPECT_LE(count, linear_bound(shape.text, shape.pattern)) << shape.pattern.size();
  }
}

TEST(ContainsError, IsLinearWhereTheExpectedErrorAlmostMatchesEverywhere) {
  const std::string err(std::size_t{1} << 20, 'a');
  std::size_t count = 0;
  EXPECT_FALSE(conform::runner::contains_error(err, std::string(500000, 'a') + "b", &count));
  EXPECT_LE(count, 2 * err.size() + 5 * 500001);
  // Found at every place, followed by the end of the text at the last only.
  count = 0;
  EXPECT_TRUE(conform::runner::contains_error(err, std::string(500000, 'a'), &count));
  EXPECT_LE(count, 2 * err.size() + 5 * 500000);
}

// End to end, the issue's port: 1 MiB of "a" on standard error, a
// 500,001-byte expected error it lacks. The check fails, and the line
// shows the expected error cut (SPEC.md §6.1); the time is printed.
TEST_F(FakeVectors, AnExpectedErrorThatAlmostMatchesFailsPromptly) {
  add("n_long", "{\n", R"({"checks":[{"args":["check"],"exit":1,"error":")" + std::string(500000, 'a') + R"(b"}]})");
  const auto start = std::chrono::steady_clock::now();
  const auto r = conform(dir_, {"python3", "-c", "import sys; sys.stderr.write('a' * 1048576); sys.exit(1)"});
  std::cout << "judged in " << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
            << " s\n";
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("FAIL n_long (check FILE, and with -): stderr lacks \"" + std::string(120, 'a') +
                       "\"... (500001 bytes in all) followed by end of line or \": \""),
            std::string::npos)
      << r.out.substr(0, 2000);
}

// A vector's "rules" (SPEC.md Conventions, "Rule IDs"): the IDs it pins,
// read as they are written; absent, none.
TEST(RuleIds, AreRAsectionADashAndANumber) {
  for (const char* id : {"R1-1", "R2.1-4", "R6.1-12", "R10.20.3-999"})
    EXPECT_TRUE(conform::runner::is_rule_id(id)) << id;
  for (const char* id : {"", "R", "R1", "R1-", "R-1", "r1-1", "R01-1", "R1-01", "R1.-1", "R1..2-1", "R1-1.2", "R1-1-1",
                         "R1 -1", "[R1-1]", "R1-1 ", "R1.2.3.4.5.6.7.8.9.10.11.12.13.14-1"}) {
    EXPECT_FALSE(conform::runner::is_rule_id(id)) << id;
  }
}

TEST_F(FakeVectors, AVectorsRulesAreReadAndNoneIsNoProblem) {
  add("y_named", "",
      R"({"rule":"r","rules":["R2.1-4","R6-3"],"checks":[{"args":["check"],"exit":0,"stdout":"0 messages\n"}]})");
  add("y_unnamed", "", R"({"checks":[{"args":["check"],"exit":0,"stdout":"0 messages\n"}]})");
  const auto named = conform::runner::load_vector({dir_ / "y_named", "", {}, {}});
  EXPECT_EQ(named.problem, "");
  EXPECT_EQ(named.rules, (std::vector<std::string>{"R2.1-4", "R6-3"}));
  const auto unnamed = conform::runner::load_vector({dir_ / "y_unnamed", "", {}, {}});
  EXPECT_EQ(unnamed.problem, "");
  EXPECT_TRUE(unnamed.rules.empty());
}

// A malformed "rules" makes the vector unusable, as a malformed check
// does: it fails as a vector, with the reason, and nothing of it runs.
TEST_F(FakeVectors, AMalformedRulesMakesTheVectorUnusable) {
  const std::string checks = R"("checks":[{"args":["check"],"exit":0,"stdout":"0 messages\n"}])";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("R1-1")", "is not an array of rule IDs"},
      {R"({"R1-1":1})", "is not an array of rule IDs"},
      {R"([1])", "holds 1, which is no rule ID"},
      {R"(["R01-1"])", "holds \"R01-1\", which is no rule ID"},
      {R"(["R1-1",null])", "holds null, which is no rule ID"},
      {R"(["R1-1","R1-1"])", "names R1-1 twice"},
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const std::string name = "y_bad_" + std::to_string(k);
    add(name, "", "{\"rules\":" + cases[k].first + "," + checks + "}");
    const auto vector = conform::runner::load_vector({dir_ / name, "", {}, {}});
    EXPECT_NE(vector.problem.find("unusable vector: expect.json's \"rules\" " + cases[k].second), std::string::npos)
        << cases[k].first << ": " << vector.problem;
  }
  std::string many = "[";
  for (std::size_t k = 0; k <= conform::runner::kMaxRules; ++k)
    many += (k ? ",\"R1-" : "\"R1-") + std::to_string(k + 1) + "\"";
  add("y_too_many", "", "{\"rules\":" + many + "]," + checks + "}");
  EXPECT_NE(conform::runner::load_vector({dir_ / "y_too_many", "", {}, {}}).problem.find("names more than 1000 rules"),
            std::string::npos);
  const auto r = conform(dir_, shell_port("printf '0 messages\\n'"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAIL y_bad_0: unusable vector: expect.json's \\\"rules\\\" is not an array"), std::string::npos)
      << r.out;
}

// Each result names the SPEC.md rules its vector pins (expect.json's
// "rules"; the built-in vector and the runner's own checks name theirs in
// the runner), [] when it names none or is unusable.
TEST_F(FakeVectors, JsonReportCarriesEachResultsRules) {
  std::ofstream(dir_ / "VERSION") << "1.4.0\n";  // with the built-in vector and the runner's own checks
  add("y_named", "{}\n",
      R"({"rules":["R1.1-4","R6-3"],"checks":[{"args":["check"],"exit":0,"stdout":"1 messages\n"}]})");
  add("y_unnamed", "{}\n", kOneMessage);
  add("y_unusable", "{}\n", R"({"rules":"R1-1","checks":[{"args":["check"],"exit":0,"stdout":"1 messages\n"}]})");
  const std::filesystem::path json = dir_ / "report.json";
  conform(dir_, shell_port("printf '1 messages\\n'"), {"--report", "json=" + json.string()});
  const auto report = nlohmann::json::parse(text_of(json));
  std::map<std::string, nlohmann::json> rules;
  for (const auto& result : report.at("results")) rules[result.at("name")] = result.at("rules");
  EXPECT_EQ(rules.at("y_named"), nlohmann::json({"R1.1-4", "R6-3"}));
  EXPECT_EQ(rules.at("y_unnamed"), nlohmann::json::array());
  EXPECT_EQ(rules.at("y_unusable"), nlohmann::json::array());
  EXPECT_EQ(rules.at("builtin_missing_file"), nlohmann::json({"R6-13", "R6-15", "R6-19"}));
  EXPECT_EQ(rules.at("runner_stdout_full"), nlohmann::json({"R6-13", "R6-15", "R6-17", "R6-18", "R6.1-1"}));
  EXPECT_EQ(rules.at("runner_unknown_option"), nlohmann::json({"R6-12", "R6-15", "R6-18", "R6.1-1"}));
}

}  // namespace
}  // namespace agent_session
