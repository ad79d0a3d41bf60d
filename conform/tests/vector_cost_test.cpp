// What a vector costs the runner in memory and in output, whatever its
// files hold (SPEC.md §6.1; corpus/conformance/README.md "What a vector
// may cost"): the FAIL lines and the reports show each untrusted text (an
// expected error, an argument word, a port's output) cut to its first
// kShownBytes, the runner's peak stays within 5 times a vector's files
// plus 16 MiB, and what a vector leaves for the reports is small, so
// that several large vectors cost no more than the largest.
#include "conform/runner/conform_judge.hpp"
#include "conform/runner/conform_vector.hpp"
#include "support/fake_vectors.hpp"
#include "support/run_binary.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using conform::runner::kShownBytes;
using test_support::BinaryRun;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::run_binary;

const std::string kInput = "{\"role\":\"user\",\"content\":\"hi\"}\n";
constexpr long kTimesTheFiles = 5;
constexpr long kPlusKib = 16 * 1024;
// The most a FAIL line, or one run of a check in a report, may take: the
// cut texts escaped (4 bytes a byte at most), a reproduce command of at
// most kMaxReproduceBytes of words escaped, and the words around them.
constexpr std::size_t kPerRunBytes = 8 * 1024;

std::string shown(const BinaryRun& run) {
  return "exit " + std::to_string(run.exit_code) + ", signal " + std::to_string(run.signal) +
         "\nstdout: " + run.out.substr(0, 2000) + "\nstderr: " + run.err.substr(0, 2000);
}

std::size_t longest_line(const std::string& text) {
  std::size_t longest = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) longest = std::max(longest, line.size());
  return longest;
}

TEST(ShownText, AFailureShowsTheExpectedErrorCutBeforeItIsEscaped) {
  conform::runner::Check check;
  check.args = {"estimate"};
  check.exit = 1;
  check.error = std::string(std::size_t{1} << 20, '\x7f');
  conform::runner::ProcessResult result;
  result.end = conform::runner::ProcessEnd::exited;
  result.exit_code = 1;
  result.err = std::string(std::size_t{1} << 20, '\x1b');
  const auto message = conform::runner::judge(check, result, std::chrono::seconds(1));
  ASSERT_TRUE(message);
  EXPECT_LT(message->size(), 2048u) << message->substr(0, 2000);
  std::string cut;
  for (std::size_t i = 0; i < kShownBytes; ++i) cut += "\\x7f";
  EXPECT_EQ(message->rfind("stderr lacks \"" + cut + "\"... (1048576 bytes in all) followed by end of line", 0), 0u)
      << message->substr(0, 2000);
  // A cut never splits a UTF-8 character: "é" is two bytes.
  EXPECT_EQ(conform::runner::printable(std::string(kShownBytes - 1, 'x') + "\xc3\xa9"),
            "\"" + std::string(kShownBytes - 1, 'x') + "\"... (" + std::to_string(kShownBytes + 1) + " bytes in all)");
  EXPECT_EQ(conform::runner::printable("short"), "\"short\"");
}

class VectorCost : public FakeVectors {
 protected:
  struct Shape {
    const char* name;
    std::vector<std::string> port;
    int exit_code;
    std::size_t runs;  // runs of a check in the vector
  };
  // A vector of `checks` copies of one check, and what running it shows.
  struct LargeVector {
    Shape shape;
    std::string check;
    std::size_t checks;
  };
  // expect.json of `checks` copies of `check` (a JSON object), written
  // piece by piece: a forked child's peak counts the memory it shared with
  // this process before its exec, so this one stays small.
  std::size_t write_vector(const std::string& name, const std::string& check, std::size_t checks) {
    const fs::path vector = dir_ / "vectors" / name;
    fs::create_directories(vector);
    std::ofstream(vector / "input.jsonl", std::ios::binary) << kInput;
    std::ofstream expect(vector / "expect.json", std::ios::binary);
    expect << R"({"checks":[)";
    for (std::size_t i = 0; i < checks; ++i) expect << (i == 0 ? "" : ",") << check;
    expect << "]}";
    return static_cast<std::size_t>(expect.tellp()) + kInput.size();
  }
  BinaryRun conform(const std::vector<std::string>& port, const std::vector<std::string>& options = {}) {
    std::vector<std::string> args = {"conform", "--vectors", (dir_ / "vectors").string()};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--");
    args.insert(args.end(), port.begin(), port.end());
    return run_binary(args, dir_);
  }
  long small_peak_kib() {
    fs::remove_all(dir_ / "vectors");
    write_vector("y_one", R"({"args":["check"],"exit":0,"stdout":"1 messages\n"})", 1);
    const BinaryRun small = conform(test_support::shell_port("echo 1 messages"));
    EXPECT_EQ(small.exit_code, 0) << shown(small);
    return small.max_rss_kib;
  }
  // Runs the vectors now in dir_/vectors, with both reports and then with
  // --format tap, and holds the peak and every output to their bounds.
  void expect_bounded(const Shape& shape, std::size_t files, long small_kib) {
    const std::string json = (dir_ / "r.json").string(), junit = (dir_ / "r.xml").string();
    const BinaryRun run = conform(shape.port, {"--report", "json=" + json, "--report", "junit=" + junit});
    EXPECT_EQ(run.signal, 0) << shape.name << ": " << shown(run);
    EXPECT_EQ(run.exit_code, shape.exit_code) << shape.name << ": " << shown(run);
    const long files_kib = static_cast<long>(files / 1024), cost_kib = run.max_rss_kib - small_kib;
    const std::size_t runs_bytes = shape.runs * kPerRunBytes + kPerRunBytes;
    std::cout << shape.name << ": " << files_kib << " KiB of files cost " << cost_kib << " KiB; stdout "
              << run.out.size() << " bytes, longest line " << longest_line(run.out) << ", JSON report "
              << fs::file_size(json) << ", JUnit " << fs::file_size(junit) << " for " << shape.runs << " runs\n";
    EXPECT_LE(cost_kib, kTimesTheFiles * files_kib + kPlusKib) << shape.name << ": " << shown(run);
    EXPECT_LE(longest_line(run.out), kPerRunBytes) << shape.name << ": " << shown(run);
    EXPECT_LE(run.out.size(), runs_bytes) << shape.name;
    EXPECT_LE(fs::file_size(json), runs_bytes) << shape.name;
    EXPECT_LE(fs::file_size(junit), runs_bytes) << shape.name;
    const BinaryRun tap = conform(shape.port, {"--format", "tap"});
    EXPECT_EQ(tap.exit_code, shape.exit_code) << shape.name << ": " << shown(tap);
    EXPECT_LE(tap.out.size(), runs_bytes) << shape.name;
    EXPECT_LE(longest_line(tap.out), kPerRunBytes) << shape.name << ": " << shown(tap);
  }
};

