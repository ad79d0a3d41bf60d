// session_object.hpp: the Session object a runtime records through (the
// chapter's record(): the file first, then memory) and the Contexts it
// cuts, which appends never invalidate.
#include "agent_session/session_object.hpp"
#include "agent_session/append.hpp"

#include "agent_session/context.hpp"
#include "agent_session/session.hpp"

#include "support/counting_allocator.hpp"  // counts the heap: appends never reload
#include "support/temp_dir.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::thrown;
using SessionObject = test_support::TempDirTest;

Message user(std::string content) { return UserMessage{std::move(content)}; }

// `rounds` rounds of a user message, an assistant calling a tool, its
// result and an answer: 4 messages each, units of 1 or 2 messages.
std::vector<Message> history(std::size_t rounds) {
  std::vector<Message> out;
  for (std::size_t i = 0; i < rounds; ++i) {
    const std::string id = "c" + std::to_string(i);
    out.push_back(user("question " + std::to_string(i)));
    out.push_back(AssistantMessage{"", {ToolCall{id, "read_file", Json{{"path", "f" + std::to_string(i)}}}}});
    out.push_back(ToolResultMessage{"contents of f" + std::to_string(i), id, false});
    out.push_back(AssistantMessage{"answer " + std::to_string(i), {}});
  }
  return out;
}

std::vector<Message> copy(std::span<const Message> messages) { return {messages.begin(), messages.end()}; }

// ---------------------------------------------------------------------------
// open: load_session's rules (SPEC §2).

TEST_F(SessionObject, OpeningAMissingFileIsAnEmptySessionAndCreatesNothing) {
  const Session session = Session::open(path("s.jsonl"));
  EXPECT_EQ(session.size(), 0u);
  EXPECT_EQ(session.loaded(), 0u);
  EXPECT_EQ(session.path(), path("s.jsonl"));
  EXPECT_FALSE(fs::exists(path("s.jsonl")));
}

TEST_F(SessionObject, OpenLoadsWhatLoadSessionLoads) {
  append_session(path("s.jsonl"), history(3));
  const Session session = Session::open(path("s.jsonl"));
  EXPECT_EQ(copy(session.messages()), load_session(path("s.jsonl")));
  EXPECT_EQ(session.loaded(), 12u);
}

TEST_F(SessionObject, OpeningACorruptFileThrowsWhatLoadSessionThrows) {
  write(path("s.jsonl"), "{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"user\"}\n");
  const auto expected = thrown<SessionError>([&] { load_session(path("s.jsonl")); });
  const auto error = thrown<SessionError>([&] { Session::open(path("s.jsonl")); });
  EXPECT_EQ(error.kind(), SessionErrorKind::invalid_record);
  EXPECT_EQ(error.line(), 3u);
  EXPECT_STREQ(error.what(), expected.what());
}

TEST_F(SessionObject, OpeningADirectoryThrowsItsErrno) {
  fs::create_directory(path("s.jsonl"));
  EXPECT_EQ(thrown<std::system_error>([&] { Session::open(path("s.jsonl")); }).code().value(), EISDIR);
}

// ---------------------------------------------------------------------------
// append: the file first, then memory; a failure changes neither.

TEST_F(SessionObject, AppendWritesTheFileThenMemory) {
  Session session = Session::open(path("s.jsonl"));
  const std::vector<Message> messages = history(2);
  for (const Message& message : messages) {
    session.append(message);
    EXPECT_EQ(load_session(path("s.jsonl")), copy(session.messages()));  // memory = disk after every append
  }
  EXPECT_EQ(copy(session.messages()), messages);
  EXPECT_EQ(read(path("s.jsonl")), to_canonical_jsonl(messages));
  EXPECT_EQ(session.loaded(), 0u);
}

