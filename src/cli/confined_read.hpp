// The demo tool read_file's confinement to a directory (SPEC.md §9,
// "Confined"): the path is resolved by the kernel beneath a descriptor of
// the root, never checked as text and then opened.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace agent_session::cli {

// Enough for a demo, small enough that one call cannot flood the session.
inline constexpr std::size_t kMaxReadBytes = 64 * 1024;

// How a path is resolved beneath the root. Both resolvers give the same
// answers (tests/confined_read_test.cpp runs every case on each).
enum class Resolver {
  automatic,  // openat2 where the kernel has it (Linux 5.6), else the walk
  kernel,     // openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) only
  walk,       // one component at a time, openat(O_NOFOLLOW) on a stack of directories
};

// The UTF-8 text of the regular file `relative` names beneath `root`, of
// at most kMaxReadBytes bytes. Refused (std::invalid_argument, a message
// starting "read_file: "): an empty or absolute path, a NUL byte, any step
// of the resolution that leaves `root` (`..` above it, a symlink that is
// absolute or climbs out, even one that would come back in), a /proc magic
// link, more than 40 symlinks, anything but a regular file (directories,
// FIFOs, devices, sockets), more than kMaxReadBytes bytes actually read,
// text that is not UTF-8. A missing file or a failing system call throws
// std::runtime_error naming the path and the system's reason. Never
// blocks on a FIFO and takes no lock.
std::string read_confined(const std::filesystem::path& root, const std::string& relative,
                          Resolver resolver = Resolver::automatic);

}  // namespace agent_session::cli
