// `agent-session conform` (conform/runner/conform.hpp): the runner's verdicts on
// tiny fake ports (shell one-liners) and hand-made vectors, then the real
// thing: our own binary and the JavaScript oracle pass every vector, and
// each mutant port (tests/mutants/) fails, named by the vectors that catch it.
#include "conform/runner/conform.hpp"
#include "cli/cli.hpp"
#include "conform/runner/conform_report.hpp"
#include "conform/runner/stream_checks.hpp"
#include "conform/runner/subprocess.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = AGENT_SESSION_SOURCE_DIR;
const fs::path kVectors = kSource / "corpus" / "conformance";

using test_support::conform;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;

// The vectors of the folder, the runner's built-in one (the suite is 1.1.0
// or later) and the runner's own checks (1.4.0 or later).
std::size_t vector_count() {
  std::size_t count = 1 + conform::runner::runner_check_names().size();
  for (const auto& entry : fs::directory_iterator(kVectors)) count += entry.is_directory() ? 1 : 0;
  return count;
}

TEST_F(FakeVectors, APortThatAnswersRightPassesWithBothFileAndStdin) {
  add("y_one", "{}\n", kOneMessage);
  const auto r = conform(dir_, shell_port("printf '1 messages\\n'"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "1 passed, 0 failed\n");
}

TEST_F(FakeVectors, WrongStdoutIsOneReadableLineWithTheDifference) {
  add("y_one", "{}\n", kOneMessage);
  add("y_two", "{}\n", kOneMessage);
  const auto r = conform(dir_, shell_port("printf '2 messages\\n'"));
  EXPECT_EQ(r.exit_code, 1);
  // Each line ends with the command that reproduces it, quoted for sh
  // (the quoting's round trip: conform_report_test).
  const std::string port = R"(sh -c 'printf '\''2 messages\n'\''' port check )";
  EXPECT_EQ(r.out,
            "FAIL y_one (check FILE, and with -): stdout differs at byte 0 (line 1): expected \"1 messages\\n\", "
            "got \"2 messages\\n\"; reproduce: " +
                port + (dir_ / "y_one" / "input.jsonl").string() +
                "\n"
                "FAIL y_two (check FILE, and with -): stdout differs at byte 0 (line 1): expected \"1 messages\\n\", "
                "got \"2 messages\\n\"; reproduce: " +
                port + (dir_ / "y_two" / "input.jsonl").string() +
                "\n"
                "0 passed, 2 failed\n");
}

TEST_F(FakeVectors, TheInputArrivesOnStdinWhenFileIsDash) {
  const std::string input = "{\"a\":\"\xF0\x9F\x98\x80\"}\r\n\n";
  add("y_echo", input, R"({"checks":[{"args":["canon"],"exit":0,"stdout":"{\"a\":\"😀\"}\r\n\n"}]})");
  const auto echo = conform(dir_, shell_port(R"(if [ "$2" = - ]; then cat; else cat "$2"; fi)"));
  EXPECT_EQ(echo.exit_code, 0) << echo.out;
  // A port that ignores standard input fails with `-` only.
  const auto deaf = conform(dir_, shell_port(R"(if [ "$2" != - ]; then cat "$2"; fi)"));
  EXPECT_EQ(deaf.exit_code, 1);
  EXPECT_NE(deaf.out.find("FAIL y_echo (canon -): stdout differs at byte 0"), std::string::npos) << deaf.out;
  EXPECT_EQ(deaf.out.find("canon FILE"), std::string::npos) << deaf.out;
}

TEST_F(FakeVectors, ErrorTextMustEndTheLineOrBeFollowedByColonSpace) {
  add("n_line_1", "x\n", R"({"checks":[{"args":["check"],"exit":1,"error":"invalid session JSON at line 1"}]})");
  EXPECT_EQ(conform(dir_, shell_port("echo 'port: invalid session JSON at line 1: bad' >&2; exit 1")).exit_code, 0);
  EXPECT_EQ(conform(dir_, shell_port("echo 'invalid session JSON at line 1' >&2; exit 1")).exit_code, 0);
  const auto r = conform(dir_, shell_port("echo 'invalid session JSON at line 12' >&2; exit 1"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAIL n_line_1 (check FILE, and with -): stderr lacks \"invalid session JSON at line 1\""),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("stderr: \"invalid session JSON at line 12\\n\""), std::string::npos) << r.out;
}

