// The two answers and their comparison (answers.hpp).
#include "differential/answers.hpp"

#include "cli/cli.hpp"
#include "conform/runner/subprocess.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string_view>

namespace agent_session::differential {
namespace {

namespace fs = std::filesystem;

const fs::path kOracleBatch = fs::path(AGENT_SESSION_SOURCE_DIR) / "tests" / "differential" / "oracle_batch.mjs";

// A short excerpt on one line: newlines and other controls escaped.
std::string shown(const std::string& bytes, std::size_t from) {
  std::string text = "\"";
  for (const char c : bytes.substr(std::min(from, bytes.size()), 100)) {
    if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      text += escape;
    } else {
      text += c;
    }
  }
  return text + "\"";
}

// A JSON string of `text`, for job arguments: paths and numbers, which hold
// no control characters.
std::string json_string(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

std::string difference(const Answer& ours, const Answer& oracle) {
  std::ostringstream text;
  if (ours.exit_code != oracle.exit_code) {
    text << "exit " << ours.exit_code << ", oracle " << oracle.exit_code << "; our stderr: " << shown(ours.err, 0)
         << "; oracle stderr: " << shown(oracle.err, 0);
  } else if (ours.out != oracle.out) {
    const auto [a, b] = std::mismatch(ours.out.begin(), ours.out.end(), oracle.out.begin(), oracle.out.end());
    const auto at = static_cast<std::size_t>(a - ours.out.begin());
    const std::size_t from = at > 40 ? at - 40 : 0;
    text << "stdout differs at byte " << at << "; ours: " << shown(ours.out, from)
         << "\n  oracle: " << shown(oracle.out, from);
  } else if (ours.exit_code == 1 && (spec_error(ours.err).empty() || spec_error(ours.err) != spec_error(oracle.err))) {
    text << "error text differs; ours: " << shown(ours.err, 0) << "; oracle: " << shown(oracle.err, 0);
  }
  return text.str();
}

std::vector<Answer> ask_oracle(const std::vector<std::vector<std::string>>& jobs, const fs::path& dir) {
  {
    std::ofstream out(dir / "jobs.jsonl", std::ios::binary);
    for (const auto& args : jobs) {
      std::string line = "[";
      for (const auto& arg : args) line += (line.size() > 1 ? "," : "") + json_string(arg);
      out << line << "]\n";
    }
  }
  const auto run = conform::runner::run_process(
      {"node", kOracleBatch.string(), (dir / "jobs.jsonl").string(), (dir / "results.bin").string()}, "",
      std::chrono::minutes(10));
  if (run.end != conform::runner::ProcessEnd::exited || run.exit_code != 0) {
    ADD_FAILURE() << "oracle_batch.mjs: " << conform::runner::describe_end(run, std::chrono::minutes(10)) << "\n"
                  << run.err;
    return {};
  }
  std::ifstream in(dir / "results.bin", std::ios::binary);
  std::vector<Answer> answers;
  for (Answer answer; in >> answer.exit_code;) {
    std::size_t out_size = 0, err_size = 0;
    in >> out_size >> err_size;
    in.get();  // the header's '\n'
    answer.out.resize(out_size);
    answer.err.resize(err_size);
    in.read(answer.out.data(), static_cast<std::streamsize>(out_size));
    in.read(answer.err.data(), static_cast<std::streamsize>(err_size));
    answers.push_back(answer);
  }
  return answers;
}

Answer ask_ours(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out, err;
  Answer answer;
  answer.exit_code = cli::run(args, in, out, err);
  answer.out = out.str();
  answer.err = err.str();
  return answer;
}

}  // namespace agent_session::differential
