"""A real JUnit consumer reads a run with a known-failures file (corpus/conformance/reports.md).

Runs `agent-session conform` in harness mode on the mutant port that
counts bytes instead of UTF-16 code units, over the estimate vectors,
once without a known-failures file to learn which vectors fail, then
with a file that lists each of them (README.md step 4). The second run
must pass (exit 0), and its JUnit report, read with junitparser (Debian's
python3-junitparser), must hold no failure: each run that failed the
first time is a skipped test case whose message is "expected failure: "
and its reason, and the counts add up. Exit 0 when it does; 1 with the
reason otherwise.

Usage: read_known_failures.py AGENT_SESSION_CLI SOURCE_DIR WORK_DIR
"""
import os
import subprocess
import sys

from junitparser import Failure, JUnitXml, Skipped


def conform(cli, source, report, *options):
    return subprocess.run(
        [cli, "conform", "--harness", "--only", "y_estimate_*", "--report", f"junit={report}", *options,
         "--", "node", "tests/mutants/utf8_bytes.mjs"],
        cwd=source, capture_output=True, text=True)


def main(cli, source, work):
    os.makedirs(work, exist_ok=True)
    first = conform(cli, source, os.path.join(work, "first.xml"))
    if first.returncode != 1:
        return f"the mutant port should fail (exit 1), got {first.returncode}: {first.stderr}"
    failing = sorted({line.split(" (")[0][len("FAIL "):] for line in first.stdout.splitlines()
                      if line.startswith("FAIL ")})
    before = JUnitXml.fromfile(os.path.join(work, "first.xml"))
    failed_before = {(case.classname, case.name) for suite in before for case in suite
                     if any(isinstance(r, Failure) for r in case.result)}
    known = os.path.join(work, "known-failures.txt")
    with open(known, "w", encoding="utf-8") as file:
        file.write("# the mutant's failures\n")
        for name in failing:
            file.write(f"{name}   counts UTF-8 bytes, not UTF-16 code units   https://example.org/issues/1\n")
    report = os.path.join(work, "known.xml")
    second = conform(cli, source, report, "--known-failures", known)
    if second.returncode != 0:
        return f"with every failure listed the run should pass (exit 0), got {second.returncode}: {second.stdout}"
    xml = JUnitXml.fromfile(report)
    cases = [case for suite in xml for case in suite]
    if any(isinstance(r, Failure) for case in cases for r in case.result):
        return "a listed failure is still a <failure>"
    skipped = {(case.classname, case.name): case.result[0] for case in cases
               if any(isinstance(r, Skipped) for r in case.result)}
    if set(skipped) != failed_before:
        return f"skipped cases {sorted(skipped)} != the failures of the first run {sorted(failed_before)}"
    want = "expected failure: counts UTF-8 bytes, not UTF-16 code units (https://example.org/issues/1)"
    for key, result in skipped.items():
        if result.message != want or "reproduce: node tests/mutants/utf8_bytes.mjs" not in (result.text or ""):
            return f"{key}: message {result.message!r}, text {result.text!r}"
    if xml.tests != len(cases) or xml.failures != 0 or xml.skipped != len(skipped):
        return f"counts: tests={xml.tests} failures={xml.failures} skipped={xml.skipped}, cases {len(cases)}"
    print(f"junitparser read {len(cases)} cases, {len(skipped)} expected failures in {len(failing)} vectors")
    return None


if __name__ == "__main__":
    problem = main(*sys.argv[1:4])
    if problem:
        print(f"read_known_failures.py: {problem}")
        sys.exit(1)
