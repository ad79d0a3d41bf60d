// How the session's writers open their file (src/library/posix_file.cpp,
// SPEC.md §8): never through a symbolic link, only a regular file, mode
// 0600 whatever the umask, and a file-size limit is an error that is
// rolled back, not a signal that tears a line.
#include "agent_session/append.hpp"
#include "agent_session/repair.hpp"
#include "agent_session/session.hpp"

#include "support/run_binary.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include <sys/resource.h>
#include <sys/stat.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::BinaryOptions;
using test_support::BinaryRun;
using test_support::run_binary;

const std::string kUser = R"({"role":"user","content":"hi"})"
                          "\n";
const std::string kTorn = R"({"role":"user","cont)";

using WriterFile = test_support::TempDirTest;

int errno_of(const std::function<void()>& operation) {
  try {
    operation();
  } catch (const std::system_error& error) {
    return error.code().value();
  }
  return 0;
}

mode_t mode_of(const fs::path& file) {
  struct stat info {};
  EXPECT_EQ(::lstat(file.c_str(), &info), 0) << file;
  return info.st_mode & 07777;
}

TEST_F(WriterFile, ASymlinkAtTheSessionPathIsNeverWrittenThrough) {
  const fs::path target = path("target.jsonl");
  write(target, kUser);
  const fs::path link = path("link.jsonl");
  fs::create_symlink(target, link);
  EXPECT_EQ(errno_of([&] { append_session(link, UserMessage{"x"}); }), ELOOP);
  EXPECT_EQ(errno_of([&] { repair_session(link); }), ELOOP);
  EXPECT_EQ(read(target), kUser);
  // A dangling one made the open-or-create loop spin forever (ENOENT, then
  // EEXIST from O_EXCL, again and again); the planted link must not create
  // its target either.
  const fs::path dangling = path("dangling.jsonl");
  fs::create_symlink(path("nowhere.jsonl"), dangling);
  EXPECT_EQ(errno_of([&] { append_session(dangling, UserMessage{"x"}); }), ELOOP);
  EXPECT_FALSE(fs::exists(path("nowhere.jsonl")));
  // Reading through a link is harmless and allowed.
  EXPECT_EQ(load_session(link).size(), 1u);
}

TEST_F(WriterFile, TheCommandSaysWhyASymlinkIsRefusedAndNeverHangs) {
  fs::create_symlink(path("nowhere.jsonl"), path("dangling.jsonl"));
  BinaryOptions options;
  options.input = kUser;
  options.timeout_seconds = 20;
  const BinaryRun run = run_binary({"append", path("dangling.jsonl").string()}, dir_, options);
  EXPECT_EQ(run.signal, 0) << "a hang ends in SIGALRM";
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.err.find("is a symbolic link, and sessions are never written through one"), std::string::npos)
      << run.err;
}

TEST_F(WriterFile, OnlyARegularFileIsWritten) {
  const fs::path fifo = path("fifo.jsonl");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A FIFO with no reader would block the write forever.
  EXPECT_EQ(errno_of([&] { append_session(fifo, UserMessage{"x"}); }), EINVAL);
  EXPECT_EQ(errno_of([&] { repair_session(fifo); }), EINVAL);
  EXPECT_EQ(errno_of([&] { append_session(dir_, UserMessage{"x"}); }), EISDIR);
  EXPECT_EQ(errno_of([&] { append_session("/dev/null", UserMessage{"x"}); }), EINVAL);
}

TEST_F(WriterFile, RunAndRepairRefuseWhatAWriterRefusesBeforeReadingIt) {
  // A FIFO at the session path blocked the load (run) and the diagnosis
  // (repair) forever; /dev/zero never ended. Refused at once instead.
  const fs::path fifo = path("fifo.jsonl");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const fs::path link = path("link.jsonl");
  write(path("target.jsonl"), kUser);
  fs::create_symlink(path("target.jsonl"), link);
  const std::string demo = std::string(AGENT_SESSION_SOURCE_DIR) + "/corpus/demo";
  BinaryOptions options;
  options.timeout_seconds = 20;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "--session", fifo.string(), "--script", demo + "/replies.jsonl", "hi"},
        std::vector<std::string>{"run", "--session", link.string(), "--script", demo + "/replies.jsonl", "hi"},
        std::vector<std::string>{"repair", fifo.string()}, std::vector<std::string>{"repair", "/dev/zero"}}) {
    const BinaryRun run = run_binary(args, dir_, options);
    EXPECT_EQ(run.signal, 0) << args[0] << " " << args[2] << ": a hang ends in SIGALRM";
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }
  EXPECT_EQ(read(path("target.jsonl")), kUser);
  // The session is written, so standard input cannot be it.
  const BinaryRun dash =
      run_binary({"run", "--session", "-", "--script", demo + "/replies.jsonl", "hi"}, dir_, options);
  EXPECT_EQ(dash.exit_code, 2) << dash.err;
  EXPECT_FALSE(fs::exists(dir_ / "-"));
}

