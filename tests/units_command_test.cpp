// `agent-session units` and `stats` (src/cli/units_command.hpp,
// docs/units-and-stats.md): their JSON shapes, and that what they say
// about budgets is what `trim` does, on the real sessions.
#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "cli/cli.hpp"
#include "entry/load.hpp"

#include "support/cli_run.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

using entry::NumberedSession;
using test_support::CliRun;

CliRun run(const std::vector<std::string>& args) { return test_support::run_cli(args); }

Json json_of(const std::vector<std::string>& args) {
  const CliRun r = run(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return Json::parse(r.out);
}

std::vector<fs::path> real_sessions() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus/real")) {
    if (entry.path().extension() == ".jsonl") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(UnitsAndStats, TheMinimumBudgetIsAcceptedAndOneLessNamesTheSameUnit) {
  const std::vector<fs::path> files = real_sessions();
  ASSERT_EQ(files.size(), 3u);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    const Json stats = json_of({"stats", "--json", file.string()});
    const std::uint64_t minimum = stats.at("minimum_budget").get<std::uint64_t>();
    const CliRun fits = run({"trim", "--max-chars", std::to_string(minimum), file.string()});
    EXPECT_EQ(fits.exit_code, cli::kOk) << fits.err;
    const Json& newest = stats.at("newest_unit");
    EXPECT_EQ(newest.at("chars").get<std::uint64_t>(), minimum);
    const CliRun refused = run({"trim", "--max-chars", std::to_string(minimum - 1), file.string()});
    EXPECT_EQ(refused.exit_code, cli::kInvalid);
    const std::size_t begin = newest.at("begin").get<std::size_t>(), end = newest.at("end").get<std::size_t>();
    const std::string messages = end - begin == 1 ? "message " + std::to_string(begin)
                                                  : "messages " + std::to_string(begin) + "-" + std::to_string(end - 1);
    EXPECT_EQ(refused.err,
              "agent-session: context budget cannot contain the smallest consistent message unit: "
              "the newest unit, " +
                  messages + ", is " + std::to_string(minimum) + " characters; the budget is " +
                  std::to_string(minimum - 1) + "; in " + file.string() + ": " +
                  (end - begin == 1 ? "line " : "lines ") + std::to_string(newest.at("first_line").get<std::size_t>()) +
                  (end - begin == 1 ? "" : "-" + std::to_string(newest.at("last_line").get<std::size_t>())) + "\n");
    EXPECT_EQ(refused.out, "");
  }
}

TEST(UnitsAndStats, UnitsJsonIsTheUnitsNewestFirstWithCumulativeChars) {
  for (const fs::path& file : real_sessions()) {
    SCOPED_TRACE(file.filename().string());
    const NumberedSession session = entry::load_numbered_session(file);
    const std::vector<ContextUnit> units = context_units(session.messages);
    const Json json = json_of({"units", "--json", file.string()});
    EXPECT_EQ(json.at("messages").get<std::size_t>(), session.messages.size());
    EXPECT_EQ(json.at("chars").get<std::uint64_t>(), estimate_context_chars(session.messages));
    const Json& list = json.at("units");
    ASSERT_EQ(list.size(), units.size());
    std::uint64_t cumulative = 0;
    for (std::size_t k = 0; k < units.size(); ++k) {
      const ContextUnit& unit = units[units.size() - 1 - k];
      cumulative += unit.chars;
      const Json& entry = list[k];
      // The documented shape, in this order.
      std::vector<std::string> keys;
      for (const auto& [key, value] : entry.items()) keys.push_back(key);
      EXPECT_EQ(keys,
                (std::vector<std::string>{"begin", "end", "first_line", "last_line", "chars", "cumulative_chars"}));
      EXPECT_EQ(entry.at("begin").get<std::size_t>(), unit.begin);
      EXPECT_EQ(entry.at("end").get<std::size_t>(), unit.end);
      EXPECT_EQ(entry.at("first_line").get<std::size_t>(), session.lines[unit.begin]);
      EXPECT_EQ(entry.at("last_line").get<std::size_t>(), session.lines[unit.end - 1]);
      EXPECT_EQ(entry.at("chars").get<std::uint64_t>(), unit.chars);
      EXPECT_EQ(entry.at("cumulative_chars").get<std::uint64_t>(), cumulative);
      // "What fits in N?" read off the list: N = cumulative keeps exactly
      // these units.
      if (k % 37 == 0) {
        const std::span<const Message> kept = trim_context(session.messages, cumulative);
        EXPECT_EQ(kept.size(), session.messages.size() - unit.begin);
      }
    }
  }
}

class UnitsFile : public test_support::TempDirTest {};

