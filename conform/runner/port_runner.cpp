#include "conform/runner/port_runner.hpp"

#include "base/descriptor.hpp"
#include "base/utf8.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>

namespace agent_session::conform::runner {
namespace {

namespace fs = std::filesystem;

bool all_utf8(const std::vector<std::string>& words) {
  return std::all_of(words.begin(), words.end(), [](const std::string& word) {
    return base::valid_utf8_prefix(word) == word.size() && word.find('\0') == std::string::npos;
  });
}

// A word with a '/' that names anything there, or a plain word that names
// a file: a plain word naming a folder is far more often a subcommand or
// a module (`agent-session conform exec-adapter` run from this
// repository's root, which has conform/; `python3 -m port`).
bool names_a_path(const std::string& word) {
  struct stat info {};
  if (word.find('/') != std::string::npos) return ::fstatat(AT_FDCWD, word.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0;
  return ::stat(word.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// Removes a run's folder when the run is over, however it ended: by its
// name in the job's folder, through the descriptor the runner holds of
// that (a port that renamed a folder on the way and put a link in its
// place leads the removal nowhere else), and the job's folder made
// writable again if the port took that away (runner/temp_folder.hpp).
// What is left goes with the job's folder.
// The port enters it by the descriptor held here (runner/subprocess.hpp's
// WorkingFolder), opened as it was made: a port that moved the job's
// folder and put a link in its place leads no later run into the link.
// One the port moved away is emptied through it and named (remove_held).
struct RunFolder {
  const TempFolder& job;
  std::string name;
  base::Fd fd{::openat(job.fd(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
  WorkingFolder working() const { return {fd.get(), (job.path() / name).string()}; }
  ~RunFolder() {
    if (fd.get() >= 0) {
      remove_held(job.fd(), name, fd.get(), true, working().path);
    } else {
      remove_at(job.fd(), name, true);
    }
  }
};

// A run without a working folder fails only its own check (SPEC.md
// §6.1): the run goes on.
ProcessResult no_working_folder(const std::string& what, int error) {
  ProcessResult result;
  result.end = ProcessEnd::no_working_folder;
  result.error = what + ": " + std::strerror(error);
  return result;
}

}  // namespace

std::vector<std::string> resolved_command(const std::vector<std::string>& command) {
  std::error_code error;
  const fs::path here = fs::current_path(error);
  std::vector<std::string> resolved = command;
  if (error) return resolved;  // our folder is gone: nothing resolves against it
  for (std::size_t i = 0; i < resolved.size(); ++i) {
    std::string& word = resolved[i];
    if (word.empty() || word.front() == '/') continue;
    if (i == 0 ? word.find('/') != std::string::npos : names_a_path(word)) word = (here / word).string();
  }
  return resolved;
}

PortRunner::PortRunner(const ConformOptions& options, std::chrono::milliseconds timeout)
    : options_(options), command_(resolved_command(options.command)), timeout_(timeout) {}

ProcessResult PortRunner::run(const std::vector<std::string>& args, std::string_view input,
                              const StandardStreams* exec_streams) {
  if (!job_) job_.emplace("agent-session-conform-job");
  // A harness port starts in the job's folder and can plant the next
  // run's name (a link, say): mkdir never reuses it, the next number is
  // taken instead.
  // A port may have removed the job's folder or filled its disk: then
  // this check fails with the reason, not the whole run.
  std::string name;
  for (int tries = 0;; ++tries) {
    name = "run-" + std::to_string(++runs_);
    if (::mkdirat(job_->fd(), name.c_str(), 0700) == 0) break;
    if (const int error = errno; error != EEXIST || tries == 1000) {
      return no_working_folder("cannot make the run's working folder " + (job_->path() / name).string(), error);
    }
  }
  const RunFolder folder{*job_, name};
  if (const int error = errno; folder.fd.get() < 0) {
    return no_working_folder("cannot open the run's working folder " + folder.working().path, error);
  }
  if (!options_.harness || !all_utf8(args) || exec_streams != nullptr) {
    std::vector<std::string> argv = command_;
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, input, timeout_, options_.max_output, folder.working(),
                       exec_streams != nullptr ? *exec_streams : StandardStreams{});
  }
  if (!harness_) {
    harness_.emplace(HarnessSettings{command_, timeout_, options_.max_output, {job_->fd(), job_->path().string()}});
    if (const auto problem = harness_->start()) {
      harness_.reset();
      ProcessResult result;
      result.error = "--harness: " + *problem + " (without --harness the runner uses exec mode)";
      return result;
    }
    about_ = harness_->port();
  }
  return harness_->run(args, input, name);
}

std::optional<HarnessPort> PortRunner::about() const { return about_; }

std::optional<std::string> PortRunner::stop() {
  if (!harness_) return std::nullopt;
  std::optional<std::string> problem;
  try {
    problem = harness_->stop();
  } catch (const std::exception& error) {  // poll failed: the client's destructor still kills it
    problem = error.what();
  }
  harness_.reset();
  return problem;
}

}  // namespace agent_session::conform::runner
