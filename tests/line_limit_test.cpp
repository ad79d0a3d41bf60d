// The line limit from the writer's side (SPEC.md §2, §8): nothing a writer
// accepts may make the session unloadable, so append_session,
// Session::append and run_agent refuse a message whose canonical line is
// longer than kMaxLineBytes, the longest line the loader loads, and write
// nothing. The loader's side (a line past the limit is LineTooLong) is in
// line_reader_test.cpp.
#include "agent_session/agent.hpp"
#include "agent_session/append.hpp"
#include "agent_session/session.hpp"
#include "agent_session/session_object.hpp"

#include "support/run_binary.hpp"
#include "support/temp_dir.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <deque>

namespace agent_session {
namespace {

using LineLimit = test_support::TempDirTest;
using test_support::thrown;

// {"role":"user","content":"..."}: 28 bytes around the content.
constexpr std::size_t kUserLineOverhead = 28;

// A file's size, never its bytes: a failure must not print 32 MiB.
std::uintmax_t size_of(const std::filesystem::path& file) { return std::filesystem::file_size(file); }

UserMessage user_with_line_of(std::size_t bytes) { return UserMessage{std::string(bytes - kUserLineOverhead, 'x')}; }

TEST_F(LineLimit, AppendRefusesALineTheLoaderWouldRefuseAndWritesNothing) {
  write(path("s.jsonl"), "{\"role\":\"user\",\"content\":\"kept\"}\n");
  const std::vector<Message> batch = {UserMessage{"first"}, user_with_line_of(kMaxLineBytes + 1)};
  const auto error = thrown<MessageTooLong>([&] { append_session(path("s.jsonl"), batch); });
  EXPECT_EQ(error.code(), std::errc::file_too_large);
  EXPECT_EQ(error.index(), 1U);
  EXPECT_EQ(error.bytes(), kMaxLineBytes + 1);
  EXPECT_EQ(std::string(error.what()),
            "cannot append message 2 of 2: its canonical line is 33554433 bytes, longer than 33554432 bytes, "
            "the longest line this implementation loads; nothing was appended: File too large");
  EXPECT_EQ(size_of(path("s.jsonl")), 33U) << "nothing of the batch";
  EXPECT_THROW(append_session(path("new.jsonl"), batch), MessageTooLong);
  EXPECT_FALSE(std::filesystem::exists(path("new.jsonl"))) << "refused before the file is opened";
}

TEST_F(LineLimit, SessionAppendRefusesItWithOrWithoutAFileAndKeepsMemoryAsItWas) {
  Session in_memory;
  in_memory.append(user_with_line_of(kMaxLineBytes));  // the longest line that loads is accepted
  EXPECT_EQ(in_memory.messages().size(), 1U);
  EXPECT_THROW(in_memory.append(user_with_line_of(kMaxLineBytes + 1)), MessageTooLong);
  EXPECT_EQ(in_memory.messages().size(), 1U);

  Session on_disk = Session::open(path("s.jsonl"));
  on_disk.append(UserMessage{"hi"});
  EXPECT_THROW(on_disk.append(user_with_line_of(kMaxLineBytes + 1)), MessageTooLong);
  EXPECT_EQ(on_disk.messages().size(), 1U);
  EXPECT_EQ(size_of(path("s.jsonl")), 31U) << "only the first line";
}

class OneReply : public ModelClient {
 public:
  explicit OneReply(AssistantMessage reply) : reply_(std::move(reply)) {}
  AssistantMessage next_message(std::span<const Message>, std::span<const ToolSpec>) override { return reply_; }

 private:
  AssistantMessage reply_;
};

TEST_F(LineLimit, RunAgentRefusesAReplyWhoseLineIsTooLongAndRecordsNothingOfIt) {
  // Its input is in the limit as the model wrote it, past it once printed:
  // `1e20` is 4 bytes, its canonical form 21 (SPEC.md §3).
  const Json input(std::vector<Json>(kMaxLineBytes / 22 + 1, Json(1e20)));
  OneReply client(AssistantMessage{"", {ToolCall{"c1", "read", input}}});
  EXPECT_THROW(run_agent({.prompt = "go", .client = client, .session_path = path("s.jsonl")}), MessageTooLong);
  EXPECT_EQ(size_of(path("s.jsonl")), 31U) << "only the prompt";
  EXPECT_EQ(load_session(path("s.jsonl")).size(), 1U) << "the session still loads";
}

TEST_F(LineLimit, TheCommandRefusesALoadableLineThatPrintsLongerThanTheLimit) {
  // kMaxLineBytes / 21 numbers: 5 bytes each read (`1e20,`), 22 printed.
  std::string line = R"({"role":"assistant","content":"","toolCalls":[{"id":"c","name":"n","input":[)";
  const std::size_t numbers = kMaxLineBytes / 21;
  line.reserve(line.size() + 5 * numbers + 8);
  for (std::size_t i = 0; i < numbers; ++i) line += i == 0 ? "1e20" : ",1e20";
  line += "]}]}\n";
  ASSERT_LE(line.size(), kMaxLineBytes) << "the input line itself loads";
  write(path("s.jsonl"), "{\"role\":\"user\",\"content\":\"kept\"}\n");
  test_support::BinaryOptions options;
  options.input = line;
  const auto run = test_support::run_binary({"append", path("s.jsonl").string()}, dir_, options);
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("cannot append message 1 of 1: its canonical line is"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("nothing was appended"), std::string::npos) << run.err;
  EXPECT_EQ(size_of(path("s.jsonl")), 33U) << "nothing appended";
}

}  // namespace
}  // namespace agent_session
