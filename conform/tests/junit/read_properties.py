"""A real JUnit consumer and the schemas' validator read the properties mode's reports.

Runs `agent-session-conform properties` on two trimmers of
conform/tests/properties/: keep_last.mjs, which keeps the newest N messages
and so orphans tool results (SPEC.md §5.1), and whole_units.mjs, which
keeps whole units. Reads each JUnit report with junitparser (Debian's
python3-junitparser) and checks that it holds one test case per invariant,
named by its label; that the ones the JSON report counts violations of
failed, with the count, the rate and the first shrunk case's file (which
exists) in the failure's message, and the others passed. Each JSON report
is checked against properties-report.schema.json by
corpus/conformance-schema/validate.py, and its rates and case files
against its counts. Exit 0 when all holds; 1 with the reason otherwise.

Usage: read_properties.py AGENT_SESSION_CONFORM SOURCE_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

from junitparser import Failure, JUnitXml

LABELS = ["orphan", "split", "suffix", "unaltered", "non-empty", "budget"]


def judge(conform, source, work, trimmer, expected_exit):
    """Runs the properties mode on TRIMMER; the problem, or None."""
    folder = os.path.join(work, trimmer)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    xml_path, json_path = os.path.join(folder, "r.xml"), os.path.join(folder, "r.json")
    run = subprocess.run(
        [conform, "properties", "--seed", "3", "--runs", "150", "--out", os.path.join(folder, "found"),
         "--report", f"junit={xml_path}", "--report", f"json={json_path}",
         "--", "node", os.path.join(source, "conform/tests/properties", trimmer + ".mjs")],
        capture_output=True, text=True)
    if run.returncode != expected_exit:
        return f"{trimmer}: exit {run.returncode}, not {expected_exit}: {run.stdout[-400:]}{run.stderr}"
    validate = subprocess.run(
        [sys.executable, os.path.join(source, "corpus/conformance-schema/validate.py"), "--properties", json_path],
        capture_output=True, text=True)
    if validate.returncode != 0:
        return f"{trimmer}: the JSON report fails its schema: {validate.stderr}"
    with open(json_path, encoding="utf-8") as file:
        report = json.load(file)
    judged = report["judged"]
    if judged != 150:
        return f"{trimmer}: judged {judged} of 150 sessions"

    xml = JUnitXml.fromfile(xml_path)
    cases = {case.name: case for suite in xml for case in suite}
    if sorted(cases) != sorted(LABELS) or sum(1 for suite in xml for _ in suite) != len(LABELS):
        return f"{trimmer}: test cases {sorted(cases)}, not one per invariant {LABELS}"
    broken = [label for label in LABELS if report["invariants"][label]["violations"]]
    if xml.tests != len(LABELS) or xml.failures != len(broken):
        return f"{trimmer}: counts tests={xml.tests} failures={xml.failures}, broken {broken}"
    for label in LABELS:
        entry = report["invariants"][label]
        if abs(entry["rate"] - entry["violations"] / judged) > 1e-12:
            return f"{trimmer}: {label}'s rate {entry['rate']} is not {entry['violations']} / {judged}"
        for case_file in entry["cases"]:
            if not os.path.isfile(case_file) or not os.path.isfile(os.path.join(os.path.dirname(case_file), "budget")):
                return f"{trimmer}: {label}'s case {case_file} is not a written case"
        failures = [r for r in cases[label].result if isinstance(r, Failure)]
        if label not in broken:
            if failures or entry["cases"]:
                return f"{trimmer}: {label} was not broken, yet its test case failed or it has cases"
            continue
        if len(failures) != 1:
            return f"{trimmer}: {label} was broken {entry['violations']} times, yet its test case did not fail"
        message = failures[0].message or ""
        rate = f"{100 * entry['rate']:.1f}%"
        first = entry["cases"][0] if entry["cases"] else None
        if not message.startswith(f"{entry['violations']} of {judged} sessions ({rate})") or \
                not first or f"first case: {first} (" not in message:
            return f"{trimmer}: {label}'s failure message {message!r} lacks the count, the rate or {first}"
    print(f"{trimmer}: junitparser read {len(cases)} invariants, {len(broken)} failed ({', '.join(broken) or 'none'})")
    return None


def main(conform, source, work):
    problem = judge(conform, source, work, "keep_last", 1)
    if problem is None:
        problem = judge(conform, source, work, "whole_units", 0)
    return problem


if __name__ == "__main__":
    problem = main(*sys.argv[1:4])
    if problem:
        print(f"read_properties.py: {problem}")
        sys.exit(1)
