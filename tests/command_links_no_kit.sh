#!/usr/bin/env bash
# The command stands apart from the conformance kit: `agent-session`
# links neither the runner (conform/runner, agent_session::conform::runner)
# nor the port fuzzer (conform/fuzz, agent_session::conform::fuzz);
# `agent-session conform` runs the program agent-session-conform instead
# (src/cli/kit_forward.hpp). Checked on the binary's symbols, demangled,
# by namespace and by the kit's entry points whatever their namespace.
# Usage: tests/command_links_no_kit.sh AGENT_SESSION. Exit 0 when none is
# there, 1 naming the first few found.
set -uo pipefail
binary=$1
symbols=$(nm -C "$binary") || { echo "command_links_no_kit: nm cannot read $binary"; exit 1; }
[ -n "$symbols" ] || { echo "command_links_no_kit: $binary has no symbols to check (stripped?)"; exit 1; }
# The command's own symbols are there: the check reads the right binary.
grep -q 'agent_session::cli::run' <<<"$symbols" ||
  { echo "command_links_no_kit: no agent_session::cli::run in $binary: not the command?"; exit 1; }
kit='agent_session::conform::|agent_session::fuzz::|conform_main\(|fuzz_main\(|run_conformance\(|HarnessClient::'
found=$(grep -E "$kit" <<<"$symbols")
if [ -n "$found" ]; then
  echo "command_links_no_kit: $binary links the conformance kit ($(wc -l <<<"$found") symbols), e.g.:"
  head -5 <<<"$found" | sed 's/^/  /'
  exit 1
fi
echo "command_links_no_kit: $binary holds no symbol of the runner or the port fuzzer"
