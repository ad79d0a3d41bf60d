// Runs the real `agent-session` binary in a child process, for tests of
// what only a process shows: exit codes and signals, its standard streams
// redirected to files, /dev/full or closed descriptors, resource limits
// and the environment (LD_PRELOAD fault injection).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

namespace agent_session::test_support {

struct BinaryRun {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // the signal that ended it, or 0
  std::string out;
  std::string err;
  long max_rss_kib = 0;  // its peak resident set size (wait4's ru_maxrss: its waited-for children too)
};

struct BinaryOptions {
  std::string input;                       // standard input's bytes
  std::map<std::string, std::string> env;  // added to the environment
  std::string stdout_path;                 // "" for a file the result reads back
  bool close_stdin = false, close_stdout = false;
  std::function<void()> in_child;  // runs in the child before exec (rlimits, umask)
  unsigned timeout_seconds = 60;   // then SIGALRM ends it: a hang fails, never blocks ctest
};

// `scratch` is a directory for the streams' files.
inline BinaryRun run_binary(const std::vector<std::string>& args, const std::filesystem::path& scratch,
                            const BinaryOptions& options = {}) {
  const std::filesystem::path in_file = scratch / "binary.stdin", out_file = scratch / "binary.stdout",
                              err_file = scratch / "binary.stderr";
  std::ofstream(in_file, std::ios::binary) << options.input;
  std::ofstream(out_file, std::ios::binary).flush();
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto& [name, value] : options.env) ::setenv(name.c_str(), value.c_str(), 1);
    const std::string out_target = options.stdout_path.empty() ? out_file.string() : options.stdout_path;
    const int in = ::open(in_file.c_str(), O_RDONLY);
    const int out = ::open(out_target.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::close(in);
    ::close(out);
    ::close(err);
    if (options.close_stdin) ::close(0);
    if (options.close_stdout) ::close(1);
    ::signal(SIGPIPE, SIG_DFL);
    ::signal(SIGXFSZ, SIG_DFL);
    if (options.in_child) options.in_child();
    ::alarm(options.timeout_seconds);
    std::vector<char*> argv{const_cast<char*>(AGENT_SESSION_CLI)};
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    ::execv(AGENT_SESSION_CLI, argv.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  EXPECT_EQ(::wait4(pid, &status, 0, &usage), pid);
  const auto slurp = [](const std::filesystem::path& file) {
    std::ifstream stream(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << stream.rdbuf();
    return bytes.str();
  };
  BinaryRun run;
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  run.max_rss_kib = usage.ru_maxrss;
  run.out = options.stdout_path.empty() ? slurp(out_file) : "";
  run.err = slurp(err_file);
  return run;
}

}  // namespace agent_session::test_support
