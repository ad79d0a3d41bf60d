#!/usr/bin/env bash
# The conformance matrix (conform/matrix/) from real runs, opened in a
# real browser: our CLI, the JavaScript oracle and one mutant port
# (tests/mutants/utf8_bytes.mjs, which fails the estimate vectors) run
# through the kit in harness mode, their JSON reports merged by
# `agent-session-conform report`, and the page loaded by headless Chromium
# (Debian's chromium, tools/install-deps). Its DOM, as Chromium parsed it,
# must hold the table with one column per report and, row by row, the
# cells the reports say (check_dom.mjs); Chromium must log no console
# message for it (first shown to catch one, on a page that logs an error).
# Usage: in_chromium.sh AGENT_SESSION_CLI AGENT_SESSION_CONFORM SOURCE_DIR WORK_DIR
set -euo pipefail
cli=$1 kit=$2 source=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cd "$source"

# A run exits 1 when the port fails a vector: only the mutant may.
run() { # run LABEL EXPECTED-EXIT PORT...
  local label=$1 expected=$2 status=0
  shift 2
  "$kit" --harness --jobs 2 --report "json=$work/$label.json" --label "$label" -- "$@" >"$work/$label.out" || status=$?
  if [ "$status" -ne "$expected" ]; then
    echo "in_chromium: conform on $label exited $status, expected $expected" >&2
    tail -5 "$work/$label.out" >&2
    exit 1
  fi
}
run ours 0 "$cli"
run oracle 0 node tests/oracle/cli.mjs
run utf8_bytes 1 node tests/mutants/utf8_bytes.mjs

"$kit" report --html "$work/matrix.html" --markdown "$work/matrix.md" --badges "$work/badges" \
  "$work/ours.json" "$work/oracle.json" "$work/utf8_bytes.json"

# Debian's chromium (tools/install-deps), else a Chrome already there.
browser=$(command -v chromium || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "in_chromium: no chromium or google-chrome in PATH (tools/install-deps installs chromium)" >&2
  exit 1
fi
browse() { # browse PAGE: its DOM on standard output, Chromium's log in PAGE.log
  "$browser" --headless --disable-gpu --no-sandbox --enable-logging=stderr --v=0 --virtual-time-budget=2000 \
    --dump-dom "file://$1" 2>"$1.log"
}

# The check of the console first proves it sees a console error.
printf '<!DOCTYPE html><html lang="en"><head><title>probe</title></head><body><script>console.error("matrix-probe")</script></body></html>\n' >"$work/probe.html"
browse "$work/probe.html" >/dev/null
if ! grep -q 'CONSOLE.*matrix-probe' "$work/probe.html.log"; then
  echo "in_chromium: Chromium's log does not show a page's console error; the check below would be blind:" >&2
  cat "$work/probe.html.log" >&2
  exit 1
fi

browse "$work/matrix.html" >"$work/matrix.dom"
if grep 'CONSOLE' "$work/matrix.html.log"; then
  echo "in_chromium: the matrix page logged to the console (above)" >&2
  exit 1
fi
node "$here/check_dom.mjs" "$work/matrix.dom" "$work/ours.json" "$work/oracle.json" "$work/utf8_bytes.json"
