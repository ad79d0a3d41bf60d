// The command line's parser is built once per thread and reused
// (cli/command_line.hpp): no run sees another run's arguments, and a run
// inside a run gets a parser of its own.
#include "cli/command_line.hpp"

#include "support/cli_run.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace agent_session {
namespace {

using cli::CommandLine;
using cli::CommandLineLease;

TEST(CommandLineLease, AFinishedRunsParserIsReusedWithEveryValueBackToItsDefault) {
  CommandLine* first = nullptr;
  {
    CommandLineLease lease;
    first = &*lease;
    lease->options.json = true;
    lease->options.file = "old.jsonl";
    lease->run.max_turns = 1;
    lease->app.parse(std::vector<std::string>{"x.jsonl", "--json", "units"});  // reversed, as CLI11 takes it
    EXPECT_TRUE(*lease->units);
  }
  CommandLineLease again;
  EXPECT_EQ(&*again, first);
  EXPECT_FALSE(again->options.json);
  EXPECT_EQ(again->options.file, "");
  EXPECT_EQ(again->run.max_turns, cli::RunOptions{}.max_turns);
  EXPECT_FALSE(*again->units);
}

TEST(CommandLineLease, ARunInsideARunHasAParserOfItsOwn) {
  CommandLineLease outer;
  CommandLineLease inner;
  EXPECT_NE(&*outer, &*inner);
}

class CommandLineRuns : public test_support::TempDirTest {};

// The same process, one run after another, as the harness runs them.
TEST_F(CommandLineRuns, NoRunSeesTheFlagsOfTheRunBefore) {
  const auto file = path("s.jsonl");
  std::ofstream(file) << "{\"role\":\"user\",\"content\":\"hi\"}\n";
  const auto json = test_support::run_cli({"units", "--json", file.string()});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  ASSERT_EQ(json.out.front(), '{');
  const auto table = test_support::run_cli({"units", file.string()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.front(), '{') << table.out;
  const auto trimmed = test_support::run_cli({"trim", "--max-chars", "1000", file.string()});
  EXPECT_EQ(trimmed.exit_code, 0);
  const auto no_budget = test_support::run_cli({"trim", file.string()});
  EXPECT_EQ(no_budget.exit_code, 2) << no_budget.out;
}

}  // namespace
}  // namespace agent_session
