#!/usr/bin/env bash
# The conformance kit as a port author runs it (corpus/conformance/README.md,
# "Running the suite"): from the repository root, with the default vectors
# folder, against our own binary; every vector must pass. The JavaScript
# oracle, the mutant ports and the differential test run in ctest
# (conform_test, differential_test, in harness mode), and exec mode against
# harness mode on them in harness_test (tools/harness-verdicts nightly), so
# they are not repeated here. Seconds. The JUnit report (corpus/conformance/reports.md) stays in
# build/conformance.xml.
set -euo pipefail
build/agent-session conform --jobs 2 --report junit=build/conformance.xml -- build/agent-session
