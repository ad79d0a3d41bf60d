#!/usr/bin/env bash
# The GitHub Action for ports (conform/action.yml) as a port's CI runs it
# after a cache hit: 20-reference-build.sh ran the Action's build step
# (the runner and the command, built from the project without tests,
# benchmarks or the fast path, installed with the vectors under
# build-action/prefix); here its other steps run on that install: install
# (the dependencies, present), key, then run on the JavaScript oracle
# in harness mode (every vector must pass) and on a mutant port with GitHub's annotations
# on (it must fail, with one ::error line per failing check and a JUnit
# report naming it, and with the oracle's JSON report as its previous
# report, a job summary naming its newly failing checks); then in mode
# properties, on our CLI through its harness (SPEC.md §5's unit
# invariants kept: exit 0) and on a planted trimmer that keeps the last N
# messages (it must fail, one ::error line per shrunk violation naming
# its invariant and case file, the job summary's orphan rate above 0).
set -euo pipefail
work=$PWD/build-action
export PREFIX=$work/prefix
action=conform/github-action.sh
[ -x "$PREFIX/bin/agent-session-conform" ] ||
  { echo "no runner in $PREFIX: 20-reference-build.sh runs the Action's build step first" >&2; exit 1; }
# failed_annotated STATUS LOG FINDING ANNOTATION WHAT: the action run on
# WHAT exited 1, and LOG holds at least one FINDING line and exactly one
# ANNOTATION line (grep patterns) per finding; else the stage fails.
# Sets `findings` to their number.
failed_annotated() {
  local status=$1 log=$2 finding=$3 annotation=$4 what=$5 annotations
  if [ "$status" -ne 1 ]; then
    echo "the action passed $what (exit $status):" >&2
    tail -5 "$log" >&2
    exit 1
  fi
  findings=$(grep -c -- "$finding" "$log")
  annotations=$(grep -c -- "$annotation" "$log")
  if [ "$findings" -eq 0 ] || [ "$annotations" -ne "$findings" ]; then
    echo "expected one annotation per finding of $what: $findings '$finding' lines, $annotations annotations" >&2
    exit 1
  fi
}
start=$SECONDS
bash $action install
bash $action key

# The oracle in harness mode (one Node.js process, not one per check: exec
# mode on every vector is tools/harness-verdicts', and the mutant below
# runs in exec mode here).
HARNESS=true JUNIT=$work/oracle.xml JSON=$work/oracle.json PORT="node tests/oracle/cli.mjs" bash $action run

status=0
rm -f "$work/summary.md"
GITHUB_ACTIONS=true GITHUB_OUTPUT=$work/github-output GITHUB_STEP_SUMMARY=$work/summary.md JUNIT=$work/mutant.xml \
  JSON=$work/mutant.json PREVIOUS_REPORT=$work/oracle.json ONLY='y_trim_*' \
  PORT="node tests/mutants/trim_by_message.mjs" bash $action run >"$work/mutant.log" || status=$?
failed_annotated "$status" "$work/mutant.log" '^FAIL ' '^::error title=conformance ' "a mutant port"
grep -q '<failure' "$work/mutant.xml" || { echo "the JUnit report names no failure" >&2; exit 1; }
grep -q '^junit=' "$work/github-output" || { echo "the action set no junit output" >&2; exit 1; }
grep -q '^#### Newly failing' "$work/summary.md" ||
  { echo "the job summary names no newly failing check against the oracle's report" >&2; exit 1; }
echo "mutant port: $findings failing checks, each annotated; JUnit report in $work/mutant.xml"

MODE=properties PROPERTIES_RUNS=1000 PROPERTIES_OUT=$work/self-found JUNIT=$work/self-properties.xml \
  JSON=$work/self-properties.json PORT="$PREFIX/bin/agent-session" bash $action run
status=0
rm -f "$work/properties-summary.md"
rm -rf "$work/planted-found"
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$work/properties-summary.md MODE=properties PROPERTIES_RUNS=200 \
  PROPERTIES_OUT=$work/planted-found JUNIT=$work/planted.xml JSON=$work/planted.json \
  PORT="node conform/tests/properties/keep_last.mjs" bash $action run >"$work/planted.log" || status=$?
failed_annotated "$status" "$work/planted.log" '^VIOLATION orphan: ' \
  "^::error title=properties orphan ($work/planted-found/orphan-" "a trimmer that orphans tool results"
grep -q '^| `orphan` | [1-9]' "$work/properties-summary.md" ||
  { echo "the job summary gives no orphan rate above 0" >&2; exit 1; }
grep -q '<testcase classname="properties" name="orphan">' "$work/planted.xml" ||
  { echo "the JUnit report has no failed orphan test case" >&2; exit 1; }
echo "planted trimmer: $findings shrunk orphans, each annotated; JUnit report in $work/planted.xml"
echo "conformance action: $((SECONDS - start)) s"