TEST_F(SessionObject, AppendAddsToWhatWasLoadedAndNeverRereadsTheFile) {
  append_session(path("s.jsonl"), user("one"));
  Session session = Session::open(path("s.jsonl"));
  append_session(path("s.jsonl"), user("another writer"));  // not this session's: unseen until a reopen
  session.append(user("two"));
  EXPECT_EQ(copy(session.messages()), (std::vector<Message>{user("one"), user("two")}));
  EXPECT_EQ(session.loaded(), 1u);
  EXPECT_EQ(load_session(path("s.jsonl")), (std::vector<Message>{user("one"), user("another writer"), user("two")}));
}

// Each failing append: the error append_session throws, then memory as it was.
void expect_append_fails_unchanged(Session& session, const Message& message, int expected_errno) {
  const std::vector<Message> before = copy(session.messages());
  const auto error = thrown<std::system_error>([&] { session.append(message); });
  EXPECT_EQ(error.code().value(), expected_errno) << error.what();
  EXPECT_EQ(copy(session.messages()), before);
}

TEST_F(SessionObject, AFailedAppendToAPathThatBecameADirectoryLeavesMemoryUnchanged) {
  Session session = Session::open(path("s.jsonl"));
  session.append(user("one"));
  fs::remove(path("s.jsonl"));
  fs::create_directory(path("s.jsonl"));
  expect_append_fails_unchanged(session, user("two"), EISDIR);
  EXPECT_EQ(session.size(), 1u);
}

TEST_F(SessionObject, AFailedAppendToASymbolicLinkLeavesMemoryAndTheTargetUnchanged) {
  append_session(path("real.jsonl"), user("one"));
  fs::create_symlink("real.jsonl", path("link.jsonl"));
  Session through_link = Session::open(path("link.jsonl"));  // loading follows it, as load_session does
  ASSERT_EQ(through_link.size(), 1u);
  expect_append_fails_unchanged(through_link, user("two"), ELOOP);  // writers refuse it (SPEC §8)

  Session real = Session::open(path("real.jsonl"));
  fs::remove(path("real.jsonl"));
  append_session(path("elsewhere.jsonl"), user("one"));
  fs::create_symlink("elsewhere.jsonl", path("real.jsonl"));  // planted after open
  expect_append_fails_unchanged(real, user("two"), ELOOP);
  EXPECT_EQ(read(path("elsewhere.jsonl")), to_canonical_jsonl(std::vector<Message>{user("one")}));
}

TEST_F(SessionObject, AFailedAppendAfterATornLineLeavesMemoryUnchanged) {
  Session session = Session::open(path("s.jsonl"));
  session.append(user("one"));
  std::ofstream(path("s.jsonl"), std::ios::app | std::ios::binary) << "{\"role\":\"us";  // a writer killed mid-line
  const auto error = thrown<SessionError>([&] { session.append(user("two")); });
  EXPECT_EQ(error.line(), 2u);
  EXPECT_EQ(copy(session.messages()), std::vector<Message>{user("one")});
}

TEST_F(SessionObject, AMessageThatCannotBeSerializedIsRecordedNowhere) {
  const Message bad = user("not UTF-8: \xff");
  Session on_disk = Session::open(path("s.jsonl"));
  on_disk.append(user("one"));
  EXPECT_THROW(on_disk.append(bad), SerializationError);
  EXPECT_EQ(copy(on_disk.messages()), std::vector<Message>{user("one")});
  EXPECT_EQ(load_session(path("s.jsonl")), std::vector<Message>{user("one")});

  Session in_memory;  // holds only what a file could
  EXPECT_THROW(in_memory.append(bad), SerializationError);
  EXPECT_EQ(in_memory.size(), 0u);
  const auto error = thrown<SerializationError>([&] { Session::in_memory({user("ok"), bad}); });
  EXPECT_TRUE(std::string(error.what()).starts_with("message 1 cannot be serialized: ")) << error.what();
}

TEST_F(SessionObject, AnInMemorySessionTouchesNoFile) {
  Session session = Session::in_memory(history(1));
  session.append(user("more"));
  EXPECT_EQ(session.path(), std::nullopt);
  EXPECT_EQ(session.loaded(), 4u);
  EXPECT_EQ(session.size(), 5u);
  EXPECT_TRUE(fs::is_empty(dir_));
}

