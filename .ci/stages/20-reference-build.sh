#!/usr/bin/env bash
# The reference configuration (README.md, "The reference path and the fast
# path"): the library without its fast path, built with neither simdjson
# nor {fmt} findable, passes the library's tests (tests/ and the fuzz
# targets' replays); nothing of either is linked into the command; and
# every conformance vector passes on it. The kit's own tests
# (conform/tests) judge the runner, which is the same program in either
# configuration: the main build and the sanitizer stage run them, so this
# stage builds only the command, the runner (installed by tests/'
# install_package, run by fuzz_port_replay), tests/ and fuzz/.
set -euo pipefail
start=$SECONDS
cmake -S . -B build-reference -G Ninja -DAGENT_SESSION_FAST=OFF -DAGENT_SESSION_BUILD_BENCH=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_simdjson=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON
cmake --build build-reference --target agent-session agent-session-conform tests/all fuzz/all
echo "reference build: $((SECONDS - start)) s"
if nm -C build-reference/agent-session | grep -Eq 'simdjson|fmt::'; then
  echo "the reference build links simdjson or {fmt}:" >&2
  nm -C build-reference/agent-session | grep -E 'simdjson|fmt::' | head -5 >&2
  exit 1
fi
# The main build's runner judges the reference command.
build/agent-session conform --jobs 2 -- build-reference/agent-session
ctest --test-dir build-reference/tests --output-on-failure -j2 -LE 'javascript|packaging'
ctest --test-dir build-reference/fuzz --output-on-failure -j2
echo "reference build and tests: $((SECONDS - start)) s"