TEST_F(UnitsFile, StatsCountRolesCallsOrphansAndPendingCallsWithTheirLines) {
  // Line 2 is empty: lines are physical, messages 0-based.
  write(
      path("s.jsonl"),
      R"({"role":"user","content":"go"})"
      "\n\n"
      R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"t","input":{}},{"id":"b","name":"t","input":{}}]})"
      "\n"
      R"({"role":"tool","content":"r","toolCallId":"a","isError":false})"
      "\n"
      R"({"role":"tool","content":"r","toolCallId":"nobody","isError":false})"
      "\n");
  const Json stats = json_of({"stats", "--json", path("s.jsonl").string()});
  std::vector<std::string> keys;
  for (const auto& [key, value] : stats.items()) keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"messages", "by_role", "tool_calls", "orphan_tool_results", "pending_tool_calls",
                                      "units", "chars", "largest_unit", "newest_unit", "minimum_budget"}));
  EXPECT_EQ(stats.at("messages"), 4);
  EXPECT_EQ(stats.at("by_role"), (Json{{"user", 1}, {"assistant", 1}, {"tool", 2}}));
  EXPECT_EQ(stats.at("tool_calls"), 2);
  EXPECT_EQ(stats.at("orphan_tool_results"), 1);
  EXPECT_EQ(stats.at("pending_tool_calls"), 1);  // b was never answered
  EXPECT_EQ(stats.at("units"), 3);               // [go] [assistant, a] [orphan]
  EXPECT_EQ(stats.at("newest_unit").at("first_line"), 5);
  EXPECT_EQ(stats.at("largest_unit").at("begin"), 1);
  EXPECT_EQ(stats.at("largest_unit").at("last_line"), 4);
  const CliRun text = run({"stats", path("s.jsonl").string()});
  EXPECT_NE(text.out.find("largest unit: messages 1-2 (lines 3-4), "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("pending tool calls: 1"), std::string::npos) << text.out;
}

TEST_F(UnitsFile, AnEmptySessionHasNoUnitsAndNoMinimumBudget) {
  write(path("empty.jsonl"), "");
  const Json stats = json_of({"stats", "--json", path("empty.jsonl").string()});
  EXPECT_EQ(stats.at("units"), 0);
  EXPECT_TRUE(stats.at("minimum_budget").is_null());
  EXPECT_TRUE(stats.at("largest_unit").is_null());
  const Json units = json_of({"units", "--json", path("empty.jsonl").string()});
  EXPECT_EQ(units.at("units"), Json::array());
  const CliRun trim = run({"trim", "--max-chars", "10", path("empty.jsonl").string()});
  EXPECT_EQ(trim.err, "agent-session: context budget cannot be empty: there are no messages\n");
}

// docs/units-and-stats.md: the table's ranges are inclusive, --json's
// begin/end half-open; --help says so where a reader looks first.
TEST(UnitsHelp, SaysTheTableRangesAreInclusiveAndTheJsonOnesHalfOpen) {
  const CliRun help = run({"units", "--help"});
  EXPECT_EQ(help.exit_code, cli::kOk);
  for (const char* text : {"inclusive", "460-461", "half-open", "\"begin\":460,\"end\":462"}) {
    EXPECT_NE(help.out.find(text), std::string::npos) << text << "\n" << help.out;
  }
}

// `units --json` as it was written before it streamed: one Json document
// of the whole session, dumped. The streamed bytes must be these.
std::string units_json_as_one_document(const NumberedSession& session) {
  const std::vector<ContextUnit> units = context_units(session.messages);
  std::uint64_t cumulative = 0;
  Json list = Json::array();
  for (auto unit = units.rbegin(); unit != units.rend(); ++unit) {
    cumulative += unit->chars;
    Json entry = Json::object();
    entry["begin"] = unit->begin;
    entry["end"] = unit->end;
    entry["first_line"] = session.lines[unit->begin];
    entry["last_line"] = session.lines[unit->end - 1];
    entry["chars"] = unit->chars;
    entry["cumulative_chars"] = cumulative;
    list.push_back(std::move(entry));
  }
  Json result = Json::object();
  result["messages"] = session.messages.size();
  result["chars"] = cumulative;
  result["units"] = std::move(list);
  return result.dump() + "\n";
}

TEST(UnitsAndStats, UnitsJsonStreamsTheBytesTheWholeDocumentGave) {
  std::vector<fs::path> files = real_sessions();
  files.push_back(fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus/conformance/y_append_canonical_lines/input.jsonl");
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const CliRun r = run({"units", "--json", file.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, units_json_as_one_document(entry::load_numbered_session(file)));
  }
}

// `agent-session ARGS...` in a child, its output to `out`: its peak
// resident set in KiB (wait4's rusage, the child's alone).
long peak_kib(const std::vector<std::string>& args, const fs::path& out) {
  std::vector<char*> argv{const_cast<char*>(AGENT_SESSION_CLI)};
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ::dup2(fd, 1) < 0) ::_exit(126);
    ::alarm(120);
    ::execv(AGENT_SESSION_CLI, argv.data());
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  EXPECT_EQ(::wait4(pid, &status, 0, &usage), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return usage.ru_maxrss;
}

// Found by an attacker: --json built one document of the whole session, 750-800 bytes
// a unit, 5x plain `units`. It streams now: its peak memory is plain
// `units`' (both hold the loaded session) within a small margin. Memory is
// asserted, never time.
TEST_F(UnitsFile, UnitsJsonTakesAboutThePlainTablesMemory) {
  constexpr int kUnits = 200'000;  // a user message is a unit of its own
  {
    std::ofstream session(path("big.jsonl"), std::ios::binary);
    for (int i = 0; i < kUnits; ++i) session << "{\"role\":\"user\",\"content\":\"m" << i % 10 << "\"}\n";
  }
  const long plain = peak_kib({"units", path("big.jsonl").string()}, path("plain.out"));
  const long json = peak_kib({"units", "--json", path("big.jsonl").string()}, path("json.out"));
  RecordProperty("plain_kib", std::to_string(plain));
  RecordProperty("json_kib", std::to_string(json));
  std::cout << "[ memory   ] " << kUnits << " units: units " << plain << " KiB, units --json " << json << " KiB\n";
  EXPECT_LE(json, plain * 3 / 2);
  EXPECT_EQ(Json::parse(std::ifstream(path("json.out"))).at("units").size(), static_cast<std::size_t>(kUnits));
}

}  // namespace
}  // namespace agent_session
