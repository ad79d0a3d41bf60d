// The judge (runner/conform_judge.hpp) holds every check to SPEC.md §6's
// two stream rules, whatever the vector says: nothing on standard output
// when the exit code is not 0, nothing on standard error on exit 0. Ports
// that break one and pass everything else fail, with the rule named.
#include "conform/runner/conform_judge.hpp"
#include "support/fake_vectors.hpp"

#include <gtest/gtest.h>

#include <string>

namespace agent_session {
namespace {

using test_support::conform;
using test_support::FakeVectors;
using test_support::kOneMessage;
using test_support::shell_port;
using test_support::without_reproduce;

const std::string kInvalid = R"({"checks":[{"args":["check"],"exit":1,"error":"invalid session JSON at line 1"}]})";
const std::string kUsage = R"({"checks":[{"args":["trim","--max-chars","x"],"exit":2}]})";

TEST_F(FakeVectors, APortThatPrintsPartOfItsOutputBeforeFailingFails) {
  add("n_bad", "{\n", kInvalid);
  const auto r = conform(dir_, shell_port("printf partial; echo 'invalid session JSON at line 1: broken' >&2; exit 1"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL n_bad (check FILE, and with -): stdout is not empty (7 bytes: \"partial\"), expected nothing after a "
            "failure (SPEC.md §6: no output on standard output but on exit 0)\n0 passed, 1 failed\n");
}

TEST_F(FakeVectors, AUsageErrorWithOutputFailsToo) {
  add("n_usage", "{}\n", kUsage);
  const auto r = conform(dir_, shell_port("echo 'usage: trim --max-chars N FILE'; exit 2"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("stdout is not empty (31 bytes"), std::string::npos) << r.out;
}

TEST_F(FakeVectors, APortThatWritesToStandardErrorOnSuccessFails) {
  add("y_one", "{}\n", kOneMessage);
  const auto r = conform(dir_, shell_port("echo 'warning: slow disk' >&2; printf '1 messages\\n'"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(without_reproduce(r.out),
            "FAIL y_one (check FILE, and with -): stderr is not empty (19 bytes: \"warning: slow disk\\n\"), expected "
            "nothing on success (SPEC.md §6: nothing on standard error on exit 0)\n0 passed, 1 failed\n");
}

TEST_F(FakeVectors, APortThatKeepsBothStreamsCleanPasses) {
  add("y_one", "{}\n", kOneMessage);
  add("n_bad", "{\n", kInvalid);
  add("n_usage", "{}\n", kUsage);
  const std::string port =
      "case $1 in check) if [ \"$2\" = - ]; then c=$(cat); else c=$(cat \"$2\"); fi; "
      "if [ \"$c\" = '{}' ]; then printf '1 messages\\n'; else echo 'invalid session JSON at line 1' >&2; exit 1; fi;; "
      "*) echo usage >&2; exit 2;; esac";
  const auto r = conform(dir_, shell_port(port), {"--jobs", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "3 passed, 0 failed\n");
}

}  // namespace
}  // namespace agent_session
