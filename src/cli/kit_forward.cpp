#include "cli/kit_forward.hpp"

#include "base/printable.hpp"
#include "cli/cli.hpp"

#include <cerrno>
#include <cstring>
#include <ostream>
#include <system_error>

#include <unistd.h>

namespace agent_session::cli {
namespace {

constexpr const char* kRunner = "agent-session-conform";

}  // namespace

std::vector<std::filesystem::path> runner_places(const std::filesystem::path& self) {
  const std::filesystem::path folder = self.parent_path();
  return {folder / kRunner, folder / "conform" / kRunner};
}

int exec_runner(const std::vector<std::string>& args, std::ostream& err) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    err << "agent-session: conform: cannot find " << kRunner << ": /proc/self/exe does not say where this command is ("
        << error.message() << ")\n";
    return kUsage;
  }
  std::string looked;
  for (const std::filesystem::path& place : runner_places(self)) {
    // The runner's argv: its own path, then the words after `conform`.
    std::vector<char*> argv;
    std::string path = place.string();
    argv.push_back(path.data());
    std::vector<std::string> words = args;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    err.flush();
    ::execv(path.c_str(), argv.data());
    looked += (looked.empty() ? "" : ", ") + base::terminal_safe(path) + " (" + std::strerror(errno) + ")";
  }
  err << "agent-session: conform runs " << kRunner << ", a program of its own, and there is none to run: looked at "
      << looked << "; build the target " << kRunner << " or install it beside agent-session\n";
  return kUsage;
}

}  // namespace agent_session::cli
