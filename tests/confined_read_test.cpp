// The demo tool read_file and its confinement to --root (SPEC.md §9.1):
// paths that go through missing parts, symlinks swapped
// mid-read, FIFOs, growing and procfs files, locked files. Every case runs
// through the tool and through each resolver forced (openat2 and the
// component walk), so both stay covered whatever the kernel.
#include "cli/confined_read.hpp"
#include "cli/cli.hpp"
#include "cli/run_command.hpp"

#include "support/processes.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::in_child_with_watchdog;
using test_support::Sleeper;
using test_support::Swapper;

constexpr std::size_t kCap = 64 * 1024;
const std::string kSecret = "SECRET: the outside file";
const std::string kInside = "inside text\n";

using Reader = std::function<std::string(const fs::path& root, const std::string& path)>;

struct Resolver {
  const char* name;
  Reader read;
};

std::string through_the_tool(const fs::path& root, const std::string& path) {
  return cli::demo_tools(root).at("read_file").run(Json{{"path", path}});
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string excerpt(const std::string& text) { return text.size() <= 200 ? text : text.substr(0, 200) + "..."; }

void PrintTo(const Resolver& resolver, std::ostream* out) { *out << resolver.name; }

Reader forced(cli::Resolver resolver) {
  return [resolver](const fs::path& root, const std::string& path) { return cli::read_confined(root, path, resolver); };
}

// What one read gave: the text, or the refusal's message.
struct Outcome {
  bool refused;
  std::string text;
};

class ConfinedRead : public test_support::TempDirTest, public ::testing::WithParamInterface<Resolver> {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    fs::create_directories(root() / "sub");
    write(dir_ / "secret.txt", kSecret);
    write(root() / "in.txt", kInside);
    write(root() / "sub" / "inner.txt", "inner\n");
  }

  fs::path root() const { return dir_ / "root"; }

  Outcome attempt(const std::string& path) const { return attempt_in(root(), path); }
  Outcome attempt_in(const fs::path& root, const std::string& path) const {
    try {
      return {false, GetParam().read(root, path)};
    } catch (const std::exception& error) {
      return {true, error.what()};
    }
  }
  std::string read_ok(const std::string& path) const {
    const Outcome got = attempt(path);
    EXPECT_FALSE(got.refused) << path << ": " << got.text;
    return got.text;
  }
  // The refusal's text; a failure when the read succeeded or leaked.
  std::string refusal(const std::string& path) const {
    const Outcome got = attempt(path);
    EXPECT_TRUE(got.refused) << path << " was read: " << excerpt(got.text);
    EXPECT_EQ(got.text.find(kSecret), std::string::npos) << path;
    return got.text;
  }
};

// ---------------------------------------------------------------------------
// Paths.

TEST_P(ConfinedRead, APathThroughAMissingPartNeverReachesALinkOutside) {
  fs::create_symlink(dir_ / "secret.txt", root() / "link");
  fs::create_symlink("../secret.txt", root() / "rlink");
  fs::create_directory_symlink("/", root() / "slash");
  const std::string via_slash = "slash" + (dir_ / "secret.txt").string();
  for (const std::string& path :
       {std::string("nonexistent/../link"), std::string("nonexistent/../rlink"), "x/../" + via_slash,
        std::string("in.txt/../link"), std::string("a/b/c/../../../link"), std::string("sub/nonexistent/../../link"),
        std::string("nonexistent/./../rlink"), std::string("sub/in.txt/../../rlink"), "in.txt/../" + via_slash}) {
    refusal(path);
  }
  // Straight at the links: the refusal names the escape.
  for (const std::string& path : {std::string("link"), std::string("rlink"), via_slash}) {
    EXPECT_PRED2(has, refusal(path), "is outside the directory") << path;
  }
}

TEST_P(ConfinedRead, AbsolutePathsAndDotDotEscapesAreRefused) {
  EXPECT_PRED2(has, refusal((dir_ / "secret.txt").string()), "absolute paths are refused");
  EXPECT_PRED2(has, refusal((root() / "in.txt").string()), "absolute paths are refused");
  for (const char* path : {"../secret.txt", "sub/../../secret.txt", "./../secret.txt", "sub/./../../secret.txt", "..",
                           "../root/in.txt", "sub/../../root/in.txt"}) {
    EXPECT_PRED2(has, refusal(path), "is outside the directory") << path;
  }
  EXPECT_PRED2(has, refusal(std::string("in.txt\0/../../secret.txt", 24)), "NUL");
  EXPECT_PRED2(has, refusal(""), "empty");
}

