// The files of `agent-session conform`'s vectors (corpus/conformance/README.md
// "Layout"), read so that no vector can hang, flood or crash the runner,
// and never through a link: a vector is data, and a link in it could point
// anywhere (/proc/self/environ) whose bytes a FAIL line would then print;
// nor a hard link: a file with another name elsewhere is not the vector's.
#pragma once

#include "base/descriptor.hpp"
#include "harness/protocol.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace agent_session::conform::runner {

// A vector's files are at most harness::kMaxVectorFile bytes
// (src/harness/protocol.hpp: a harness run request carries one).
using harness::kMaxVectorFile;

// A vector: a folder of the vectors folder, or an entry that is not one
// but may have been meant as one (a link to a folder, an entry whose type
// cannot be read: a symlink loop...), with `problem` saying why it cannot
// be used; such an entry fails as a vector: it is never skipped in silence.
struct VectorDir {
  std::filesystem::path path;
  std::string problem;
  // Set for the runner's built-in vector (missing_file_vector in
  // runner/conform_judge.hpp): the path that does not exist that it runs with.
  std::filesystem::path missing_file;
  // Set for one of the runner's own checks (runner/stream_checks.hpp): its name.
  std::string runner_check;
};

// The vectors of `root`, in name order. When `root` cannot be listed,
// `error` says why and nothing is returned. `root` itself may be a link
// (the folder the user named); an entry of it that is a link to a folder
// is a vector with a problem, never followed.
std::vector<VectorDir> vector_dirs(const std::filesystem::path& root, std::error_code& error);

// The folder `path` (a link followed: a folder the user named), as an
// O_PATH descriptor for the *_at functions below. Throws std::runtime_error
// ("cannot open FOLDER: No such file or directory").
base::Fd open_folder(const std::filesystem::path& path);

// A vector's folder, `dir` (VectorDir::path): its parent (the vectors
// folder) opened as open_folder does, then `dir`'s own name without
// following a link. Throws std::runtime_error with one line ("the vector's
// folder is a symbolic link, not a folder; the runner follows no link out
// of the vectors folder").
base::Fd open_vector_folder(const std::filesystem::path& dir);

// Why a file read from a vector's folder must have no other name.
inline constexpr const char* kVectorFilesOwn = "a vector's files are its own";

// The bytes of `name` in the open folder `folder`, read without ever
// blocking and never through a link: opened with O_NOFOLLOW (a link fails)
// and O_NONBLOCK (a FIFO with no writer would block the open), then only a
// regular file with no other name (a hard link has st_nlink > 1; `own`
// says why that is refused) is read (the opened descriptor is checked,
// not the path), and never more than kMaxVectorFile bytes. Throws
// std::runtime_error with one line naming it `shown` ("input.jsonl is a
// FIFO, not a regular file", "FILE is a symbolic link, not a regular
// file; the runner follows no link out of a folder", "input.jsonl has 2
// links: a vector's files are its own", "cannot open expect.json:
// Permission denied", "input.jsonl holds N bytes, more than the 67108864
// a vector file may").
std::string read_file_at(int folder, const std::string& name, const std::string& shown,
                         const char* own = kVectorFilesOwn);

// read_file_at(open_vector_folder(dir), name, name): a file of a vector.
std::string read_vector_file(const std::filesystem::path& dir, const std::string& name);

// A file the user named (--skip-file, --known-failures, a report given to
// `report --diff`): a link is followed, and a file with other names read,
// the rest as read_file_at, but at most `limit` bytes (`whose`: what
// may hold that many, for the error). Throws std::runtime_error with the
// reason alone ("No such file or directory", "it is a directory, not a
// regular file", "it holds N bytes, more than the 1048576 a report may"),
// for the caller to give after "cannot read the skip file 'PATH': ".
std::string read_named_file(const std::filesystem::path& path, std::size_t limit = kMaxVectorFile,
                            const char* whose = "a vector file");

}  // namespace agent_session::conform::runner
