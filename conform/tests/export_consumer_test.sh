#!/bin/sh
# ctest conform_export_consumer: a port's own test suite run on the export
# (conform/tests/export_consumer.py, the standard library alone), as
# corpus/conformance/README.md "The vectors as one document" shows it:
# every vector and every runner check passes our CLI, and mutant ports
# (tests/mutants/) fail, each on the vectors that catch it, by name.
# Usage: export_consumer_test.sh CONFORM CLI PYTHON SOURCE_DIR WORK_DIR
set -u
conform=$1 cli=$2 python=$3 source=$4 work=$5
consumer=$source/conform/tests/export_consumer.py
failures=0
fail() {
  echo "export_consumer_test: $*"
  failures=$((failures + 1))
}
rm -rf "$work" && mkdir -p "$work" || exit 1
"$conform" export --format json --vectors "$source/corpus/conformance" --out "$work/vectors.json" ||
  { echo "export_consumer_test: the export failed"; exit 1; }

# Our CLI passes every vector and every runner check.
"$python" "$consumer" "$work/vectors.json" -- "$cli" >"$work/cli.out" 2>&1
code=$?
[ "$code" -eq 0 ] || fail "our CLI: exit $code, expected 0: $(grep -m5 -e FAIL -e Error "$work/cli.out")"
grep -qE '^[0-9]+ passed, 0 failed' "$work/cli.out" || fail "our CLI: no '0 failed' summary: $(tail -3 "$work/cli.out")"
echo "our CLI: $(tail -1 "$work/cli.out")"

# mutant GLOB VECTOR...: the mutant fails, and each VECTOR is named failing.
mutant() {
  name=$1 only=$2
  shift 2
  "$python" "$consumer" "$work/vectors.json" --only "$only" -- node "$source/tests/mutants/$name.mjs" \
    >"$work/$name.out" 2>&1
  code=$?
  [ "$code" -eq 1 ] || fail "$name: exit $code, expected 1: $(tail -3 "$work/$name.out")"
  for vector in "$@"; do
    grep -q "^FAIL $vector " "$work/$name.out" || fail "$name: $vector does not fail it: $(head -5 "$work/$name.out")"
  done
  echo "$name: $(tail -1 "$work/$name.out")"
}
mutant utf8_bytes 'y_estimate_*' y_estimate_cjk y_estimate_emoji
mutant stdin_closed_exit_1 'runner_*' runner_stdin_closed
mutant missing_file_empty 'builtin_*' builtin_missing_file
mutant file_directory_exit_2 'runner_*' runner_file_directory
mutant append_missing_folder_exit_2 'runner_*' runner_append_missing_folder
grep -q '^FAIL runner_stdin_directory' "$work/stdin_closed_exit_1.out" &&
  fail "stdin_closed_exit_1: fails more than runner_stdin_closed"
grep -q '^FAIL runner_append_' "$work/file_directory_exit_2.out" &&
  fail "file_directory_exit_2: fails more than runner_file_directory"

[ "$failures" -eq 0 ] || { echo "export_consumer_test: $failures failure(s)"; exit 1; }
echo "export_consumer_test: ok"
