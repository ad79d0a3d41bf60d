# The README's agent-turn demo is real output: re-run every `$ ` command of
# its transcript (from the repo root, with the main job's build/) and
# require the exact output shown. Takes well under a second.
set -euo pipefail
readme=README.md
marker='Two runs on one session, with a 600-character budget:'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The fenced block after the marker.
awk -v marker="$marker" '
  $0 == marker { found = 1; next }
  found && /^```/ { if (inside) exit; inside = 1; next }
  inside { print }
' "$readme" | sed "s#/tmp/#$tmp/#g" > "$tmp/transcript"
grep -q '^\$ ' "$tmp/transcript" || { echo "no transcript after '$marker' in $readme" >&2; exit 1; }

# Split into commands and their expected output; replay.
actual="$tmp/actual"
: > "$actual"
while IFS= read -r line; do
  if [[ $line == '$ '* ]]; then
    printf '%s\n' "$line" >> "$actual"
    bash -c "${line#\$ }" >> "$actual" 2>&1 || true
  fi
done < "$tmp/transcript"
if ! diff -u "$tmp/transcript" "$actual"; then
  echo "README.md's agent demo output is stale: re-run it and paste the output" >&2
  exit 1
fi
echo "README agent demo: $(grep -c '^\$ ' "$tmp/transcript") commands reproduce their documented output"
