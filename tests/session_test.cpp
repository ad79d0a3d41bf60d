// session.hpp: the loadSession chain and appends (chapter; SPEC.md §2).
// The byte-level rules are vectors in corpus/conformance; here: what the
// vectors cannot express (I/O errors, exception fields, files).
#include "agent_session/session.hpp"
#include "agent_session/append.hpp"

#include "support/temp_dir.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include <sys/stat.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

using SessionFile = test_support::TempDirTest;
using test_support::thrown;

TEST_F(SessionFile, MissingFileIsAnEmptySession) { EXPECT_TRUE(load_session(path("absent.jsonl")).empty()); }

TEST_F(SessionFile, OtherIoErrorsPropagateWithTheirOwnErrno) {
  // CI runs as root, where permissions deny nothing: use errors root gets too.
  EXPECT_EQ(thrown<std::system_error>([&] { load_session(dir_); }).code(), std::errc::is_a_directory);
  write(path("plain"), "x");
  EXPECT_EQ(thrown<std::system_error>([&] { load_session(path("plain") / "child.jsonl"); }).code(),
            std::errc::not_a_directory);
  EXPECT_EQ(thrown<std::system_error>([&] { append_session(dir_, UserMessage{"x"}); }).code(),
            std::errc::is_a_directory);
}

TEST_F(SessionFile, AppendWritesTheCanonicalLineAndLoadRestoresIt) {
  const std::vector<Message> messages = {
      UserMessage{"hello \u4e16\u754c \U0001F680"},
      AssistantMessage{
          "", {ToolCall{"c1", "read", Json{{"path", "a.txt"}, {"n", 1.5}}}, ToolCall{"c2", "ls", Json(nullptr)}}},
      ToolResultMessage{"contents", "c1", false},
      ToolResultMessage{"denied", "c2", true},
  };
  for (const auto& message : messages) append_session(path("s.jsonl"), message);
  EXPECT_EQ(
      read(path("s.jsonl")),
      "{\"role\":\"user\",\"content\":\"hello \u4e16\u754c \U0001F680\"}\n"
      R"({"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"read","input":{"path":"a.txt","n":1.5}},)"
      R"({"id":"c2","name":"ls","input":null}]})"
      "\n"
      R"({"role":"tool","content":"contents","toolCallId":"c1","isError":false})"
      "\n"
      R"({"role":"tool","content":"denied","toolCallId":"c2","isError":true})"
      "\n");
  EXPECT_EQ(load_session(path("s.jsonl")), messages);
}

TEST_F(SessionFile, BatchAppendIsOneWriteOfAllLines) {
  const std::vector<Message> batch = {UserMessage{"a"}, UserMessage{"b"}};
  append_session(path("s.jsonl"), batch);
  EXPECT_EQ(load_session(path("s.jsonl")), batch);
}

TEST_F(SessionFile, UnserializableMessageLeavesTheFileUntouched) {
  append_session(path("s.jsonl"), UserMessage{"kept"});
  const std::vector<Message> batch = {UserMessage{"fine"}, UserMessage{"\xff"}};
  EXPECT_THROW(append_session(path("s.jsonl"), batch), SerializationError);
  EXPECT_EQ(read(path("s.jsonl")), "{\"role\":\"user\",\"content\":\"kept\"}\n");
}

TEST_F(SessionFile, NewSessionFilesAreOwnerOnly) {
  const mode_t old_mask = ::umask(0);
  append_session(path("s.jsonl"), UserMessage{"secret"});
  ::umask(old_mask);
  struct stat info {};
  ASSERT_EQ(::stat(path("s.jsonl").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST_F(SessionFile, CorruptLineInAFileIsReportedWithItsPhysicalLine) {
  write(path("s.jsonl"), "{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"nope\",\"content\":\"b\"}\n");
  const SessionError error = thrown<SessionError>([&] { load_session(path("s.jsonl")); });
  EXPECT_EQ(error.kind(), SessionErrorKind::invalid_record);
  EXPECT_EQ(error.line(), 3u);
  EXPECT_EQ(std::string(error.what()),
            "invalid session record at line 3: unknown role \"nope\": a role is \"user\", \"assistant\" or \"tool\"");
}

// load_session reads a file a piece (1 MiB) at a time: lines that straddle
// pieces, a line longer than a piece, empty lines and an unterminated last
// line must load as the same bytes in memory do, with the same line numbers.
std::string multi_piece_session() {
  std::string bytes;
  for (int i = 0; bytes.size() < (std::size_t{3} << 20); ++i) {
    bytes +=
        R"({"role":"user","content":")" + std::string(static_cast<std::size_t>(i * 37 % 5000), 'a' + i % 26) + "\"}\n";
    if (i % 100 == 0) bytes += "\n";
    if (i == 500)
      bytes += R"({"role":"tool","content":")" + std::string(std::size_t{5} << 20, 'x') +
               R"(","toolCallId":"c","isError":true})"
               "\n";
  }
  return bytes;
}

