#include "conform/runner/temp_folder.hpp"

#include "base/printable.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <ostream>
#include <random>
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
std::vector<TempFolder*>& listed() {
  static auto* folders = new std::vector<TempFolder*>;
  return *folders;
}

// What could not be removed, for take_removal_problems.
std::mutex& problems_mutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
std::vector<std::string>& problems() {
  static auto* lines = new std::vector<std::string>;
  return *lines;
}

void note_problem(std::string line) noexcept {
  try {
    const std::lock_guard lock(problems_mutex());
    problems().push_back(std::move(line));
  } catch (...) {  // out of memory: the folder stays unsaid
  }
}

// Gives the owner read, write and search on the folder `fd` is open on (an
// O_PATH descriptor included, through /proc), never by name: a link put
// in its place changes nothing, and nothing it names changes mode.
void make_owner_writable(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0 || (info.st_mode & S_IRWXU) == S_IRWXU) return;
  if (::fchmod(fd, S_IRWXU) == 0 || errno != EBADF) return;
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  ::chmod(self.c_str(), S_IRWXU);
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

// Whether the folder `inner` is open on is on another mount than the one
// `outer` is open on: a mount point (a bind mount of a folder elsewhere
// has an id of its own though its st_dev may be the same). Unknown ids
// (a kernel before 5.8) count as the same mount.
bool another_mount(int outer, int inner) {
  struct statx a {};
  struct statx b {};
  if (::statx(outer, "", AT_EMPTY_PATH, STATX_MNT_ID, &a) != 0 ||
      ::statx(inner, "", AT_EMPTY_PATH, STATX_MNT_ID, &b) != 0) {
    return false;
  }
  return (a.stx_mask & STATX_MNT_ID) && (b.stx_mask & STATX_MNT_ID) && a.stx_mnt_id != b.stx_mnt_id;
}

