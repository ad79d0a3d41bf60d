#include "conform/runner/temp_folder.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agent_session::conform::runner {
namespace {

namespace fs = std::filesystem;
using base::Fd;

// The listed folders. Held for good by the signal path once it removes
// them, so that every other thread waits at it until the process exits.
// Never destroyed: a folder owned by a static (fuzz_port's) is removed
// after every function-local static made later is gone.
std::mutex& list_mutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
std::vector<fs::path>& listed() {
  static auto* folders = new std::vector<fs::path>;
  return *folders;
}

bool is_folder(int at, const char* name) {
  struct stat info {};
  return ::fstatat(at, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(info.st_mode);
}

// The sub-folders of the folder `fd` is open on; everything else in it
// (files, links, sockets) is unlinked on the way.
std::vector<std::string> empty_but_folders(int fd) {
  std::vector<std::string> folders;
  // A copy of `fd` for the stream, closed here when no stream takes it;
  // once one does, closedir closes it, on every way out (a throwing
  // push_back included).
  Fd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  const std::unique_ptr<DIR, int (*)(DIR*)> stream(::fdopendir(copy.get()), ::closedir);
  if (stream == nullptr) return folders;
  copy.release();
  DIR* const dir = stream.get();
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    const bool folder = entry->d_type == DT_DIR || (entry->d_type == DT_UNKNOWN && is_folder(fd, name.c_str()));
    if (folder) {
      folders.push_back(name);
    } else {
      ::unlinkat(fd, name.c_str(), 0);
    }
  }
  return folders;
}

// The folder `name` in `at` (nothing when it is not a folder, or cannot be
// opened), made readable, writable and searchable first. The mode is set
// through a descriptor of the folder itself, never by name: a link put in
// its place is not followed, and nothing it names changes mode.
Fd open_folder(int at, const char* name) {
  const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  Fd folder(::openat(at, name, flags));
  if (folder.get() >= 0 || errno != EACCES) return folder;
  const Fd handle(::openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (handle.get() < 0) return folder;
  const std::string self = "/proc/self/fd/" + std::to_string(handle.get());
  ::chmod(self.c_str(), S_IRWXU);
  return Fd(::open(self.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

struct Identity {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const Identity&) const = default;
};

Identity identity(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return {};
  return {info.st_dev, info.st_ino};
}

}  // namespace

bool remove_tree(const fs::path& path) noexcept {
  try {
    if (!is_folder(AT_FDCWD, path.c_str())) {
      ::unlink(path.c_str());  // a file, or a link put in its place: the link, never what it names
    } else {
      // The way down, one folder a level: its name, which folder it is,
      // and its sub-folders still to remove.
      struct Level {
        std::string name;
        Identity id;
        std::vector<std::string> folders;
      };
      Fd here = open_folder(AT_FDCWD, path.c_str());
      std::vector<Level> down;
      if (here.get() >= 0) down.push_back({"", identity(here.get()), empty_but_folders(here.get())});
      while (!down.empty()) {
        Level& level = down.back();
        if (level.folders.empty()) {
          if (down.size() == 1) break;
          Fd up(::openat(here.get(), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
          // ".." is the folder we came from unless something moved this
          // one meanwhile: then stop rather than remove elsewhere.
          if (up.get() < 0 || !(identity(up.get()) == down[down.size() - 2].id)) break;
          ::unlinkat(up.get(), level.name.c_str(), AT_REMOVEDIR);
          here = std::move(up);
          down.pop_back();
          continue;
        }
        const std::string name = std::move(level.folders.back());
        level.folders.pop_back();
        Fd child = open_folder(here.get(), name.c_str());
        if (child.get() < 0) continue;  // left: the rmdir below fails and says so
        here = std::move(child);
        down.push_back({name, identity(here.get()), empty_but_folders(here.get())});
      }
      here.reset();
      ::rmdir(path.c_str());
    }
  } catch (...) {  // out of memory for names: what is left stays
  }
  struct stat info {};
  return ::lstat(path.c_str(), &info) != 0 && errno == ENOENT;
}

fs::path make_temp_folder(std::string_view prefix) {
  std::error_code error;
  fs::path temp = fs::temp_directory_path(error);
  if (error) temp = "/tmp";
  temp = fs::absolute(temp, error);  // a relative TMPDIR: the port runs elsewhere
  std::string pattern = (temp / (std::string(prefix) + "XXXXXX")).string();
  const std::lock_guard lock(list_mutex());
  listed().reserve(listed().size() + 1);  // listing it cannot fail once it is made
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "cannot make a folder in " + temp.string());
  }
  listed().emplace_back(pattern);
  return listed().back();
}

void remove_temp_folder(const fs::path& folder) noexcept {
  const std::lock_guard lock(list_mutex());
  remove_tree(folder);
  auto& folders = listed();
  folders.erase(std::remove(folders.begin(), folders.end(), folder), folders.end());
}

void remove_every_temp_folder_for_good() noexcept {
  list_mutex().lock();  // never unlocked: the process exits holding it
  for (const fs::path& folder : listed()) remove_tree(folder);
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

TempFolder::TempFolder(const std::string& prefix) : path_(make_temp_folder(prefix + "-")) {
  fd_.reset(::open(path_.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd_.get() < 0) {
    const int opened = errno;
    remove_temp_folder(path_);
    throw std::system_error(opened, std::generic_category(), "cannot open " + path_.string());
  }
}

TempFolder::~TempFolder() { remove_temp_folder(path_); }

}  // namespace agent_session::conform::runner