const std::size_t kSize = std::size_t{8} << 20;

std::string error_check(std::size_t bytes) {
  return R"({"args":["estimate"],"exit":1,"error":")" + std::string(bytes, '\x7f') + "\"}";
}

std::string words_check(int exit) {
  return R"({"args":["trim","--max-chars",")" + std::string(131071, '\x7f') + R"("],"exit":)" + std::to_string(exit) +
         "}";
}

// One 8 MiB expected error of DEL bytes, against a port that writes
// nothing; 256 checks of 32 KiB errors; 64 checks whose `--max-chars`
// word is 131,071 DEL bytes, passed and failed (no reproduce command
// holds them: kMaxReproduceBytes).
TEST_F(VectorCost, AVectorCostsAtMostFiveTimesItsFilesPlusSixteenMiBAndShowsLittle) {
  const long small_kib = small_peak_kib();
  const LargeVector vectors[] = {
      {{"one huge error", {"false"}, 1, 2}, error_check(kSize), 1},
      {{"many long errors", {"false"}, 1, 512}, error_check(kSize / 256), 256},
      {{"long words, passed", test_support::shell_port("exit 2"), 0, 128}, words_check(2), 64},
      {{"long words, failed", {"false"}, 1, 128}, words_check(2), 64},
  };
  for (const auto& vector : vectors) {
    fs::remove_all(dir_ / "vectors");
    const std::size_t files = write_vector("y_big", vector.check, vector.checks);
    expect_bounded(vector.shape, files, small_kib);
  }
}

// What the runner keeps of a vector for the reports is its outcome, a
// few KiB a run, and the rest is given back before the next vector: four
// 8 MiB vectors cost what one does (within 4 MiB: the outcomes, and the
// allocator's own), and each the bound.
TEST_F(VectorCost, SeveralLargeVectorsCostWhatTheLargestDoes) {
  const long small_kib = small_peak_kib();
  const LargeVector vectors[] = {
      {{"four vectors of long words", test_support::shell_port("exit 2"), 0, 4 * 128}, words_check(2), 64},
      {{"four vectors of one huge error", {"false"}, 1, 4 * 2}, error_check(kSize), 1},
  };
  for (const auto& vector : vectors) {
    fs::remove_all(dir_ / "vectors");
    std::size_t largest = 0;
    for (const char* name : {"y_a", "y_b", "y_c", "y_d"}) {
      largest = std::max(largest, write_vector(name, vector.check, vector.checks));
    }
    const BinaryRun one = conform(vector.shape.port, {"--only", "y_a"});
    EXPECT_EQ(one.exit_code, vector.shape.exit_code) << shown(one);
    const BinaryRun four = conform(vector.shape.port);
    std::cout << vector.shape.name << ": " << four.max_rss_kib << " KiB at the peak, one of them " << one.max_rss_kib
              << " KiB\n";
    EXPECT_LE(four.max_rss_kib, one.max_rss_kib + 4096) << vector.shape.name << ": " << shown(four);
    expect_bounded(vector.shape, largest, small_kib);
  }
}

}  // namespace
}  // namespace agent_session