// The folder `name` in `at` (nothing when it is not a folder, cannot be
// opened, or is a mount point: what a port mounted there is not ours to
// empty, and its folder is left and named), made readable, writable and
// searchable (owner) through its own descriptor: a port may have left it
// mode 000, or 500 (whose entries then cannot be unlinked).
Fd open_folder(int at, const char* name) {
  const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  Fd folder(::openat(at, name, flags));
  if (folder.get() < 0 && errno == EACCES) {
    const Fd handle(::openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (handle.get() < 0) return Fd();
    if (another_mount(at, handle.get())) return Fd();
    make_owner_writable(handle.get());
    const std::string self = "/proc/self/fd/" + std::to_string(handle.get());
    folder.reset(::open(self.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }
  if (folder.get() < 0 || another_mount(at, folder.get())) return Fd();
  make_owner_writable(folder.get());
  return folder;
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

// Whether the folder `fd` is open on holds nothing.
bool is_empty(int fd) {
  Fd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  const std::unique_ptr<DIR, int (*)(DIR*)> stream(::fdopendir(copy.get()), ::closedir);
  if (stream == nullptr) return false;
  copy.release();
  ::rewinddir(stream.get());
  while (const dirent* entry = ::readdir(stream.get())) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") return false;
  }
  return true;
}

// Removes everything in the folder `top` is open on (readable, writable
// and searchable already), through descriptors (remove_at). Whether it
// is empty then.
bool remove_contents(int top) {
  // The way down, one folder a level: its name, which folder it is,
  // and its sub-folders still to remove.
  struct Level {
    std::string name;
    Identity id;
    std::vector<std::string> folders;
  };
  Fd here(::fcntl(top, F_DUPFD_CLOEXEC, 0));
  if (here.get() < 0) return false;
  std::vector<Level> down;
  down.push_back({"", identity(here.get()), empty_but_folders(here.get())});
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
    if (child.get() < 0) continue;  // left: the folder above is not empty, and that is said
    here = std::move(child);
    down.push_back({name, identity(here.get()), empty_but_folders(here.get())});
  }
  return is_empty(top);
}

// unlinkat(parent, name, flags), once more after making `parent`
// writable (owner) when it was not and `parent_is_ours`.
bool unlink_in(int parent, const std::string& name, int flags, bool parent_is_ours) {
  if (::unlinkat(parent, name.c_str(), flags) == 0) return true;
  if (errno != EACCES || !parent_is_ours) return false;
  make_owner_writable(parent);
  return ::unlinkat(parent, name.c_str(), flags) == 0;
}

std::string random_letters(std::size_t count) {
  static const char kLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 generator{std::random_device{}()};
  std::uniform_int_distribution<std::size_t> pick(0, sizeof kLetters - 2);
  std::string letters;
  for (std::size_t i = 0; i < count; ++i) letters += kLetters[pick(generator)];
  return letters;
}

}  // namespace

bool remove_at(int parent, const std::string& name, bool parent_is_ours) noexcept {
  try {
    Fd top = open_folder(parent, name.c_str());
    if (top.get() < 0) {
      // A file, or a link put in its place: the link, never what it names.
      unlink_in(parent, name, 0, parent_is_ours);
    } else {
      remove_contents(top.get());
      top.reset();
      unlink_in(parent, name, AT_REMOVEDIR, parent_is_ours);
    }
  } catch (...) {  // out of memory for names: what is left stays
  }
  struct stat info {};
  return ::fstatat(parent, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
}

bool remove_tree(const fs::path& path) noexcept {
  try {
    const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    const Fd folder(::open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (folder.get() < 0) return false;
    return remove_at(folder.get(), path.filename().string(), false);
  } catch (...) {
    return false;
  }
}

void remove_held(int parent, const std::string& name, int held, bool parent_is_ours,
                 const std::string& shown) noexcept {
  try {
    make_owner_writable(held);  // a port may have made it mode 500 or 000
    const bool emptied = remove_contents(held);
    struct stat mine {};
    // Unlinked already (the port removed it): nothing of it is left.
    if (::fstat(held, &mine) == 0 && mine.st_nlink == 0) return;
    struct stat there {};
    const bool same = ::fstatat(parent, name.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0 &&
                      there.st_dev == mine.st_dev && there.st_ino == mine.st_ino;
    if (same && unlink_in(parent, name, AT_REMOVEDIR, parent_is_ours)) return;
    std::string why;
    if (same) {
      why = std::strerror(errno);
    } else {
      // Where it went, for the person who cleans up: the kernel's name of
      // the folder `held` is open on (informative only, never acted on).
      char now[4096];
      const std::string self = "/proc/self/fd/" + std::to_string(held);
      const ssize_t n = ::readlink(self.c_str(), now, sizeof now);
      why = "the port moved it";
      if (n > 0 && static_cast<std::size_t>(n) < sizeof now)
        why += " to " + std::string(now, static_cast<std::size_t>(n));
      why += emptied ? " (what was in it is removed; the empty folder is left there)"
                     : " (not all that was in it could be removed)";
    }
    note_problem("cannot remove the temporary folder " + base::terminal_safe(shown) + ": " + base::terminal_safe(why));
  } catch (...) {  // out of memory: nothing more can be said
  }
}

std::vector<std::string> take_removal_problems() {
  const std::lock_guard lock(problems_mutex());
  return std::exchange(problems(), {});
}

int with_folders_left(int code, std::string_view program, std::ostream& err) {
  const std::vector<std::string> lines = take_removal_problems();
  for (const std::string& line : lines) err << program << ": " << line << '\n';
  return !lines.empty() && (code == 0 || code == 1) ? 3 : code;
}

void remove_every_temp_folder_for_good() noexcept {
  list_mutex().lock();  // never unlocked: the process exits holding it
  for (TempFolder* folder : listed()) folder->remove();
  try {
    for (const std::string& line : take_removal_problems()) {
      const std::string text = "agent-session-conform: " + line + "\n";
      [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text.data(), text.size());
    }
  } catch (...) {  // out of memory: the exit status still is no 0
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
  parent_.reset(::open(temp.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (parent_.get() < 0) {
    throw std::system_error(errno, std::generic_category(), "cannot open " + temp.string());
  }
  const std::lock_guard lock(list_mutex());
  listed().reserve(listed().size() + 1);  // listing it cannot fail once it is made
  for (int tries = 0;; ++tries) {
    name_ = prefix + "-" + random_letters(6);
    if (::mkdirat(parent_.get(), name_.c_str(), 0700) == 0) break;
    if (errno != EEXIST || tries == 1000) {
      throw std::system_error(errno, std::generic_category(), "cannot make a folder in " + temp.string());
    }
  }
  path_ = temp / name_;
  fd_.reset(::openat(parent_.get(), name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat info {};
  if (fd_.get() < 0 || ::fstat(fd_.get(), &info) != 0) {
    const int opened = errno;
    ::unlinkat(parent_.get(), name_.c_str(), AT_REMOVEDIR);
    throw std::system_error(opened, std::generic_category(), "cannot open " + path_.string());
  }
  dev_ = info.st_dev;
  ino_ = info.st_ino;
  listed().push_back(this);
}

TempFolder::~TempFolder() {
  const std::lock_guard lock(list_mutex());
  remove();
  auto& folders = listed();
  folders.erase(std::remove(folders.begin(), folders.end(), this), folders.end());
}

void TempFolder::remove() noexcept {
  if (removed_) return;
  removed_ = true;
  remove_held(parent_.get(), name_, fd_.get(), false, path_.string());
}

}  // namespace agent_session::conform::runner
