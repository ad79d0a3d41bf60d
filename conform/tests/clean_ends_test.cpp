// runner/clean_ends.hpp and runner/temp_folder.hpp: `conform` and `fuzz`
// ended by SIGINT, SIGTERM, SIGHUP or SIGQUIT mid-run exit 128 + the signal and
// leave nothing in TMPDIR, not even a folder a port made mode 000 inside
// FILE's folder; nor does a run that ends on its own. The
// binary runs as an unprivileged user when the test is root: root reads a
// mode-000 folder anyway, which would hide the defect.
#include "conform/runner/subprocess.hpp"
#include "conform/runner/temp_folder.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

const fs::path kVectors = fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus" / "conformance";

// A port (a script: sh PATH ARGS... FILE) that makes a folder in FILE's
// folder with a file in it, makes both mode 000, then does `then`.
std::vector<std::string> locking_port(const std::string& then) {
  const fs::path dir = fs::temp_directory_path() / ("agent-session-clean-ends-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0755);
  const fs::path script = dir / ("port-" + std::to_string(std::hash<std::string>()(then)) + ".sh");
  std::ofstream(script)
      << R"(for f; do :; done; d=$(dirname "$f"); )"
      << R"([ "$d" = . ] || { mkdir "$d/locked" && touch "$d/locked/x" && chmod 000 "$d/locked" "$d"; }; )" << then
      << "\n";
  ::chmod(script.c_str(), 0644);
  return {"sh", script.string()};
}

// The scripts' folder goes when the tests are done.
const struct RemoveScripts {
  ~RemoveScripts() {
    conform::runner::remove_tree(fs::temp_directory_path() /
                                 ("agent-session-clean-ends-" + std::to_string(::getpid())));
  }
} remove_scripts;

// A private TMPDIR.
fs::path private_tmpdir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("agent-session-clean-ends-" + std::to_string(::getpid()) + "-tmp-" + name);
  conform::runner::remove_tree(dir);
  fs::create_directories(dir);
  return dir;
}

// `agent-session ARGS...` with TMPDIR set, its output to /dev/null.
pid_t start(const std::vector<std::string>& args, const fs::path& tmpdir) {
  std::vector<char*> argv{const_cast<char*>(AGENT_SESSION_CLI)};
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const std::string tmp = tmpdir.string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("TMPDIR", tmp.c_str(), 1);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::signal(sig, SIG_DFL);
    // Root's execve takes the bounding set: without these two, root is
    // held to a folder's mode like its owner.
    if (::geteuid() == 0 &&
        (::prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE) != 0 || ::prctl(PR_CAPBSET_DROP, CAP_DAC_READ_SEARCH) != 0)) {
      ::_exit(126);
    }
    ::alarm(120);  // a hang fails the test, never blocks ctest
    ::execv(AGENT_SESSION_CLI, argv.data());
    ::_exit(127);
  }
  return pid;
}

// Whether a folder under `tmpdir` holds `locked` (the port is mid-run).
bool port_locked_a_folder(const fs::path& tmpdir) {
  std::error_code error;
  for (fs::recursive_directory_iterator it(tmpdir, fs::directory_options::skip_permission_denied, error), end;
       !error && it != end; it.increment(error)) {
    if (it->path().filename() == "locked") return true;
  }
  return false;
}

std::vector<std::string> left_in(const fs::path& tmpdir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(tmpdir)) names.push_back(entry.path().filename().string());
  return names;
}

int wait_status(pid_t pid) {
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return status;
}

void expect_clean_end(const std::string& name, const std::vector<std::string>& args) {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    SCOPED_TRACE(name + ", signal " + std::to_string(sig));
    const fs::path tmpdir = private_tmpdir(name + "-" + std::to_string(sig));
    const pid_t pid = start(args, tmpdir);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!port_locked_a_folder(tmpdir) && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(port_locked_a_folder(tmpdir)) << "the port never ran";
    ::kill(pid, sig);
    const int status = wait_status(pid);
    EXPECT_TRUE(WIFEXITED(status)) << (WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                                           : "");
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    EXPECT_EQ(left_in(tmpdir), std::vector<std::string>{});
    conform::runner::remove_tree(tmpdir);
  }
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& port) {
  args.insert(args.end(), port.begin(), port.end());
  return args;
}

TEST(CleanEnds, ConformEndsOnASignalWith128PlusItAndAnEmptyTmpdir) {
  expect_clean_end("conform", with({"conform", "--vectors", kVectors.string(), "--only", "y_append_canonical_lines",
                                    "--timeout", "100", "--"},
                                   locking_port("exec sleep 100")));
}

TEST(CleanEnds, ConformHarnessModeToo) {
  // The exec adapter serves the harness: the runs' FILEs are the runner's.
  const auto port = locking_port("exec sleep 100");
  expect_clean_end("harness", {"conform", "--vectors", kVectors.string(), "--only", "y_append_canonical_lines",
                               "--harness", "--timeout", "100", "--", "sh", "-c",
                               std::string("[ \"$1\" = harness ] && exec ") + AGENT_SESSION_CLI +
                                   " conform exec-adapter --timeout 100 -- sh " + port[1] + "; exit 9",
                               "port"});
}

