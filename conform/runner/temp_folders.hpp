// The kit's temporary folders (a file check's FILE, a fuzz input's), made
// and removed in one place so that nothing is left behind: not by a port
// that made a folder of its own unreadable, nor by a signal that ends the
// run (runner/clean_ends.hpp removes every folder still listed here).
//
// Example:
//   const std::filesystem::path folder = make_temp_folder("agent-session-conform-file-");
//   ...                        // the port writes in it
//   remove_temp_folder(folder);  // and anything the port left in it
#pragma once

#include <filesystem>
#include <string_view>

namespace agent_session::cli {

// A new folder `<TMPDIR or /tmp>/<prefix>XXXXXX` (mkdtemp), listed until
// remove_temp_folder. Throws std::system_error when it cannot be made.
// Once a signal has begun the run's end, it waits for that end instead.
std::filesystem::path make_temp_folder(std::string_view prefix);

// remove_tree(folder), and it is no longer listed. Never throws.
void remove_temp_folder(const std::filesystem::path& folder) noexcept;

// Removes `path` and everything under it, without following a link: each
// folder is made readable, writable and searchable (owner) before it is
// read, as a port may have left one mode 000 (issue 31), through a
// descriptor of that folder (a link put in its place changes nothing). No
// recursion and three descriptors at most, however deep the tree: it
// climbs back up with "..", and stops if ".." is not the folder it came
// from (a live port moved it). Whether `path` is gone. Never throws.
bool remove_tree(const std::filesystem::path& path) noexcept;

// Every listed folder removed, for the signal path (runner/clean_ends.cpp):
// the list is locked for good, so that no folder is made, or removal
// begun elsewhere, after it. Call it once, just before the process exits.
void remove_every_temp_folder_for_good() noexcept;

}  // namespace agent_session::cli
