// A difference found by `agent-session-conform fuzz`, written as a vector
// folder ready to add to corpus/conformance (corpus/conformance/README.md
// "Layout"): input.jsonl (the bytes), expect.json (the reference's answers,
// one check a line, its "rule" citing the SPEC section), and reproduce.sh,
// the commands that show the difference (kept beside the vector: the
// schema allows nothing else in expect.json).
#pragma once

#include "runner/conform_judge.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace agent_session::fuzz {

struct FoundVector {
  std::string name;   // the folder's name, e.g. fuzz_7_123
  std::string input;  // input.jsonl's bytes
  std::string rule;   // "SPEC §3: the canonical serialization"
  std::string about;  // one sentence
  std::vector<cli::Check> checks;
  std::vector<std::string> reproduce;  // shell lines
};

// expect.json's text.
std::string expect_json(const FoundVector& vector);

// Writes `out`/name/ (creating `out`); returns the folder. Throws
// std::system_error (or std::runtime_error) when it cannot write.
std::filesystem::path write_vector(const std::filesystem::path& out, const FoundVector& vector);

// `words` as one shell command line, each quoted when it needs it.
std::string shell_line(const std::vector<std::string>& words);

}  // namespace agent_session::fuzz