TEST_F(SessionFile, FilesLargerThanTheReadPieceLoadAsTheirBytesDo) {
  const std::string bytes = multi_piece_session() + R"({"role":"user","content":"last, no newline"})";
  write(path("s.jsonl"), bytes);
  const std::vector<Message> loaded = load_session(path("s.jsonl"));
  EXPECT_EQ(loaded, load_session_from_memory(bytes));
  ASSERT_FALSE(loaded.empty());
  EXPECT_EQ(loaded.back(), Message(UserMessage{"last, no newline"}));
}

TEST_F(SessionFile, ErrorsPastTheFirstPieceKeepTheirPhysicalLine) {
  const std::string good = multi_piece_session();
  const std::size_t lines = static_cast<std::size_t>(std::count(good.begin(), good.end(), '\n'));
  for (const std::string& tail :
       {std::string("{\"role\":\"nope\",\"content\":\"\"}\n"), std::string("{\"role\":\"us")}) {
    write(path("s.jsonl"), good + tail);
    const SessionError error = thrown<SessionError>([&] { load_session(path("s.jsonl")); });
    const SessionError in_memory = thrown<SessionError>([&] { load_session_from_memory(good + tail); });
    EXPECT_EQ(error.line(), lines + 1);
    EXPECT_EQ(error.line(), in_memory.line());
    // An unterminated bad last line gets the repair hint from a file only.
    const std::string what = error.what();
    EXPECT_EQ(what.rfind(in_memory.what(), 0), 0u) << what;
    EXPECT_EQ(what.find("agent-session repair") != std::string::npos, tail.back() != '\n') << what;
  }
}

TEST(LoadSessionFromMemory, JsonErrorCarriesKindLineAndSpecText) {
  const SessionError error = thrown<SessionError>([] { load_session_from_memory("\n\n{\"role\":\"user\",\n"); });
  EXPECT_EQ(error.kind(), SessionErrorKind::invalid_json);
  EXPECT_EQ(error.line(), 3u);
  EXPECT_EQ(std::string(error.what()).rfind("invalid session JSON at line 3: ", 0), 0u) << error.what();
}

TEST(LoadSessionFromMemory, FirstBadLineWinsAndNothingIsReturned) {
  const SessionError error = thrown<SessionError>([] {
    load_session_from_memory("{\"role\":\"user\",\"content\":\"a\"}\n{bad\n{\"role\":\"nope\",\"content\":\"\"}\n");
  });
  EXPECT_EQ(error.kind(), SessionErrorKind::invalid_json);
  EXPECT_EQ(error.line(), 2u);
}

TEST(LoadSessionFromMemory, ErrorDetailIsOnePrintableLine) {
  const SessionError error =
      thrown<SessionError>([] { load_session_from_memory("{\"role\":\"user\",\"content\":\"\xff\r\"}"); });
  const std::string what = error.what();
  EXPECT_EQ(what.find_first_of("\r\n\xff"), std::string::npos) << what;
}

TEST(LoadSessionFromMemory, ReadsOnlyTheGivenBytes) {
  // The bytes after the view would make the line invalid if read.
  const std::string bytes = "{\"role\":\"user\",\"content\":\"a\"}garbage";
  const std::string_view view(bytes.data(), bytes.size() - 7);
  EXPECT_EQ(load_session_from_memory(view), std::vector<Message>{UserMessage{"a"}});
}

}  // namespace
}  // namespace agent_session
