// What a writer killed mid-batch leaves (SPEC.md §8, docs/durability.md):
// a batch is one write(2), but SIGKILL can stop the kernel's copy part-way,
// so what survives is a prefix of the batch's bytes: whole lines, each a
// byte-exact message, in order, then at most one torn line. An agent turn
// cut that way (an assistant whose tool results never reached the file)
// still loads after repair and trims without orphaning a tool result.
#include "agent_session/append.hpp"
#include "agent_session/context.hpp"
#include "agent_session/repair.hpp"
#include "agent_session/session.hpp"

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <random>
#include <set>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

using KilledWriter = test_support::TempDirTest;

// Batch `b` is an agent turn: an assistant calling two tools, then both
// results, then a user message; every 3rd batch's results are large (up to
// 512 KiB), so that many kills land inside one write.
std::vector<Message> batch_of(int b) {
  const std::string id = "b" + std::to_string(b);
  const std::size_t large = b % 3 == 2 ? (std::size_t{32} << (b % 5)) << 10 : 10;
  return {AssistantMessage{id, {ToolCall{id + "x", "t", Json::object()}, ToolCall{id + "y", "t", Json::object()}}},
          ToolResultMessage{id + ":" + std::string(large, 'x'), id + "x", false},
          ToolResultMessage{id + ":" + std::string(large, 'y'), id + "y", false}, UserMessage{id + " done"}};
}

// The messages every batch 0, 1, 2, ... wrote, in order.
std::vector<Message> written_in_order(std::size_t count) {
  std::vector<Message> all;
  for (int b = 0; all.size() < count; ++b) {
    for (Message& m : batch_of(b)) all.push_back(std::move(m));
  }
  all.resize(count);
  return all;
}

// No tool result in `kept` whose declaring assistant (SPEC.md §5.1) in
// `history` was left out.
void expect_no_orphaned_result(std::span<const Message> history, std::span<const Message> kept) {
  std::set<std::string> declared_in_kept;
  std::set<std::string> declared_in_history;
  for (const Message& m : history) {
    if (const auto* a = std::get_if<AssistantMessage>(&m)) {
      for (const ToolCall& c : a->tool_calls) declared_in_history.insert(c.id);
    }
  }
  for (const Message& m : kept) {
    if (const auto* a = std::get_if<AssistantMessage>(&m)) {
      for (const ToolCall& c : a->tool_calls) declared_in_kept.insert(c.id);
    }
    if (const auto* r = std::get_if<ToolResultMessage>(&m)) {
      EXPECT_TRUE(declared_in_kept.count(r->tool_call_id) > 0 || declared_in_history.count(r->tool_call_id) == 0)
          << "result " << r->tool_call_id << " kept without its assistant";
    }
  }
}

TEST_F(KilledWriter, MidBatchLeavesWholeMessagesInOrderAndATrimmableHistory) {
  const char* seed_text = std::getenv("AGENT_SESSION_CRASH_SEED");
  const unsigned seed =
      seed_text != nullptr ? static_cast<unsigned>(std::strtoul(seed_text, nullptr, 10)) : std::random_device{}();
  std::cout << "crash seed (AGENT_SESSION_CRASH_SEED): " << seed << '\n';
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> delay_us(0, 4000);
  int torn = 0, cut_between_lines = 0, cut_inside_a_batch = 0;
  for (int round = 0; round < 150; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const fs::path file = path("kill.jsonl");
    fs::remove(file);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int b = 0;; ++b) append_session(file, batch_of(b));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(random)));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    if (!fs::exists(file)) continue;  // killed before the first open

    const std::string bytes = read(file);
    std::vector<Message> history;
    try {
      history = load_session(file);
      ++cut_between_lines;
    } catch (const SessionError& error) {
      // Only the last line may be torn, and repair cuts exactly it.
      ASSERT_NE(bytes.back(), '\n') << error.what();
      const RepairResult repair = repair_session(file);
      ASSERT_TRUE(repair.repaired) << error.what();
      EXPECT_EQ(read(file), bytes.substr(0, bytes.rfind('\n') + 1));
      fs::remove(*repair.backup);
      history = load_session(file);
      ++torn;
    }
    // Whole messages, byte-exact, in the order written: a prefix of all
    // batches, possibly ending inside one.
    ASSERT_EQ(history, written_in_order(history.size()));
    if (history.size() % 4 != 0) ++cut_inside_a_batch;
    if (history.empty()) continue;
    // The history still trims, never orphaning a result: an assistant
    // whose results were cut off is a unit of its own (SPEC.md §5.1).
    const std::uint64_t all = estimate_context_chars(history);
    for (const std::uint64_t budget : {all, all / 2, all / 4, std::uint64_t{400}}) {
      try {
        expect_no_orphaned_result(history, trim_context(history, budget));
      } catch (const ContextError&) {
        // The newest unit alone is larger than this budget.
      }
    }
  }
  // Timing decides how the kills land, so only reported.
  std::cout << "rounds torn: " << torn << ", cut between lines: " << cut_between_lines
            << "; rounds whose history ends inside a batch: " << cut_inside_a_batch << '\n';
  RecordProperty("torn_rounds", torn);
  RecordProperty("cut_inside_a_batch", cut_inside_a_batch);
}

}  // namespace
}  // namespace agent_session
