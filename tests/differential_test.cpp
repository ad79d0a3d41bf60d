// Differential testing against the JavaScript oracle (tests/oracle/cli.mjs,
// JSON.parse / JSON.stringify / .length plus SPEC.md §2.1): random sessions
// rich in what breaks ports (fuzz/session_writer.hpp, shared with agent-session-conform fuzz), written as
// raw JSONL text (duplicate keys and number spellings survive), must get
// byte-identical answers from our CLI and from the oracle: exit code,
// standard output, and the spec's error text (differential/answers.hpp).
// Then the same for every real session in corpus/real/.
//
// Reproducible: the seed is printed, and AGENT_SESSION_DIFF_SEED=N replays
// (or explores: any other N is a new run). On a mismatch the generated
// files are kept and their folder printed.
//
// Speed: our side runs in process (cli::run, what main() calls); the
// oracle side runs every job in one Node.js process
// (tests/differential/oracle_batch.mjs calls the oracle's own main()).
#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "conform/runner/subprocess.hpp"

#include "conform/fuzz/session_writer.hpp"
#include "differential/answers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using conform::fuzz::SessionWriter;
using differential::Answer;

const fs::path kSource = AGENT_SESSION_SOURCE_DIR;
const fs::path kOracle = kSource / "tests" / "oracle" / "cli.mjs";

constexpr std::uint64_t kDefaultSeed = 20261130;
constexpr int kMessageFiles = 10;       // 10 files x 2,000 valid messages
constexpr int kMessagesPerFile = 2000;  // (plus the invalid-line files)
constexpr int kInvalidFiles = 1500;     // each ends its valid lines with a broken one
constexpr int kHistories = 2000;        // tool-call histories, trimmed at many budgets

std::uint64_t seed() {
  const char* text = std::getenv("AGENT_SESSION_DIFF_SEED");
  return text != nullptr && *text != '\0' ? std::stoull(text) : kDefaultSeed;
}

// Budgets around every interesting size of a session: exactly the estimate
// of a suffix (it fits) and one less (it does not), a random one, and now
// and then 0 and a huge one (the trivial ends, so only now and then).
std::vector<std::uint64_t> budgets(const std::string& bytes, SessionWriter& writer, std::size_t suffixes) {
  std::vector<std::uint64_t> chosen;
  if (writer.chance(0.1)) chosen = {0, 18446744073709551615ull};
  try {
    const std::vector<Message> messages = load_session_from_memory(bytes);
    if (messages.empty()) return {writer.below(100)};  // "context budget cannot be empty"
    for (std::size_t n = 0; n < suffixes; ++n) {
      const std::size_t from = writer.below(messages.size());
      const std::uint64_t size = estimate_context_chars(std::span(messages).subspan(from));
      chosen.insert(chosen.end(), {size, size - 1});
    }
    chosen.push_back(writer.below(estimate_context_chars(messages) + 1));
  } catch (const SessionError&) {
  }
  return chosen;
}

class Workspace {
 public:
  Workspace() {
    std::string pattern = (fs::temp_directory_path() / "agent_session_diff_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() {
    if (keep_) {
      std::cout << "generated files kept in " << dir_ << "\n";
    } else {
      fs::remove_all(dir_);
    }
  }
  fs::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  const fs::path& dir() const { return dir_; }
  void keep() { keep_ = true; }

 private:
  fs::path dir_;
  bool keep_ = false;
};

struct Plan {
  std::vector<std::vector<std::string>> jobs;
  std::size_t messages = 0, invalid_files = 0, histories = 0;
};

void plan_trims(Plan& plan, const fs::path& file, const std::vector<std::uint64_t>& chosen) {
  for (const std::uint64_t budget : chosen)
    plan.jobs.push_back({"trim", "--max-chars", std::to_string(budget), file.string()});
}

Plan generate(std::uint64_t seed, Workspace& space) {
  SessionWriter writer(seed);
  Plan plan;
  for (int f = 0; f < kMessageFiles; ++f) {
    std::string bytes;
    for (int m = 0; m < kMessagesPerFile; ++m) bytes += writer.message() + writer.line_end() + writer.empty_lines();
    if (writer.chance(0.5)) bytes.pop_back();  // no newline at the end of the file
    const fs::path file = space.write("messages_" + std::to_string(f) + ".jsonl", bytes);
    for (const char* command : {"estimate", "canon"}) plan.jobs.push_back({command, file.string()});
    plan_trims(plan, file, budgets(bytes, writer, 1));
    plan.messages += kMessagesPerFile;
  }
  for (int f = 0; f < kInvalidFiles; ++f) {
    std::string bytes;
    for (std::size_t n = writer.below(4); n > 0; --n)
      bytes += writer.message() + writer.line_end() + writer.empty_lines();
    bytes += (writer.chance(0.5) ? writer.bad_json() : writer.bad_record()) + writer.line_end();
    for (std::size_t n = writer.below(3); n > 0; --n) {
      bytes += (writer.chance(0.5) ? writer.message() : writer.bad_record()) + writer.line_end();
    }
    const fs::path file = space.write("invalid_" + std::to_string(f) + ".jsonl", bytes);
    plan.jobs.push_back({"check", file.string()});
    plan.jobs.push_back({"trim", "--max-chars", "1000", file.string()});
    ++plan.invalid_files;
  }
  for (int h = 0; h < kHistories; ++h) {
    const std::string bytes = writer.history();
    const fs::path file = space.write("history_" + std::to_string(h) + ".jsonl", bytes);
    for (const char* command : {"estimate", "canon"}) plan.jobs.push_back({command, file.string()});
    plan_trims(plan, file, budgets(bytes, writer, 2));
    ++plan.histories;
  }
  return plan;
}

TEST(Differential, RandomSessionsAgreeWithTheJavaScriptOracle) {
  const std::uint64_t run_seed = seed();
  std::cout << "differential seed " << run_seed << " (AGENT_SESSION_DIFF_SEED=" << run_seed << " replays it)\n";
  SCOPED_TRACE("AGENT_SESSION_DIFF_SEED=" + std::to_string(run_seed));
  Workspace space;
  const auto start = std::chrono::steady_clock::now();
  const auto seconds_since = [](auto from) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
  };
  const Plan plan = generate(run_seed, space);
  std::cout << "generated " << plan.messages << " messages, " << plan.invalid_files << " invalid files, "
            << plan.histories << " histories in " << seconds_since(start) << " s\n";
  ASSERT_GE(plan.messages, 20000u);
  ASSERT_GE(plan.histories, 2000u);

