// Where a fuzz input lives while the port reads it: a folder of our own
// under TMPDIR, and FILE in it rewritten for each input.
//
// Example:
//   TempDir dir;
//   write_input(dir.fd(), dir.path() / "input.jsonl", bytes);
#pragma once

#include "conform/runner/temp_folder.hpp"

#include <filesystem>
#include <string>

namespace agent_session::conform::fuzz {

// A new folder agent-session-fuzz-XXXXXX under TMPDIR (/tmp when unset),
// absolute, removed with everything in it when this ends, whatever the
// port left there, or on a signal (runner/temp_folder.hpp). Throws std::system_error when
// it cannot be made.
class TempDir : public runner::TempFolder {
 public:
  TempDir() : TempFolder("agent-session-fuzz") {}
};

// FILE's new contents, in `folder` (a descriptor of FILE's folder that
// the runner holds: a port that renamed the folder and put a link in its
// place changes nothing), written over the old ones and cut to their size:
// never truncated to nothing first, which makes ext4 write the file back
// to disk at its close (auto_da_alloc) and costs more than a port's run.
// Never through a link, never blocking: FILE is opened with O_NOFOLLOW and
// O_NONBLOCK, and when the port left something else there (a link to a
// file of ours, a FIFO, a folder) that is removed and FILE made anew,
// exclusively. Throws std::system_error.
void write_input(int folder, const std::filesystem::path& file, const std::string& bytes);

}  // namespace agent_session::conform::fuzz
