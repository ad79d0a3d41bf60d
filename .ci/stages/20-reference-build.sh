#!/usr/bin/env bash
# The reference configuration (README.md, "The reference path and the fast
# path"): the library without its fast path, built with neither simdjson
# nor {fmt} findable, passes the library's tests; nothing of either is
# linked into the command; and every conformance vector passes on it.
set -euo pipefail
start=$SECONDS
cmake -S . -B build-reference -G Ninja -DAGENT_SESSION_FAST=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_simdjson=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON
cmake --build build-reference
echo "reference build: $((SECONDS - start)) s"
if nm -C build-reference/agent-session | grep -Eq 'simdjson|fmt::'; then
  echo "the reference build links simdjson or {fmt}:" >&2
  nm -C build-reference/agent-session | grep -E 'simdjson|fmt::' | head -5 >&2
  exit 1
fi
build-reference/agent-session conform --jobs 2 -- build-reference/agent-session
# Every test of the library, on this configuration; not the tests labelled
# javascript (they run only Node.js ports, whose verdicts no C++ build
# option changes; the main build runs them, and the runner itself is still
# tested here on our CLI: ConformOurCli, HarnessSameVerdicts.OurCli) nor
# those labelled packaging (they rebuild, install or lint the tree rather
# than test the library built here; the main build runs them). Labels:
# conform/tests/CMakeLists.txt.
ctest --test-dir build-reference --output-on-failure -j2 -LE 'javascript|packaging'
echo "reference build and tests: $((SECONDS - start)) s"
