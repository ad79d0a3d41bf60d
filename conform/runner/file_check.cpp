#include "runner/file_check.hpp"

#include "runner/temp_folders.hpp"
#include "runner/vector_files.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace agent_session::cli {
namespace {

namespace fs = std::filesystem;

const char* const kFileName = "session.jsonl";

}  // namespace

CheckFile::CheckFile(const Check& check, const std::string& input) : check_(check) {
  if (check.file_before == Check::FileBefore::dash) return;
  folder_ = make_temp_folder("agent-session-conform-file-");
  if (check.file_before != Check::FileBefore::copy) return;
  std::ofstream file(folder_ / kFileName, std::ios::binary);
  file << input;
  file.close();
  if (!file) {
    const int error = errno != 0 ? errno : EIO;
    remove_temp_folder(folder_);
    throw std::system_error(error, std::generic_category(), "cannot write " + (folder_ / kFileName).string());
  }
}

CheckFile::~CheckFile() {
  if (folder_.empty()) return;
  // A port that made FILE unwritable, or a folder unreadable, leaves
  // nothing behind either; nor does a signal (runner/clean_ends.hpp).
  remove_temp_folder(folder_);
}

std::string CheckFile::path() const { return folder_.empty() ? std::string("-") : (folder_ / kFileName).string(); }

std::optional<std::string> CheckFile::judge_after() const {
  if (folder_.empty()) return std::nullopt;
  std::error_code error;
  const bool exists = fs::symlink_status(folder_ / kFileName, error).type() != fs::file_type::not_found;
  const std::optional<std::string>& expected = check_.file_after;
  if (!exists) {
    if (!expected) return std::nullopt;
    return "FILE does not exist after the run, expected " + std::to_string(expected->size()) +
           " bytes: " + excerpt(*expected, 0, 60);
  }
  std::string actual;
  try {
    actual = read_vector_file(folder_, kFileName);
  } catch (const std::runtime_error& problem) {
    return std::string("FILE after the run: ") + problem.what();
  }
  if (!expected) {
    return "FILE exists after the run (" + std::to_string(actual.size()) + " bytes: " + excerpt(actual, 0, 60) +
           "), expected no file";
  }
  if (actual == *expected) return std::nullopt;
  return describe_difference("FILE", *expected, actual);
}

}  // namespace agent_session::cli
