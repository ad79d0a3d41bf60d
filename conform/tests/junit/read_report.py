"""A real JUnit consumer reads the runner's report (corpus/conformance/reports.md).

Runs `agent-session conform` on a mutant port that counts bytes instead of
UTF-16 code units, over the estimate vectors in harness mode (the JUnit
report is the same in exec mode: harness_test), then reads the JUnit report
with junitparser (Debian's python3-junitparser, the library CI tools such
as test-reporting actions build on) and checks that it names exactly the
failing vectors and checks, with the reproducing command, and that its
counts add up. Exit 0 when it does; 1 with the reason otherwise.

Usage: read_report.py AGENT_SESSION_CLI SOURCE_DIR REPORT_PATH
"""
import subprocess
import sys

from junitparser import Failure, JUnitXml


def main(cli, source, report):
    run = subprocess.run(
        [cli, "conform", "--harness", "--only", "y_estimate_*", "--report", f"junit={report}",
         "--", "node", "tests/mutants/utf8_bytes.mjs"],
        cwd=source, capture_output=True, text=True)
    if run.returncode != 1:
        return f"the mutant port should fail (exit 1), got {run.returncode}: {run.stderr}"
    failing_lines = {line.split(" (")[0][len("FAIL "):] for line in run.stdout.splitlines() if line.startswith("FAIL ")}

    xml = JUnitXml.fromfile(report)
    cases = [case for suite in xml for case in suite]
    failed = [case for case in cases if any(isinstance(r, Failure) for r in case.result)]
    if not failed:
        return "the report names no failure"
    if xml.tests != len(cases) or xml.failures != len(failed):
        return f"counts: tests={xml.tests} failures={xml.failures}, cases {len(cases)}, failed {len(failed)}"
    if {case.classname for case in failed} != failing_lines:
        return f"failed vectors {sorted({c.classname for c in failed})} != FAIL lines {sorted(failing_lines)}"
    for case in failed:
        text = case.result[0].text or ""
        if not case.name or "reproduce: node tests/mutants/utf8_bytes.mjs" not in text:
            return f"{case.classname} / {case.name}: no check name or reproduce command in {text!r}"
    if "y_estimate_cjk" not in failing_lines:
        return f"y_estimate_cjk (3-byte characters, 1 unit each) should fail: {sorted(failing_lines)}"
    print(f"junitparser read {len(cases)} cases, {len(failed)} failures in {len(failing_lines)} vectors")
    return None


if __name__ == "__main__":
    problem = main(*sys.argv[1:4])
    if problem:
        print(f"read_report.py: {problem}")
        sys.exit(1)
