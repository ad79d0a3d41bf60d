// repair.hpp and `agent-session repair`: a torn last line is found, shown
// and, only with --apply, cut off after a backup; damage anywhere else is
// reported and never touched (SPEC.md "Durable, concurrency-safe appends").
#include "agent_session/repair.hpp"
#include "agent_session/append.hpp"

#include "agent_session/session.hpp"
#include "cli/cli.hpp"

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <system_error>

#include <sys/stat.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

const std::string kA = R"({"role":"user","content":"a"})";
const std::string kB = R"({"role":"tool","content":"b","toolCallId":"c1","isError":false})";

// --- diagnose_session_bytes: the pure verdict ----------------------------

TEST(DiagnoseSessionBytes, EmptyIsValid) {
  const SessionDiagnosis found = diagnose_session_bytes("");
  EXPECT_EQ(found.health, SessionHealth::valid);
  EXPECT_EQ(found.messages, 0u);
  EXPECT_FALSE(found.missing_final_newline);
}

TEST(DiagnoseSessionBytes, ValidFileCountsMessagesAndBytes) {
  const std::string bytes = kA + "\n\n" + kB + "\n";
  const SessionDiagnosis found = diagnose_session_bytes(bytes);
  EXPECT_EQ(found.health, SessionHealth::valid);
  EXPECT_EQ(found.messages, 2u);
  EXPECT_EQ(found.size, bytes.size());
  EXPECT_EQ(found.line, 0u);
  EXPECT_EQ(found.error, "");
  EXPECT_FALSE(found.missing_final_newline);
}

TEST(DiagnoseSessionBytes, ValidLastLineWithoutNewlineIsValidAndNoted) {
  const SessionDiagnosis found = diagnose_session_bytes(kA + "\n" + kB);
  EXPECT_EQ(found.health, SessionHealth::valid);
  EXPECT_EQ(found.messages, 2u);
  EXPECT_TRUE(found.missing_final_newline);
}

TEST(DiagnoseSessionBytes, TornTailGivesItsLineOffsetAndExcerpt) {
  // Physical line numbers count the skipped empty line (SPEC.md §2).
  const std::string kept = kA + "\n\n" + kB + "\n";
  const SessionDiagnosis found = diagnose_session_bytes(kept + R"({"role":"user","con)");
  EXPECT_EQ(found.health, SessionHealth::torn_tail);
  EXPECT_EQ(found.line, 4u);
  EXPECT_EQ(found.offset, kept.size());
  EXPECT_EQ(found.messages, 2u);
  EXPECT_EQ(found.excerpt, R"({\"role\":\"user\",\"con)");
  EXPECT_EQ(found.error.rfind("invalid session JSON at line 4: ", 0), 0u) << found.error;
}

TEST(DiagnoseSessionBytes, TornOnlyLineIsCutToNothing) {
  const SessionDiagnosis found = diagnose_session_bytes("{\"ro");
  EXPECT_EQ(found.health, SessionHealth::torn_tail);
  EXPECT_EQ(found.line, 1u);
  EXPECT_EQ(found.offset, 0u);
  EXPECT_EQ(found.messages, 0u);
}

TEST(DiagnoseSessionBytes, UnterminatedInvalidRecordIsATornTailToo) {
  // Valid JSON, but not a message: a cut can also end on a closing brace.
  const SessionDiagnosis found = diagnose_session_bytes(kA + "\n" + R"({"role":"user"})");
  EXPECT_EQ(found.health, SessionHealth::torn_tail);
  EXPECT_EQ(found.error.rfind("invalid session record at line 2", 0), 0u) << found.error;
}

TEST(DiagnoseSessionBytes, DamageBeforeTheLastLineIsCorrupt) {
  const std::string bytes = kA + "\n{broken\n" + kB + "\n{\"torn";
  const SessionDiagnosis found = diagnose_session_bytes(bytes);
  EXPECT_EQ(found.health, SessionHealth::corrupt);
  EXPECT_EQ(found.line, 2u);
  EXPECT_EQ(found.offset, kA.size() + 1);
  EXPECT_EQ(found.messages, 1u);
  EXPECT_EQ(found.excerpt, "{broken");
}

