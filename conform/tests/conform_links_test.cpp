// Nothing followed out of a folder (runner/vector_files.hpp,
// runner/file_check.hpp, runner/temp_folder.hpp): a vector is data, so a
// link in it (input.jsonl or expect.json to a secret, to
// /proc/self/environ; a vector folder that is a link) makes the vector
// unusable and nothing it points at is read, printed or reported; a port
// that turns FILE into a link or a FIFO fails its file check, named,
// without the runner following or blocking; and a port that leaves
// folders it made unreadable leaves no temporary folder behind.
#include "conform/runner/subprocess.hpp"
#include "conform/runner/temp_folder.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::conform_binary;
using test_support::ConformRun;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;
using test_support::unprivileged;
using test_support::without_reproduce;

const std::string kSecret = "SECRET-TOKEN-8f3a1c";

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A port that prints FILE's bytes (or standard input's, for `-`): what a
// vector's input reaches, it shows.
const auto kEchoPort = shell_port(R"(cat -- "$2")");

class LinkedVectors : public FakeVectors {
 protected:
  void SetUp() override {
    FakeVectors::SetUp();
    outside_ = dir_.string() + "-outside";
    fs::remove_all(outside_);
    fs::create_directories(outside_ / "y_real");
    std::ofstream(outside_ / "secret.jsonl", std::ios::binary) << kSecret << "\n";
    std::ofstream(outside_ / "secret.json", std::ios::binary)
        << R"({"checks":[{"args":["check"],"exit":0,"stdout":")" << kSecret << R"(\n"}]})";
    std::ofstream(outside_ / "y_real" / "input.jsonl", std::ios::binary) << kSecret << "\n";
    std::ofstream(outside_ / "y_real" / "expect.json", std::ios::binary) << kOneMessage;
  }
  void TearDown() override {
    fs::remove_all(outside_);
    FakeVectors::TearDown();
  }

  // Every byte the runner gave: its streams and both reports.
  std::string everything(const ConformRun& r) const {
    return r.out + r.err + file_bytes(dir_.string() + ".xml") + file_bytes(dir_.string() + ".json");
  }
  std::vector<std::string> reports() const {
    return {"--report", "junit=" + dir_.string() + ".xml", "--report", "json=" + dir_.string() + ".json"};
  }
  fs::path outside_;
};

