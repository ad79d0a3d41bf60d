// The files of `agent-session conform`'s vectors (corpus/conformance/README.md
// "Layout"), read so that no vector can hang, flood or crash the runner.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace agent_session::cli {

// A vector's files are at most this large: the biggest in the corpus is
// 70 KB, and every job holds its vector's input in memory.
inline constexpr std::size_t kMaxVectorFile = std::size_t{64} << 20;

// A vector: a folder of the vectors folder, or an entry whose type cannot
// be read (a symlink loop...), with `problem` saying why; such an entry
// fails as a vector, since it may be one: it is never skipped in silence.
struct VectorDir {
  std::filesystem::path path;
  std::string problem;
  // Set for the runner's built-in vector (missing_file_vector in
  // runner/conform_judge.hpp): the path that does not exist that it runs with.
  std::filesystem::path missing_file;
};

// The vectors of `root`, in name order. When `root` cannot be listed,
// `error` says why and nothing is returned.
std::vector<VectorDir> vector_dirs(const std::filesystem::path& root, std::error_code& error);

// The bytes of `dir/name`, read without ever blocking: opened with
// O_NONBLOCK (a FIFO with no writer would block the open), then only a
// regular file is read (the opened descriptor is checked, not the path),
// and never more than kMaxVectorFile bytes. Throws std::runtime_error with
// one line ("input.jsonl is a FIFO, not a regular file", "cannot open
// expect.json: Permission denied", "input.jsonl holds N bytes, more than
// the 67108864 a vector file may").
std::string read_vector_file(const std::filesystem::path& dir, const std::string& name);

}  // namespace agent_session::cli
