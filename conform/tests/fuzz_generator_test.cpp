// The fuzz command's pieces in process: the generator (deterministic for a
// seed, every listed shape occurs), the reference's checks, the shrinker
// (keeps the difference, ends smaller), the vector it writes (the runner
// reads it back) and its option parser.
#include "conform/fuzz/byte_damage.hpp"
#include "conform/fuzz/compare.hpp"
#include "conform/fuzz/fuzz_command.hpp"
#include "conform/fuzz/fuzz_inputs.hpp"
#include "conform/fuzz/fuzz_options.hpp"
#include "conform/fuzz/reference_checks.hpp"
#include "conform/fuzz/shrink.hpp"
#include "conform/fuzz/vector_out.hpp"
#include "conform/runner/conform_judge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace agent_session::conform::fuzz {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string>& vectors() {
  static const std::vector<std::string> inputs = [] {
    std::error_code error;
    auto read = read_vector_inputs(AGENT_SESSION_SOURCE_DIR "/corpus/conformance", error);
    EXPECT_FALSE(error) << error.message();
    return read;
  }();
  return inputs;
}

TEST(FuzzGenerator, ReadsTheVectorsInputs) { EXPECT_GT(vectors().size(), 150u); }

TEST(FuzzGenerator, TheSameSeedAndIndexGiveTheSameBytes) {
  for (std::uint64_t index = 0; index < 200; ++index) {
    EXPECT_EQ(fuzz_input(7, index, vectors()).bytes, fuzz_input(7, index, vectors()).bytes) << index;
  }
  int same = 0;
  for (std::uint64_t index = 0; index < 200; ++index)
    same += fuzz_input(7, index, vectors()).bytes == fuzz_input(8, index, vectors()).bytes;
  EXPECT_LT(same, 10);  // another seed, other inputs (a few empty sessions may coincide)
}

TEST(FuzzGenerator, WritesEveryListedShapeOver3000Inputs) {
  ShapeCounts total{};
  for (std::uint64_t index = 0; index < 3000; ++index) {
    const FuzzInput input = fuzz_input(1, index, vectors());
    for (std::size_t s = 0; s < kShapeCount; ++s) total[s] += input.counts[s];
  }
  for (std::size_t s = 0; s < kShapeCount; ++s) {
    EXPECT_GE(total[s], 10u) << shape_name(static_cast<Shape>(s));
    std::cout << shape_name(static_cast<Shape>(s)) << ": " << total[s] << '\n';
  }
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Each named near miss of SPEC.md §2's tokens, and each §2.1 edge, comes
// out of the token-edge pieces at seed 1: removing one fails here.
TEST(FuzzGenerator, TokenEdgesReachEachNamedEdge) {
  SessionWriter writer(1);
  std::set<std::string> literals, numbers, pieces;
  std::string lines;
  for (int i = 0; i < 50000; ++i) {
    literals.insert(writer.literal_edge());
    numbers.insert(writer.number_edge_form());
    pieces.insert(lowercase(writer.string_edge()));
    lines += lowercase(writer.edge_line()) + "\n";
  }
  for (const char* literal : {"nul", "nulx", "nUll", "trux", "fals", "True", "FALSE", "nulll", "ull"}) {
    EXPECT_TRUE(literals.contains(literal)) << literal;
  }
  for (const char* number : {"0.", ".5", "1.e5", "01", "-", "1e", "1e+", "-0", "+1", "1e-400", "5e-324", "1e400",
                             "2.4703282292062327e-324", "1.7976931348623159e308", "1e4294967297"}) {
    EXPECT_TRUE(numbers.contains(number)) << number;
  }
  EXPECT_TRUE(std::any_of(numbers.begin(), numbers.end(), [](const std::string& n) {
    return n.size() == 310 && n.starts_with("-17976931348623158079") && n.ends_with("97792");
  })) << "minus the overflow midpoint of SPEC.md §2.1";
  for (const std::string piece : {"\\x41",
                                  "\\U0041",
                                  "\\u041",
                                  "\\b",
                                  "\\/",
                                  "\\u001f",
                                  "\\u0020",
                                  "\\u007f",
                                  "\\u0080",
                                  "\\ud7ff",
                                  "\\ue000",
                                  "\\uffff",
                                  "\\ud800\\udc00",
                                  "\\ud800\\udbff",
                                  "\\udc00\\udc00",
                                  "\\udc00\\ud800",
                                  "\\ud800\\ue000",
                                  "\\udbff\\u0041",
                                  "\\ud800x",
                                  "\\ud800\\n",
                                  "\x1f",
                                  "\x7f",
                                  "\xed\xa0\x80",
                                  "\xed\x9f\xbf",
                                  "\xf4\x90\x80\x80",
                                  "\xf4\x8f\xbf\xbf",
                                  "\xf5\x80\x80\x80",
                                  "\x80",
                                  "\xc0\x80",
                                  "\xc1\xbf",
                                  "\xe0\xa0",
                                  "\xf0\x90\x80"}) {
    EXPECT_TRUE(pieces.contains(lowercase(piece))) << piece;
  }
  for (char c = 0; c < 0x20; ++c) EXPECT_TRUE(pieces.contains(std::string(1, c))) << "raw " << int{c};
  // Where a rule sees them: nested arrays in a tool input and a dropped
  // field, and a line cut right after a high escape.
  EXPECT_NE(lines.find(R"("input":{"":[["\ud800"]]}}]})"), std::string::npos);
  EXPECT_NE(lines.find(R"("extra":{"":[["\udc00"]]}})"), std::string::npos);
  EXPECT_NE(lines.find(R"("input":{"":[[nul]]}}]})"), std::string::npos);
  EXPECT_NE(lines.find(R"("iserror":true})"), std::string::npos);
  EXPECT_NE(lines.find(R"({"role":"user","content":"a\udbff)"
                       "\n"),
            std::string::npos);
}

