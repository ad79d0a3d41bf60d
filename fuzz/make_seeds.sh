#!/usr/bin/env bash
# Rebuilds the seed corpora corpus/fuzz/<target>/ from the project's own
# data: every conformance input, and the lines of the real sessions (alone
# and in runs of three, so that the loader sees multi-line files). The raw
# seeds are then minimized with libFuzzer's -merge=1 into the existing
# corpus, which keeps past findings and adds only inputs with new edge
# coverage (-use_counters=0: hit counts alone would keep hundreds more).
# Seeds over a few KB are left out to keep the repository lean.
# Usage: fuzz/make_seeds.sh BUILD_DIR   (a build with -DAGENT_SESSION_FUZZ=ON)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: fuzz/make_seeds.sh BUILD_DIR}
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
mkdir -p "$raw/files" "$raw/lines"

for input in corpus/conformance/*/input.jsonl; do
  cp "$input" "$raw/files/$(basename "$(dirname "$input")").jsonl"
done
python3 - "$raw" corpus/conformance/*/input.jsonl corpus/real/*.jsonl <<'PY'
import hashlib, pathlib, sys
raw = pathlib.Path(sys.argv[1])
def put(folder, data):
    (raw / folder / hashlib.sha1(data).hexdigest()).write_bytes(data)
for name in sys.argv[2:]:
    lines = pathlib.Path(name).read_bytes().split(b"\n")
    for line in lines:
        if line and len(line) <= 4096:
            put("lines", line)
    if "/real/" in name:
        for i in range(0, len(lines) - 2, 3):
            run = b"\n".join(lines[i:i + 3]) + b"\n"
            if len(run) <= 8192:
                put("files", run)
PY

merge() {  # target, raw folders...
  local target=$1; shift
  mkdir -p "corpus/fuzz/$target"
  "$build/fuzz/$target" -merge=1 -use_counters=0 -dict=fuzz/session.dict "corpus/fuzz/$target" "$@" 2>&1 | tail -1
}
merge fuzz_load_session "$raw/files" "$raw/lines"
merge fuzz_session_file "$raw/files" "$raw/lines"
merge fuzz_parse_message "$raw/lines"
merge fuzz_simd_line_parser "$raw/lines" "$raw/files"
merge fuzz_trim "$raw/files" "$raw/lines"
merge fuzz_estimate "$raw/files" "$raw/lines"
# fuzz_number reads 8-byte doubles, not text: its seeds (corpus/fuzz/
# fuzz_number/) are the numbers of SPEC.md §3's layout boundaries, kept as
# they are.
