#!/usr/bin/env bash
# The conformance kit as a port author runs it (corpus/conformance/README.md,
# "Running the suite"): from the repository root, default vectors folder,
# against our own binary and against the JavaScript oracle. Both must pass
# every vector. (ctest runs the same through conform_test; this stage proves
# the command line itself, with its defaults.) About 1-2 minutes on 2 cores.
set -euo pipefail
build/agent-session conform --jobs 2 -- build/agent-session
build/agent-session conform --jobs 2 -- node tests/oracle/cli.mjs
