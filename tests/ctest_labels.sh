#!/usr/bin/env bash
# The ctest labels the CI stages select by (conform/tests/CMakeLists.txt):
# the gtest cases and tests that run only Node.js ports are labelled
# javascript, those that rebuild, install or lint the tree packaging, and
# every other test, the library's and the runner's, is in neither, so
# `ctest -LE 'javascript|packaging'` (.ci/stages/10-clang-asan.sh) still
# runs it.
# Each test is listed once (the two gtest discoveries of a binary split
# it, they do not double it). Usage: tests/ctest_labels.sh CTEST BUILD_DIR.
# Exit 0 when the labels are right, 1 naming the first test that is not.
set -euo pipefail
ctest=$1 build=$2
# -FA: a test's own labels only, not the fixtures' setups that a selection
# by label brings in (install_package, for the installed runner's tests).
list() { "$ctest" --test-dir "$build" -N -FA '.*' "$@" | sed -n 's/^ *Test *#[0-9]*: //p' | sed 's/  # GetParam() = .*//' | sort; }
all=$(list)
javascript=$(list -L javascript)
packaging=$(list -L packaging)
library=$(list -LE 'javascript|packaging')
fail() {
  echo "ctest labels: $*" >&2
  exit 1
}
has() { grep -Eq -- "$2" <<<"$1"; }
count() { grep -Ec -- "$2" <<<"$1" || true; }

[ -z "$(uniq -d <<<"$all")" ] || fail "tests listed twice: $(uniq -d <<<"$all" | head -3 | tr '\n' ' ')"
[ -n "$library" ] || fail "no test is left by -LE 'javascript|packaging'"
labelled=$(sort -u <<<"$javascript"$'\n'"$packaging" | sed '/^$/d')
[ $(($(wc -l <<<"$labelled") + $(wc -l <<<"$library"))) -eq "$(wc -l <<<"$all")" ] ||
  fail "labelled ($(wc -l <<<"$labelled")) and unlabelled ($(wc -l <<<"$library")) tests do not add up to all ($(wc -l <<<"$all"))"

for pattern in '^ConformJavaScriptOracle\.PassesEveryVector$' '^ConformJavaScriptOracle\.PassesAHandfulOfVectorsInExecMode$' \
  '^Mutants/ConformMutant\.' '^ConformMutantReport\.' '^Ports/HarnessSameVerdictsJavaScript\..*/oracle$' \
  '^Ports/HarnessSameVerdictsJavaScript\..*/utf8_bytes$' '^oracle_harness_selftest$' \
  '^conform_junit_report_read_by_junitparser$' '^conform_installed_runs_the_oracle$'; do
  has "$javascript" "$pattern" || fail "no test matching $pattern is labelled javascript"
done
ports=$(count "$javascript" '^Ports/HarnessSameVerdictsJavaScript\.')
[ "$ports" -ge 11 ] || fail "$ports HarnessSameVerdictsJavaScript ports labelled javascript, expected the oracle and 10 mutants or more"
for pattern in '^add_subdirectory_consumer$' \
  '^header_examples_compile$' '^layering$' '^layering_rules_fail_when_broken$' '^named_paths_exist$' \
  '^named_paths_rules_fail_when_broken$' '^conformance_schemas_validate$' '^ctest_labels$'; do
  has "$packaging" "$pattern" || fail "no test matching $pattern is labelled packaging"
done
# The library's and the runner's own tests stay in the sanitizer stage's run.
for pattern in '^ConformOurCli\.PassesEveryVector$' '^HarnessSameVerdicts\.OurCli$' '^HarnessCommand\.' \
  '^FakeVectors\.' '^Differential\.' '^FuzzPorts\.' '^SessionFile\.' '^install_package$' \
  '^command_links_no_kit$' '^conform_forwarding_build_tree$' '^conform_forwarding_installed$'; do
  has "$library" "$pattern" || fail "no test matching $pattern is left by -LE 'javascript|packaging'"
done
echo "ctest labels: $(wc -l <<<"$all") tests: $(wc -l <<<"$javascript") javascript, $(wc -l <<<"$packaging") packaging, $(wc -l <<<"$library") in neither"