TEST(CleanEnds, FuzzEndsOnASignalWith128PlusItAndAnEmptyTmpdir) {
  expect_clean_end("fuzz", with({"conform", "fuzz", "--seed", "1", "--runs", "5", "--vectors", kVectors.string(),
                                 "--timeout", "100", "--"},
                                locking_port("exec sleep 100")));
}

// A run that ends on its own removes the folder a port made mode 000 in
// FILE's folder too (file_check.cpp said it did; it did not).
TEST(CleanEnds, AFolderAPortMadeUnreadableIsRemovedAtTheEndOfItsCheck) {
  const fs::path tmpdir = private_tmpdir("unreadable");
  const pid_t pid = start(with({"conform", "--vectors", kVectors.string(), "--only", "y_append_canonical_lines", "--"},
                               locking_port("exit 0")),
                          tmpdir);
  const int status = wait_status(pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);  // the port appends nothing
  EXPECT_EQ(left_in(tmpdir), std::vector<std::string>{});
  conform::runner::remove_tree(tmpdir);
}

// A port that makes its working folder and a folder in it unwritable
// (mode 500) before it runs agent-session: in exec mode and under fuzz
// its folder is the run's, in harness mode the job's, where every run's
// folder is made. Each is removed at the end, with all the port left in
// it (runner/temp_folder.hpp), and the run passes. The binary runs as
// nobody when the test is root (root writes in a mode-500 folder anyway);
// the port checks that the mode binds it, so the test cannot pass with
// permissions that change nothing.
conform::runner::ProcessResult run_unwritable_port(const fs::path& tmpdir, const std::vector<std::string>& args) {
  const fs::path dir = fs::temp_directory_path() / ("agent-session-clean-ends-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0755);
  const fs::path script = dir / "unwritable-port.sh";
  std::ofstream(script) << "mkdir a && touch a/f && chmod 500 a . || exit 98\n"
                        << "if (: > probe) 2>/dev/null; then echo 'mode 500 binds nobody here' >&2; exit 99; fi\n"
                        << "exec " << AGENT_SESSION_CLI << " \"$@\"\n";
  ::chmod(script.c_str(), 0644);
  ::chmod(tmpdir.c_str(), 0777);  // nobody makes its folders there
  std::vector<std::string> argv = {"env", "TMPDIR=" + tmpdir.string()};
  const auto as = test_support::unprivileged();
  argv.insert(argv.end(), as.begin(), as.end());
  argv.push_back(AGENT_SESSION_CLI);
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--", "sh", script.string()});
  return conform::runner::run_process(argv, "", std::chrono::minutes(2));
}

TEST(CleanEnds, FoldersAPortMadeUnwritableAreRemovedInExecMode) {
  const fs::path tmpdir = private_tmpdir("unwritable-exec");
  const auto r =
      run_unwritable_port(tmpdir, {"conform", "--vectors", kVectors.string(), "--only", "y_append_canonical_lines"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "1 passed, 0 failed\n");
  EXPECT_EQ(left_in(tmpdir), std::vector<std::string>{});
  conform::runner::remove_tree(tmpdir);
}

TEST(CleanEnds, FoldersAPortMadeUnwritableAreRemovedInHarnessMode) {
  const fs::path tmpdir = private_tmpdir("unwritable-harness");
  const auto r = run_unwritable_port(
      tmpdir, {"conform", "--vectors", kVectors.string(), "--only", "y_append_canonical_lines", "--harness"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "1 passed, 0 failed\n");
  EXPECT_EQ(left_in(tmpdir), std::vector<std::string>{});
  conform::runner::remove_tree(tmpdir);
}

TEST(CleanEnds, FoldersAPortMadeUnwritableAreRemovedByFuzz) {
  const fs::path tmpdir = private_tmpdir("unwritable-fuzz");
  const auto r =
      run_unwritable_port(tmpdir, {"conform", "fuzz", "--seed", "1", "--runs", "3", "--vectors", kVectors.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no difference\n"), std::string::npos) << r.out;
  EXPECT_EQ(left_in(tmpdir), std::vector<std::string>{});
  conform::runner::remove_tree(tmpdir);
}

// remove_tree itself: deep, unreadable, with links that lead out (never
// followed: what they name stays).
TEST(CleanEnds, RemoveTreeTakesDeepAndUnreadableTreesButNothingALinkNames) {
  const fs::path root = private_tmpdir("tree");
  const fs::path outside = root.string() + "-outside";
  fs::create_directories(outside / "keep");
  ::chmod((outside / "keep").c_str(), 0750);
  fs::path deep = root / "t";
  for (int i = 0; i < 300; ++i) deep /= "d";  // ~600 bytes of path: fine for one, no limit for remove_tree
  fs::create_directories(deep);
  std::ofstream(deep / "f") << "x";
  fs::create_directory_symlink(outside, root / "t" / "link");
  fs::create_directory_symlink(outside / "keep", deep / "link");
  for (fs::path p = deep; p != root; p = p.parent_path()) ::chmod(p.c_str(), 0);
  EXPECT_TRUE(conform::runner::remove_tree(root));
  EXPECT_FALSE(fs::exists(fs::symlink_status(root)));
  EXPECT_TRUE(fs::is_directory(outside / "keep"));
  EXPECT_EQ(fs::status(outside / "keep").permissions(), fs::perms(0750));  // no mode changed through a link
  conform::runner::remove_tree(outside);
}

}  // namespace
}  // namespace agent_session
