// The fuzz command's pieces in process: the generator (deterministic for a
// seed, every listed shape occurs), the reference's checks, the shrinker
// (keeps the difference, ends smaller), the vector it writes (the runner
// reads it back) and its option parser.
#include "fuzz/fuzz_command.hpp"
#include "fuzz/fuzz_inputs.hpp"
#include "fuzz/fuzz_options.hpp"
#include "fuzz/reference_checks.hpp"
#include "fuzz/shrink.hpp"
#include "fuzz/vector_out.hpp"
#include "runner/conform_judge.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace agent_session::fuzz {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string>& vectors() {
  static const std::vector<std::string> inputs = read_vector_inputs(AGENT_SESSION_SOURCE_DIR "/corpus/conformance");
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
  const std::vector<cli::Check> checks = reference_checks(write(bytes), 1);
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
  const std::vector<cli::Check> checks = reference_checks(write(bytes), 1);
  ASSERT_EQ(checks.size(), 4u);
  for (const cli::Check& check : checks) {
    EXPECT_EQ(check.exit, 1);
    EXPECT_EQ(check.error, "invalid session JSON at line 3");
  }
  EXPECT_EQ(spec_rule(checks[0]), "SPEC §2.1: the line is not JSON by the strict rules");
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
                    .about = "a test",
                    .checks = reference_checks(write(bytes), 5),
                    .reproduce = {"true"}};
  const fs::path folder = write_vector(dir_ / "out", found);
  const cli::Vector vector = cli::load_vector({folder, "", {}});
  EXPECT_EQ(vector.problem, "");
  EXPECT_EQ(vector.input, bytes);
  ASSERT_EQ(vector.checks.size(), found.checks.size());
  for (std::size_t i = 0; i < found.checks.size(); ++i) {
    EXPECT_EQ(vector.checks[i].args, found.checks[i].args);
    EXPECT_EQ(vector.checks[i].stdout_bytes, found.checks[i].stdout_bytes);
  }
  EXPECT_TRUE(fs::exists(folder / "reproduce.sh"));
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

// issue 31: --time 0x10 was a hex float, and --timeout 0.0001 became 0 ms,
// so the reference itself was reported as a difference. The runner's rule
// (cli::parse_seconds): decimal only, --timeout from 0.1 s; exit 2.
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
}  // namespace agent_session::fuzz
