// conform/github-action.sh, the script behind the GitHub Action for ports
// (conform/action.yml), run as the Action runs it (mode conformance and
// mode properties), with a fake runner
// prefix whose agent-session-conform is our own `agent-session conform`.
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <gnu/libc-version.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

const std::string kSource = AGENT_SESSION_SOURCE_DIR;
const std::string kScript = kSource + "/conform/github-action.sh";

struct ScriptRun {
  int exit_code;
  std::string out, err;
};

class ConformAction : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    fs::create_directories(dir_ / "prefix" / "bin");
    // `report`, `fuzz` and `properties` take no --vectors first: they are modes.
    runner("case \"$1\" in report | fuzz | properties) exec '" AGENT_SESSION_CLI
           "' conform \"$@\" ;; esac\nexec '" AGENT_SESSION_CLI "' conform --vectors '" +
           kSource + "/corpus/conformance' \"$@\"\n");
  }

  // The prefix's agent-session-conform: a shell script of `body`.
  void runner(const std::string& body) const {
    const fs::path file = dir_ / "prefix" / "bin" / "agent-session-conform";
    write(file, "#!/bin/sh\n" + body);
    fs::permissions(file, fs::perms::owner_all);
  }

  // `bash github-action.sh SUBCOMMAND` in dir_/work with `env` (NAME=value ...).
  ScriptRun run(const std::string& env, const std::string& subcommand = "run") const {
    fs::create_directories(dir_ / "work");
    const std::string command = "cd '" + (dir_ / "work").string() +
                                "' && env -u GITHUB_ACTIONS -u GITHUB_OUTPUT PREFIX='" + (dir_ / "prefix").string() +
                                "' PORT='" AGENT_SESSION_CLI "' " + env + " bash '" + kScript + "' " + subcommand +
                                " >'" + path("out").string() + "' 2>'" + path("err").string() + "'";
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read(path("out")), read(path("err"))};
  }
};

TEST_F(ConformAction, AJunitReportInAFolderThatDoesNotExistIsWritten) {
  const ScriptRun r = run("ONLY=y_user_valid JUNIT=reports/ci/conformance.xml");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(read(dir_ / "work" / "reports" / "ci" / "conformance.xml").find("<testsuite"), std::string::npos);
}

TEST_F(ConformAction, StrictAcceptsEveryUsualSpellingOfTrueAndRefusesTheRest) {
  write(path("skip.txt"), "y_three_valid_lines\n");
  const std::string chosen = "ONLY='y_user_valid y_three_valid_lines' SKIP_FILE='" + path("skip.txt").string() + "' ";
  for (const char* yes : {"true", "True", "TRUE", "1", "yes"}) {
    const ScriptRun r = run(chosen + "STRICT=" + yes);
    EXPECT_EQ(r.exit_code, 1) << yes << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("--strict: 1 vector skipped"), std::string::npos) << yes << "\n" << r.err;
  }
  for (const char* no : {"false", "False", "0", "no", "''"}) {
    const ScriptRun r = run(chosen + "STRICT=" + no);
    EXPECT_EQ(r.exit_code, 0) << no << "\n" << r.out << r.err;
  }
  const ScriptRun bad = run(chosen + "STRICT=maybe");
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("strict: 'maybe' is neither true"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.out, "");
}

TEST_F(ConformAction, OnlyIsSplitOnBlanksAndCommas) {
  for (const char* only :
       {"'y_user_valid y_three_valid_lines'", "'y_user_valid,y_three_valid_lines'", "' y_user_valid ,  y_three_*'"}) {
    const ScriptRun r = run(std::string("ONLY=") + only);
    EXPECT_EQ(r.exit_code, 0) << only << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("2 passed, 0 failed\n"), std::string::npos) << only << "\n" << r.out;
  }
}

TEST_F(ConformAction, TheRunnersOutputArrivesWhileItRuns) {
  // This runner prints a line, then waits up to 20 s for the test to
  // answer: a script that holds the output until the end never lets it.
  const fs::path release = path("release");
  runner("echo started\ni=0\nwhile [ ! -e '" + release.string() +
         "' ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done\n"
         "[ -e '" +
         release.string() + "' ] || exit 7\necho '1 passed, 0 failed'\n");
  const std::string command = "cd '" + dir_.string() + "' && PREFIX='" + (dir_ / "prefix").string() +
                              "' PORT=true bash '" + kScript + "' run 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char line[256] = {};
  const bool got = std::fgets(line, sizeof line, pipe) != nullptr;
  write(release, "");
  const int status = ::pclose(pipe);
  EXPECT_TRUE(got);
  EXPECT_EQ(std::string(line), "started\n");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the first line came only after the runner gave up";
}

