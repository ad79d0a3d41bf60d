#include "runner/temp_folder.hpp"

#include <cerrno>
#include <cstdlib>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agent_session::cli {
namespace {

namespace fs = std::filesystem;
using internal::Fd;

// Removes every entry of the open folder `folder` but its folders, whose
// names go to `folders`. False when an entry could not be removed.
bool remove_files(int folder, std::vector<std::string>& folders) {
  const int listed = ::openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (listed < 0) return false;
  DIR* dir = ::fdopendir(listed);
  if (dir == nullptr) {
    ::close(listed);
    return false;
  }
  bool removed = true;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    bool is_folder = entry->d_type == DT_DIR;
    if (entry->d_type == DT_UNKNOWN) {
      struct stat info {};
      is_folder = ::fstatat(folder, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(info.st_mode);
    }
    if (is_folder) {
      folders.push_back(name);
    } else if (::unlinkat(folder, name.c_str(), 0) != 0) {
      removed = false;
    }
  }
  ::closedir(dir);
  return removed;
}

// `name` in `folder` opened as a folder, never through a link, after
// giving its owner every permission on it.
Fd enter(int folder, const char* name) {
  ::fchmodat(folder, name, S_IRWXU, 0);  // a folder when it was listed; a link's target is never ours to change
  return Fd(::openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

}  // namespace

bool remove_tree(const fs::path& path) noexcept {
  try {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) return errno == ENOENT;
    if (!S_ISDIR(info.st_mode)) return ::unlink(path.c_str()) == 0;
    ::chmod(path.c_str(), S_IRWXU);
    Fd folder(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (folder.get() < 0) return false;
    // The names from `path` down to the folder open, each with the
    // folders of it still to remove.
    struct Level {
      std::string name;
      std::vector<std::string> folders;
    };
    std::vector<Level> levels(1);
    bool removed = remove_files(folder.get(), levels.back().folders);
    for (;;) {
      if (!levels.back().folders.empty()) {
        std::string name = std::move(levels.back().folders.back());
        levels.back().folders.pop_back();
        Fd inner = enter(folder.get(), name.c_str());
        if (inner.get() < 0) {
          removed = false;
          continue;
        }
        folder = std::move(inner);
        levels.push_back({std::move(name), {}});
        removed = remove_files(folder.get(), levels.back().folders) && removed;
        continue;
      }
      if (levels.size() == 1) break;
      Fd outer(::openat(folder.get(), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (outer.get() < 0) return false;
      folder = std::move(outer);
      removed = ::unlinkat(folder.get(), levels.back().name.c_str(), AT_REMOVEDIR) == 0 && removed;
      levels.pop_back();
    }
    folder.reset();
    return ::rmdir(path.c_str()) == 0 && removed;
  } catch (...) {  // out of memory for the names: what is left stays
    return false;
  }
}

void write_new_file_at(int folder, const std::string& name, std::string_view bytes, int mode) {
  const auto fail = [&name](int error) {
    throw std::system_error(error, std::generic_category(), "cannot create " + name);
  };
  const Fd file(
      ::openat(folder, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, static_cast<mode_t>(mode)));
  if (file.get() < 0) fail(errno);
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(file.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
}

TempFolder::TempFolder(const std::string& prefix) {
  std::error_code error;
  fs::path temp = fs::temp_directory_path(error);
  if (error) temp = "/tmp";
  temp = fs::absolute(temp, error);  // a relative TMPDIR: the port runs elsewhere
  std::string pattern = (temp / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "cannot make a folder in " + temp.string());
  }
  path_ = pattern;
  fd_.reset(::open(pattern.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd_.get() < 0) {
    const int opened = errno;
    ::rmdir(pattern.c_str());
    throw std::system_error(opened, std::generic_category(), "cannot open " + pattern);
  }
}

TempFolder::~TempFolder() { remove_tree(path_); }

}  // namespace agent_session::cli
