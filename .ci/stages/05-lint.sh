#!/usr/bin/env bash
# Lint: every C++ file is formatted as .clang-format says (clang-format,
# from tools/install-deps), the tree keeps its layers (tools/check-layers)
# and names no stale path or SPEC section (tools/check-paths); both checks
# are ctest tests too. Seconds.
set -euo pipefail
start=$SECONDS
git ls-files -z '*.cpp' '*.hpp' '*.h' | xargs -0 clang-format --dry-run --Werror
echo "clang-format: $((SECONDS - start)) s"
start=$SECONDS
tools/check-layers
echo "check-layers: $((SECONDS - start)) s"
start=$SECONDS
tools/check-paths
echo "check-paths: $((SECONDS - start)) s"
