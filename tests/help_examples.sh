#!/usr/bin/env bash
# Every --help of agent-session and agent-session-conform (each command,
# each subcommand and mode the kit's help names) exits 0 and shows at least
# one example, and every example runs as written: from a clone's root (a
# scratch folder holding links to the source tree's corpus, tests, conform
# and SPEC.md) with both programs on PATH, in the order the help gives
# them, each exiting 0, or N when the line ends with `# exit N`.
#
# Usage: tests/help_examples.sh AGENT_SESSION AGENT_SESSION_CONFORM SOURCE_DIR
# Exit 0 when every help and example behaves, 1 otherwise.
set -uo pipefail
cli=$1 kit=$2 source=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
seen=()

fail() {
  echo "help-examples: $*"
  failures=$((failures + 1))
}

# examples HELP: the example lines of a help text, continuations joined:
# the indented lines after a line `Example:`, `Examples:` or `Example (...):`.
examples() {
  awk '
    /^Examples?( \(.*\))?:$/ { on = 1; next }
    on && /^  / { line = line substr($0, 3); if (line ~ /\\$/) { sub(/\\$/, "", line); next } print line; line = ""; next }
    { on = 0 }
  ' <<<"$1"
}

# run_help WORDS...: the help of `WORDS... --help`, checked and its
# examples run in a fresh clone-like folder.
run_help() {
  local help code shown="$*"
  help=$("$@" --help 2>&1)
  code=$?
  [ "$code" = 0 ] || { fail "'$shown --help' exits $code"; return; }
  local lines
  lines=$(examples "$help")
  [ -n "$lines" ] || { fail "'$shown --help' shows no example"; return; }
  # The kit's help is shown by both programs: its examples run once.
  local block
  for block in "${seen[@]+"${seen[@]}"}"; do [ "$block" = "$lines" ] && return; done
  seen+=("$lines")
  local scratch="$work/clone-${#seen[@]}"
  mkdir -p "$scratch/bin"
  for part in corpus tests conform SPEC.md; do ln -s "$source/$part" "$scratch/$part"; done
  ln -s "$cli" "$scratch/bin/agent-session"
  ln -s "$kit" "$scratch/bin/agent-session-conform"
  local example expected started out
  while IFS= read -r example; do
    expected=0
    [[ $example =~ \#\ exit\ ([0-9]+) ]] && expected=${BASH_REMATCH[1]}
    started=$SECONDS
    out=$(cd "$scratch" && PATH="$scratch/bin:$PATH" timeout 300 bash -c "$example" 2>&1 </dev/null)
    code=$?
    if [ "$code" = "$expected" ]; then
      echo "ok   ($((SECONDS - started)) s) $example"
    else
      fail "'$shown --help': exit $code, expected $expected: $example"$'\n'"$(tail -5 <<<"$out")"
    fi
  done <<<"$lines"
}

run_help "$cli"
# Every command agent-session's help lists, from its Subcommands: section.
commands=$("$cli" --help | awk '/^Subcommands:/ { on = 1; next } /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }')
[ -n "$commands" ] || fail "agent-session --help lists no command"
for command in $commands; do run_help "$cli" "$command"; done

run_help "$kit"
# Every mode the kit's help names ('agent-session-conform MODE ...'), and
# `report --diff`, which is a mode of its own.
modes=$("$kit" --help | sed -n "s/^'agent-session-conform \([a-z-]*\)\( --diff\)\{0,1\}.*/\1\2/p" | sort -u)
[ -n "$modes" ] || fail "agent-session-conform --help names no mode"
while IFS= read -r mode; do
  # shellcheck disable=SC2086 # `report --diff` is two words
  run_help "$kit" $mode
done <<<"$modes"

if [ "$failures" -gt 0 ]; then
  echo "help-examples: $failures failed"
  exit 1
fi
echo "help-examples: every help shows examples, and every example runs as written"