// The mutator reaches the token edges too: a vector's literal, number or
// escape replaced by a near miss.
TEST(FuzzGenerator, TheMutatorReplacesTokensByNearMisses) {
  const std::vector<std::string> inputs = {
      R"({"role":"tool","content":"\u00e9","toolCallId":"a","isError":false})"
      "\n"
      R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":[null,12]}]})"
      "\n"};
  SessionWriter writer(2);
  std::set<std::string> lines;
  for (int i = 0; i < 20000; ++i) {
    for (const std::string& line : split_lines(mutate_vector(inputs, writer))) lines.insert(line);
  }
  // The token after `before` in some line, `size` bytes long, passes `test`.
  const auto reached = [&](const std::string& before, std::size_t size, const auto& test) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
      const std::size_t at = line.find(before);
      return at != std::string::npos && test(line.substr(at + before.size(), size));
    });
  };
  const auto is = [](const char* text) { return [=](const std::string& token) { return token == text; }; };
  EXPECT_TRUE(reached(R"("isError":)", 5, is("fals}"))) << "a literal with a letter missing";
  EXPECT_TRUE(reached(R"("input":[)", 5, [](const std::string& token) {
    return token != "null," && lowercase(token) == "null,";
  })) << "a literal in another case";
  EXPECT_TRUE(reached(R"("input":[null,)", 2, is("-]"))) << "a lone minus";
  EXPECT_TRUE(reached(R"("content":"\)", 1, [](const std::string& token) {
    return token.size() == 1 && std::string("xUav0'eBNT").find(token[0]) != std::string::npos;
  })) << "an escape near miss";
  EXPECT_GE(writer.counts()[static_cast<std::size_t>(Shape::literal_near_miss)], 10u);
}

// Our CLI answers every token edge as the library does (the reference the
// fuzzer judges a port by): 400 edge lines after a good one, every check.
TEST(FuzzGenerator, TheReferenceAndOurCliAgreeOnTokenEdges) {
  const fs::path dir = fs::temp_directory_path() / ("fuzz_generator_edges_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "input.jsonl").string();
  runner::ConformOptions options;
  options.command = {AGENT_SESSION_CLI};
  options.harness = true;
  runner::PortRunner cli(options, std::chrono::seconds(20));
  SessionWriter writer(3);
  std::size_t invalid = 0;
  for (std::uint64_t i = 0; i < 400; ++i) {
    const std::string bytes = R"({"role":"user","content":"x"})"
                              "\n" +
                              writer.edge_line() + "\n";
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    const std::vector<runner::Check> checks = reference_checks(file, i);
    invalid += checks.front().exit == 1;
    const auto mismatch = first_mismatch(cli, checks, file, std::chrono::seconds(20));
    EXPECT_FALSE(mismatch) << testing::PrintToString(bytes) << ": " << mismatch->reason;
  }
  EXPECT_GT(invalid, 100u) << "near misses make lines invalid";
  EXPECT_LT(invalid, 390u) << "edges on the right side load";
  fs::remove_all(dir);
}

TEST(FuzzGenerator, TheSessionWriterIsDeterministicToo) {
  SessionWriter a(3), b(3);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.history(), b.history());
  EXPECT_EQ(a.counts(), b.counts());
}

class FuzzFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fuzz_generator_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& bytes) {
    const fs::path file = dir_ / "input.jsonl";
    std::ofstream(file, std::ios::binary) << bytes;
    return file.string();
  }
  fs::path dir_;
};

