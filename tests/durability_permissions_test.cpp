// SPEC.md §8 where permissions decide: a new session file is never seen
// with a mode its other appenders cannot open (umask 0277 made it 0400
// until fchmod), and a directory that can be written and searched but not
// read (0300), so not fsynced, is refused before anything is made.
// Root bypasses mode bits, so under root these run as `nobody` in a forked
// child, in a directory that user owns; anyone else already is such a
// user and runs them as itself. The fault library (tests/fault/) supplies
// the failures permissions cannot.
#include "agent_session/append.hpp"
#include "agent_session/session.hpp"

#include "support/run_binary.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <system_error>

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::BinaryOptions;
using test_support::BinaryRun;

constexpr uid_t kNobody = 65534;
const std::string kUser = R"({"role":"user","content":"hi"})"
                          "\n";

// Who the tests run as, so that mode bits apply: nobody under root, else
// the user running them.
uid_t unprivileged_uid() { return ::geteuid() == 0 ? kNobody : ::geteuid(); }
gid_t unprivileged_gid() { return ::geteuid() == 0 ? kNobody : ::getegid(); }

// Gives up root for good (nothing to give up for anyone else).
bool become_nobody() {
  if (::geteuid() != 0) return true;
  return ::setgroups(0, nullptr) == 0 && ::setgid(kNobody) == 0 && ::setuid(kNobody) == 0;
}

// `file` becomes the unprivileged user's.
bool give_away(const fs::path& file) { return ::chown(file.c_str(), unprivileged_uid(), unprivileged_gid()) == 0; }

class Permissions : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    // dir_ must be searchable by nobody; `owned_` is nobody's.
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    owned_ = path("nobody");
    fs::create_directory(owned_);
    ASSERT_TRUE(give_away(owned_)) << std::strerror(errno);
  }

  // The real binary as nobody, under `mask`.
  BinaryRun as_nobody(const std::vector<std::string>& args, const std::string& input = "", mode_t mask = 022,
                      std::map<std::string, std::string> env = {}) {
    BinaryOptions options;
    options.input = input;
    options.env = std::move(env);
    options.in_child = [mask] {
      ::umask(mask);
      if (!become_nobody()) ::_exit(125);
    };
    const BinaryRun run = test_support::run_binary(args, dir_, options);
    EXPECT_EQ(run.signal, 0) << "killed by signal " << run.signal;
    return run;
  }

  // A directory the commands may not read (mode 0300) is read here all
  // the same: as root, or as its owner, with read permission lent for it.
  std::vector<std::string> names_in(const fs::path& dir) const {
    const fs::perms mode = fs::status(dir).permissions();
    fs::permissions(dir, fs::perms::owner_read, fs::perm_options::add);
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
    fs::permissions(dir, mode);
    std::sort(names.begin(), names.end());
    return names;
  }

  void TearDown() override {
    std::error_code ignored;
    fs::permissions(owned_, fs::perms::owner_all, ignored);  // for its owner to remove it
    TempDirTest::TearDown();
  }

  fs::path owned_;
};

mode_t mode_of(const fs::path& file) {
  struct stat info {};
  if (::lstat(file.c_str(), &info) != 0) return 0;
  return info.st_mode & 07777;
}

// --- Item: a new file is 0600 from the moment it has its name --------------

TEST_F(Permissions, TwoAppendersCreatingASessionUnderUmask0277NeverMeetEacces) {
  // The file was created 0400 (open's mode, filtered by the umask) and
  // only then fchmod'ed to 0600: the other appender's open(O_RDWR) in that
  // window failed with EACCES (8 to 12 rounds in 300).
  constexpr int kRounds = 1000;
  int failed = 0;
  std::string first_failure;
  for (int round = 0; round < kRounds; ++round) {
    const fs::path file = owned_ / ("s" + std::to_string(round) + ".jsonl");
    int gate[2];
    ASSERT_EQ(::pipe(gate), 0);
    int report[2];
    ASSERT_EQ(::pipe(report), 0);
    pid_t children[2];
    for (pid_t& child : children) {
      child = ::fork();
      ASSERT_GE(child, 0);
      if (child == 0) {
        ::close(gate[1]);
        ::close(report[0]);
        ::umask(0277);
        if (!become_nobody()) ::_exit(125);
        char go = 0;
        if (::read(gate[0], &go, 1) < 0) ::_exit(124);  // both start together when the gate closes
        try {
          append_session(file, UserMessage{"hi"});
        } catch (const std::exception& error) {
          const std::string what = error.what();
          if (::write(report[1], what.data(), std::min<std::size_t>(what.size(), 512)) < 0) ::_exit(123);
          ::_exit(1);
        }
        ::_exit(0);
      }
    }
    ::close(gate[0]);
    ::close(report[1]);
    ::close(gate[1]);  // go
    for (const pid_t child : children) {
      int status = 0;
      ASSERT_EQ(::waitpid(child, &status, 0), child);
      ASSERT_TRUE(WIFEXITED(status)) << "round " << round;
      ASSERT_NE(WEXITSTATUS(status), 125) << "could not become nobody";
      if (WEXITSTATUS(status) != 0) ++failed;
    }
    char buffer[600];
    const ssize_t n = ::read(report[0], buffer, sizeof buffer);
    if (n > 0 && first_failure.empty()) first_failure.assign(buffer, static_cast<std::size_t>(n));
    ::close(report[0]);
    EXPECT_EQ(mode_of(file), 0600u) << "round " << round;
    if (failed == 0) {
      EXPECT_EQ(TempDirTest::read(file), kUser + kUser) << "round " << round;
    }
  }
  EXPECT_EQ(failed, 0) << "of " << kRounds << " rounds; first: " << first_failure;
  // Nothing but the sessions: no temporary name stayed behind.
  EXPECT_EQ(names_in(owned_).size(), static_cast<std::size_t>(kRounds));
}

