// SPEC.md §8's rules that take no fault to see: new session files are
// owner-only, the sync policy changes when bytes reach the disk and never
// which bytes, an append never welds onto a torn last line, and loading
// hints at `agent-session repair` only for one; a failed synced append's
// pending-sync mark is rolled back, in its boot only. The faults themselves
// (racing writers, SIGKILL, RLIMIT_FSIZE): durability_test.cpp.
#include "agent_session/append.hpp"
#include "agent_session/repair.hpp"
#include "agent_session/session.hpp"
#include "cli/cli.hpp"
#include "library/pending_sync.hpp"

#include "support/temp_dir.hpp"
#include "support/writer_messages.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <sys/stat.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using test_support::message_of;

using Durability = test_support::TempDirTest;

// --- Permissions and the sync policy --------------------------------------

mode_t mode_of(const fs::path& file) {
  struct stat info {};
  EXPECT_EQ(::stat(file.c_str(), &info), 0);
  return info.st_mode & 07777;
}

TEST_F(Durability, NewSessionFileIsOwnerOnlyWhateverTheUmask) {
  for (const mode_t mask : {mode_t{0}, mode_t{022}, mode_t{077}}) {
    const fs::path file = path("s" + std::to_string(mask) + ".jsonl");
    const mode_t old_mask = ::umask(mask);
    append_session(file, UserMessage{"secret"}, AppendOptions{.sync = SyncPolicy::data});
    ::umask(old_mask);
    EXPECT_EQ(mode_of(file), 0600u) << "umask " << mask;
  }
}

TEST_F(Durability, SyncedAppendsWriteTheSameBytes) {
  const std::vector<Message> batch = {message_of(3, 0), message_of(3, 1), message_of(3, 2)};
  append_session(path("plain.jsonl"), batch);
  append_session(path("synced.jsonl"), batch, AppendOptions{.sync = SyncPolicy::data});
  append_session(path("synced.jsonl"), message_of(3, 3), AppendOptions{.sync = SyncPolicy::data});
  append_session(path("plain.jsonl"), message_of(3, 3));
  EXPECT_EQ(read(path("synced.jsonl")), read(path("plain.jsonl")));
  EXPECT_EQ(load_session(path("synced.jsonl")).size(), 4u);
}

TEST_F(Durability, SyncedAppendIntoAMissingDirectoryFailsWithItsErrno) {
  try {
    append_session(path("absent") / "s.jsonl", UserMessage{"x"}, AppendOptions{.sync = SyncPolicy::data});
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code(), std::errc::no_such_file_or_directory);
  }
}

TEST_F(Durability, CommandsTakeSyncAndWriteTheSameBytes) {
  // `append --sync` and `run --sync` (the agent turn) against the same
  // commands without it: --sync changes when bytes reach the disk, never
  // which bytes.
  const fs::path demo = fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus" / "demo";
  for (const bool sync : {false, true}) {
    const std::string file = path(sync ? "synced.jsonl" : "plain.jsonl").string();
    std::vector<std::string> run_args = {"run",
                                         "--session",
                                         file,
                                         "--script",
                                         (demo / "replies.jsonl").string(),
                                         "--root",
                                         demo.string(),
                                         "What do the notes say?"};
    std::vector<std::string> append_args = {"append", file};
    if (sync) {
      run_args.insert(run_args.begin() + 1, "--sync");
      append_args.insert(append_args.begin() + 1, "--sync");
    }
    std::istringstream no_input;
    std::ostringstream out, err;
    ASSERT_EQ(cli::run(run_args, no_input, out, err), cli::kOk) << err.str();
    std::istringstream line(R"({"role":"user","content":"thanks"})"
                            "\n");
    ASSERT_EQ(cli::run(append_args, line, out, err), cli::kOk) << err.str();
  }
  EXPECT_EQ(read(path("synced.jsonl")), read(path("plain.jsonl")));
  EXPECT_GE(load_session(path("synced.jsonl")).size(), 4u);
}

// --- Never weld onto a torn line ------------------------------------------

TEST_F(Durability, AppendRefusesToWeldOntoATornLastLine) {
  const fs::path file = path("s.jsonl");
  write(file, "{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"user\",\"cont");
  const std::string before = read(file);
  try {
    append_session(file, UserMessage{"b"});
    ADD_FAILURE() << "appended onto a torn line";
  } catch (const SessionError& error) {
    EXPECT_EQ(error.line(), 3u);
    EXPECT_EQ(error.kind(), SessionErrorKind::invalid_json);
    const std::string what = error.what();
    EXPECT_EQ(what.rfind("invalid session JSON at line 3: ", 0), 0u) << what;
    EXPECT_NE(what.find("agent-session repair"), std::string::npos) << what;
    EXPECT_NE(what.find("nothing was appended"), std::string::npos) << what;
  }
  EXPECT_EQ(read(file), before);
}

TEST_F(Durability, AppendAfterAValidUnterminatedLineStartsANewLine) {
  const fs::path file = path("s.jsonl");
  write(file, R"({"role":"user","content":"a"})");
  append_session(file, UserMessage{"b"});
  EXPECT_EQ(read(file), "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"b\"}\n");
}

// --- The pending-sync mark of a failed synced append ------------------------