TEST_F(WriterFile, NewFilesAreOwnerOnlyEvenUnderAUmaskThatMasksOwnerBits) {
  for (const mode_t mask : {mode_t{0}, mode_t{022}, mode_t{077}, mode_t{0277}, mode_t{0777}}) {
    const fs::path file = path("s" + std::to_string(mask) + ".jsonl");
    write(file, kUser + kTorn);
    const fs::path fresh = path("new" + std::to_string(mask) + ".jsonl");
    const mode_t old_mask = ::umask(mask);
    append_session(fresh, UserMessage{"secret"});
    const RepairResult repaired = repair_session(file);
    ::umask(old_mask);
    EXPECT_EQ(mode_of(fresh), 0600u) << "umask " << mask;
    ASSERT_TRUE(repaired.backup);
    EXPECT_EQ(mode_of(*repaired.backup), 0600u) << "umask " << mask;
  }
}

// The command under RLIMIT_FSIZE with SIGXFSZ at its default (kill):
// the process must ignore it, so the write fails with EFBIG and is rolled
// back instead of dying mid-write.
BinaryRun with_file_size_limit(const std::vector<std::string>& args, const fs::path& scratch, std::uint64_t limit,
                               const std::string& input = "") {
  BinaryOptions options;
  options.input = input;
  options.in_child = [limit] {
    const rlimit size{limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &size);
  };
  return run_binary(args, scratch, options);
}

TEST_F(WriterFile, AFileSizeLimitIsAnErrorThatRollsBackNotASignal) {
  const fs::path session = path("s.jsonl");
  write(session, kUser);
  const std::string big = R"({"role":"user","content":")" + std::string(5000, 'x') + "\"}\n";
  // A single message, and a batch whose first line fits: nothing stays.
  for (const std::string& input : {big, kUser + big}) {
    const BinaryRun run = with_file_size_limit({"append", session.string()}, dir_, kUser.size() + 1000, input);
    EXPECT_EQ(run.signal, 0) << "killed by SIGXFSZ";
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_NE(run.err.find(std::strerror(EFBIG)), std::string::npos) << run.err;
    EXPECT_EQ(read(session), kUser);
  }
}

TEST_F(WriterFile, AFileSizeLimitDuringRunRecordsOnlyWholeMessages) {
  const fs::path session = path("run.jsonl");
  const fs::path script = path("replies.jsonl");
  write(script, R"({"role":"assistant","content":")" + std::string(3000, 'a') +
                    R"(","toolCalls":[]})"
                    "\n");
  const BinaryRun run =
      with_file_size_limit({"run", "--session", session.string(), "--script", script.string(), "hello"}, dir_, 1000);
  EXPECT_EQ(run.signal, 0) << "killed by SIGXFSZ";
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_EQ(read(session), R"({"role":"user","content":"hello"})"
                           "\n")
      << "the prompt, whole; no torn reply";
}

TEST_F(WriterFile, AFileSizeLimitDuringRepairLeavesNoPartialBackup) {
  const fs::path session = path("s.jsonl");
  const std::string torn = kUser + std::string(3000, ' ') + kTorn;  // JSON whitespace, then the torn line
  write(session, torn);
  const BinaryRun run = with_file_size_limit({"repair", "--apply", session.string()}, dir_, 1000);
  EXPECT_EQ(run.signal, 0) << "killed by SIGXFSZ";
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_EQ(read(session), torn);
  for (const auto& entry : fs::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(name.find(".bak-"), std::string::npos) << "left " << name;
  }
}

}  // namespace
}  // namespace agent_session