TEST_F(Permissions, AFailedFchmodOfANewFileLeavesNoFileItsOwnerCannotAppendTo) {
  // The same window, held open by failing the fchmod: a 0400 file stayed at
  // the session's name, and every later append by its owner met EACCES.
  const fs::path session = owned_ / "s.jsonl";
  const BinaryRun failed = as_nobody({"append", session.string()}, kUser, 0277,
                                     {{"LD_PRELOAD", AGENT_SESSION_FAULT_LIBRARY},
                                      {"FAULT_DIR", owned_.string()},
                                      {"FAULT_CALL", "fchmod"},
                                      {"FAULT_NTH", "1"}});
  EXPECT_EQ(failed.exit_code, 3) << failed.err;
  EXPECT_TRUE(!fs::exists(session) || mode_of(session) == 0600u) << "mode " << std::oct << mode_of(session);
  const BinaryRun retry = as_nobody({"append", session.string()}, kUser, 0277);
  EXPECT_EQ(retry.exit_code, 0) << retry.err;
  EXPECT_EQ(read(session), kUser);
  EXPECT_EQ(names_in(owned_), std::vector<std::string>{"s.jsonl"});
}

// --- Item: a directory that cannot be read cannot be synced ----------------

TEST_F(Permissions, RepairInADirectoryItCannotReadChangesNothingHoweverOftenItIsRun) {
  // Mode 0300: the backup was written and renamed, then opening the
  // directory for its fsync failed: exit 3 with the backup under its final
  // name, one more on every retry, and the file never cut.
  const fs::path session = owned_ / "s.jsonl";
  const std::string torn = kUser + R"({"role":"us)";
  write(session, torn);
  ASSERT_TRUE(give_away(session));
  fs::permissions(owned_, fs::perms::owner_write | fs::perms::owner_exec);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const BinaryRun run = as_nobody({"repair", "--apply", session.string()});
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_NE(run.err.find("'" + owned_.string() + "' cannot be opened for reading"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("nothing was changed"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(std::strerror(EACCES)), std::string::npos) << run.err;
    EXPECT_EQ(names_in(owned_), std::vector<std::string>{"s.jsonl"}) << "attempt " << attempt;
    EXPECT_EQ(read(session), torn);
  }
}

TEST_F(Permissions, ASyncedAppendCreatesNothingInADirectoryItCannotRead) {
  // `append --sync` left an empty file (exit 3), and a retry then found
  // the file, exited 0, and never synced the directory at all.
  const fs::path session = owned_ / "s.jsonl";
  fs::permissions(owned_, fs::perms::owner_write | fs::perms::owner_exec);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const BinaryRun run = as_nobody({"append", "--sync", session.string()}, kUser);
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_NE(run.err.find("'" + owned_.string() + "' cannot be opened for reading"), std::string::npos) << run.err;
    EXPECT_TRUE(names_in(owned_).empty()) << "attempt " << attempt << " made " << names_in(owned_).front();
  }
  // Without --sync nothing needs the directory read; once the file has
  // lines, a synced append needs no directory fsync either.
  const BinaryRun plain = as_nobody({"append", session.string()}, kUser, 0277);
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(mode_of(session), 0600u);
  const BinaryRun synced = as_nobody({"append", "--sync", session.string()}, kUser);
  EXPECT_EQ(synced.exit_code, 0) << synced.err;
  EXPECT_EQ(read(session), kUser + kUser);
}

TEST_F(Permissions, ARetryAfterAFailedDirectorySyncSyncsTheDirectory) {
  // The directory's fsync fails (EIO) after the file was made: the empty
  // file stays (another appender may hold it open), so the retry, finding
  // it empty, must fsync the directory itself: it found the file and
  // synced only the data.
  const fs::path session = owned_ / "s.jsonl";
  const std::map<std::string, std::string> fault{{"LD_PRELOAD", AGENT_SESSION_FAULT_LIBRARY},
                                                 {"FAULT_DIR", owned_.string()}};
  auto with = [&](std::map<std::string, std::string> more) {
    more.insert(fault.begin(), fault.end());
    return more;
  };
  const BinaryRun failed = as_nobody({"append", "--sync", session.string()}, kUser, 022,
                                     with({{"FAULT_CALL", "fsync"}, {"FAULT_NTH", "1"}}));
  EXPECT_EQ(failed.exit_code, 3) << failed.err;
  EXPECT_NE(failed.err.find("directory"), std::string::npos) << failed.err;
  ASSERT_TRUE(!fs::exists(session) || read(session).empty());
  const fs::path counts_dir = path("counts");  // nobody's, outside the watched directory
  fs::create_directory(counts_dir);
  ASSERT_TRUE(give_away(counts_dir));
  const fs::path counts = counts_dir / "counts";
  const BinaryRun retry =
      as_nobody({"append", "--sync", session.string()}, kUser, 022, with({{"FAULT_COUNTS", counts.string()}}));
  EXPECT_EQ(retry.exit_code, 0) << retry.err;
  EXPECT_EQ(read(session), kUser);
  std::istringstream lines(read(counts));
  std::map<std::string, long> calls;
  std::string name;
  long count = 0;
  while (lines >> name >> count) calls[name] = count;
  EXPECT_EQ(calls["fdatasync"], 1);
  EXPECT_EQ(calls["fsync"], 1) << "the retry never synced the directory";
}

}  // namespace
}  // namespace agent_session
