// `agent-session conform` (conform/runner/conform.hpp) against hostile vectors and
// ports: names and output that try to forge lines or send terminal escapes,
// vector files that are FIFOs or devices, ports that flood their output, and
// folders the runner cannot read. Issue 13, item 9. Ports that leave
// daemons behind or turn on the runner's helper processes:
// conform_supervisor_test.cpp.
#include "base/descriptor.hpp"
#include "base/printable.hpp"
#include "conform/runner/conform.hpp"
#include "conform/runner/subprocess.hpp"
#include "conform/runner/vector_files.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;
using base::terminal_safe;
using test_support::conform;
using test_support::conform_binary;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;
using test_support::unprivileged;
using test_support::without_reproduce;

// Why `text` is not safe to print on a terminal, or "" when it is: every
// line ends with '\n', and no line holds a control character (C0, DEL, C1),
// a bidi control, a line or paragraph separator or invalid UTF-8.
std::string unsafe_for_a_terminal(const std::string& text) {
  if (!text.empty() && text.back() != '\n') return "does not end with a newline";
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = byte(i);
    const auto at = " at byte " + std::to_string(i);
    if (c == '\n') continue;
    if (c < 0x20 || c == 0x7F) return "control byte" + at;
    if (c < 0x80) continue;
    // Only 2-, 3- and 4-byte sequences with the right continuation bytes;
    // the escapes below name the code points a terminal must not see raw.
    std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || i + n > text.size()) return "invalid UTF-8" + at;
    char32_t cp = c & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
      if ((byte(i + k) & 0xC0) != 0x80) return "invalid UTF-8" + at;
      cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    if (cp <= 0x9F) return "C1 control" + at;
    if (cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
        (cp >= 0x2066 && cp <= 0x2069)) {
      return "bidi control" + at;
    }
    if (cp == 0x2028 || cp == 0x2029) return "line separator" + at;
    i += n - 1;
  }
  return "";
}

// Every spelling of trouble a name or an output may hold.
const std::string kHostile =
    "a\nb\rc\td\x1b[31me\x07"
    "f\x7fg\xc2\x9b"
    "1mh\xc2\x85i\xe2\x80\xaej\xe2\x81\xa6k\xe2\x80\xa8l\xd8\x9c"
    "m\xe2\x80\x8fn\xff\xc0\x80o\xed\xa0\x80p\xe2\x80";

TEST(TerminalSafe, EscapesControlsBidiSeparatorsAndInvalidUtf8AndNothingElse) {
  EXPECT_EQ(terminal_safe(kHostile),
            R"(a\nb\rc\td\x1b[31me\x07f\x7fg\u009b1mh\u0085i\u202ej\u2066k\u2028l\u061cm\u200fn\xff\xc0\x80o)"
            R"(\xed\xa0\x80p\xe2\x80)");
  EXPECT_EQ(unsafe_for_a_terminal(terminal_safe(kHostile) + "\n"), "");
  // Backslashes and quotes are escaped, so an escape in the text cannot
  // pass for one the runner wrote; printable text and UTF-8 stay as is.
  EXPECT_EQ(terminal_safe(R"(\n "q")"), R"(\\n \"q\")");
  EXPECT_EQ(terminal_safe("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80 \xc2\xa0\xe2\x80\xaf\xe2\x81\xaa"),
            "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80 \xc2\xa0\xe2\x80\xaf\xe2\x81\xaa");
  // The boundaries of each escaped range.
  EXPECT_EQ(terminal_safe("\x1f \x20 \x7e \x7f \xc2\x80 \xc2\x9f \xc2\xa0"), R"(\x1f   ~ \x7f \u0080 \u009f )"
                                                                             "\xc2\xa0");
  EXPECT_EQ(terminal_safe("\xe2\x80\xa7\xe2\x80\xa8\xe2\x80\xae\xe2\x80\xaf"),
            "\xe2\x80\xa7\\u2028\\u202e\xe2\x80\xaf");
  EXPECT_EQ(terminal_safe("\xe2\x81\xa5\xe2\x81\xa6\xe2\x81\xa9\xe2\x81\xaa"),
            "\xe2\x81\xa5\\u2066\\u2069\xe2\x81\xaa");
}

