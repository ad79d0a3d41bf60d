// Runs every vector in corpus/conformance/ (layout: its README.md) through
// the command-line protocol, in process: once with the file's path and
// once with `-` and the bytes on standard input.
#include "cli/cli.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

const fs::path kVectors = fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus" / "conformance";

std::vector<std::string> vector_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kVectors)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The error text must be followed by the end of the line or by ": ", so
// that "line 1" never passes for "line 12".
bool contains_error(const std::string& stderr_text, const std::string& expected) {
  for (auto at = stderr_text.find(expected); at != std::string::npos; at = stderr_text.find(expected, at + 1)) {
    const std::string rest = stderr_text.substr(at + expected.size(), 2);
    if (rest.empty() || rest[0] == '\n' || rest == ": ") return true;
  }
  return false;
}

class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, EveryCheckAnswersAsExpected) {
  const fs::path dir = kVectors / GetParam();
  const auto expect = nlohmann::json::parse(read_bytes(dir / "expect.json"));
  const std::string input = read_bytes(dir / "input.jsonl");
  ASSERT_FALSE(expect.at("checks").empty());
  for (const auto& check : expect.at("checks")) {
    for (const bool use_stdin : {false, true}) {
      std::vector<std::string> args = check.at("args").get<std::vector<std::string>>();
      args.push_back(use_stdin ? "-" : (dir / "input.jsonl").string());
      std::istringstream in(use_stdin ? input : "");
      std::ostringstream out, err;
      const int exit_code = cli::run(args, in, out, err);
      SCOPED_TRACE(check.dump() + (use_stdin ? " (stdin)" : " (file)"));
      ASSERT_EQ(exit_code, check.at("exit").get<int>()) << "stderr: " << err.str();
      if (exit_code == 0) {
        EXPECT_EQ(out.str(), check.at("stdout").get<std::string>());
      }
      if (exit_code == 1) {
        EXPECT_TRUE(contains_error(err.str(), check.at("error").get<std::string>())) << "stderr: " << err.str();
        EXPECT_EQ(out.str(), "") << "nothing is printed for a rejected session";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Vectors, Conformance, ::testing::ValuesIn(vector_names()),
                         [](const auto& info) {
                           std::string name = info.param;  // gtest names allow [A-Za-z0-9_] only
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(ConformanceSuite, HasAVectorForEveryRule) { EXPECT_GE(vector_names().size(), 60u); }

}  // namespace
}  // namespace agent_session