TEST_F(FuzzFile, ReferenceChecksAreWhatAgentSessionPrints) {
  const std::string bytes = "{\"role\":\"user\",\"content\":\"x\"}\n{\"role\":\"user\",\"content\":\"y\"}\n";
  const std::vector<runner::Check> checks = reference_checks(write(bytes), 1);
  ASSERT_GE(checks.size(), 4u);
  EXPECT_EQ(checks[0].args, std::vector<std::string>{"check"});
  EXPECT_EQ(checks[0].stdout_bytes, "2 messages\n");
  EXPECT_EQ(checks[1].stdout_bytes, "60\n");
  EXPECT_EQ(checks[2].stdout_bytes, bytes);
  bool below_newest_unit = false, newest_unit = false;
  for (std::size_t i = 3; i < checks.size(); ++i) {
    EXPECT_EQ(checks[i].args.front(), "trim");
    below_newest_unit |= checks[i].args.back() == "29" && checks[i].exit == 1 &&
                         checks[i].error == "context budget cannot contain the smallest consistent message unit";
    newest_unit |= checks[i].args.back() == "30" && checks[i].stdout_bytes == "{\"role\":\"user\",\"content\":\"y\"}\n";
  }
  EXPECT_TRUE(below_newest_unit && newest_unit) << "budgets on both sides of the newest unit";
}

TEST_F(FuzzFile, AnInvalidSessionGetsTheSpecsErrorOnEveryCommand) {
  const std::string bytes = "{\"role\":\"user\",\"content\":\"x\"}\n\n{bad\n";
  const std::string file = write(bytes);
  const std::vector<runner::Check> checks = reference_checks(file, 1);
  ASSERT_EQ(checks.size(), 4u);
  for (const runner::Check& check : checks) {
    EXPECT_EQ(check.exit, 1);
    EXPECT_EQ(check.error, "invalid session JSON at line 3");
  }
  EXPECT_EQ(spec_rule(checks[0], file), "SPEC §2: the line is not JSON (JSON.parse's grammar)");
  // JSON.parse reads an escaped lone surrogate; only the strict rules refuse it.
  const std::string strict = write("{\"role\":\"user\",\"content\":\"\\ud800\"}\n");
  EXPECT_EQ(spec_rule(reference_checks(strict, 1)[0], strict), "SPEC §2.1: the line is not JSON by the strict rules");
}

TEST(FuzzShrink, KeepsTheDifferenceAndEndsSmaller) {
  // "Differs" while some line holds an index-like key past 2^32 - 2 in an object.
  const auto differs = [](const std::string& s) { return s.find("{\"4294967296\":") != std::string::npos; };
  std::string input;
  for (std::uint64_t index = 0; !differs(input); ++index) input = fuzz_input(11, index, vectors()).bytes;
  input = "{\"role\":\"user\",\"content\":\"padding\"}\n" + input + "{\"role\":\"user\",\"content\":\"more\"}\n";
  const ShrinkResult small = shrink(input, differs);
  EXPECT_TRUE(differs(small.input));
  EXPECT_LT(small.input.size(), input.size());
  EXPECT_EQ(small.input, "{\"4294967296\":");
  EXPECT_FALSE(small.exhausted);
  EXPECT_EQ(shrink(input, differs).input, small.input) << "deterministic";
}

TEST(FuzzShrink, SimplifiesJsonValuesWithoutBreakingTheLine) {
  const std::string input = "{\"role\":\"user\",\"content\":\"a long text\",\"extra\":[1,2,{\"k\":[true,null]}]}\n";
  // Differs while the line stays an object with a "content" member of any value.
  const auto differs = [](const std::string& s) {
    return s.starts_with("{") && s.ends_with("}\n") && s.find("\"content\":") != std::string::npos;
  };
  const ShrinkResult small = shrink(input, differs, {.max_tries = 10000});
  EXPECT_EQ(small.input, "{\"content\":}\n");
}

TEST(FuzzShrink, StopsAtItsLimit) {
  const ShrinkResult small =
      shrink(std::string(1000, 'x'), [](const std::string& s) { return s.size() > 3; }, {.max_tries = 5});
  EXPECT_TRUE(small.exhausted);
  EXPECT_LE(small.tries, 5u);
  EXPECT_GT(small.input.size(), 3u);
}

TEST_F(FuzzFile, TheWrittenVectorReadsBackUnderTheRunner) {
  const std::string bytes = "{\"role\":\"user\",\"content\":\"\\u00e9\"}\n";
  FoundVector found{.name = "fuzz_1_2",
                    .input = bytes,
                    .rule = "SPEC §3: the canonical serialization",
                    .rules = {"R3-2", "R6-5"},
                    .about = "a test",
                    .checks = reference_checks(write(bytes), 5),
                    .reproduce = {"true"}};
  const fs::path folder = write_vector(dir_ / "out", found);
  const runner::Vector vector = runner::load_vector({folder, "", {}, {}});
  EXPECT_EQ(vector.problem, "");
  EXPECT_EQ(vector.input, bytes);
  EXPECT_EQ(vector.rules, found.rules);
  ASSERT_EQ(vector.checks.size(), found.checks.size());
  for (std::size_t i = 0; i < found.checks.size(); ++i) {
    EXPECT_EQ(vector.checks[i].args, found.checks[i].args);
    EXPECT_EQ(vector.checks[i].stdout_bytes, found.checks[i].stdout_bytes);
  }
  EXPECT_TRUE(fs::exists(folder / "reproduce.sh"));
}

