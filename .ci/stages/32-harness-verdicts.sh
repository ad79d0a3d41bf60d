#!/usr/bin/env bash
# `conform --harness` gives exec mode's verdict, check by check
# (corpus/conformance/harness.md), for the JavaScript oracle on every
# vector and for each mutant port in tests/mutants/: the same exit status,
# the same FAIL lines, and the same JSON report (corpus/conformance/reports.md)
# once its timings are removed. ctest compares each port on a subset
# (conform/tests/harness_test.cpp, HarnessSameVerdictsJavaScript: the
# vectors the port fails and a spread of the rest); this is the large one
# for the oracle: every vector. Exec mode starts Node.js once per check
# (about two minutes a port for every vector on 2 cores), so the
# mutants, nineteen of them, are left to ctest unless MUTANT_SPREAD=K
# asks for every vector a mutant fails and every K-th of the rest here
# too; HARNESS_VERDICTS_FULL=1 runs every port on every vector (about 40
# minutes).
set -euo pipefail
stage_start=$SECONDS
cli=${CONFORM_CLI:-build/agent-session}
work=${HARNESS_VERDICTS_DIR:-build/harness-verdicts}
spread=${MUTANT_SPREAD:-0} # 0: the mutants are ctest's
[ "${HARNESS_VERDICTS_FULL:-0}" = 1 ] && spread=1
rm -rf "$work"
mkdir -p "$work"

# The built-in missing-FILE vector (SPEC.md §6) names a path made from the
# runner's process id, so two runs differ there whatever the port does.
same_absent_path() { sed -E 's#/agent-session-conform-[0-9]+-[0-9]+-absent/#/agent-session-conform-PID-N-absent/#g'; }

# The JSON report without its timings and `port` (only a harness port says
# who it is), keys sorted, one field a line: what the two modes must agree on.
verdicts() {
  python3 -c '
import json, sys
report = json.load(open(sys.argv[1]))
report["summary"].pop("seconds", None)
report.pop("port", None)  # what a harness port says of itself at start; exec mode has no start
for vector in report["results"]:
    vector.pop("seconds", None)
    for check in vector.get("checks", []):
        check.pop("seconds", None)
json.dump(report, sys.stdout, indent=1, sort_keys=True)
print()' "$1" | same_absent_path
}

# The vectors to compare for a port: all of them with a spread of 1; else
# those it fails in harness mode and every spread-th of the rest.
selection() { # selection NAME SPREAD PORT...: prints --only arguments, one a line
  local name=$1 spread=$2
  shift 2
  [ "$spread" -eq 1 ] && return 0
  "$cli" conform --harness --jobs 2 --report "json=$work/$name.select.json" -- "$@" >/dev/null || true
  {
    python3 -c '
import json, sys
for vector in json.load(open(sys.argv[1]))["results"]:
    if vector["verdict"] != "pass":
        print(vector["name"])' "$work/$name.select.json"
    "$cli" conform --list | awk -v k="$spread" '(NR - 1) % k == 0'
  } | sort -u | sed 's/^/--only\n/'
}

failed=()
compare() { # compare NAME SPREAD PORT...
  local name=$1 spread=$2 start=$SECONDS exec_status=0 harness_status=0 problem=""
  shift 2
  local only=()
  mapfile -t only < <(selection "$name" "$spread" "$@")
  "$cli" conform --jobs 2 --timeout 60 "${only[@]}" --report "json=$work/$name.exec.json" -- "$@" \
    >"$work/$name.exec.out" 2>"$work/$name.exec.err" || exec_status=$?
  "$cli" conform --harness --jobs 2 --timeout 60 "${only[@]}" --report "json=$work/$name.harness.json" -- "$@" \
    >"$work/$name.harness.out" 2>"$work/$name.harness.err" || harness_status=$?
  if [ "$exec_status" -gt 1 ]; then
    problem="exec mode could not run (exit $exec_status): $(head -c 300 "$work/$name.exec.err")"
  elif [ "$harness_status" -ne "$exec_status" ]; then
    problem="exit $harness_status in harness mode, $exec_status in exec mode: $(head -c 300 "$work/$name.harness.err")"
  elif ! diff -u <(same_absent_path <"$work/$name.exec.out") <(same_absent_path <"$work/$name.harness.out") \
    >"$work/$name.out.diff"; then
    problem="standard output differs ($work/$name.out.diff): $(sed -n 3,6p "$work/$name.out.diff" | tr '\n' ' ')"
  elif ! diff -u <(verdicts "$work/$name.exec.json") <(verdicts "$work/$name.harness.json") >"$work/$name.json.diff"; then
    problem="the reports differ ($work/$name.json.diff): $(grep -m4 '^[-+] ' "$work/$name.json.diff" | tr '\n' ' ')"
  fi
  local summary
  summary=$(tail -1 "$work/$name.exec.out")
  if [ -n "$problem" ]; then
    printf 'FAIL %-26s %4d s  %s\n' "$name" $((SECONDS - start)) "$problem"
    failed+=("$name")
  else
    printf 'ok   %-26s %4d s  %s (%s), exit %d in both modes\n' "$name" $((SECONDS - start)) "$summary" \
      "$([ ${#only[@]} -eq 0 ] && echo "every vector" || echo "a subset")" "$exec_status"
  fi
}

compare oracle 1 node tests/oracle/cli.mjs
for mutant in tests/mutants/*.mjs; do
  [ "$spread" -eq 0 ] && break
  [ "$(basename "$mutant")" = mutate.mjs ] && continue # builds the mutants; not a port
  compare "$(basename "$mutant" .mjs)" "$spread" node "$mutant"
done
echo "harness verdicts: $((SECONDS - stage_start)) s"
if ((${#failed[@]} > 0)); then
  echo "harness mode differs from exec mode for ${failed[*]}" >&2
  exit 1
fi
