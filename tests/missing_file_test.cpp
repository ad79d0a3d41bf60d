// A FILE that does not exist on the command line is exit 3 (SPEC.md §6),
// decided by the one open that reads it: a check before the load (stat,
// exists) and a load that takes ENOENT for "no session yet" would let a
// file removed in between read as an empty session, exit 0. The fault
// library makes the open itself fail with ENOENT while the file exists,
// which is that race, every time.
#include "entry/load.hpp"
#include "support/run_binary.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

namespace agent_session {
namespace {

class MissingFile : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    std::filesystem::create_directories(path("watched"));
    write(path("watched") / "s.jsonl", "{\"role\":\"user\",\"content\":\"hi\"}\n");
  }

  // The first open of a file under watched/ fails with ENOENT.
  test_support::BinaryRun run_with_the_file_gone(const std::vector<std::string>& args) {
    test_support::BinaryOptions options;
    options.env = {{"LD_PRELOAD", AGENT_SESSION_FAULT_LIBRARY},
                   {"FAULT_DIR", path("watched").string()},
                   {"FAULT_CALL", "open"},
                   {"FAULT_NTH", "1"},
                   {"FAULT_ERRNO", std::to_string(ENOENT)}};
    return test_support::run_binary(args, dir_, options);
  }
};

TEST_F(MissingFile, AFileGoneWhenItIsOpenedIsExitThreeForEveryCommandThatReadsOne) {
  const std::string file = (path("watched") / "s.jsonl").string();
  const std::vector<std::vector<std::string>> commands = {{"check", file}, {"estimate", file},
                                                          {"canon", file}, {"trim", "--max-chars", "100", file},
                                                          {"units", file}, {"stats", file}};
  for (const auto& args : commands) {
    const auto run = run_with_the_file_gone(args);
    EXPECT_EQ(run.signal, 0) << args[0];
    EXPECT_EQ(run.exit_code, 3) << args[0] << ": " << run.out << run.err;
    EXPECT_EQ(run.out, "") << args[0];
    EXPECT_EQ(run.err, "agent-session: cannot open session '" + file + "': No such file or directory\n") << args[0];
  }
}

TEST_F(MissingFile, AScriptGoneWhenItIsOpenedIsAnErrorNotAnEmptyScript) {
  const std::string script = (path("watched") / "s.jsonl").string();
  const auto run =
      run_with_the_file_gone({"run", "--session", path("session.jsonl").string(), "--script", script, "hello"});
  EXPECT_EQ(run.signal, 0);
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  EXPECT_NE(run.err.find("cannot read script '" + script + "': No such file or directory"), std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace agent_session
