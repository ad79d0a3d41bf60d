#!/usr/bin/env bash
# Lint: every C++ file is formatted as .clang-format says (clang-format,
# from tools/install-deps), and the tree keeps its layers
# (tools/check-layers, also a ctest test). Seconds.
set -euo pipefail
git ls-files -z '*.cpp' '*.hpp' '*.h' | xargs -0 clang-format --dry-run --Werror
tools/check-layers