// A found vector names the rules of what differed, as its "rule" names
// the section: rules SPEC.md has (agent-session-conform rules checks the
// IDs against it once the vector is in the corpus).
TEST_F(FuzzFile, AFoundVectorNamesTheRulesOfWhatDiffered) {
  runner::Check record;
  record.args = {"check"};
  record.exit = 1;
  record.error = "invalid session record at line 1";
  EXPECT_EQ(spec_rule_ids(record, write("{}\n")), (std::vector<std::string>{"R1.1-1", "R2-19"}));
  runner::Check grammar = record;
  grammar.error = "invalid session JSON at line 1";
  EXPECT_EQ(spec_rule_ids(grammar, write("{,}\n")), (std::vector<std::string>{"R2-17", "R2-19"}));
  EXPECT_EQ(spec_rule_ids(grammar, write("[1e400]\n")), (std::vector<std::string>{"R2.1-1", "R2-19"}));
  runner::Check canon;
  canon.args = {"canon"};
  EXPECT_EQ(spec_rule_ids(canon, write("")), (std::vector<std::string>{"R3-2", "R6-5"}));
}

TEST(FuzzOptions, ParsesAndRefuses) {
  const FuzzOptions options = parse_fuzz_options({"--seed", "9", "--runs=50", "--jobs", "2", "--", "node", "x.mjs"});
  EXPECT_EQ(options.seed, 9u);
  EXPECT_EQ(options.runs, 50u);
  EXPECT_EQ(options.jobs, 2u);
  EXPECT_EQ(options.command, (std::vector<std::string>{"node", "x.mjs"}));
  EXPECT_FALSE(options.harness);
  EXPECT_TRUE(parse_fuzz_options({"--harness", "--", "p"}).harness);
  const auto refuses = [](std::vector<std::string> args, const std::string& says) {
    try {
      parse_fuzz_options(args);
      ADD_FAILURE() << "accepted " << args.front();
    } catch (const FuzzUsageError& error) {
      EXPECT_NE(error.message.find(says), std::string::npos) << error.message;
    }
  };
  refuses({"--runs", "5", "--time", "3", "--", "p"}, "exclude each other");
  refuses({"--jobs", "0", "--", "p"}, "--jobs");
  refuses({"--seed", "-1", "--", "p"}, "--seed");
  refuses({"--seed", "1", "--seed", "2", "--", "p"}, "twice");
  refuses({"--frob", "--", "p"}, "unknown option");
  refuses({"--seed", "1"}, "no port");
  refuses({"--time", "0", "--", "p"}, "--time");
}

// Found by an attacker: --time 0x10 was a hex float, and --timeout 0.0001 became 0 ms,
// so the reference itself was reported as a difference. The runner's rule
// (runner::parse_seconds): decimal only, --timeout from 0.1 s; exit 2.
TEST(FuzzOptions, SecondsAreDecimalOnlyAndTimeoutHasAMinimum) {
  for (const char* option : {"--time", "--timeout", "--shrink-time"}) {
    for (const char* bad : {"0x10", "1e3", " 5", "inf", "nan", "+5", "5.", ".5", "0"}) {
      std::ostringstream out, err;
      EXPECT_EQ(fuzz_main({option, bad, "--", "p"}, "agent-session-conform", out, err), 2) << option << bad;
      EXPECT_NE(err.str().find(std::string(option) + ": \"" + bad + "\" is not a decimal number of seconds from "),
                std::string::npos)
          << err.str();
      EXPECT_EQ(out.str(), "");
    }
  }
  std::ostringstream out, err;
  EXPECT_EQ(fuzz_main({"--timeout", "0.0001", "--", "p"}, "agent-session-conform", out, err), 2);
  EXPECT_EQ(err.str(),
            "agent-session-conform fuzz: --timeout: \"0.0001\" is not a decimal number of seconds from 0.1 to 1000000 "
            "(agent-session-conform fuzz --help)\n");
  EXPECT_EQ(parse_fuzz_options({"--timeout", "0.1", "--time", "2.5", "--", "p"}).timeout_seconds, 0.1);
  EXPECT_EQ(parse_fuzz_options({"--time", "2.5", "--", "p"}).time_seconds, 2.5);
  EXPECT_NE(fuzz_help("x").find("--timeout SECONDS per run of the port, a decimal from 0.1 to 1000000"),
            std::string::npos);
}

}  // namespace
}  // namespace agent_session::conform::fuzz
