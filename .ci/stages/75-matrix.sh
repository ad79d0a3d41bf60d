#!/usr/bin/env bash
# The conformance matrix (corpus/conformance/reports.md, "The conformance
# matrix"): the main build's kit runs every vector against our CLI and the
# JavaScript oracle in harness mode (the verdicts of exec mode: harness_test),
# each JSON report in build/matrix/, beside those earlier stages wrote
# there (20-reference-build.sh: the reference build; 70-cross-qemu.sh: s390x
# under qemu, and aarch64 nightly); then `agent-session-conform report` merges them
# into build/matrix/: index.html, a Markdown table and badges/ (CI uploads the
# folder: .github/workflows/ci.yml). Each run and the whole stage in
# seconds; under 60 s on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
kit=build/conform/agent-session-conform
start=$SECONDS
mkdir -p build/matrix
run() { # run LABEL PORT...: one port's JSON report, named LABEL, in build/matrix/
  local label=$1 begin=$SECONDS
  shift
  "$kit" --harness --jobs 2 --report "json=build/matrix/$label.json" --label "$label" -- "$@" >"build/matrix/$label.log"
  tail -1 "build/matrix/$label.log"
  echo "matrix: $label: $((SECONDS - begin)) s"
}
run agent-session build/agent-session
run oracle node tests/oracle/cli.mjs
# Every report there, ours first (a matrix's columns are in this order).
reports=(build/matrix/agent-session.json build/matrix/oracle.json)
for report in build/matrix/*.json; do
  case "$report" in build/matrix/agent-session.json | build/matrix/oracle.json) ;; *) reports+=("$report") ;; esac
done
# On GitHub a vector links to its folder at this commit; elsewhere to the
# checkout's, relative to build/matrix/.
link_base=../../corpus/conformance/
if [ -n "${GITHUB_REPOSITORY:-}" ] && [ -n "${GITHUB_SHA:-}" ]; then
  link_base="${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/tree/$GITHUB_SHA/corpus/conformance/"
fi
"$kit" report --html build/matrix/index.html --markdown build/matrix/matrix.md --badges build/matrix/badges \
  --link-base "$link_base" "${reports[@]}"
tail -5 build/matrix/matrix.md
echo "matrix: ${#reports[@]} reports (${reports[*]}) in build/matrix/index.html: $((SECONDS - start)) s"
