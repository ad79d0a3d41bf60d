// The kit's temporary folders (a file check's FILE, a port's working
// folder for each check, fuzz's inputs): made by mkdtemp under TMPDIR,
// named by an absolute path, and removed with all that is in them however
// a port left them: a folder it made mode 000 goes too, and no link in
// them is followed on the way. Every one is listed until it is removed,
// so that a signal that ends the run removes it too (runner/clean_ends.hpp).
//
// Example:
//   TempFolder folder("agent-session-conform-file");
//   write_new_file_at(folder.fd(), "session.jsonl", bytes);  // relative to the folder, never through a link
#pragma once

#include "base/descriptor.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace agent_session::conform::runner {

// A new folder `<TMPDIR or /tmp>/<prefix>XXXXXX` (mkdtemp), listed until
// remove_temp_folder. Throws std::system_error when it cannot be made.
// Once a signal has begun the run's end, it waits for that end instead.
std::filesystem::path make_temp_folder(std::string_view prefix);

// remove_tree(folder), and it is no longer listed. Never throws.
void remove_temp_folder(const std::filesystem::path& folder) noexcept;

// Removes `path` and everything under it, without following a link: each
// folder is made readable, writable and searchable (owner) before it is
// read, as a port may have left one mode 000, through a
// descriptor of that folder (a link put in its place changes nothing). No
// recursion and three descriptors at most, however deep the tree: it
// climbs back up with "..", and stops if ".." is not the folder it came
// from (a live port moved it). Whether `path` is gone. Never throws.
bool remove_tree(const std::filesystem::path& path) noexcept;

// Every listed folder removed, for the signal path (runner/clean_ends.cpp):
// the list is locked for good, so that no folder is made, or removal
// begun elsewhere, after it. Call it once, just before the process exits.
void remove_every_temp_folder_for_good() noexcept;

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
  ~TempFolder();  // remove_temp_folder
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  // Its absolute path.
  const std::filesystem::path& path() const { return path_; }
  // An O_PATH descriptor on it, for the *at calls: what is made and read
  // in it stays in it, whatever a port does to the path.
  int fd() const { return fd_.get(); }

 private:
  std::filesystem::path path_;
  base::Fd fd_;
};

}  // namespace agent_session::conform::runner