TEST_F(ConformAction, EachLegOfAMatrixNamesItsOwnArtifact) {
  const std::string github = "ONLY=y_user_valid GITHUB_OUTPUT='" + path("github-output").string() +
                             "' GITHUB_JOB=conformance RUNNER_OS=Linux RUNNER_ARCH=X64 ";
  ASSERT_EQ(run(github + "JOB_INDEX=3").exit_code, 0);
  EXPECT_NE(read(path("github-output")).find("artifact=agent-session-conformance-conformance-3-Linux-X64\n"),
            std::string::npos)
      << read(path("github-output"));
  ASSERT_EQ(run(github + "JOB_INDEX=4 ARTIFACT_NAME=mine").exit_code, 0);
  EXPECT_NE(read(path("github-output")).find("artifact=mine\n"), std::string::npos) << read(path("github-output"));
}

TEST_F(ConformAction, TheCacheIsKeyedOnTheImageAndItsGlibc) {
  const ScriptRun r = run("ImageOS=ubuntu22", "key");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nplatform=ubuntu22-glibc-" + std::string(gnu_get_libc_version()) + "\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("hash="), std::string::npos) << r.out;
}

TEST_F(ConformAction, AFailureSaysWhereADeveloperGetsTheVectors) {
  write(path("port"), "#!/bin/sh\necho 41\n");  // a wrong estimate
  fs::permissions(path("port"), fs::perms::owner_all);
  const ScriptRun r = run("ONLY=y_estimate_cjk ACTION_REPOSITORY=example/agent-session ACTION_REF=v1.2.3 PORT='" +
                          path("port").string() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("corpus/conformance of agent-session (example/agent-session) at v1.2.3"), std::string::npos)
      << r.out;
}

// A port's known failures are passed on: listed, they no longer fail the
// step, so its CI reports only new failures (README.md step 4).
TEST_F(ConformAction, KnownFailuresArePassedOnAndNoLongerFailTheStep) {
  write(path("port"), "#!/bin/sh\necho 41\n");  // a wrong estimate, and wrong answers to the rest
  fs::permissions(path("port"), fs::perms::owner_all);
  write(path("known.txt"), "y_estimate_cjk  counts bytes  https://example.org/issues/1\n");
  const std::string port = "ONLY=y_estimate_cjk PORT='" + path("port").string() + "' ";
  ScriptRun r = run(port + "KNOWN_FAILURES='" + path("known.txt").string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("XFAIL y_estimate_cjk ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 passed, 0 failed, 1 expected failure\n"), std::string::npos) << r.out;
  EXPECT_EQ(run(port).exit_code, 1);
  // A typo in the file is the runner's usage error, and the step's.
  write(path("known.txt"), "y_estimate_cjkk counts bytes\n");
  r = run(port + "KNOWN_FAILURES='" + path("known.txt").string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("line 1: no vector named \"y_estimate_cjkk\""), std::string::npos) << r.err;
}

