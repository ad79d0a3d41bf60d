#!/bin/bash -eu
# Builds every fuzz target of agent-session the OSS-Fuzz way, run from the
# repository root (the Dockerfile's WORKDIR). Inputs from the environment:
#   CXX, CXXFLAGS       compiler, sanitizers and coverage instrumentation
#   LIB_FUZZING_ENGINE  link flags of the engine (-fsanitize=fuzzer)
#   OUT                 where the fuzzers, dictionaries and seeds go
#   WORK                scratch space for the build (a temporary dir if unset)
# Outputs in $OUT, per target: the binary, <target>.dict and
# <target>_seed_corpus.zip (corpus/fuzz/<target>); and agent-session, the
# port fuzz_port compares with the reference when AGENT_SESSION_PORT names
# no other (fuzz/fuzz_port.cpp).
# .ci/stages/50-fuzz.sh runs this locally to prove it builds every target.
# -eu again: `bash build.sh` (as CI runs it) ignores the #! line's flags.
set -euo pipefail
src_dir=$PWD
[ -f "$src_dir/fuzz/CMakeLists.txt" ] || { echo "build.sh: run from the repository root" >&2; exit 1; }
work_dir=${WORK:-$(mktemp -d)}
build_dir=$work_dir/agent-session-fuzz-build
targets=(fuzz_load_session fuzz_session_file fuzz_parse_message fuzz_simd_line_parser fuzz_estimate fuzz_trim fuzz_number
  fuzz_port)

# Sanitizers and instrumentation come from CXXFLAGS (they change with the
# ClusterFuzzLite job: address, undefined, coverage), so the CMake
# defaults for them are switched off. CMake links with CXXFLAGS too. The
# command line is built for fuzz_port (its runner, its default port).
cmake -S "$src_dir" -B "$build_dir" -G Ninja \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="$CXXFLAGS" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DAGENT_SESSION_FUZZ=ON -DAGENT_SESSION_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
  -DAGENT_SESSION_FUZZ_SANITIZE= -DAGENT_SESSION_FUZZ_INSTRUMENT= \
  -DAGENT_SESSION_BUILD_TESTS=OFF -DAGENT_SESSION_BUILD_BENCH=OFF -DAGENT_SESSION_BUILD_CLI=ON \
  -DAGENT_SESSION_WERROR=OFF
cmake --build "$build_dir" --target "${targets[@]}" agent-session

out=$(mkdir -p "$OUT" && cd "$OUT" && pwd)  # absolute: the loop changes directory
cp "$build_dir/agent-session" "$out/agent-session"
for target in "${targets[@]}"; do
  cp "$build_dir/fuzz/$target" "$out/$target"
  cp "$src_dir/fuzz/session.dict" "$out/$target.dict"
  rm -f "$out/${target}_seed_corpus.zip"
  # CMake's own archiver: no zip needed on the machine.
  (cd "$src_dir/corpus/fuzz/$target" && cmake -E tar cf "$out/${target}_seed_corpus.zip" --format=zip .)
done