  auto phase = std::chrono::steady_clock::now();
  const std::vector<Answer> oracle = differential::ask_oracle(plan.jobs, space.dir());
  ASSERT_EQ(oracle.size(), plan.jobs.size());
  std::cout << "the oracle answered in " << seconds_since(phase) << " s\n";
  phase = std::chrono::steady_clock::now();
  std::size_t mismatches = 0;
  std::map<int, std::size_t> exits;
  std::set<std::string> errors;
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
    const Answer ours = differential::ask_ours(plan.jobs[i]);
    ++exits[oracle[i].exit_code];
    errors.insert(differential::spec_error(oracle[i].err, false));
    const std::string why = differential::difference(ours, oracle[i]);
    if (why.empty()) continue;
    if (++mismatches <= 10) {
      std::string args;
      for (const auto& arg : plan.jobs[i]) args += " " + arg;
      ADD_FAILURE() << "agent-session" << args << ":\n  " << why;
    }
  }
  std::cout << "our CLI answered in " << seconds_since(phase) << " s\n";
  EXPECT_EQ(mismatches, 0u) << "of " << plan.jobs.size() << " command lines";
  if (mismatches > 0) space.keep();
  // The generator really reaches every outcome (else this test proves little).
  EXPECT_GT(exits[0], plan.jobs.size() / 2);
  EXPECT_GT(exits[1], plan.invalid_files);
  for (const char* error :
       {"invalid session JSON at line ", "invalid session record at line ",
        "context budget cannot contain the smallest consistent message unit", "context budget cannot be empty"}) {
    EXPECT_TRUE(errors.count(error)) << error;
  }
  std::cout << plan.jobs.size() << " command lines: " << exits[0] << " exit 0, " << exits[1] << " exit 1, "
            << mismatches << " mismatches\n";
}

// The real sessions, through both real command lines.
class RealSession : public ::testing::TestWithParam<std::string> {};

TEST_P(RealSession, OurCliAndTheOracleGiveTheSameBytes) {
  const fs::path file = kSource / "corpus" / "real" / GetParam();
  const std::vector<std::vector<std::string>> checks = {{"check"},
                                                        {"estimate"},
                                                        {"canon"},
                                                        {"trim", "--max-chars", "2000"},
                                                        {"trim", "--max-chars", "20000"},
                                                        {"trim", "--max-chars", "200000"}};
  for (const auto& check : checks) {
    std::vector<std::string> ours = {AGENT_SESSION_CLI}, oracle = {"node", kOracle.string()};
    for (auto* argv : {&ours, &oracle}) {
      argv->insert(argv->end(), check.begin(), check.end());
      argv->push_back(file.string());
    }
    const auto timeout = std::chrono::minutes(2);
    const auto a = conform::runner::run_process(ours, "", timeout);
    const auto b = conform::runner::run_process(oracle, "", timeout);
    ASSERT_EQ(a.end, conform::runner::ProcessEnd::exited) << conform::runner::describe_end(a, timeout);
    ASSERT_EQ(b.end, conform::runner::ProcessEnd::exited) << conform::runner::describe_end(b, timeout);
    EXPECT_EQ(differential::difference({a.exit_code, a.out, a.err}, {b.exit_code, b.out, b.err}), "") << check.back();
    if (check[0] != "trim") {
      EXPECT_EQ(a.exit_code, 0) << a.err;
    }
  }
}

std::vector<std::string> real_sessions() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kSource / "corpus" / "real")) {
    if (entry.path().extension() == ".jsonl") names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Corpus, RealSession, ::testing::ValuesIn(real_sessions()), [](const auto& info) {
  std::string name = info.param.substr(0, info.param.rfind('.'));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
});

}  // namespace
}  // namespace agent_session