TEST_F(FakeVectors, AVectorNameCannotForgeTheSummaryOrSendEscapes) {
  add("y_one", "{}\n", kOneMessage);
  add("y_x\n3 passed, 0 failed", "{}\n", kOneMessage);
  add("y_" + kHostile, "{}\n", kOneMessage);
  const auto r = conform(dir_, shell_port("printf '2 messages\\n'"), {"--jobs", "2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(unsafe_for_a_terminal(r.out), "") << r.out;
  // Three lines of failures and one summary, the real one.
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 4) << r.out;
  EXPECT_NE(r.out.find("FAIL y_x\\n3 passed, 0 failed (check FILE, and with -): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL y_a\\nb\\rc\\td\\x1b[31me\\x07f\\x7fg\\u009b1mh\\u0085i\\u202e"), std::string::npos)
      << r.out;
  EXPECT_TRUE(r.out.ends_with("\n0 passed, 3 failed\n")) << r.out;
}

TEST_F(FakeVectors, PortOutputAndCheckArgumentsAreEscapedInEveryKindOfFailure) {
  std::ofstream(dir_ / "hostile") << kHostile;
  const std::string cat_hostile = "cat '" + (dir_ / "hostile").string() + "'";
  add("y_stdout", "{}\n", kOneMessage);
  add("y_exit", "{}\n", R"({"checks":[{"args":["estimate"],"exit":0,"stdout":"3\n"}]})");
  add("n_error", "{}\n", R"({"checks":[{"args":["canon"],"exit":1,"error":"invalid\u001b[2J\n\u202e"}]})");
  add("n_args", "{}\n", R"({"checks":[{"args":["trim","--max-chars","1\n2 passed\u009b"],"exit":2}]})");
  // check: wrong stdout; estimate: wrong exit with stderr; canon: stderr
  // lacks the error; trim: wrong exit code.
  const auto r = conform(dir_, shell_port("case $1 in check) " + cat_hostile + ";; estimate) " + cat_hostile +
                                          " >&2; exit 3;; canon) " + cat_hostile + " >&2; exit 1;; *) exit 0;; esac"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(unsafe_for_a_terminal(r.out), "") << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 5) << r.out;
  EXPECT_NE(r.out.find(R"(got "a\nb\rc\td\x1b[31me\x07f\x7fg\u009b1mh\u0085i\u202ej)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"(FAIL y_exit (estimate FILE, and with -): exit 3, expected 0; stderr: "a\nb\rc)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(R"(stderr lacks "invalid\x1b[2J\n\u202e" followed by end of line or ": "; stderr: "a\nb)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(R"(FAIL n_args (trim --max-chars 1\n2 passed\u009b FILE, and with -): exit 0, expected 2)"),
            std::string::npos)
      << r.out;
}

TEST_F(FakeVectors, ACommandThatCannotRunIsNamedOnOneSafeLine) {
  add("y_one", "{}\n", kOneMessage);
  const auto r = conform(dir_, {"/nonexistent/port\n0 passed, 0 failed\x1b[2J\xe2\x80\xae"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(unsafe_for_a_terminal(r.err), "") << r.err;
  EXPECT_EQ(r.err,
            "agent-session-conform: cannot run '/nonexistent/port\\n0 passed, 0 failed\\x1b[2J\\u202e': "
            "No such file or directory\n");
}

TEST_F(FakeVectors, AVectorsPathIsEscapedInItsError) {
  const auto r = conform(dir_ / "missing\n1 passed, 0 failed\x1b[2J", shell_port("true"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(unsafe_for_a_terminal(r.err), "") << r.err;
  EXPECT_NE(r.err.find("missing\\n1 passed, 0 failed\\x1b[2J': No such file or directory"), std::string::npos) << r.err;
}

// The runner reads a vector's files without ever blocking (SPEC.md has
// none of this; corpus/conformance/README.md "Read the result"): anything
// but a regular file fails its vector at once, however long --timeout is.
TEST_F(FakeVectors, VectorFilesThatAreNotRegularFilesFailTheirVectorWithoutBlocking) {
  add("y_good", "{}\n", kOneMessage);
  for (const char* name : {"y_fifo_input", "y_fifo_expect", "y_dir_input", "y_device_input", "y_null_expect"}) {
    add(name, "{}\n", kOneMessage);
  }
  for (const char* file : {"y_fifo_input/input.jsonl", "y_fifo_expect/expect.json"}) {
    fs::remove(dir_ / file);
    ASSERT_EQ(::mkfifo((dir_ / file).c_str(), 0600), 0);
  }
  fs::remove(dir_ / "y_dir_input" / "input.jsonl");
  fs::create_directory(dir_ / "y_dir_input" / "input.jsonl");
  fs::remove(dir_ / "y_device_input" / "input.jsonl");
  // Devices only root can make: reached through links, which are refused
  // before anything is opened (conform_links_test has the rest).
  fs::create_symlink("/dev/zero", dir_ / "y_device_input" / "input.jsonl");  // endless, if read
  fs::remove(dir_ / "y_null_expect" / "expect.json");
  fs::create_symlink("/dev/null", dir_ / "y_null_expect" / "expect.json");
  const auto r = conform_binary(dir_, shell_port("printf '1 messages\\n'"), {"--timeout", "3600"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out,
            "FAIL y_device_input: unusable vector: input.jsonl is a symbolic link, not a regular file; the runner "
            "follows no link out of a folder\n"
            "FAIL y_dir_input: unusable vector: input.jsonl is a directory, not a regular file\n"
            "FAIL y_fifo_expect: unusable vector: expect.json is a FIFO, not a regular file\n"
            "FAIL y_fifo_input: unusable vector: input.jsonl is a FIFO, not a regular file\n"
            "FAIL y_null_expect: unusable vector: expect.json is a symbolic link, not a regular file; the runner "
            "follows no link out of a folder\n"
            "1 passed, 5 failed\n");
  EXPECT_EQ(r.err, "");
}

// One byte over the cap is refused before it is read (a sparse file: no
// disk is used, and a regression costs 64 MiB, not the machine).
TEST_F(FakeVectors, AnOversizedVectorFileFailsBeforeItIsRead) {
  add("y_huge", "", kOneMessage);
  fs::resize_file(dir_ / "y_huge" / "input.jsonl", harness::kMaxVectorFile + 1);
  const auto r = conform(dir_, shell_port("printf '1 messages\\n'"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out,
            "FAIL y_huge: unusable vector: input.jsonl holds 67108865 bytes, more than the 67108864 a vector "
            "file may\n0 passed, 1 failed\n");
}

const std::string kZeroFlood = "if [ $1 = check ]; then cat /dev/zero; else cat /dev/zero >&2; fi";

TEST_F(FakeVectors, APortFloodingItsOutputIsKilledAtTheCapAndFails) {
  add("y_stdout_flood", "{}\n", kOneMessage);
  add("n_stderr_flood", "x\n", R"({"checks":[{"args":["estimate"],"exit":1,"error":"invalid"}]})");
  const auto r = conform(dir_, shell_port(kZeroFlood), {"--jobs", "2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL n_stderr_flood (estimate FILE, and with -): wrote more than 1048576 bytes to standard error "
            "(killed), expected exit 1\n"
            "FAIL y_stdout_flood (check FILE, and with -): wrote more than 1048576 bytes to standard output "
            "(killed), expected exit 0\n"
            "0 passed, 2 failed\n");
  const auto small = conform(dir_, shell_port(kZeroFlood), {"--max-output", "1000"});
  EXPECT_NE(small.out.find("wrote more than 1000 bytes to standard output (killed)"), std::string::npos) << small.out;
  EXPECT_EQ(conform(dir_, shell_port("true"), {"--max-output", "0"}).exit_code, 2);
}

TEST_F(FakeVectors, OutputUpToTheCapIsComparedWhole) {
  const std::string stdout_bytes(1000, 'x');
  add("y_at_cap", "{}\n", R"({"checks":[{"args":["canon"],"exit":0,"stdout":")" + stdout_bytes + "\"}]}");
  const std::string print = "head -c 1000 /dev/zero | tr '\\0' x";
  EXPECT_EQ(conform(dir_, shell_port(print), {"--max-output", "1000"}).out, "1 passed, 0 failed\n");
  const auto over = conform(dir_, shell_port(print + "; echo"), {"--max-output", "1000"});
  EXPECT_EQ(without_reproduce(over.out),
            "FAIL y_at_cap (canon FILE, and with -): wrote more than 1000 bytes to standard output (killed), "
            "expected exit 0\n0 passed, 1 failed\n");
}

TEST(RunProcess, KeepsAtMostTheCapOfEachStream) {
  const auto limit = std::chrono::minutes(1);
  const auto out = conform::runner::run_process({"sh", "-c", "cat /dev/zero"}, "", limit, 4096);
  EXPECT_EQ(out.end, conform::runner::ProcessEnd::output_limit);
  EXPECT_EQ(out.out.size(), 4096u);
  EXPECT_EQ(conform::runner::describe_end(out, limit), "wrote more than 4096 bytes to standard output (killed)");
  const auto err = conform::runner::run_process({"sh", "-c", "echo hi; cat /dev/zero >&2"}, "", limit, 4096);
  EXPECT_EQ(err.end, conform::runner::ProcessEnd::output_limit);
  EXPECT_EQ(err.out, "hi\n");
  EXPECT_EQ(err.err.size(), 4096u);
  EXPECT_EQ(conform::runner::describe_end(err, limit), "wrote more than 4096 bytes to standard error (killed)");
}

// The working folder is entered by its descriptor, not its path: the
// program starts there even after the path names something else, and a
// descriptor that is no folder fails the start, named, never the runner.
TEST(RunProcess, StartsInTheWorkingFolderByItsDescriptorWhateverItsPathNowNames) {
  const fs::path base = fs::temp_directory_path() / ("working-folder-" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base / "made");
  fs::create_directories(base / "elsewhere");
  const base::Fd made{::open((base / "made").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
  ASSERT_GE(made.get(), 0);
  fs::rename(base / "made", base / "moved");
  fs::create_directory_symlink(base / "elsewhere", base / "made");
  const auto limit = std::chrono::minutes(1);
  const auto r = conform::runner::run_process({"sh", "-c", "pwd -P; touch planted"}, "", limit, 4096,
                                              {made.get(), (base / "made").string()});
  EXPECT_EQ(r.end, conform::runner::ProcessEnd::exited) << r.error;
  EXPECT_EQ(r.out, (base / "moved").string() + "\n");
  EXPECT_TRUE(fs::exists(base / "moved" / "planted"));
  EXPECT_TRUE(fs::is_empty(base / "elsewhere"));

  const base::Fd file{::open("/dev/null", O_RDONLY | O_CLOEXEC)};
  const auto no_folder = conform::runner::run_process({"true"}, "", limit, 4096, {file.get(), "/dev/null"});
  EXPECT_EQ(no_folder.end, conform::runner::ProcessEnd::no_working_folder);
  EXPECT_EQ(no_folder.error, "cannot enter the working folder '/dev/null': Not a directory");
  fs::remove_all(base);
}

// Exit codes of conform (conform/runner/conform.hpp): 2 for a vectors path that
// names no folder, 3 for one that cannot be read or for resources that run
// out; always one line on standard error, never an abort.
TEST_F(FakeVectors, AnEntryWhoseTypeCannotBeReadFailsAsAVector) {
  add("y_one", "{}\n", kOneMessage);
  fs::create_symlink("y_loop", dir_ / "y_loop");  // ELOOP on stat
  const auto r = conform_binary(dir_, shell_port("printf '1 messages\\n'"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out, "FAIL y_loop: unusable vector: Too many levels of symbolic links\n1 passed, 1 failed\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(FakeVectors, AnUnreadableVectorsFolderExitsThreeWithOneLine) {
  add("y_one", "{}\n", kOneMessage);
  fs::permissions(dir_, fs::perms::none);
  const auto r = conform_binary(dir_, {"true"}, {}, unprivileged());
  fs::permissions(dir_, fs::perms::owner_all);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "agent-session-conform: cannot read the vectors folder '" + dir_.string() + "': Permission denied\n");
}

TEST_F(FakeVectors, AnUnreadableVectorFailsThatVector) {
  add("y_one", "{}\n", kOneMessage);
  add("y_closed", "{}\n", kOneMessage);
  fs::permissions(dir_ / "y_closed", fs::perms::none);
  const auto r = conform_binary(dir_, shell_port("printf '1 messages\\n'"), {}, unprivileged());
  fs::permissions(dir_ / "y_closed", fs::perms::owner_all);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out, "FAIL y_closed: unusable vector: cannot open input.jsonl: Permission denied\n1 passed, 1 failed\n");
}

TEST_F(FakeVectors, AVectorsPathThatIsNoFolderIsAUsageError) {
  add("y_one", "{}\n", kOneMessage);
  const fs::path file = dir_ / "y_one" / "input.jsonl";
  for (const fs::path& path : {file, file / "sub"}) {
    const auto r = conform(path, {"true"});
    EXPECT_EQ(r.exit_code, 2) << path;
    EXPECT_EQ(r.err, "agent-session-conform: cannot read the vectors folder '" + path.string() +
                         "': Not a directory (pass --vectors DIR)\n");
  }
  fs::remove_all(dir_ / "y_one");
  // A FIFO as the folder: refused at once (a regression would block in open).
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  const auto fifo = conform_binary(dir_ / "fifo", {"true"});
  EXPECT_EQ(fifo.exit_code, 2) << fifo.err;
  EXPECT_EQ(fifo.err, "agent-session-conform: cannot read the vectors folder '" + (dir_ / "fifo").string() +
                          "': Not a directory (pass --vectors DIR)\n");
  fs::remove(dir_ / "fifo");
  const auto none = conform(dir_, {"true"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err, "agent-session-conform: no vectors in '" + dir_.string() + "' (pass --vectors DIR)\n");
}

// No process can be started (RLIMIT_NPROC, which counts threads too, and
// which binds only a user without privileges): exit 3, one line. (Running
// out of descriptors takes the same path, but starves the sanitizers'
// runtime in the ASan build, so it cannot be the test.)
TEST_F(FakeVectors, RunningOutOfProcessesExitsThreeWithOneLine) {
  add("y_one", "{}\n", kOneMessage);
  auto prefix = unprivileged();
  prefix.insert(prefix.end(), {"prlimit", "--nproc=2:2"});
  const auto r = conform_binary(dir_, {"true"}, {}, prefix);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.err.starts_with("agent-session-conform: ")) << r.err;
  EXPECT_TRUE(r.err.ends_with(": Resource temporarily unavailable\n")) << r.err;
}

// Numbers that a double or an int cannot hold are refused, not converted
// (a float-to-integer conversion out of range is undefined behaviour).
TEST_F(FakeVectors, AnExitCodeThatIsNoByteMakesTheVectorUnusable) {
  for (const char* exit : {"1e100", "-1e100", "256", "-1", "1.5", "3000000000", "\"0\"", "null"}) {
    add(std::string("n_exit_") + exit, "{}\n", std::string(R"({"checks":[{"args":["check"],"exit":)") + exit + "}]}");
  }
  const auto r = conform(dir_, shell_port("exit 2"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 9) << r.out;
  std::size_t unusable = 0;
  for (auto at = r.out.find("unusable vector: exit must be an integer from 0 to 255\n"); at != std::string::npos;
       at = r.out.find("unusable vector: exit must be an integer from 0 to 255\n", at + 1)) {
    ++unusable;
  }
  EXPECT_EQ(unusable, 8u) << r.out;
}

TEST_F(FakeVectors, ATimeoutThatIsNotANumberIsAUsageError) {
  add("y_one", "{}\n", kOneMessage);
  for (const char* timeout : {"nan", "NaN", "-nan", "inf"}) {
    const auto r = conform(dir_, shell_port("printf '1 messages\\n'"), {"--timeout", timeout});
    EXPECT_EQ(r.exit_code, 2) << timeout << ": " << r.out;
    EXPECT_EQ(r.out, "") << timeout;
  }
}

}  // namespace
}  // namespace agent_session
