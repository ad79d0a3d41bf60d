// The file I/O the session layer needs, on POSIX descriptors so that every
// failure keeps its own errno (std::ifstream would flatten it).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace agent_session::internal {

// The whole file, or nullopt when it does not exist (ENOENT only).
// Any other failure throws std::system_error carrying its errno.
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path);

// Appends `bytes` to `path` (created with mode 0600: sessions hold whatever
// tools printed) with O_APPEND. Throws std::system_error.
void append_to_file(const std::filesystem::path& path, std::string_view bytes);

}  // namespace agent_session::internal
