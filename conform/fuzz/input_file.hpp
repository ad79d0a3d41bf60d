// Where a fuzz input lives while the port reads it: a folder of our own
// under TMPDIR, and FILE in it rewritten for each input.
//
// Example:
//   TempDir dir;
//   write_input(dir.path() / "input.jsonl", bytes);
#pragma once

#include <filesystem>
#include <string>

namespace agent_session::fuzz {

// A new folder under TMPDIR (/tmp when unset), removed with everything in
// it when this ends, or on a signal (runner/temp_folders.hpp). Throws
// std::system_error when it cannot be made.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// FILE's new contents, written over the old ones and cut to their size:
// never truncated to nothing first, which makes ext4 write the file back
// to disk at its close (auto_da_alloc) and costs more than a port's run.
// Throws std::system_error.
void write_input(const std::filesystem::path& file, const std::string& bytes);

}  // namespace agent_session::fuzz