TEST_P(ConfinedRead, SymlinksThatStayBeneathTheRootAreFollowed) {
  fs::create_directories(root() / "sub" / "deep");
  write(root() / "sub" / "deep" / "d.txt", "deep\n");
  fs::create_symlink("in.txt", root() / "link");
  fs::create_symlink("link", root() / "chain");  // a link to a link
  fs::create_directory_symlink("sub/deep", root() / "deeplink");
  fs::create_symlink("../in.txt", root() / "sub" / "up");              // climbs, but not out
  fs::create_symlink("deep/../inner.txt", root() / "sub" / "around");  // `..` of a real directory
  EXPECT_EQ(read_ok("in.txt"), kInside);
  EXPECT_EQ(read_ok("./sub/../in.txt"), kInside);
  EXPECT_EQ(read_ok("link"), kInside);
  EXPECT_EQ(read_ok("chain"), kInside);
  EXPECT_EQ(read_ok("deeplink/d.txt"), "deep\n");
  EXPECT_EQ(read_ok("deeplink/../inner.txt"), "inner\n");  // `..` is the link's target's parent, as the kernel does
  EXPECT_EQ(read_ok("sub/up"), kInside);
  EXPECT_EQ(read_ok("sub/around"), "inner\n");
  EXPECT_EQ(read_ok("sub//inner.txt"), "inner\n");
}

TEST_P(ConfinedRead, ALinkThatIsAbsoluteLoopsOrIsMagicIsRefused) {
  fs::create_symlink(root() / "in.txt", root() / "absolute");  // even when it names a file inside
  fs::create_symlink("loop", root() / "loop");
  fs::create_symlink("../root/in.txt", root() / "back-in");  // out and back: still a step outside
  EXPECT_PRED2(has, refusal("absolute"), "is outside the directory");
  EXPECT_PRED2(has, refusal("back-in"), "is outside the directory");
  EXPECT_PRED2(has, refusal("loop"), "symbolic links");
  // /proc/self/fd/N and /proc/self/root are magic links: never followed.
  const int fd = ::open((dir_ / "secret.txt").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  for (const std::string& path :
       {"fd/" + std::to_string(fd), std::string("root") + (dir_ / "secret.txt").string(), std::string("cwd/x")}) {
    const Outcome got = attempt_in("/proc/self", path);
    EXPECT_TRUE(got.refused) << path << " was read: " << excerpt(got.text);
  }
  ::close(fd);
}

TEST_P(ConfinedRead, OnlyARegularFileOfAtMostTheCapInUtf8IsRead) {
  write(root() / "limit.txt", std::string(kCap, 'x'));
  write(root() / "big.txt", std::string(kCap + 1, 'x'));
  write(root() / "binary.bin", std::string("\x7f"
                                           "ELF\xff\xfe",
                                           6));
  EXPECT_EQ(read_ok("limit.txt").size(), kCap);
  EXPECT_PRED2(has, refusal("big.txt"), "big.txt is larger than 65536 bytes");
  EXPECT_PRED2(has, refusal("binary.bin"), "not UTF-8 text");
  for (const char* path : {"sub", "sub/", ".", "sub/..", "sub/."}) {
    EXPECT_PRED2(has, refusal(path), "not a regular file") << path;
  }
  for (const char* path : {"in.txt/", "in.txt/.", "in.txt/x"}) {
    EXPECT_PRED2(has, refusal(path), "is not a directory") << path;
  }
  EXPECT_PRED2(has, refusal("missing.txt"), "no such file: missing.txt");
  EXPECT_PRED2(has, refusal("missing/x.txt"), "no such file: missing/x.txt");
  // A character device: refused for what it is, whatever reading it gives.
  const Outcome device = attempt_in("/dev", "null");
  EXPECT_TRUE(device.refused);
  EXPECT_PRED2(has, device.text, "not a regular file: null");
  EXPECT_PRED2(has, attempt_in(dir_ / "no-such-root", "in.txt").text, "cannot open the directory");
}

// ---------------------------------------------------------------------------
// Races: what the path names changes while it is read.

TEST_P(ConfinedRead, ASymlinkSwappedUnderARaceLoopNeverLeaksTheOutside) {
  write(dir_ / "inner.txt", kSecret);  // what `sub/inner.txt` names while `sub` points outside
  write(root() / "target", kInside);
  fs::create_symlink(dir_ / "secret.txt", root() / "target.alt");
  fs::create_directory_symlink(dir_, root() / "sub.alt");
  std::size_t leaks = 0, unexpected = 0;
  std::string example;
  {
    const Swapper file(root() / "target", root() / "target.alt");  // a regular file, then a link outside
    const Swapper dir(root() / "sub", root() / "sub.alt");         // a directory, then a link outside
    for (int i = 0; i < 5000; ++i) {
      for (const char* path : {"target", "sub/inner.txt"}) {
        const Outcome got = attempt(path);
        if (has(got.text, kSecret)) {
          ++leaks;
        } else if (got.refused ? !has(got.text, "is outside the directory")
                               : got.text != kInside && got.text != "inner\n") {
          ++unexpected;
          example = excerpt(got.text);
        }
      }
    }
    ASSERT_EQ(file.failed() + dir.failed(), 0) << "renameat2(RENAME_EXCHANGE) failed";
  }
  EXPECT_EQ(leaks, 0u) << "reads of the outside file, of 10000";
  EXPECT_EQ(unexpected, 0u) << "e.g. " << example;
}

TEST_P(ConfinedRead, AFifoNeverBlocksNotEvenSwappedInMidRead) {
  ASSERT_EQ(::mkfifo((root() / "fifo").c_str(), 0600), 0);
  fs::create_symlink("fifo", root() / "to-fifo");
  write(root() / "target", kInside);
  ASSERT_EQ(::mkfifo((root() / "target.alt").c_str(), 0600), 0);
  const std::string failure = in_child_with_watchdog([&]() -> std::string {
    for (const char* path : {"fifo", "to-fifo"}) {
      const Outcome got = attempt(path);
      if (!got.refused || !has(got.text, "not a regular file")) return std::string(path) + ": " + got.text;
    }
    const Swapper swapper(root() / "target", root() / "target.alt");  // a regular file, then a FIFO
    for (int i = 0; i < 5000; ++i) {
      const Outcome got = attempt("target");
      if (got.refused ? !has(got.text, "not a regular file") : got.text != kInside) return excerpt(got.text);
    }
    return swapper.failed() == 0 ? "" : "renameat2(RENAME_EXCHANGE) failed";
  });
  EXPECT_EQ(failure, "");
}

TEST_P(ConfinedRead, AFileThatGrowsWhileItIsReadIsCappedByTheBytesRead) {
  const fs::path file = root() / "growing.txt";
  write(file, "");
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  // Grows from 60 KiB (under the cap) to 70 KiB (over it) by small
  // appends, again and again: a reader that trusts a size taken before it
  // reads returns more than the cap.
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    const std::string first(60 * 1024, 'x'), more(64, 'y');
    while (!stop) {
      if (::ftruncate(fd, 0) != 0 || ::write(fd, first.data(), first.size()) < 0) return;
      for (std::size_t size = first.size(); size < 70 * 1024 && !stop; size += more.size()) {
        if (::write(fd, more.data(), more.size()) < 0) return;
      }
    }
  });
  std::size_t over_cap = 0, unexpected = 0;
  std::string example;
  for (int i = 0; i < 10000; ++i) {
    const Outcome got = attempt("growing.txt");
    if (!got.refused && got.text.size() > kCap) {
      ++over_cap;
    } else if (got.refused && !has(got.text, "is larger than 65536 bytes")) {
      ++unexpected;
      example = excerpt(got.text);
    }
  }
  stop = true;
  writer.join();
  ::close(fd);
  EXPECT_EQ(over_cap, 0u) << "reads returned more than " << kCap << " bytes, of 10000";
  EXPECT_EQ(unexpected, 0u) << "e.g. " << example;
}