// ---------------------------------------------------------------------------
// context(max_chars): trim_context's answer, as positions.

TEST_F(SessionObject, ContextIsTrimContextsSuffixForEveryBudget) {
  const Session session = Session::in_memory(history(8));
  const std::uint64_t all = estimate_context_chars(session.messages());
  for (std::uint64_t budget = 0; budget <= all + 1; ++budget) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    try {
      const std::span<const Message> expected = trim_context(session.messages(), budget);
      const Session::Context context = session.context(budget);
      EXPECT_EQ(context.messages().data(), expected.data());
      EXPECT_EQ(context.size(), expected.size());
      EXPECT_EQ(context.offset() + context.size(), session.size());
    } catch (const ContextError& expected) {
      const auto error = thrown<ContextError>([&] { session.context(budget); });
      EXPECT_EQ(error.kind(), expected.kind());
      EXPECT_EQ(error.unit(), expected.unit());
      EXPECT_EQ(error.budget(), expected.budget());
    }
  }
}

// The declaring assistants the session keeps are SPEC.md §5.1's, whatever
// the order of appends and failures: every budget cuts where trim_context
// on the same messages cuts.
void expect_context_is_trim_context(const Session& session) {
  const std::uint64_t all = estimate_context_chars(session.messages());
  for (std::uint64_t budget = 0; budget <= all; ++budget) {
    try {
      const std::size_t expected = trim_context(session.messages(), budget).size();
      EXPECT_EQ(session.context(budget).size(), expected) << "budget " << budget;
    } catch (const ContextError& expected) {
      EXPECT_EQ(thrown<ContextError>([&] { session.context(budget); }).unit(), expected.unit()) << "budget " << budget;
    }
  }
}

TEST_F(SessionObject, AResultsDeclaringAssistantIsTheNearestEarlierOneThroughEveryAppend) {
  Session session = Session::in_memory({user("go"), AssistantMessage{"", {ToolCall{"x", "a", Json{}}}}});
  session.append(AssistantMessage{"", {ToolCall{"x", "b", Json{}}, ToolCall{"x", "c", Json{}}}});  // x again: nearest
  session.append(ToolResultMessage{"1", "x", false});
  session.append(ToolResultMessage{"early", "y", false});  // before y's declaration: an orphan
  session.append(AssistantMessage{"", {ToolCall{"y", "a", Json{}}}});
  session.append(ToolResultMessage{"2", "x", false});  // x's declarer is still message 2
  session.append(ToolResultMessage{"3", "y", false});
  expect_context_is_trim_context(session);
  EXPECT_EQ(session.context(estimate_context_chars(session.messages().last(6))).offset(), 2u);
}

TEST_F(SessionObject, AnAssistantWhoseAppendFailedDeclaresNothing) {
  Session session = Session::open(path("s.jsonl"));
  session.append(user("go"));
  session.append(AssistantMessage{"", {ToolCall{"x", "a", Json{}}}});
  fs::remove(path("s.jsonl"));
  fs::create_directory(path("s.jsonl"));
  EXPECT_THROW(session.append(AssistantMessage{"", {ToolCall{"x", "b", Json{}}, ToolCall{"z", "b", Json{}}}}),
               std::system_error);
  fs::remove(path("s.jsonl"));
  session.append(ToolResultMessage{"for x", "x", false});  // declared by message 1, not the failed one
  session.append(ToolResultMessage{"for z", "z", false});  // an orphan
  ASSERT_EQ(session.size(), 4u);
  expect_context_is_trim_context(session);
  // Result x travels with message 1 and result z alone: the last two
  // messages are two units, not one.
  EXPECT_EQ(session.context(estimate_context_chars(session.messages().last(2))).offset(), 3u);
}

TEST_F(SessionObject, AnEmptySessionHasAnEmptyWholeContextAndNoBudgetedOne) {
  const Session session;
  EXPECT_TRUE(session.context().empty());
  EXPECT_EQ(thrown<ContextError>([&] { session.context(100); }).kind(), ContextErrorKind::empty_context);
}