TEST(ContainsError, FollowedByEndOfLineOrColonSpaceOnly) {
  EXPECT_TRUE(conform::runner::contains_error("invalid session JSON at line 1", "invalid session JSON at line 1"));
  EXPECT_TRUE(conform::runner::contains_error("x: invalid session JSON at line 1\n", "invalid session JSON at line 1"));
  EXPECT_TRUE(
      conform::runner::contains_error("invalid session JSON at line 1: detail\n", "invalid session JSON at line 1"));
  EXPECT_TRUE(conform::runner::contains_error("at line 12\nat line 1\n", "at line 1"));
  EXPECT_FALSE(conform::runner::contains_error("invalid session JSON at line 12\n", "invalid session JSON at line 1"));
  EXPECT_FALSE(conform::runner::contains_error("invalid session JSON at line 1:x\n", "invalid session JSON at line 1"));
  EXPECT_FALSE(conform::runner::contains_error("", "invalid session JSON at line 1"));
  EXPECT_FALSE(conform::runner::contains_error("anything\n", ""));
}

TEST_F(FakeVectors, WrongExitCodeShowsTheStderr) {
  add("y_one", "{}\n", kOneMessage);
  const auto r = conform(dir_, shell_port("echo 'oops' >&2; exit 3"));
  EXPECT_EQ(r.out, "FAIL y_one (check FILE, and with -): exit 3, expected 0; stderr: \"oops\\n\"; reproduce: sh -c " +
                       std::string(R"('echo '\''oops'\'' >&2; exit 3' port check )") +
                       (dir_ / "y_one" / "input.jsonl").string() + "\n0 passed, 1 failed\n");
}