TEST_P(ConfinedRead, AProcfsFileOfSizeZeroIsCappedByTheBytesRead) {
  const Sleeper sleeper(100 * 1024);
  ASSERT_GT(sleeper.pid(), 0);
  ASSERT_EQ(fs::file_size(sleeper.proc() / "environ"), 0u);  // what a size check would trust
  const Outcome big = attempt_in(sleeper.proc(), "environ");
  EXPECT_TRUE(big.refused) << big.text.size() << " bytes read";
  EXPECT_PRED2(has, excerpt(big.text), "is larger than 65536 bytes");
  // A small one reads: the refusal is the size, not procfs.
  const Outcome small = attempt_in(sleeper.proc(), "cmdline");
  EXPECT_FALSE(small.refused) << small.text;
  EXPECT_EQ(small.text, std::string("sleep\0"
                                    "60\0",
                                    9));
}

TEST_P(ConfinedRead, AFileLockedByAnotherProcessIsReadWithoutWaiting) {
  // The lock is this process's; the read runs in a child, on its own open
  // file description, where a shared flock would wait forever.
  const int fd = ::open((root() / "in.txt").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  const std::string failure = in_child_with_watchdog([&]() -> std::string {
    const Outcome got = attempt("in.txt");
    return !got.refused && got.text == kInside ? "" : got.text;
  });
  ::close(fd);
  EXPECT_EQ(failure, "");
}

// A parameterized test's names hold `/`: its folder must still be one
// folder of the temporary directory, which TearDown removes whole (it
// was nested, and left /tmp/agent_session_PID_Resolvers behind per test).
TEST_P(ConfinedRead, ItsTemporaryFolderIsOneFolderTearDownRemovesWhole) {
  EXPECT_EQ(dir_.parent_path(), std::filesystem::temp_directory_path());
}

INSTANTIATE_TEST_SUITE_P(Resolvers, ConfinedRead,
                         ::testing::Values(Resolver{"tool", through_the_tool},
                                           Resolver{"openat2", forced(cli::Resolver::kernel)},
                                           Resolver{"walk", forced(cli::Resolver::walk)}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace agent_session
