#include "conform/runner/file_check.hpp"

#include "conform/runner/temp_folder.hpp"
#include "conform/runner/vector_files.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>

namespace agent_session::conform::runner {
namespace {

const char* const kFileName = "session.jsonl";

}  // namespace

CheckFile::CheckFile(const Check& check, const std::string& input) : check_(check) {
  if (check.file_before == Check::FileBefore::dash) return;
  folder_.emplace("agent-session-conform-file");
  if (check.file_before != Check::FileBefore::copy) return;
  try {
    write_new_file_at(folder_->fd(), kFileName, input);
  } catch (const std::system_error& error) {
    throw std::system_error(error.code(), "cannot write " + (folder_->path() / kFileName).string());
  }
}

// TempFolder removes what the port left, an unreadable folder too, and a
// signal removes it as well (runner/clean_ends.hpp).
CheckFile::~CheckFile() = default;

std::string CheckFile::path() const { return folder_ ? (folder_->path() / kFileName).string() : std::string("-"); }

// FILE is read through the folder's descriptor, without following a link
// and without blocking: a port that made FILE a link (to a secret; a hard
// link too) or a FIFO fails the check, named, and nothing outside the
// folder is read (SPEC.md §6.1).
std::optional<std::string> CheckFile::judge_after() const {
  if (!folder_) return std::nullopt;
  struct stat info {};
  const bool exists = ::fstatat(folder_->fd(), kFileName, &info, AT_SYMLINK_NOFOLLOW) == 0;
  if (!exists && errno != ENOENT) {  // the port took the folder's permissions away
    return std::string("after the run, FILE cannot be examined: ") + std::strerror(errno);
  }
  const std::optional<std::string>& expected = check_.file_after;
  if (!exists) {
    if (!expected) return std::nullopt;
    return "FILE does not exist after the run, expected " + std::to_string(expected->size()) +
           " bytes: " + excerpt(*expected, 0, 60);
  }
  std::string actual;
  try {
    actual = read_file_at(folder_->fd(), kFileName, "FILE", "the runner reads no file that is also elsewhere");
  } catch (const std::runtime_error& problem) {
    return std::string("after the run, ") + problem.what();
  }
  if (!expected) {
    return "FILE exists after the run (" + std::to_string(actual.size()) + " bytes: " + excerpt(actual, 0, 60) +
           "), expected no file";
  }
  if (actual == *expected) return std::nullopt;
  return describe_difference("FILE", *expected, actual);
}

}  // namespace agent_session::conform::runner
