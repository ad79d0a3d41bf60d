#!/usr/bin/env bash
# `agent-session conform ARGS...` is `agent-session-conform ARGS...`: the
# command runs the runner found beside it (the installed layout,
# <prefix>/bin) or in the build tree's conform/ folder, in its place
# (exec), so the exit code and both outputs are the runner's own; and
# with no runner in either place it exits 2 naming each place it looked
# (src/cli/kit_forward.hpp).
# Usage: tests/conform_forwarding.sh AGENT_SESSION AGENT_SESSION_CONFORM,
# the pair of a build tree or of an installed prefix. Exit 0 when every
# case holds, 1 otherwise, each failure on its own line.
set -uo pipefail
command=$1 runner=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "conform_forwarding: $*"
  failures=$((failures + 1))
}

# same WORDS...: `agent-session conform WORDS...` exits and prints as
# `agent-session-conform WORDS...` does (elapsed times aside); its exit in
# `code`.
same() {
  local through direct
  "$command" conform "$@" >"$work/through.out" 2>"$work/through.err" </dev/null
  through=$?
  "$runner" "$@" >"$work/direct.out" 2>"$work/direct.err" </dev/null
  direct=$?
  [ "$through" -eq "$direct" ] || fail "conform $*: exit $through, the runner's is $direct"
  for stream in out err; do
    # The one thing two runs may differ in: how long they took.
    sed -i -E 's/[0-9]+([.][0-9]+)? ?(s|ms)\b/N s/g' "$work/through.$stream" "$work/direct.$stream"
    cmp -s "$work/through.$stream" "$work/direct.$stream" ||
      fail "conform $*: standard $stream differs from the runner's: $(diff "$work/direct.$stream" "$work/through.$stream" | head -5)"
  done
  code=$through
}

same --version
[ "$code" = 0 ] || fail "conform --version: exit $code"
grep -q '^agent-session conform [0-9]' "$work/through.out" || fail "conform --version printed no runner version: $(cat "$work/through.out")"
# A short conformance run of the command itself, through the command.
same --only 'y_append_*' --only y_estimate_cjk -- "$command"
[ "$code" = 0 ] || fail "a conformance run through the command: exit $code: $(tail -3 "$work/through.out")"
grep -q 'passed' "$work/through.out" || fail "a conformance run printed no summary: $(tail -3 "$work/through.out")"
same --jobs 0 -- "$command"
[ "$code" = 2 ] || fail "conform --jobs 0: exit $code, expected the runner's usage error (2)"
same fuzz --help
[ "$code" = 0 ] || fail "conform fuzz --help: exit $code"

# No runner beside it nor under conform/: exit 2, each place named.
mkdir "$work/alone"
cp "$command" "$work/alone/agent-session"
"$work/alone/agent-session" conform --version >"$work/alone.out" 2>"$work/alone.err"
code=$?
[ "$code" -eq 2 ] || fail "a command with no runner beside it: exit $code, expected 2"
[ -s "$work/alone.out" ] && fail "a command with no runner beside it wrote on standard output: $(cat "$work/alone.out")"
for place in "$work/alone/agent-session-conform" "$work/alone/conform/agent-session-conform"; do
  grep -qF "$place" "$work/alone.err" || fail "a command with no runner beside it does not name $place: $(cat "$work/alone.err")"
done

[ "$failures" -eq 0 ] && echo "conform_forwarding: $command conform runs $runner, and says where it looked when it is missing"
exit $((failures > 0))