TEST_F(SessionObject, TheWholeContextIsEveryMessage) {
  const Session session = Session::in_memory(history(2));
  const Session::Context context = session.context();
  EXPECT_EQ(context.offset(), 0u);
  EXPECT_EQ(context.messages().data(), session.messages().data());
  EXPECT_EQ(context.size(), 8u);
}

TEST_F(SessionObject, AContextStillNamesTheSameMessagesAfterAppendsReallocateTheHistory) {
  Session session = Session::open(path("s.jsonl"));
  for (const Message& message : history(4)) session.append(message);
  const Session::Context sent = session.context(estimate_context_chars(session.messages().last(8)));  // 2 whole rounds
  const std::vector<Message> expected = copy(sent.messages());
  ASSERT_EQ(expected.size(), 8u);
  const Message* old_data = session.messages().data();
  for (const Message& message : history(64)) session.append(message);
  ASSERT_NE(session.messages().data(), old_data);  // the vector moved: a kept span would dangle
  EXPECT_EQ(copy(sent.messages()), expected);
  EXPECT_EQ(sent.messages().data(), session.messages().data() + 8);
}

TEST_F(SessionObject, AContextOfAMovedFromSessionThrowsInsteadOfNamingOtherMessages) {
  Session first = Session::open(path("s.jsonl"));
  first.append(user("one"));
  const Session::Context of_first = first.context();
  Session second = std::move(first);
  EXPECT_THROW((void)of_first.messages(), std::logic_error);
  EXPECT_EQ(copy(second.context().messages()), std::vector<Message>{user("one")});
  EXPECT_EQ(second.path(), path("s.jsonl"));

  // The moved-from session is empty and in memory: reusing it never
  // revives old Contexts nor writes to the file.
  EXPECT_EQ(first.size(), 0u);  // NOLINT(bugprone-use-after-move): specified
  EXPECT_EQ(first.path(), std::nullopt);
  first.append(user("other"));
  EXPECT_THROW((void)of_first.messages(), std::logic_error);
  EXPECT_EQ(load_session(path("s.jsonl")), std::vector<Message>{user("one")});

  const Session::Context of_second = second.context();
  second = Session::in_memory({user("replaced")});
  EXPECT_THROW((void)of_second.messages(), std::logic_error);

  const Session::Context before_release = second.context();
  const std::vector<Message> released = std::move(second).release();
  EXPECT_EQ(released, std::vector<Message>{user("replaced")});
  EXPECT_THROW((void)before_release.messages(), std::logic_error);
}

// ---------------------------------------------------------------------------
// Per-append cost: what the message costs, not what the history costs.
// Counted in heap allocations, not time: a reload or a copy of the history
// allocates per message, so 100x the history would cost 100x.

std::uint64_t allocations_per_append_and_trim(std::size_t rounds, const fs::path& file) {
  append_session(file, history(rounds));
  Session session = Session::open(file);
  constexpr std::uint64_t kBudget = 2'000;
  const std::vector<Message> more = history(16);
  const std::uint64_t before = bench::heap_counters().allocations;
  for (const Message& message : more) {
    session.append(message);
    (void)session.context(kBudget).messages();
  }
  return (bench::heap_counters().allocations - before) / more.size();
}

// A fixed budget costs what it reaches, whatever the history's length, in
// both builds: the session keeps each result's declaring assistant, so no
// trim searches the history (context_growth_test counts the work itself).
TEST_F(SessionObject, AppendingAndRetrimmingCostsTheSameAt1kAnd100kMessages) {
  const std::uint64_t small = allocations_per_append_and_trim(250, path("small.jsonl"));     // 1,000 messages
  const std::uint64_t large = allocations_per_append_and_trim(25'000, path("large.jsonl"));  // 100,000
  EXPECT_GT(small, 0u);                                                                      // the counter counts
  EXPECT_LE(large, 2 * small + 2) << "1k messages: " << small << " allocations per append; 100k: " << large;
}

}  // namespace
}  // namespace agent_session
