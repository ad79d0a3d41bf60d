# Every test under clang with AddressSanitizer and UndefinedBehaviorSanitizer
# (g++ is the main build above): warning-free under both compilers, no UB.
# Debug keeps every assert; -O1 is what the sanitizers' documentation
# recommends for speed, and line tables are all a report's stack needs
# (full debug info is most of a Debug build's compile and link time).
set -euo pipefail
start=$SECONDS
cmake -S . -B build-asan -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" \
  -DAGENT_SESSION_SANITIZE=address,undefined -DAGENT_SESSION_BUILD_BENCH=OFF
cmake --build build-asan
echo "the sanitized build: $((SECONDS - start)) s"
# The tests labelled javascript (the oracle and mutant-port runs) exercise
# JavaScript, not our code (the runner itself is covered by the other
# conform tests, HarnessSameVerdicts.OurCli among them): the main build runs
# them once. So are those labelled packaging (they configure and build the
# tree again, or lint it: no code of ours runs under the sanitizers there).
# Labels: conform/tests/CMakeLists.txt, tests/CMakeLists.txt. The
# ConformAction tests run the Action's shell script (conform/github-action.sh)
# around the runner, whose code they reach the other conform tests run
# sanitized: the main build runs them once too.
start=$SECONDS
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j2 -LE 'javascript|packaging' -E '^ConformAction'
echo "its tests: $((SECONDS - start)) s"

