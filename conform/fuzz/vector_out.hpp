// A difference found by `agent-session-conform fuzz`, written as a vector
// folder ready to add to corpus/conformance (corpus/conformance/README.md
// "Layout"): input.jsonl (the bytes), expect.json (the reference's answers,
// one check a line, its "rule" citing the SPEC section and its "rules"
// the IDs of the rules it pins), and reproduce.sh,
// the commands that show the difference (kept beside the vector: the
// schema allows nothing else in expect.json).
#pragma once

#include "base/descriptor.hpp"
#include "conform/runner/conform_judge.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace agent_session::conform::fuzz {

struct FoundVector {
  std::string name;                // the folder's name, e.g. fuzz_7_123
  std::string input;               // input.jsonl's bytes
  std::string rule;                // "SPEC §3: the canonical serialization"
  std::vector<std::string> rules;  // its rule IDs: {"R3-2", "R6-5"}
  std::string about;               // one sentence
  std::vector<runner::Check> checks;
  std::vector<std::string> reproduce;  // shell lines
};

// expect.json's text.
std::string expect_json(const FoundVector& vector);

// A vector's new folder under `out` (made with its parents when missing;
// `out` itself may be a link, the user's choice): named `name`, or, when
// anything of that name is there already (a folder of an earlier run, a
// link someone planted), `name`_2, `name`_3, ... up to `name`_1000: made
// with mkdir, which never reuses what exists, so nothing is ever written
// through a link or into another's folder. Throws std::system_error.
struct VectorFolder {
  std::filesystem::path path;  // `out`/`name`
  std::string name;            // the name it got
  base::Fd fd;                 // the folder, for write_vector_files
};
VectorFolder new_vector_folder(const std::filesystem::path& out, const std::string& name);

// Writes the vector's files (input.jsonl, expect.json, reproduce.sh) into
// `folder`, each created exclusively in it (O_CREAT | O_EXCL | O_NOFOLLOW).
// Throws std::system_error when it cannot write.
void write_vector_files(const VectorFolder& folder, const FoundVector& vector);

// Both: the folder named after `vector.name`, which is set to the name it
// got; returns the folder. Throws as they do.
std::filesystem::path write_vector(const std::filesystem::path& out, FoundVector& vector);

// `words` as one shell command line, each quoted when it needs it.
std::string shell_line(const std::vector<std::string>& words);

}  // namespace agent_session::conform::fuzz
