// Where a report of `agent-session conform` goes (conform/runner/report_file.hpp,
// corpus/conformance/reports.md "Where a report goes"): only ever a regular
// file, never through a symbolic link, never into a FIFO (which would hang
// the run) or a device or a folder. `fuzz`'s reports go the same way
// (fuzz_links_test.cpp).
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/stat.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::conform;
using test_support::conform_binary;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;

std::string file_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// A report goes only to a regular file (reports.md): a symbolic link is
// never written through (what it names stays as it was), a FIFO nobody
// reads never hangs the run, a device or a folder is never written. Each
// is one line naming the path and why, and exit 3, the other report still
// written. The run's limit only turns a hang into a failure.
TEST_F(FakeVectors, AReportIsWrittenOnlyToARegularFileNeverThroughALinkOrIntoAFifoOrDevice) {
  // The vectors in a folder of their own: what the test plants is beside it.
  const fs::path vectors = dir_ / "vectors";
  add("vectors/y_one", "{}\n", kOneMessage);
  std::ofstream(vectors / "VERSION") << "1.0.0\n";  // no warning on standard error
  const auto port = shell_port("printf '1 messages\\n'");
  std::ofstream(dir_ / "victim") << "untouched\n";
  const fs::path link = dir_ / "link", fifo = dir_ / "fifo", folder = dir_ / "folder";
  fs::create_symlink(dir_ / "victim", link);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_directory(folder);
  const struct {
    fs::path path;
    const char* why;
  } refused[] = {{link, "it is a symbolic link"},
                 {fifo, "it is a FIFO"},
                 {"/dev/null", "it is a character device"},
                 {folder, "it is a folder"}};
  for (const char* kind : {"junit", "json"}) {
    const std::string other = std::string(kind) == "junit" ? "json" : "junit";
    const fs::path written = dir_ / ("other." + other);
    for (const auto& target : refused) {
      fs::remove(written);
      const auto r = conform_binary(
          vectors, port,
          {"--report", std::string(kind) + "=" + target.path.string(), "--report", other + "=" + written.string()});
      EXPECT_EQ(r.exit_code, 3) << kind << " " << target.path << ": " << r.err;
      EXPECT_EQ(r.err, "agent-session-conform: cannot write the " + std::string(kind) + " report '" +
                           target.path.string() + "': " + target.why +
                           ", not a regular file (a report is written only to one)\n");
      EXPECT_EQ(file_text(dir_ / "victim"), "untouched\n");
      EXPECT_TRUE(fs::is_symlink(link));
      EXPECT_TRUE(fs::is_fifo(fifo));
      EXPECT_TRUE(fs::is_empty(folder));
      EXPECT_FALSE(file_text(written).empty()) << "the other report was not written";
    }
  }
  // A regular file there is replaced whole: nothing of its old bytes stays.
  const fs::path old = dir_ / "old.json";
  std::ofstream(old) << std::string(100000, 'x');
  const auto r = conform(vectors, port, {"--report", "json=" + old.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(file_text(old)).at("summary").at("passed"), 1);
}

}  // namespace
}  // namespace agent_session
