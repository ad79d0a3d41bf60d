#!/usr/bin/env bash
# fuzz_port's comparison, replayed without libFuzzer (fuzz_port_replay):
# our command line shows no difference on a corpus; a mutant port does,
# and the vector written for it fails the mutant and passes the oracle and
# our command line; with no port named and none beside it, a clear exit 2.
# usage: fuzz_port_test.sh REPLAY AGENT_SESSION AGENT_SESSION_CONFORM SOURCE_DIR
set -euo pipefail
replay=$1 cli=$2 conform=$3 src=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus=$src/corpus/fuzz/fuzz_port
fail() { echo "fuzz_port_test: $*" >&2; exit 1; }

AGENT_SESSION_PORT=$cli AGENT_SESSION_FUZZ_OUT=$work/ours "$replay" "$corpus" >"$work/ours.out" 2>"$work/ours.err" ||
  fail "our command line differs from the reference: $(grep 'fuzz_port:' "$work/ours.err")"
grep -q "inputs replayed" "$work/ours.out" || fail "nothing was replayed"
[ ! -e "$work/ours" ] || fail "a vector was written for our own command line"

mutant="node $src/tests/mutants/utf8_bytes.mjs"
status=0
AGENT_SESSION_PORT=$mutant AGENT_SESSION_FUZZ_OUT=$work/found "$replay" "$corpus" >/dev/null 2>"$work/mutant.err" ||
  status=$?
[ "$status" -ne 0 ] || fail "the mutant utf8_bytes.mjs showed no difference"
grep -q "^fuzz_port: the port differs from the reference: .* failed " "$work/mutant.err" ||
  fail "no difference reported: $(tail -3 "$work/mutant.err")"
vector=$(find "$work/found" -mindepth 1 -maxdepth 1 -type d | head -1)
[ -n "$vector" ] && [ -s "$vector/input.jsonl" ] && [ -s "$vector/expect.json" ] || fail "no vector folder written"
name=$(basename "$vector")
"$conform" --vectors "$work/found" --only "$name" --harness -- $mutant >"$work/v-mutant.out" 2>&1 &&
  fail "the mutant passes its own vector: $(tail -3 "$work/v-mutant.out")"
"$conform" --vectors "$work/found" --only "$name" --harness -- node "$src/tests/oracle/cli.mjs" >"$work/v-oracle.out" 2>&1 ||
  fail "the oracle fails the vector: $(tail -5 "$work/v-oracle.out")"
"$conform" --vectors "$work/found" --only "$name" -- "$cli" >"$work/v-cli.out" 2>&1 ||
  fail "our command line fails the vector: $(tail -5 "$work/v-cli.out")"

status=0
env -u AGENT_SESSION_PORT "$replay" "$corpus" >/dev/null 2>"$work/none.err" || status=$?
[ "$status" -eq 2 ] || fail "no port: exit $status, not 2"
grep -q "^fuzz_port: AGENT_SESSION_PORT is not set and there is no .*/agent-session$" "$work/none.err" ||
  fail "no port: $(cat "$work/none.err")"
echo "fuzz_port_test: our CLI agrees on $(grep -o '[0-9]* inputs' "$work/ours.out"); utf8_bytes.mjs differs, and its vector $name fails it and passes the oracle and our CLI"
