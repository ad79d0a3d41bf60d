#!/usr/bin/env bash
# The reference configuration (README.md, "The reference path and the fast
# path") as a port's CI gets it: the GitHub Action's own build step
# (conform/github-action.sh build: Release, -DAGENT_SESSION_FAST=OFF, no
# tests or benchmarks) builds and installs agent-session and
# agent-session-conform under build-action/prefix; neither links anything
# of simdjson or {fmt}; and the main build's runner judges the installed
# command on every conformance vector. 35-conform-action.sh then runs the
# Action on that installed runner, as a port's CI does after a cache hit.
# The fast path is proven equal to the reference in the main build (the
# differential properties and fuzz replays call both), and the reference
# configuration passes every vector on s390x too (70-cross-qemu.sh; and
# aarch64 nightly). Seconds. The run's JSON report is a column of the
# conformance matrix (75-matrix.sh).
set -euo pipefail
work=$PWD/build-action
rm -rf "$work"
mkdir -p "$work"
export PREFIX=$work/prefix
start=$SECONDS
bash conform/github-action.sh build
echo "the Action's build (reference configuration): $((SECONDS - start)) s"
for program in agent-session agent-session-conform; do
  if nm -C "$PREFIX/bin/$program" | grep -Eq 'simdjson|fmt::'; then
    echo "the reference build's $program links simdjson or {fmt}:" >&2
    nm -C "$PREFIX/bin/$program" | grep -E 'simdjson|fmt::' | head -5 >&2
    exit 1
  fi
done
echo "neither program links simdjson or {fmt}"
start=$SECONDS
# Its JSON report joins the conformance matrix (75-matrix.sh).
mkdir -p build/matrix
build/agent-session conform --jobs 2 --report json=build/matrix/reference-build.json --label "reference build" \
  -- "$PREFIX/bin/agent-session"
echo "every vector on the reference command: $((SECONDS - start)) s"