TEST_F(Durability, APendingSyncMarkOfThisBootIsRolledBackAndOneOfAnotherBootIsCutAlone) {
  // What a synced append leaves when its sync and then its rollback fail
  // (library/pending_sync.hpp): the batch, unacknowledged, and the mark.
  const std::string kept = "{\"role\":\"user\",\"content\":\"a\"}\n";
  const std::string batch = "{\"role\":\"user\",\"content\":\"b\"}\n";
  const std::string next = "{\"role\":\"user\",\"content\":\"c\"}\n";
  const fs::path file = path("s.jsonl");
  for (const bool synced : {false, true}) {
    write(file, kept + batch + library::pending_sync_mark(kept.size()));
    EXPECT_THROW(load_session(file), SessionError) << "the mark is never a message";
    append_session(file, UserMessage{"c"}, AppendOptions{.sync = synced ? SyncPolicy::data : SyncPolicy::none});
    EXPECT_EQ(read(file), kept + next) << "this boot's batch was never acknowledged";
  }
  // After a reboot the batch may have been synced and acknowledged: only
  // the mark goes, as after a writer killed mid-batch.
  const std::string stale =
      R"({"agentSessionPendingSync":{"boot":"00000000-0000-0000-0000-000000000000","rollbackTo":0})";
  write(file, kept + batch + stale);
  append_session(file, UserMessage{"c"});
  EXPECT_EQ(read(file), kept + batch + next);
  // A repair does the same, and says what it cuts.
  write(file, kept + batch + library::pending_sync_mark(kept.size()));
  const RepairResult repaired = repair_session(file);
  EXPECT_TRUE(repaired.repaired);
  EXPECT_EQ(read(file), kept);
  EXPECT_EQ(repaired.diagnosis.offset, kept.size());
  EXPECT_EQ(repaired.diagnosis.messages, 1u);
  EXPECT_NE(repaired.diagnosis.error.find("never acknowledged"), std::string::npos) << repaired.diagnosis.error;
  write(file, kept + batch + stale);
  EXPECT_TRUE(repair_session(file).repaired);
  EXPECT_EQ(read(file), kept + batch);
}

// Only exactly a mark over a batch of ours moves the cut back (found by a
// fresh-eyes attack: a message that looked like a mark was cut away, and a
// mark pointing into a line cut two valid messages to 10 bytes).
TEST_F(Durability, NothingButAMarkOverItsOwnBatchIsEverCutBack) {
  const std::string one = "{\"role\":\"user\",\"content\":\"one\"}\n";
  const std::string two = "{\"role\":\"user\",\"content\":\"two\"}\n";
  const std::string next = "{\"role\":\"user\",\"content\":\"c\"}\n";
  const fs::path file = path("s.jsonl");
  const std::string mark = library::pending_sync_mark(10);
  const std::string mark_prefix = mark.substr(0, mark.find("rollbackTo"));
  // A valid message, unterminated, that starts as a mark does: a message.
  const std::string look_alike =
      R"({"agentSessionPendingSync":{"boot":"zz"},"role":"user","content":"three","rollbackTo":0})";
  write(file, one + two + look_alike);
  EXPECT_EQ(load_session(file).size(), 3u);
  append_session(file, UserMessage{"c"});
  EXPECT_EQ(read(file), one + two + look_alike + "\n" + next);
  // This boot's marks that name no batch of ours: the mark alone goes.
  for (const std::string& bad : {
           library::pending_sync_mark(10),                           // inside a line
           library::pending_sync_mark(one.size() + two.size() + 1),  // past the mark
           mark_prefix + "rollbackTo\":0} ",                         // not exactly a mark
       }) {
    for (const bool repair : {false, true}) {
      write(file, one + two + bad);
      if (repair) {
        (void)repair_session(file);
        EXPECT_EQ(read(file), one + two) << bad;
      } else if (bad.back() == '}') {
        append_session(file, UserMessage{"c"});
        EXPECT_EQ(read(file), one + two + next) << bad;
      } else {
        EXPECT_THROW(append_session(file, UserMessage{"c"}), SessionError) << "a torn line: " << bad;
        EXPECT_EQ(read(file), one + two + bad);
      }
    }
  }
  // A mark over lines that are not all messages: they are not our batch.
  write(file, one + "{\"role\":\"nope\",\"content\":\"x\"}\n" + library::pending_sync_mark(one.size()));
  append_session(file, UserMessage{"c"});
  EXPECT_EQ(read(file), one + "{\"role\":\"nope\",\"content\":\"x\"}\n" + next);
}

TEST_F(Durability, LoadSuggestsRepairOnlyForATornLastLine) {
  const std::string good = "{\"role\":\"user\",\"content\":\"a\"}\n";
  write(path("torn.jsonl"), good + "{\"role\":\"us");
  write(path("bad.jsonl"), good + "{\"role\":\"us\n");
  write(path("record.jsonl"), good + R"({"role":"nope","content":"b"})");
  auto what_of = [](const fs::path& file) -> std::string {
    try {
      load_session(file);
    } catch (const SessionError& error) {
      return error.what();
    }
    return "loaded";
  };
  const std::string torn = what_of(path("torn.jsonl"));
  EXPECT_EQ(torn.rfind("invalid session JSON at line 2: ", 0), 0u) << torn;
  EXPECT_NE(torn.find("`agent-session repair FILE`"), std::string::npos) << torn;
  // A whole line (it has its newline) that is bad was not cut short.
  const std::string bad = what_of(path("bad.jsonl"));
  EXPECT_EQ(bad.find("repair"), std::string::npos) << bad;
  // The spec's text stays exact for invalid records too.
  const std::string record = what_of(path("record.jsonl"));
  EXPECT_EQ(record.rfind("invalid session record at line 2: unknown role \"nope\": "
                         "a role is \"user\", \"assistant\" or \"tool\"; ",
                         0),
            0u)
      << record;
  // Standard input has no file to repair.
  try {
    load_session_from_memory(good + "{\"role\":\"us");
    ADD_FAILURE() << "loaded";
  } catch (const SessionError& error) {
    EXPECT_EQ(std::string(error.what()).find("repair"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace agent_session