TEST(DiagnoseSessionBytes, BadLastLineWithItsNewlineIsCorruptNotTorn) {
  // Written whole (the newline came with it), so not a write cut short.
  const SessionDiagnosis found = diagnose_session_bytes(kA + "\n{broken\n");
  EXPECT_EQ(found.health, SessionHealth::corrupt);
  EXPECT_EQ(found.line, 2u);
  EXPECT_TRUE(found.last_line);
  EXPECT_TRUE(diagnose_session_bytes(kA + "\n{broken\n\n\n").last_line);  // empty lines after it
  EXPECT_FALSE(diagnose_session_bytes(kA + "\n{broken\n" + kB + "\n").last_line);
}

TEST(DiagnoseSessionBytes, ExcerptIsShortAndPrintable) {
  const std::string line = "\xff\x01\r\t\"\\" + std::string(500, 'x') + "END-OF-THE-LINE!";
  const SessionDiagnosis found = diagnose_session_bytes(kA + "\n" + line);
  EXPECT_EQ(found.health, SessionHealth::torn_tail);
  EXPECT_EQ(found.excerpt.rfind(R"(\xff\x01\r\t\"\\xxx)", 0), 0u) << found.excerpt;
  EXPECT_NE(found.excerpt.find(" ... "), std::string::npos) << found.excerpt;
  EXPECT_EQ(found.excerpt.substr(found.excerpt.size() - 16), "END-OF-THE-LINE!");
  EXPECT_LE(found.excerpt.size(), 120u);
  for (const char c : found.excerpt) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << static_cast<int>(c);
}

// --- repair_session and the command, on files ------------------------------

class RepairFile : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    file_ = path("s.jsonl");
  }

  using TempDirTest::write;
  void write(std::string_view bytes) const { TempDirTest::write(file_, bytes); }
  // Everything in the directory but the session itself.
  std::vector<fs::path> others() const {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      if (entry.path() != file_) found.push_back(entry.path());
    }
    return found;
  }

  fs::path file_;
};

