// The kit's temporary folders (a file check's FILE, a port's working
// folders, fuzz's inputs): made under TMPDIR, named by an absolute path
// for the port, and removed with all that is in them however a port left
// them, through descriptors the runner holds, never through a path: a
// folder it made mode 000 or 500 goes too (each folder to delete from is
// made writable by its owner first), no link in them is followed, and a
// folder the port renamed and replaced with a link is never reached
// through that link (SPEC.md §6.1: every run in a folder of its own,
// removed after it). Every one is listed until it is removed, so that a
// signal that ends the run removes it too (runner/clean_ends.hpp). What
// cannot be removed is said (take_removal_problems): a run never ends 0
// with a folder of its own left in TMPDIR.
//
// Example:
//   TempFolder folder("agent-session-conform-file");
//   write_new_file_at(folder.fd(), "session.jsonl", bytes);  // relative to the folder, never through a link
#pragma once

#include "base/descriptor.hpp"

#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace agent_session::conform::runner {

// Removes `name` in the open folder `parent` and everything under it,
// through descriptors only, without following a link: `name` is opened
// relative to `parent` with O_NOFOLLOW (a link there is unlinked, never
// what it names), each folder is made readable, writable and searchable
// (owner) through a descriptor of that folder before it is emptied, as a
// port may have left one mode 000 or 500, and, when `parent_is_ours`,
// `parent` is made writable too if the port took that away. No recursion
// and three descriptors at most, however deep the tree: it climbs back up
// with "..", and stops if ".." is not the folder it came from (a live
// port moved it). Whether `name` is gone. Never throws.
bool remove_at(int parent, const std::string& name, bool parent_is_ours) noexcept;

// remove_at(the parent of `path`, its last name, false), the parent opened
// by its path: for a folder no port can reach (a test's own).
bool remove_tree(const std::filesystem::path& path) noexcept;

// Removes the folder `held` is open on (O_RDONLY | O_DIRECTORY), made as
// `name` in the open folder `parent`: what is in it through `held`, then
// the folder by its name only while that entry is still this folder (same
// st_dev and st_ino). One the port moved away is emptied and said
// (take_removal_problems, `shown` naming it); one the port removed is
// gone, and nothing is said. `parent_is_ours`: as remove_at. Never throws.
void remove_held(int parent, const std::string& name, int held, bool parent_is_ours, const std::string& shown) noexcept;

// One line for each temporary folder that could not be removed since the
// last call, without the program's name ("cannot remove the temporary
// folder /tmp/agent-session-conform-job-x1Y2z3: the port moved it to
// ..."), in the order they were found; the list is then empty. The
// commands print them and exit 3 instead of 0 or 1
// (corpus/conformance/README.md, step 3).
std::vector<std::string> take_removal_problems();

// The exit status of a command whose run ended with `code`, once every
// temporary folder of it is gone or said: each line of
// take_removal_problems on `err` after `program` and ": ", and then 3 in
// place of 0 or 1 (a folder of the run's left in TMPDIR is no pass,
// corpus/conformance/README.md, step 3); `code` otherwise.
int with_folders_left(int code, std::string_view program, std::ostream& err);

// Every listed folder removed, for the signal path (runner/clean_ends.cpp),
// and a line on standard error for each that could not be: the list is
// locked for good, so that no folder is made, or removal begun elsewhere,
// after it. Call it once, just before the process exits.
void remove_every_temp_folder_for_good() noexcept;

// Creates `name` in the open folder `folder` with `bytes`: exclusively
// (O_CREAT | O_EXCL | O_NOFOLLOW), so never through a link or over a file
// someone planted. Throws std::system_error ("cannot create NAME: File
// exists").
void write_new_file_at(int folder, const std::string& name, std::string_view bytes, int mode = 0644);

class TempFolder {
 public:
  // A new folder `prefix`-XXXXXX (six random letters and digits) in
  // TMPDIR (fs::temp_directory_path; /tmp when it has none), mode 0700,
  // made relative to a descriptor of TMPDIR that it keeps. Throws
  // std::system_error when it cannot be made. Once a signal has begun the
  // run's end, it waits for that end instead.
  explicit TempFolder(const std::string& prefix);
  // Removes what is in it through fd(), then the folder itself relative
  // to TMPDIR's descriptor, only while the entry there is still this
  // folder (same st_dev and st_ino); when it is not (the port moved it
  // away), its contents go and that is said (take_removal_problems).
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  // Its absolute path.
  const std::filesystem::path& path() const { return path_; }
  // A descriptor open on it (O_RDONLY | O_DIRECTORY) for the *at calls:
  // what is made, read and removed in it stays in it, whatever a port
  // does to the path.
  int fd() const { return fd_.get(); }

 private:
  friend void remove_every_temp_folder_for_good() noexcept;
  void remove() noexcept;  // once; a problem is listed for take_removal_problems

  std::filesystem::path path_;
  std::string name_;
  base::Fd parent_;  // TMPDIR, held since the folder was made there
  base::Fd fd_;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  bool removed_ = false;
};

}  // namespace agent_session::conform::runner
