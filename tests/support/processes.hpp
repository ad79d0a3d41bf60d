// Processes and threads for tests that race or may hang: a forked child
// under a watchdog, a thread that swaps two names without pause, and a
// process whose /proc files hold what a test chose.
#pragma once

#include <atomic>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agent_session::test_support {

// Runs `body` in a forked child that SIGALRM ends after `seconds`: a read
// that blocks fails the test instead of hanging it. The child reports a
// failure as text through a pipe; "" means it passed.
inline std::string in_child_with_watchdog(const std::function<std::string()>& body, unsigned seconds = 30) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    ::close(pipe_fds[0]);
    ::alarm(seconds);
    std::string failure;
    try {
      failure = body();
    } catch (const std::exception& error) {
      failure = std::string("threw: ") + error.what();
    }
    if (failure.size() > 4000) failure.resize(4000);  // under the pipe's buffer: never blocks
    if (!failure.empty() && ::write(pipe_fds[1], failure.data(), failure.size()) < 0) ::_exit(2);
    ::_exit(failure.empty() ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string report;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    report.append(buffer, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  if (WIFSIGNALED(status)) {
    return WTERMSIG(status) == SIGALRM ? "the read blocked: no answer within " + std::to_string(seconds) + " s"
                                       : "the child died of signal " + std::to_string(WTERMSIG(status));
  }
  if (WEXITSTATUS(status) != 0 && report.empty()) return "the child exited " + std::to_string(WEXITSTATUS(status));
  return report;
}

// Swaps two names atomically, over and over, until stopped: what a path
// names changes between any two steps of a read.
class Swapper {
 public:
  Swapper(std::filesystem::path a, std::filesystem::path b) : a_(std::move(a)), b_(std::move(b)) {
    thread_ = std::thread([this] {
      while (!stop_) {
        if (::renameat2(AT_FDCWD, a_.c_str(), AT_FDCWD, b_.c_str(), RENAME_EXCHANGE) != 0) failed_ = errno;
      }
    });
  }
  ~Swapper() {
    stop_ = true;
    thread_.join();
  }
  Swapper(const Swapper&) = delete;
  Swapper& operator=(const Swapper&) = delete;
  int failed() const { return failed_; }

 private:
  std::filesystem::path a_, b_;
  std::atomic<bool> stop_{false};
  std::atomic<int> failed_{0};
  std::thread thread_;
};

// A process whose /proc/PID/environ (size 0 to stat) holds `bytes` bytes.
class Sleeper {
 public:
  explicit Sleeper(std::size_t bytes) {
    std::string variable = "BIG=" + std::string(bytes, 'e');
    char* const argv[] = {const_cast<char*>("sleep"), const_cast<char*>("60"), nullptr};
    char* const envp[] = {variable.data(), nullptr};
    if (::posix_spawn(&pid_, "/bin/sleep", nullptr, nullptr, argv, envp) != 0) {
      pid_ = -1;
      return;
    }
    // posix_spawn returns once the child has begun its exec, before the
    // new stack (argv, environ) is set up: wait for it, boundedly.
    for (int i = 0; i < 5000 && slurp(proc() / "cmdline").empty(); ++i) ::usleep(1000);
  }
  ~Sleeper() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  Sleeper(const Sleeper&) = delete;
  Sleeper& operator=(const Sleeper&) = delete;
  std::filesystem::path proc() const { return std::filesystem::path("/proc") / std::to_string(pid_); }
  static std::string slurp(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

// The text of /proc/PID/NAME (e.g. "cmdline", "stat"), or "" once the
// process is gone. read(2), not a stream: a process that exits between
// the open and the read makes the read fail with ESRCH, which libstdc++'s
// filebuf throws as an exception rather than ending the stream.
inline std::string proc_text(pid_t pid, const char* name) {
  const std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  return n < 0 ? std::string() : text;
}

}  // namespace agent_session::test_support
