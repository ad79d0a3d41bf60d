#include "runner/file_check.hpp"

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

fs::path new_folder() {
  std::error_code error;
  fs::path temp = fs::temp_directory_path(error);
  if (error) temp = "/tmp";
  std::string pattern = (temp / "agent-session-conform-file-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "cannot make a folder in " + temp.string());
  }
  return pattern;
}

}  // namespace

CheckFile::CheckFile(const Check& check, const std::string& input) : check_(check) {
  if (check.file_before == Check::FileBefore::dash) return;
  folder_ = new_folder();
  if (check.file_before != Check::FileBefore::copy) return;
  std::ofstream file(folder_ / kFileName, std::ios::binary);
  file << input;
  file.close();
  if (!file) {
    const int error = errno != 0 ? errno : EIO;
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
    throw std::system_error(error, std::generic_category(), "cannot write " + (folder_ / kFileName).string());
  }
}

CheckFile::~CheckFile() {
  if (folder_.empty()) return;
  std::error_code ignored;
  // A port that made FILE unwritable or a folder leaves nothing behind either.
  fs::permissions(folder_, fs::perms::owner_all, fs::perm_options::add, ignored);
  fs::remove_all(folder_, ignored);
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