TEST_F(LinkedVectors, ALinkedInputOrExpectMakesTheVectorUnusableAndItsTargetIsNeverRead) {
  add("y_good", "{}\n", R"({"checks":[{"args":["canon"],"exit":0,"stdout":"{}\n"}]})");
  add("y_input_secret", "", kOneMessage);
  fs::remove(dir_ / "y_input_secret" / "input.jsonl");
  fs::create_symlink(outside_ / "secret.jsonl", dir_ / "y_input_secret" / "input.jsonl");
  add("y_input_environ", "", kOneMessage);
  fs::remove(dir_ / "y_input_environ" / "input.jsonl");
  fs::create_symlink("/proc/self/environ", dir_ / "y_input_environ" / "input.jsonl");
  add("y_expect_secret", "{}\n", "");
  fs::remove(dir_ / "y_expect_secret" / "expect.json");
  fs::create_symlink(outside_ / "secret.json", dir_ / "y_expect_secret" / "expect.json");
  // The runner's environment holds the secret too: /proc/self/environ,
  // read by the runner or by the port, would show it.
  // (Its only variable, so that it is among the bytes a FAIL line shows.)
  const auto r =
      conform_binary(dir_, kEchoPort, reports(), {"env", "-i", "LINKED_SECRET=" + kSecret, "PATH=/usr/bin:/bin"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string link = " is a symbolic link, not a regular file; the runner follows no link out of a folder\n";
  EXPECT_EQ(without_reproduce(r.out), "FAIL y_expect_secret: unusable vector: expect.json" + link +
                                          "FAIL y_input_environ: unusable vector: input.jsonl" + link +
                                          "FAIL y_input_secret: unusable vector: input.jsonl" + link +
                                          "1 passed, 3 failed\n");
  EXPECT_EQ(everything(r).find(kSecret), std::string::npos) << everything(r);
}

TEST_F(LinkedVectors, AVectorFolderThatIsALinkIsUnusableAndNeverEntered) {
  add("y_good", "{}\n", R"({"checks":[{"args":["canon"],"exit":0,"stdout":"{}\n"}]})");
  fs::create_symlink(outside_ / "y_real", dir_ / "y_linked");
  const auto r = conform_binary(dir_, kEchoPort, reports());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out,
            "FAIL y_linked: unusable vector: a symbolic link to a folder, not a folder; the runner follows no link "
            "out of a folder\n1 passed, 1 failed\n");
  EXPECT_EQ(everything(r).find(kSecret), std::string::npos) << everything(r);
}

// The vectors' VERSION is theirs too: `--version` printed the first 40
// bytes of what a linked one pointed at.
TEST_F(LinkedVectors, ALinkedVersionIsNoVersionAndItsTargetIsNeverRead) {
  add("y_good", "{}\n", R"({"checks":[{"args":["canon"],"exit":0,"stdout":"{}\n"}]})");
  fs::create_symlink(outside_ / "secret.jsonl", dir_ / "VERSION");
  const auto r = conform_binary(dir_, {}, {"--version"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "agent-session-conform: the vectors in '" + dir_.string() +
                       "' have no version: VERSION is a symbolic link, not a regular file; the runner follows no link "
                       "out of a folder\n");
  EXPECT_EQ((r.out + r.err).find(kSecret), std::string::npos) << r.out << r.err;
}

// A hard link is not the vector's own file either: input.jsonl,
// expect.json or VERSION linked to a secret elsewhere (st_nlink 2) makes
// the vector unusable, or the vectors versionless, and nothing of the
// secret is read or printed; so does a FILE the port left hard-linked.
TEST_F(LinkedVectors, AHardLinkedInputExpectOrVersionIsRefusedAndItsTargetIsNeverRead) {
  add("y_good", "{}\n", R"({"checks":[{"args":["canon"],"exit":0,"stdout":"{}\n"}]})");
  add("y_input_secret", "", kOneMessage);
  fs::remove(dir_ / "y_input_secret" / "input.jsonl");
  fs::create_hard_link(outside_ / "secret.jsonl", dir_ / "y_input_secret" / "input.jsonl");
  add("y_expect_secret", "{}\n", "");
  fs::remove(dir_ / "y_expect_secret" / "expect.json");
  fs::create_hard_link(outside_ / "secret.json", dir_ / "y_expect_secret" / "expect.json");
  auto r = conform_binary(dir_, kEchoPort, reports());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_expect_secret: unusable vector: expect.json has 2 links: a vector's files are its own\n"
            "FAIL y_input_secret: unusable vector: input.jsonl has 2 links: a vector's files are its own\n"
            "1 passed, 2 failed\n");
  EXPECT_EQ(everything(r).find(kSecret), std::string::npos) << everything(r);

  std::ofstream(outside_ / "secret.version") << kSecret << "\n";
  fs::create_hard_link(outside_ / "secret.version", dir_ / "VERSION");
  r = conform_binary(dir_, {}, {"--version"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "agent-session-conform: the vectors in '" + dir_.string() +
                       "' have no version: VERSION has 2 links: a vector's files are its own\n");
  EXPECT_EQ((r.out + r.err).find(kSecret), std::string::npos) << r.out << r.err;
}

TEST_F(LinkedVectors, AFileThePortLeftHardLinkedFailsItsFileCheckUnread) {
  add("y_append", "a\n", R"({"checks":[{"args":["append"],"stdin":"b\n","exit":0,"file_after":"a\nb\n"}]})");
  const std::string secret = (outside_ / "secret.jsonl").string();
  const auto r =
      conform_binary(dir_, shell_port("cat > /dev/null; rm -f \"$2\"; ln '" + secret + "' \"$2\""), reports());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_append (append FILE): after the run, FILE has 2 links: the runner reads no file that is also "
            "elsewhere\n0 passed, 1 failed\n");
  EXPECT_EQ(everything(r).find(kSecret), std::string::npos) << everything(r);
}

// A file check's FILE after the run is read through its folder's
// descriptor, never through a link and never blocking.
TEST_F(LinkedVectors, APortThatTurnsFileIntoALinkOrAFifoFailsItsFileCheckNamed) {
  add("y_append", "a\n", R"({"checks":[{"args":["append"],"stdin":"b\n","exit":0,"file_after":"a\nb\n"}]})");
  const std::string secret = (outside_ / "secret.jsonl").string();
  auto r = conform_binary(dir_, shell_port("cat > /dev/null; ln -sf '" + secret + "' \"$2\""), reports());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_append (append FILE): after the run, FILE is a symbolic link, not a regular file; the runner "
            "follows no link out of a folder\n0 passed, 1 failed\n");
  EXPECT_EQ(everything(r).find(kSecret), std::string::npos) << everything(r);
  // A FIFO with no writer: an open that blocked would hang the runner
  // for good (the minute of conform_binary fails the test instead).
  r = conform_binary(dir_, shell_port("cat > /dev/null; rm -f \"$2\"; mkfifo \"$2\""), {"--timeout", "3600"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_append (append FILE): after the run, FILE is a FIFO, not a regular file\n0 passed, 1 failed\n");
}

// The folder of a FILE that failed: the port printed it on stderr.
fs::path printed_folder(const std::string& out) {
  std::smatch found;
  const std::regex folder(R"re(stderr: "(/[^"\\]*agent-session-conform-file-[A-Za-z0-9]{6}))re");
  if (!std::regex_search(out, found, folder)) return {};
  return found[1].str();
}

TEST_F(FakeVectors, APortLeavingUnreadableFoldersAndFilesBesideFileLeavesNoTemporaryFolder) {
  add("y_append", "a\n", R"({"checks":[{"args":["append"],"stdin":"b\n","exit":0,"file_after":"a\nb\n"}]})");
  // Nested, the inner one unreadable too: each is opened on the way down.
  const std::string lock =
      R"(d=$(dirname "$2"); mkdir -p "$d/locked/deeper"; : > "$d/locked/deeper/x"; )"
      R"(: > "$d/locked/file"; : > "$d/closed"; chmod 000 "$d/locked/deeper" "$d/locked" "$d/closed"; )"
      R"(echo "$d" >&2; exit 9)";
  const auto r = conform_binary(dir_, shell_port(lock), {}, unprivileged());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const fs::path folder = printed_folder(r.out);
  ASSERT_FALSE(folder.empty()) << r.out;
  std::error_code error;
  EXPECT_FALSE(fs::exists(folder, error)) << folder;
  if (fs::exists(folder, error)) conform::runner::remove_tree(folder);
}

// remove_tree itself, as the owner: a folder tree 3,000 deep (more than
// the descriptors a recursive removal would hold open) with a link to a
// folder outside it, whose contents stay.
TEST_F(FakeVectors, RemoveTreeFollowsNoLinkAndNeedsNoDescriptorPerLevel) {
  const fs::path tree = dir_ / "tree";
  fs::create_directories(dir_ / "kept");
  std::ofstream(dir_ / "kept" / "file") << "x";
  fs::create_directories(tree);
  fs::create_directory_symlink(dir_ / "kept", tree / "link");
  const fs::path home = fs::current_path();
  fs::current_path(tree);
  for (int i = 0; i < 3000; ++i) {  // relative steps: the whole path would pass PATH_MAX
    ASSERT_EQ(::mkdir("d", 0700), 0);
    ASSERT_EQ(::chdir("d"), 0);
  }
  ASSERT_EQ(::chmod(".", 0), 0);
  fs::current_path(home);
  EXPECT_TRUE(conform::runner::remove_tree(tree));
  EXPECT_FALSE(fs::exists(tree));
  EXPECT_EQ(file_bytes(dir_ / "kept" / "file"), "x");
}

}  // namespace
}  // namespace agent_session
