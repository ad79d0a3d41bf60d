# The side-by-side comparison with the chapter's JavaScript still runs, and
# JavaScript and C++ still agree on every answer (estimates of every content
# profile, messages kept and loaded) on small histories: a differential
# check of the estimator's fast paths against JSON.stringify(m).length.
# Figures from a CI machine mean nothing, so unmet targets (exit 3) do not
# fail CI; a disagreement (exit 1) or a crash does. About 2 minutes; reuses
# the main build (Release, the default).
set -euo pipefail
status=0
bench/compare-js --quick --cap-seconds=5 --build-dir=build || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
  echo "bench/compare-js failed with exit status $status" >&2
  exit 1
fi
