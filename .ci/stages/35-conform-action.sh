#!/usr/bin/env bash
# The GitHub Action for ports (conform/action.yml) as a port's CI runs it:
# its own script builds the runner (and the command) from the project,
# without tests, benchmarks or the fast path, installs them with the
# vectors, and runs it on the JavaScript oracle (every vector must pass),
# then on a mutant port with GitHub's annotations on (it must fail, with
# one ::error line per failing check and a JUnit report naming it). The
# build now compiles the library too (the runner's `fuzz` links it): its
# time is printed below ("runner built in N s"), not yet measured on CI.
set -euo pipefail
work=$PWD/build-action
rm -rf "$work"
mkdir -p "$work"
export PREFIX=$work/prefix
action=conform/github-action.sh
start=$SECONDS
bash $action install
bash $action key
bash $action build
echo "runner built in $((SECONDS - start)) s"

JUNIT=$work/oracle.xml PORT="node tests/oracle/cli.mjs" bash $action run

status=0
GITHUB_ACTIONS=true GITHUB_OUTPUT=$work/github-output JUNIT=$work/mutant.xml ONLY='y_trim_*' \
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
echo "mutant port: $failures failing checks, each annotated; JUnit report in $work/mutant.xml"
echo "conformance action: $((SECONDS - start)) s"
