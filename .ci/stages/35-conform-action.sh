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
# report, a job summary naming its newly failing checks).
set -euo pipefail
work=$PWD/build-action
export PREFIX=$work/prefix
action=conform/github-action.sh
[ -x "$PREFIX/bin/agent-session-conform" ] ||
  { echo "no runner in $PREFIX: 20-reference-build.sh runs the Action's build step first" >&2; exit 1; }
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
if [ "$status" -ne 1 ]; then
  echo "the action passed a mutant port (exit $status):" >&2
  tail -5 "$work/mutant.log" >&2
  exit 1
fi
failures=$(grep -c '^FAIL ' "$work/mutant.log")
annotations=$(grep -c '^::error title=conformance ' "$work/mutant.log")
if [ "$failures" -eq 0 ] || [ "$annotations" -ne "$failures" ]; then
  echo "expected one annotation per failing check: $failures FAIL lines, $annotations annotations" >&2
  exit 1
fi
grep -q '<failure' "$work/mutant.xml" || { echo "the JUnit report names no failure" >&2; exit 1; }
grep -q '^junit=' "$work/github-output" || { echo "the action set no junit output" >&2; exit 1; }
grep -q '^#### Newly failing' "$work/summary.md" ||
  { echo "the job summary names no newly failing check against the oracle's report" >&2; exit 1; }
echo "mutant port: $failures failing checks, each annotated; JUnit report in $work/mutant.xml"
echo "conformance action: $((SECONDS - start)) s"
