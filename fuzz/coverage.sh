#!/usr/bin/env bash
# Line coverage of the library (src/base, src/reference, src/library, src/fast; not the CLI)
# reached by replaying the fuzz corpora corpus/fuzz/<target>/ through every
# target, with clang's source-based coverage. Prints llvm-cov's
# report and fails when the total line coverage is under MIN_LINE_COVERAGE
# (95). Usage: fuzz/coverage.sh [BUILD_DIR]   (default build-fuzz-coverage)
# Env: LLVM_PROFDATA, LLVM_COV (default: llvm-profdata, llvm-cov, which
# must match clang++'s version).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-fuzz-coverage}
min=${MIN_LINE_COVERAGE:-95}
profdata=${LLVM_PROFDATA:-llvm-profdata}
cov=${LLVM_COV:-llvm-cov}
targets=(fuzz_load_session fuzz_session_file fuzz_parse_message fuzz_simd_line_parser fuzz_estimate fuzz_trim fuzz_number)

cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS="-fprofile-instr-generate -fcoverage-mapping" \
  -DAGENT_SESSION_FUZZ=ON -DAGENT_SESSION_BUILD_TESTS=OFF -DAGENT_SESSION_BUILD_BENCH=OFF \
  -DAGENT_SESSION_BUILD_CLI=OFF >/dev/null
cmake --build "$build" --target "${targets[@]/%/_replay}"

profiles=$build/fuzz-coverage
rm -rf "$profiles"
mkdir -p "$profiles"
objects=()
for target in "${targets[@]}"; do
  LLVM_PROFILE_FILE="$profiles/$target.profraw" "$build/fuzz/${target}_replay" "corpus/fuzz/$target" 2>/dev/null
  objects+=(-object "$build/fuzz/${target}_replay")
done
"$profdata" merge -sparse "$profiles"/*.profraw -o "$profiles/corpus.profdata"

sources=(src/base/* src/reference/* src/library/* src/fast/*)
report=$("$cov" report "${objects[@]:1}" -instr-profile="$profiles/corpus.profdata" "${sources[@]}")
echo "$report"
# llvm-cov leaves out sources no target links (not 0%, absent): say which.
for source in src/base/*.cpp src/reference/*.cpp src/library/*.cpp src/fast/*.cpp; do
  grep -q "^${source#src/} " <<<"$report" || echo "not in the report (no fuzz target links it): $source"
done
# The total from llvm-cov's JSON summary: "totals":{...,"lines":{"count":N,"covered":M,"percent":P},...}
line_coverage=$("$cov" export "${objects[@]:1}" -instr-profile="$profiles/corpus.profdata" -summary-only "${sources[@]}" |
  grep -o '"totals":{.*' | grep -o '"lines":{[^}]*}' | head -1 | sed 's/.*"percent":\([0-9.]*\).*/\1/')
echo "library line coverage from the fuzz corpora: $line_coverage% (minimum $min%)"
awk -v got="$line_coverage" -v min="$min" 'BEGIN { exit !(got + 0 >= min + 0) }'