TEST_F(FakeVectors, ACrashIsNeverAPass) {
  add("n_bad", "x\n", R"({"checks":[{"args":["check"],"exit":1,"error":"invalid"}]})");
  const auto r = conform(dir_, shell_port("echo invalid >&2; kill -SEGV $$"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAIL n_bad (check FILE, and with -): killed by signal 11"), std::string::npos) << r.out;
}

TEST_F(FakeVectors, UsageErrorsNeedNoVectorAnswers) {
  add("n_usage", "{}\n", R"({"checks":[{"args":["trim","--max-chars","-1"],"exit":2}]})");
  EXPECT_EQ(conform(dir_, shell_port("echo 'any text' >&2; exit 2")).exit_code, 0);
  EXPECT_EQ(conform(dir_, shell_port("exit 1")).exit_code, 1);
}

TEST_F(FakeVectors, AHangingPortIsKilledAndFailsItsVector) {
  add("y_hang", "{}\n",
      R"({"checks":[{"args":["check"],"exit":0,"stdout":"1 messages\n"},)"
      R"({"args":["estimate"],"exit":0,"stdout":"3\n"}]})");
  add("y_quick", "{}\n", R"({"checks":[{"args":["estimate"],"exit":0,"stdout":"3\n"}]})");
  // Hangs on `check` only; a background grandchild must die with it.
  const auto r =
      conform(dir_, shell_port(R"(if [ "$1" = check ]; then sleep 600 & wait; fi; echo 3)"), {"--timeout", "0.5"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "FAIL y_hang (check FILE): timed out after 0.5 s (killed), expected exit 0; its 1 other checks skipped; "
            "reproduce: " +
                conform::runner::shell_command({"sh", "-c", R"(if [ "$1" = check ]; then sleep 600 & wait; fi; echo 3)",
                                                "port", "check", (dir_ / "y_hang" / "input.jsonl").string()}) +
                "\n1 passed, 1 failed\n");
}

TEST_F(FakeVectors, HugeOutputsOnBothStreamsWhileIgnoringStdinDoNotDeadlock) {
  const std::string input(4 << 20, 'x');  // more than any pipe buffer
  add("y_big", input, kOneMessage);
  // Above the default cap (1 MiB a stream), which its own test covers.
  const auto r = conform(dir_,
                         shell_port("head -c 3000000 /dev/zero; head -c 3000000 /dev/zero >&2; "
                                    "head -c 3000000 /dev/zero; printf '1 messages\\n' >&2"),
                         {"--max-output", "8000000"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("stdout differs at byte 0 (line 1): expected \"1 messages\\n\", got \"\\x00\\x00"),
            std::string::npos)
      << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("(11 bytes expected, 6000000 got)"), std::string::npos) << r.out.substr(0, 400);
}

TEST_F(FakeVectors, AnUnusableVectorFailsInsteadOfPassingVacuously) {
  add("y_typo", "{}\n", R"({"checks":[{"argz":["check"],"exit":0,"stdout":"1 messages\n"}]})");
  add("y_empty", "{}\n", R"({"checks":[]})");
  add("y_no_stdout", "{}\n", R"({"checks":[{"args":["check"],"exit":0}]})");
  const auto r = conform(dir_, shell_port("printf '1 messages\\n'"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAIL y_typo: unusable vector: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL y_empty: expect.json has no checks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL y_no_stdout: unusable vector: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 passed, 3 failed\n"), std::string::npos) << r.out;
}

TEST_F(FakeVectors, UsageProblemsExitTwo) {
  add("y_one", "{}\n", kOneMessage);
  EXPECT_EQ(conform(dir_, {}).exit_code, 2);  // no CMD
  EXPECT_EQ(conform(dir_ / "missing", shell_port("true")).exit_code, 2);
  const auto r = conform(dir_, {"/nonexistent/port"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot run '/nonexistent/port': No such file or directory"), std::string::npos) << r.err;
  EXPECT_EQ(conform(dir_, shell_port("true"), {"--timeout", "0"}).exit_code, 2);
  EXPECT_EQ(conform(dir_, shell_port("true"), {"--jobs", "0"}).exit_code, 2);
  // The largest timeout is fine (no overflow, no hang); past it, or as an
  // exponent, it is a usage error (parse_seconds: decimal only).
  EXPECT_EQ(conform(dir_, shell_port("printf '1 messages\\n'"), {"--timeout", "1000000"}).exit_code, 0);
  EXPECT_EQ(conform(dir_, shell_port("printf '1 messages\\n'"), {"--timeout", "1e300"}).exit_code, 2);
}

TEST_F(FakeVectors, DiffsArePrintableControlsAndBrokenUtf8EscapedTheRestAsIs) {
  add("y_one", "{}\n", kOneMessage);
  const auto r = conform(dir_, shell_port(R"(printf '1 m\033\377\303\251\t')"));
  EXPECT_NE(r.out.find(R"(got "1 m\x1b\xffé\t" (11 bytes expected, 8 got))"), std::string::npos) << r.out;
}

// The built-in missing-FILE vector (SPEC.md §6) comes with the suite from
// 1.1.0 on: listed, run once per command with a path that does not exist,
// counted, and skippable like any vector.
TEST_F(FakeVectors, TheBuiltInMissingFileCheckComesWithVectorsFromOnePointOne) {
  add("y_one", "{}\n", kOneMessage);
  EXPECT_EQ(conform(dir_, {}, {"--list"}).out, "y_one\n");  // no VERSION: as before
  std::ofstream(dir_ / "VERSION") << "1.0.1\n";
  EXPECT_EQ(conform(dir_, {}, {"--list"}).out, "y_one\n");
  std::ofstream(dir_ / "VERSION") << "1.1.0\n";
  EXPECT_EQ(conform(dir_, {}, {"--list"}).out, "y_one\nbuiltin_missing_file\n");
  std::ofstream(dir_ / "VERSION") << "1.3.0\n";
  EXPECT_EQ(conform(dir_, {}, {"--list"}).out, "y_one\nbuiltin_missing_file\n");
  std::ofstream(dir_ / "VERSION") << "2.0.0\n";  // the runner's own checks too, from 1.4.0 (conform_streams_test)
  EXPECT_TRUE(conform(dir_, {}, {"--list"}).out.starts_with("y_one\nbuiltin_missing_file\nrunner_stdin_closed\n"));
  std::ofstream(dir_ / "VERSION") << "1.1.0\n";
  // Right: exit 3, nothing on stdout, the path and "No such file" (any case).
  const std::string right = R"(if [ "$1" = check ] && { [ "$2" = - ] || [ -e "$2" ]; }; then echo 1 messages; )"
                            R"(else eval "f=\${$#}"; echo "port: $f: NO SUCH FILE" >&2; exit 3; fi)";
  auto r = conform(dir_, shell_port(right));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "2 passed, 0 failed\n");
  // An empty session for a missing file fails each command once, by name.
  r = conform(dir_, shell_port("echo 0 messages"), {"--only", "builtin_*"});
  EXPECT_EQ(r.exit_code, 1);
  for (const char* run : {"check FILE", "estimate FILE", "canon FILE", "trim --max-chars 100 FILE"}) {
    EXPECT_NE(r.out.find(std::string("FAIL builtin_missing_file (") + run + "): exit 0, expected 3; reproduce: "),
              std::string::npos)
        << run << ": " << r.out;
  }
  EXPECT_TRUE(r.out.ends_with("\n0 passed, 1 failed\n")) << r.out;
  // Exit 3 but the wrong words, or output on stdout, fail too.
  r = conform(dir_, shell_port("echo cannot read >&2; exit 3"), {"--only", "builtin_*"});
  EXPECT_NE(r.out.find("stderr lacks \"no such file\" (letter case aside)"), std::string::npos) << r.out;
  r = conform(dir_, shell_port(R"(eval "f=\${$#}"; echo "$f: no such file" >&2; echo 0 messages; exit 3)"),
              {"--only", "builtin_*"});
  EXPECT_NE(r.out.find("stdout is not empty (11 bytes: \"0 messages\\n\"), expected nothing after a failure"),
            std::string::npos)
      << r.out;
  std::ofstream(dir_ / "skip.txt") << "builtin_missing_file\n";
  r = conform(dir_, shell_port("echo 1 messages"), {"--skip-file", (dir_ / "skip.txt").string()});
  EXPECT_EQ(r.out, "SKIP builtin_missing_file (listed in the skip file)\n1 passed, 0 failed, 1 skipped\n");
}

// The real vectors. Our binary and the oracle both pass all of them; the
// mutants pass most (they are one mistake away from right) and are caught
// by the vectors named here.
TEST(ConformOurCli, PassesEveryVector) {
  const auto r = conform(kVectors, {AGENT_SESSION_CLI}, {"--jobs", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, std::to_string(vector_count()) + " passed, 0 failed\n");
}

// The same in harness mode: one process per job answers every check
// through the commands exec mode runs. The sanitized build runs this one
// (exec mode's thousand process starts are the volume it leaves out, their
// command lines and streams checked by cli_test and the runner's checks).
TEST(ConformOurCli, PassesEveryVectorInHarnessMode) {
  const auto r = conform(kVectors, {AGENT_SESSION_CLI}, {"--harness", "--jobs", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, std::to_string(vector_count()) + " passed, 0 failed\n");
}

// The JavaScript runs use harness mode (corpus/conformance/harness.md):
// one Node process per job instead of one per command line, with the
// same verdicts as exec mode (harness_test: HarnessSameVerdicts).
TEST(ConformJavaScriptOracle, PassesEveryVector) {
  const auto r =
      conform(kVectors, {"node", (kSource / "tests" / "oracle" / "cli.mjs").string()}, {"--harness", "--jobs", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, std::to_string(vector_count()) + " passed, 0 failed\n");
}

// Exec mode (a Node process per check) on the oracle, kept small: a few
// vectors of each kind, the built-in missing-FILE one among them (SPEC.md §6),
// with a minute a run for a loaded machine's slow Node.js starts.
TEST(ConformJavaScriptOracle, PassesAHandfulOfVectorsInExecMode) {
  const auto r = conform(kVectors, {"node", (kSource / "tests" / "oracle" / "cli.mjs").string()},
                         {"--jobs", "2", "--timeout", "60", "--only", "y_estimate_c*", "--only", "n_blank_lines_*",
                          "--only", "i_escaped_lone_*", "--only", "builtin_missing_file"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::smatch summary;
  ASSERT_TRUE(std::regex_search(r.out, summary, std::regex("^([0-9]+) passed, 0 failed\n$"))) << r.out;
  EXPECT_GE(std::stoul(summary[1]), 5u) << r.out;
}

struct Mutant {
  const char* script;
  std::vector<const char*> caught_by;  // vectors that must name it
  // Only those fail it: every other vector, each of the release before
  // them included, passes (the token-edge mutants of vectors 1.3.0).
  bool only_these = false;
};

// Test names show the script, not the struct's bytes.
void PrintTo(const Mutant& mutant, std::ostream* out) { *out << mutant.script; }

class ConformMutant : public ::testing::TestWithParam<Mutant> {};

TEST_P(ConformMutant, FailsAndIsNamedByTheVectorsThatExposeIt) {
  const Mutant& mutant = GetParam();
  const auto r = conform(kVectors, {"node", (kSource / "tests" / "mutants" / mutant.script).string()},
                         {"--harness", "--jobs", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  for (const char* vector : mutant.caught_by) {
    EXPECT_NE(r.out.find(std::string("FAIL ") + vector + " ("), std::string::npos) << vector << " missed it:\n"
                                                                                   << r.out;
  }
  std::smatch summary;
  ASSERT_TRUE(std::regex_search(r.out, summary, std::regex("\n([0-9]+) passed, ([0-9]+) failed\n$"))) << r.out;
  // One mistake, not a broken port: most vectors still pass.
  EXPECT_GT(std::stoul(summary[1]), vector_count() / 2) << r.out;
  EXPECT_GE(std::stoul(summary[2]), mutant.caught_by.size());
  if (mutant.only_these) {
    EXPECT_EQ(std::stoul(summary[2]), mutant.caught_by.size()) << r.out;
  }
  std::cout << mutant.script << ":\n" << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Mutants, ConformMutant,
    ::testing::Values(
        Mutant{"utf8_bytes.mjs", {"y_estimate_cjk", "y_estimate_emoji", "y_trim_budget_counts_utf16"}},
        Mutant{"line_numbers_skip_empty.mjs", {"n_blank_lines_counted_line_3", "n_blank_lines_counted_line_6"}},
        Mutant{"trim_by_message.mjs", {"y_trim_walkthrough_calls_a_b", "y_trim_interleaved_closed_unit"}},
        Mutant{"missing_file_empty.mjs", {"builtin_missing_file"}},
        Mutant{"append_torn_tail.mjs", {"n_append_torn_last_line", "n_append_last_line_not_a_message"}},
        Mutant{"number_int64_exact.mjs", {"y_canon_number_shortest_closest"}},
        Mutant{"overflow_integer_digits.mjs",
               {"i_number_overflow_midpoint_integer", "i_number_overflow_midpoint_negative"}},
        Mutant{"utf16_f1_f3_astral.mjs",
               {"y_estimate_utf8_continuation_byte_80", "y_canon_utf8_continuation_byte_80_everywhere"}},
        Mutant{"key_index_uint32_wrap.mjs", {"y_canon_key_order_index_past_uint32"}},
        Mutant{"keys_case_insensitive.mjs", {"n_field_names_case_sensitive", "y_field_names_other_case_dropped"}},
        Mutant{"trim_first_result_only.mjs", {"y_trim_nested_rounds_one_unit"}},
        Mutant{"literal_first_letter.mjs", {"n_json_literal_misspelled"}, true},
        Mutant{"literal_case_insensitive.mjs", {"n_json_literal_wrong_case"}, true},
        Mutant{"number_lone_minus.mjs", {"n_json_number_lone_minus"}, true},
        Mutant{"control_char_1f.mjs", {"n_json_raw_control_1f_in_string"}, true},
        Mutant{"surrogate_low_low_pair.mjs", {"i_escaped_two_low_surrogates"}, true},
        Mutant{"surrogate_low_half_e000.mjs", {"i_escaped_high_then_e000"}, true},
        Mutant{"surrogate_high_dbff_as_low.mjs", {"i_escaped_high_then_last_high"}, true},
        Mutant{"surrogate_skips_nested_arrays.mjs",
               {"i_escaped_lone_surrogate_nested_in_tool_input", "i_escaped_lone_surrogate_nested_in_dropped_field"},
               true}),
    [](const auto& info) {
      std::string name = info.param.script;
      return name.substr(0, name.find('.'));
    });

}  // namespace
}  // namespace agent_session
