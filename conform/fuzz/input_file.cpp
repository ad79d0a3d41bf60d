#include "fuzz/input_file.hpp"

#include "base/descriptor.hpp"
#include "runner/temp_folders.hpp"

#include <cerrno>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace agent_session::fuzz {

namespace fs = std::filesystem;

// The runner's own temporary folders (runner/temp_folders.hpp): removed
// with what a port left unreadable in them, and on a signal too.
TempDir::TempDir() : path_(cli::make_temp_folder("agent-session-fuzz-")) {}

TempDir::~TempDir() { cli::remove_temp_folder(path_); }

void write_input(const fs::path& file, const std::string& bytes) {
  const auto fail = [&file] {
    throw std::system_error(errno, std::generic_category(), "cannot write " + file.string());
  };
  const internal::Fd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  if (fd.get() < 0) fail();
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::pwrite(fd.get(), bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail();
    done += static_cast<std::size_t>(n);
  }
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes.size())) != 0) fail();
}

}  // namespace agent_session::fuzz
