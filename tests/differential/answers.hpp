// The two answers to one command line in the differential test
// (differential_test.cpp): ours, from cli::run in this process (what main()
// calls), and the JavaScript oracle's, from one Node.js process for every
// job (oracle_batch.mjs); and whether they differ.
#pragma once

#include "conform/fuzz/reference_checks.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace agent_session::differential {

struct Answer {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs every job (the arguments after the program name) through the oracle
// in one Node.js process, with `dir` for its job and result files. On a
// failure of the batch itself: a test failure, and no answers.
std::vector<Answer> ask_oracle(const std::vector<std::vector<std::string>>& jobs, const std::filesystem::path& dir);

// Runs one command line through our CLI in process, no standard input.
Answer ask_ours(const std::vector<std::string>& args);

// The spec's error text in a port's standard error (the fuzzer's, one copy).
using conform::fuzz::spec_error;

// Why two answers differ (exit code, standard output byte for byte, or the
// spec's error text), or "" when they agree.
std::string difference(const Answer& ours, const Answer& oracle);

}  // namespace agent_session::differential