TEST_F(RepairFile, TornTailIsBackedUpThenCutKeepingEveryCompleteLine) {
  const std::string kept = kA + "\n" + kB + "\n";
  const std::string torn = kept + R"({"role":"user","content":"half)";
  write(torn);
  const RepairResult result = repair_session(file_);
  EXPECT_TRUE(result.repaired);
  EXPECT_EQ(result.diagnosis.health, SessionHealth::torn_tail);
  EXPECT_EQ(read(file_), kept);
  EXPECT_EQ(load_session(file_).size(), 2u);
  ASSERT_TRUE(result.backup.has_value());
  EXPECT_EQ(result.backup->parent_path(), dir_);
  EXPECT_EQ(result.backup->filename().string().rfind("s.jsonl.bak-", 0), 0u) << *result.backup;
  EXPECT_EQ(read(*result.backup), torn);
  struct stat info {};
  ASSERT_EQ(::stat(result.backup->c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  // And the session takes appends again.
  append_session(file_, UserMessage{"after"});
  EXPECT_EQ(load_session(file_).size(), 3u);
}

TEST_F(RepairFile, BackupsNeverOverwriteEachOther) {
  write(kA + "\n{\"one");
  const RepairResult first = repair_session(file_);
  std::ofstream(file_, std::ios::binary | std::ios::app) << "{\"two";
  const RepairResult second = repair_session(file_);
  ASSERT_TRUE(first.backup && second.backup);
  EXPECT_NE(*first.backup, *second.backup);
  EXPECT_EQ(read(*first.backup), kA + "\n{\"one");
  EXPECT_EQ(read(*second.backup), kA + "\n{\"two");
}

// Whether `bytes` is whole UTF-8 (the backup's name cut no character).
bool whole_utf8(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    const auto lead = static_cast<unsigned char>(bytes[i]);
    const std::size_t n = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
    if (n == 0 || i + n > bytes.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(bytes[i + k]) & 0xc0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

TEST_F(RepairFile, EveryNameAppendAcceptsCanBeRepairedTwice) {
  // `<name>.bak-<stamp>.tmp-<pid>` passed NAME_MAX (255) for names past
  // about 222 bytes: repair failed (ENAMETOOLONG) where append worked.
  // ASCII names, and two-byte characters whose cut must not split one.
  for (const std::string& unit : {std::string("n"), std::string("\xc3\xa9")}) {
    for (std::size_t length = 200; length <= 255; ++length) {
      std::string name;
      while (name.size() + unit.size() <= length - 6) name += unit;
      name = std::string(length - 6 - name.size(), 'x') + name + ".jsonl";
      ASSERT_EQ(name.size(), length);
      const fs::path file = path(name);
      const std::string where = std::to_string(length) + " bytes";
      append_session(file, UserMessage{"kept"});
      const std::string kept = read(file);
      std::vector<fs::path> backups;
      for (const std::string& torn : {std::string("{\"one"), std::string("{\"two")}) {
        std::ofstream(file, std::ios::binary | std::ios::app) << torn;
        RepairResult result;
        try {
          result = repair_session(file);
        } catch (const std::system_error& error) {
          ADD_FAILURE() << where << ": " << error.what();
          return;
        }
        EXPECT_TRUE(result.repaired) << where;
        EXPECT_EQ(read(file), kept) << where;
        ASSERT_TRUE(result.backup) << where;
        EXPECT_EQ(read(*result.backup), kept + torn) << where;
        const std::string backup = result.backup->filename().string();
        EXPECT_LE(backup.size(), 255u) << where;
        EXPECT_TRUE(whole_utf8(backup)) << where << ": " << backup;
        // It still names its origin: the session's first bytes, `.bak-`.
        EXPECT_EQ(backup.substr(0, 150), name.substr(0, 150)) << where;
        EXPECT_NE(backup.find(".bak-"), std::string::npos) << where << ": " << backup;
        backups.push_back(*result.backup);
      }
      EXPECT_NE(backups.at(0), backups.at(1)) << where;
      for (const fs::path& backup : backups) fs::remove(backup);
      fs::remove(file);
    }
  }
  EXPECT_TRUE(others().empty()) << "a temporary file stayed: " << others().front();
}

TEST_F(RepairFile, ValidAndCorruptFilesAreLeftAlone) {
  for (const std::string& bytes : {kA + "\n", kA, kA + "\n{bad\n" + kB + "\n", kA + "\n{bad\n{\"torn"}) {
    write(bytes);
    const RepairResult result = repair_session(file_);
    EXPECT_FALSE(result.repaired) << bytes;
    EXPECT_FALSE(result.backup.has_value()) << bytes;
    EXPECT_EQ(read(file_), bytes);
  }
  EXPECT_TRUE(others().empty());
}

TEST_F(RepairFile, DiagnoseChangesNothing) {
  const std::string torn = kA + "\n{\"torn";
  write(torn);
  EXPECT_EQ(diagnose_session(file_).health, SessionHealth::torn_tail);
  EXPECT_EQ(read(file_), torn);
  EXPECT_TRUE(others().empty());
}

TEST_F(RepairFile, MissingFileIsAnIoError) {
  EXPECT_THROW(diagnose_session(file_), std::system_error);
  EXPECT_THROW(repair_session(file_), std::system_error);
  EXPECT_FALSE(fs::exists(file_));
}

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

CliRun run(std::vector<std::string> args) {
  std::istringstream in;
  std::ostringstream out, err;
  const int code = cli::run(args, in, out, err);
  return {code, out.str(), err.str()};
}

TEST_F(RepairFile, CommandReportsATornTailAndChangesNothingWithoutApply) {
  const std::string torn = kA + "\n{\"role\":\"us";
  write(torn);
  const CliRun r = run({"repair", file_.string()});
  EXPECT_EQ(r.exit_code, cli::kInvalid);
  EXPECT_NE(r.out.find("torn last line: line 2 at byte offset " + std::to_string(kA.size() + 1)), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(R"(excerpt: "{\"role\":\"us")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("error: invalid session JSON at line 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--apply"), std::string::npos) << r.out;
  EXPECT_EQ(read(file_), torn);
  EXPECT_TRUE(others().empty());
}

TEST_F(RepairFile, CommandApplyRepairsAndExitsZero) {
  write(kA + "\n{\"role\":\"us");
  const CliRun r = run({"repair", "--apply", file_.string()});
  EXPECT_EQ(r.exit_code, cli::kOk) << r.out << r.err;
  EXPECT_NE(r.out.find("backup: " + file_.string() + ".bak-"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; 1 message kept"), std::string::npos) << r.out;
  EXPECT_EQ(read(file_), kA + "\n");
  EXPECT_EQ(others().size(), 1u);
  const CliRun again = run({"repair", file_.string()});
  EXPECT_EQ(again.exit_code, cli::kOk);
  EXPECT_EQ(again.out, "valid: 1 message, " + std::to_string(kA.size() + 1) + " bytes\n");
}

TEST_F(RepairFile, CommandSaysABadLastLineWithItsNewlineWasWrittenWhole) {
  write(kA + "\n{bad\n");
  const CliRun r = run({"repair", "--apply", file_.string()});
  EXPECT_EQ(r.exit_code, cli::kInvalid);
  EXPECT_EQ(r.out.find("before the last line"), std::string::npos) << r.out;  // line 2 is the last line
  EXPECT_NE(r.out.find("not repaired: line 2 is the last line, but it ends in a newline"), std::string::npos) << r.out;
  EXPECT_EQ(read(file_), kA + "\n{bad\n");
}

TEST_F(RepairFile, CommandNeverRepairsCorruptionBeforeTheLastLine) {
  const std::string bytes = kA + "\n{bad\n" + kB + "\n{\"torn";
  write(bytes);
  const CliRun r = run({"repair", "--apply", file_.string()});
  EXPECT_EQ(r.exit_code, cli::kInvalid);
  EXPECT_NE(r.out.find("corrupt line: line 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a person must look"), std::string::npos) << r.out;
  EXPECT_EQ(read(file_), bytes);
  EXPECT_TRUE(others().empty());
}

TEST_F(RepairFile, CommandExitCodesForUsageAndIo) {
  EXPECT_EQ(run({"repair"}).exit_code, cli::kUsage);
  EXPECT_EQ(run({"repair", "-"}).exit_code, cli::kUsage);
  EXPECT_EQ(run({"repair", "--frobnicate", file_.string()}).exit_code, cli::kUsage);
  EXPECT_EQ(run({"repair", file_.string()}).exit_code, cli::kIo);  // missing
  EXPECT_EQ(run({"repair", dir_.string()}).exit_code, cli::kIo);   // a directory
  EXPECT_EQ(run({"repair", "--apply", dir_.string()}).exit_code, cli::kIo);
}

TEST(RepairCommand, HelpHasAnExampleAndNeverOffersStandardInput) {
  const CliRun help = run({"repair", "--help"});
  EXPECT_EQ(help.exit_code, cli::kOk);
  EXPECT_NE(help.out.find("Example:"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--apply"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("standard input"), std::string::npos) << help.out;
}

TEST_F(RepairFile, AppendSyncFlagAppends) {
  std::istringstream in(kA + "\n" + kB + "\n");
  std::ostringstream out, err;
  EXPECT_EQ(cli::run({"append", "--sync", file_.string()}, in, out, err), cli::kOk) << err.str();
  EXPECT_EQ(read(file_), kA + "\n" + kB + "\n");
}

}  // namespace
}  // namespace agent_session
