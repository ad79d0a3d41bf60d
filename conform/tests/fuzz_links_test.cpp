// What `agent-session-conform fuzz` writes it creates (fuzz/vector_out.hpp,
// fuzz/input_file.hpp): a vector's folder with mkdir, its files with
// O_CREAT | O_EXCL | O_NOFOLLOW, so a link planted where it writes (the
// folder's name follows from the seed) is never written through: the
// vector goes to the next free name, which the run prints. FILE, which
// the port may replace with a link, is never written through either. And
// `fuzz --harness` runs from a folder whose name is not UTF-8. Its
// reports (--report junit=FILE, json=FILE) go only to a regular file:
// never through a link, never into a FIFO (which would hang the run) or a
// device (SPEC.md §6.1, reports.md).
#include "conform/runner/subprocess.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace agent_session::conform::runner {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class FuzzLinks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fuzz_links_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    fs::create_directories(dir_ / "target");
    std::ofstream(dir_ / "target" / "victim") << "untouched\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // fuzz at seed 7 on a port that differs at once: its vector is fuzz_7_0.
  ProcessResult fuzz(const std::vector<std::string>& port, const std::vector<std::string>& prefix = {}) const {
    std::vector<std::string> argv = prefix;
    argv.insert(argv.end(), {AGENT_SESSION_CONFORM, "fuzz", "--seed", "7", "--runs", "1", "--shrink-time", "1", "--out",
                             (dir_ / "out").string(), "--"});
    argv.insert(argv.end(), port.begin(), port.end());
    return run_process(argv, "", 120s);
  }
  // The target folder holds what it held.
  void expect_untouched() const {
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_ / "target")) ++entries;
    EXPECT_EQ(entries, 1u);
    EXPECT_EQ(file_bytes(dir_ / "target" / "victim"), "untouched\n");
  }
  // The run wrote its vector in `name` and said so.
  void expect_written(const ProcessResult& r, const std::string& name) const {
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    const fs::path folder = dir_ / "out" / name;
    EXPECT_NE(r.out.find("wrote " + folder.string() + " ("), std::string::npos) << r.out;
    EXPECT_FALSE(fs::is_symlink(folder));
    EXPECT_FALSE(file_bytes(folder / "expect.json").empty());
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(folder / "input.jsonl")));
    EXPECT_NE(file_bytes(folder / "reproduce.sh").find("--only " + name + " "), std::string::npos);
  }
  fs::path dir_;
};

const std::vector<std::string> kWrongPort = {"sh", "-c", "echo nope"};

TEST_F(FuzzLinks, APlantedLinkAsTheVectorsFolderIsNeverWrittenThrough) {
  fs::create_directory_symlink(dir_ / "target", dir_ / "out" / "fuzz_7_0");
  const ProcessResult r = fuzz(kWrongPort);
  expect_untouched();
  expect_written(r, "fuzz_7_0_2");
}

TEST_F(FuzzLinks, APlantedLinkAsInputJsonlIsNeverWrittenThrough) {
  fs::create_directories(dir_ / "out" / "fuzz_7_0");
  fs::create_symlink(dir_ / "target" / "victim", dir_ / "out" / "fuzz_7_0" / "input.jsonl");
  const ProcessResult r = fuzz(kWrongPort);
  expect_untouched();
  expect_written(r, "fuzz_7_0_2");
  EXPECT_TRUE(fs::is_symlink(dir_ / "out" / "fuzz_7_0" / "input.jsonl"));  // left as it was
}

// A port that turns FILE into a link to a file of ours: the next input
// replaces the link, it is never written through.
TEST_F(FuzzLinks, APortThatMakesFileALinkGetsANewFileNotAWriteThroughIt) {
  const std::string victim = (dir_ / "target" / "victim").string();
  // `sh -c SCRIPT port ARGS... FILE`: FILE is the last word.
  const ProcessResult r = fuzz({"sh", "-c", "for f; do :; done; ln -sf '" + victim + "' \"$f\"; echo nope", "port"});
  expect_untouched();
  expect_written(r, "fuzz_7_0");
}

TEST_F(FuzzLinks, HarnessModeRunsFromAFolderNamedInBytesThatAreNotUtf8) {
  const fs::path odd = dir_ / "\xff\xfe-not-utf-8";
  fs::create_directories(odd);
  const ProcessResult r = run_process({"sh", "-c", "cd \"$0\" && exec \"$@\"", odd.string(), AGENT_SESSION_CONFORM,
                                       "fuzz", "--seed", "5", "--runs", "20", "--harness", "--", AGENT_SESSION_CLI},
                                      "", 120s);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no difference\n"), std::string::npos) << r.out;
}

// Each report kind at a path that is not a regular file: a link to a file
// of ours, a FIFO nobody reads, a device. The run refuses it in one line
// and exits 3, both when nothing differed (agent-session itself) and when
// the port differs (the report is the runner's run of the vector). The
// run's own limit only turns a hang into a failure; no time is asserted.
TEST_F(FuzzLinks, AReportIsWrittenOnlyToARegularFileNeverThroughALinkOrIntoAFifoOrDevice) {
  const fs::path link = dir_ / "link", fifo = dir_ / "fifo";
  fs::create_symlink(dir_ / "target" / "victim", link);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const struct {
    fs::path path;
    const char* why;
  } refused[] = {{link, "it is a symbolic link"}, {fifo, "it is a FIFO"}, {"/dev/null", "it is a character device"}};
  for (const auto& port : {std::vector<std::string>{AGENT_SESSION_CLI}, kWrongPort}) {
    for (const char* kind : {"junit", "json"}) {
      for (const auto& target : refused) {
        const std::string shown = port.front() + " " + kind + "=" + target.path.string();
        std::vector<std::string> argv = {AGENT_SESSION_CONFORM,
                                         "fuzz",
                                         "--seed",
                                         "7",
                                         "--runs",
                                         "3",
                                         "--shrink-time",
                                         "1",
                                         "--out",
                                         (dir_ / "out").string(),
                                         "--report",
                                         std::string(kind) + "=" + target.path.string(),
                                         "--"};
        argv.insert(argv.end(), port.begin(), port.end());
        const ProcessResult r = run_process(argv, "", 60s);
        EXPECT_EQ(r.end, ProcessEnd::exited) << shown << ": " << describe_end(r, 60s);
        EXPECT_EQ(r.exit_code, 3) << shown << ": " << r.out << r.err;
        const std::string line = "cannot write the " + std::string(kind) + " report '" + target.path.string() +
                                 "': " + target.why + ", not a regular file";
        EXPECT_NE(r.err.find(line), std::string::npos) << shown << ": " << r.err;
        expect_untouched();
        EXPECT_TRUE(fs::is_symlink(link)) << shown;
        EXPECT_TRUE(fs::is_fifo(fifo)) << shown;
      }
    }
  }
}

}  // namespace
}  // namespace agent_session::conform::runner
