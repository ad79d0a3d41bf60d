// The kit's temporary folders (a file check's FILE, a port's working
// folder for each check, fuzz's inputs): made by mkdtemp under TMPDIR,
// named by an absolute path, and removed with all that is in them however
// a port left them: a folder it made mode 000 goes too, and no link in
// them is followed on the way.
//
// Example:
//   TempFolder folder("agent-session-conform-file");
//   write_new_file_at(folder.fd(), "session.jsonl", bytes);  // relative to the folder, never through a link
#pragma once

#include "base/descriptor.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace agent_session::cli {

// Removes `path` and all under it without following a link, giving the
// owner read, write and search permission on each folder before entering
// it (so one a port made mode 000 is removed too); iterative, holding two
// descriptors whatever the depth, so a tree 100,000 folders deep costs no
// stack and no descriptors. `path` a link: the link alone is removed.
// Best effort: false when something is left (not ours to remove).
bool remove_tree(const std::filesystem::path& path) noexcept;

// Creates `name` in the open folder `folder` with `bytes`: exclusively
// (O_CREAT | O_EXCL | O_NOFOLLOW), so never through a link or over a file
// someone planted. Throws std::system_error ("cannot create NAME: File
// exists").
void write_new_file_at(int folder, const std::string& name, std::string_view bytes, int mode = 0644);

class TempFolder {
 public:
  // A new folder `prefix`-XXXXXX in TMPDIR (fs::temp_directory_path;
  // /tmp when it has none), mode 0700. Throws std::system_error when it
  // cannot be made.
  explicit TempFolder(const std::string& prefix);
  ~TempFolder();  // remove_tree
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  // Its absolute path.
  const std::filesystem::path& path() const { return path_; }
  // An O_PATH descriptor on it, for the *at calls: what is made and read
  // in it stays in it, whatever a port does to the path.
  int fd() const { return fd_.get(); }

 private:
  std::filesystem::path path_;
  internal::Fd fd_;
};

}  // namespace agent_session::cli