// With a previous JSON report, the job summary says what changed: here a
// port that broke its estimate since the report of a correct one.
TEST_F(ConformAction, APreviousReportsDiffGoesToTheJobSummary) {
  const std::string summary = "GITHUB_STEP_SUMMARY='" + path("summary.md").string() + "' ";
  ScriptRun r = run(summary + "ONLY=y_estimate_cjk JSON=reports/previous.json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path previous = dir_ / "work" / "reports" / "previous.json";
  ASSERT_TRUE(fs::exists(previous));
  write(path("port"),
        "#!/bin/sh\n[ \"$1\" = estimate ] && { echo 41; exit 0; }\nexec '" AGENT_SESSION_CLI "' \"$@\"\n");
  fs::permissions(path("port"), fs::perms::owner_all);
  r = run(summary + "ONLY=y_estimate_cjk PORT='" + path("port").string() + "' PREVIOUS_REPORT='" + previous.string() +
          "'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the run's own verdict
  const std::string markdown = read(path("summary.md"));
  EXPECT_NE(markdown.find("### Conformance: changes since the previous report\n"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("#### Newly failing (1)\n\n- `y_estimate_cjk#2` `estimate`: `stdout differs"),
            std::string::npos)
      << markdown;
  // No previous report yet (a first run): a notice, and the run's verdict.
  fs::remove(path("summary.md"));
  r = run(summary + "ONLY=y_estimate_cjk PREVIOUS_REPORT='" + path("none.json").string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("::notice title=agent-session conformance::no previous report at"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("summary.md")));
  // One that is no report stops the step, naming it.
  write(path("bad.json"), "{}");
  r = run(summary + "ONLY=y_estimate_cjk PREVIOUS_REPORT='" + path("bad.json").string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("report --diff: cannot use the report '" + path("bad.json").string() +
                       "': not an agent-session-conform JSON report"),
            std::string::npos)
      << r.err;
}

TEST_F(ConformAction, ARunnerThatIsNotLinuxStopsAtOnceSayingWhatToDo) {
  fs::create_directories(dir_ / "fake-bin");
  write(dir_ / "fake-bin" / "uname", "#!/bin/sh\necho Darwin\n");
  fs::permissions(dir_ / "fake-bin" / "uname", fs::perms::owner_all);
  const ScriptRun r = run("PATH='" + (dir_ / "fake-bin").string() + ":" + std::getenv("PATH") + "'", "install");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  for (const char* text : {"Linux only", "not on Darwin", "Docker", "WSL"}) {
    EXPECT_NE(r.err.find(text), std::string::npos) << text << "\n" << r.err;
  }
}

// `harness` is passed on as --harness (the JSON report then carries what
// the port said of itself at start), read as `strict` is.
TEST_F(ConformAction, HarnessIsPassedOnReadAsStrictIs) {
  ScriptRun r = run("ONLY=y_estimate_cjk JSON=harness.json HARNESS=True");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(nlohmann::json::parse(read(dir_ / "work" / "harness.json")).at("port").at("name"), "agent-session");
  r = run("ONLY=y_estimate_cjk JSON=exec.json HARNESS=no");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(nlohmann::json::parse(read(dir_ / "work" / "exec.json")).at("port").is_null());
  r = run("ONLY=y_estimate_cjk HARNESS=maybe");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("harness: 'maybe' is neither true"), std::string::npos) << r.err;
}

// `fuzz-seconds` fuzzes the port after the vectors: none at 0, a bad value
// stops the step, a correct port shows no difference, and a port wrong
// only where no chosen vector looks fails the step with its differences
// written under `fuzz-out`, a vector per signature, and annotated.
TEST_F(ConformAction, FuzzSecondsFuzzesThePortAfterTheVectors) {
  ScriptRun r = run("ONLY=y_user_valid FUZZ_SECONDS=0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("inputs in"), std::string::npos) << r.out;
  for (const char* bad : {"abc", "-1", "1e3", "5s"}) {
    r = run(std::string("ONLY=y_user_valid FUZZ_SECONDS=") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("fuzz-seconds: '" + std::string(bad) + "' is not a decimal"), std::string::npos) << r.err;
  }
  r = run("ONLY=y_user_valid FUZZ_SECONDS=1 HARNESS=true");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no difference"), std::string::npos) << r.out;
  // Right on append (the one vector run), wrong on every estimate.
  write(path("port"), "#!/bin/sh\n[ \"$1\" = estimate ] && { echo 0; exit 0; }\nexec '" AGENT_SESSION_CLI "' \"$@\"\n");
  fs::permissions(path("port"), fs::perms::owner_all);
  // The campaign goes on for all its seconds after the first difference
  // (one vector per signature): 5 s find this port's at the first input.
  r = run("ONLY=y_append_zero_messages FUZZ_SECONDS=5 FUZZ_OUT=found GITHUB_ACTIONS=true PORT='" +
          path("port").string() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("1 passed, 0 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("::error title=conformance fuzz difference::wrote found/fuzz_"), std::string::npos) << r.out;
  bool written = false;
  for (const auto& entry : fs::directory_iterator(dir_ / "work" / "found")) {
    written = written || fs::exists(entry.path() / "reproduce.sh");
  }
  EXPECT_TRUE(written);
}

// mode: properties judges the trimmer behind `port` on SPEC.md §5's unit
// invariants: our own CLI (through its harness mode) keeps them all, the
// job summary gives each invariant's rate and JUnit a test case each.
TEST_F(ConformAction, PropertiesModeIsCleanOnOurCli) {
  const std::string env =
      "MODE=properties PROPERTIES_RUNS=300 JUNIT=reports/p.xml JSON=reports/p.json "
      "GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY='" +
      path("summary.md").string() + "' GITHUB_OUTPUT='" + path("github-output").string() + "'";
  const ScriptRun r = run(env);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("properties: 0 violations in 300 sessions (seed 1)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("::error"), std::string::npos) << r.out;
  const std::string markdown = read(path("summary.md"));
  EXPECT_NE(markdown.find("### Trimmer properties: agent-session"), std::string::npos) << markdown;
  for (const char* label : {"orphan", "split", "suffix", "unaltered", "non-empty", "budget"}) {
    EXPECT_NE(markdown.find("| `" + std::string(label) + "` | 0 | 0.00% |"), std::string::npos) << label << markdown;
    EXPECT_NE(read(dir_ / "work" / "reports" / "p.xml").find("name=\"" + std::string(label) + "\"/>"),
              std::string::npos)
        << label;
  }
  EXPECT_EQ(nlohmann::json::parse(read(dir_ / "work" / "reports" / "p.json")).at("judged"), 300);
  EXPECT_NE(read(path("github-output")).find("properties-out=agent-session-properties-found\n"), std::string::npos);
}

// A planted trimmer that keeps the last N messages orphans tool results:
// the step fails, each shrunk violation annotated with its invariant and
// case file (which exists), and the summary's orphan rate is not zero.
// A title is a workflow command's property: %, colon and comma in it are
// escaped (as_property in conform/github-action.sh), or GitHub cuts the
// title there.
TEST_F(ConformAction, AnAnnotationsTitleEscapesPercentColonAndComma) {
  const ScriptRun r =
      run("MODE=properties PROPERTIES_SEED=3 PROPERTIES_RUNS=100 PROPERTIES_OUT='f%o,u:nd' "
          "GITHUB_ACTIONS=true PORT='node " +
          kSource + "/conform/tests/properties/keep_last.mjs'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("::error title=properties orphan (f%25o%2Cu%3And/orphan-1/session.jsonl)::VIOLATION orphan: "),
            std::string::npos)
      << r.out;
}

TEST_F(ConformAction, PropertiesModeAnnotatesEachViolationWithItsInvariantAndCase) {
  const ScriptRun r =
      run("MODE=properties PROPERTIES_SEED=3 PROPERTIES_RUNS=100 PROPERTIES_OUT=found "
          "GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY='" +
          path("summary.md").string() + "' PORT='node " + kSource + "/conform/tests/properties/keep_last.mjs'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string annotation = "::error title=properties orphan (found/orphan-1/session.jsonl)::VIOLATION orphan: ";
  EXPECT_NE(r.out.find(annotation), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "work" / "found" / "orphan-1" / "session.jsonl"));
  std::size_t violations = 0, annotations = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    violations += line.rfind("VIOLATION ", 0) == 0;
    annotations += line.rfind("::error title=properties ", 0) == 0;
  }
  EXPECT_GT(violations, 0u);
  EXPECT_EQ(annotations, violations) << r.out;
  const std::string markdown = read(path("summary.md"));
  EXPECT_NE(markdown.find("| `orphan` | "), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("| `orphan` | 0 |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("`found/orphan-1/session.jsonl` (2 messages, budget 1)"), std::string::npos) << markdown;
}

// An unknown mode, and an input of mode conformance given in mode
// properties, stop the step (exit 2) naming it; the properties mode's own
// usage errors are exit 2 too.
TEST_F(ConformAction, ModeIsConformanceOrPropertiesAndTheOtherModesInputsAreRefused) {
  ScriptRun r = run("MODE=vectors");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("mode: 'vectors' is neither conformance"), std::string::npos) << r.err;
  for (const char* env : {"ONLY=y_user_valid", "KNOWN_FAILURES=k.txt", "SKIP_FILE=s.txt", "PREVIOUS_REPORT=p.json",
                          "STRICT=true", "FUZZ_SECONDS=5"}) {
    r = run(std::string("MODE=properties PROPERTIES_RUNS=5 ") + env);
    EXPECT_EQ(r.exit_code, 2) << env << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("is an input of mode conformance, not of mode properties"), std::string::npos) << r.err;
  }
  r = run("MODE=properties PROPERTIES_RUNS=lots");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--runs: \"lots\" is not a whole number"), std::string::npos) << r.err;
  // The default mode is conformance: the vectors run.
  r = run("MODE=conformance ONLY=y_user_valid");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 passed, 0 failed"), std::string::npos) << r.out;
}

// Every input action.yml declares reaches the script (an input declared
// and never passed on is silently ignored by GitHub).
TEST(ConformActionInputs, EveryInputIsPassedOn) {
  const std::string action = [] {
    std::ifstream file(kSource + "/conform/action.yml");
    return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }();
  const auto inputs_at = action.find("\ninputs:\n"), outputs_at = action.find("\noutputs:\n");
  ASSERT_NE(inputs_at, std::string::npos);
  ASSERT_NE(outputs_at, std::string::npos);
  std::istringstream lines(action.substr(inputs_at, outputs_at - inputs_at));
  int inputs = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.size() < 4 || line.substr(0, 2) != "  " || line[2] == ' ' || line.back() != ':') continue;
    const std::string name = line.substr(2, line.size() - 3);
    ++inputs;
    EXPECT_NE(action.find("${{ inputs." + name + " }}"), std::string::npos) << name;
  }
  EXPECT_GE(inputs, 15);
  for (const char* name : {"harness", "json-report", "known-failures", "fuzz-seconds", "mode", "properties-seed",
                           "properties-runs", "properties-out"}) {
    EXPECT_NE(action.find("\n  " + std::string(name) + ":\n"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace agent_session
