#!/usr/bin/env bash
# The public headers are SPEC.md plus the library's promises, nothing else:
# a user installs include/agent_session alone, so a name or a path of the
# implementation there is either a back door into it, a promise nobody meant
# to make, or a pointer to a file the user does not have. Each rule below is
# a pattern no public header may hold, with why. The implementation's own
# declarations live in the internal headers under src/, which the library
# and the tests include.
#
# Usage: tests/public_headers.sh [HEADER_DIR]   (default: the source tree's
#          include/agent_session, which is what is installed)
#        tests/public_headers.sh --self-test    (each rule, broken in a copy
#          of the headers, fails the check)
# Exit 0 when every rule holds, 1 with one line per finding
# (FILE:LINE: the rule's reason), 2 on a usage error.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)

# Each rule is three entries: the pattern (grep -E, one line at a time),
# why no public header may hold it, and a line that breaks it (what
# --self-test plants).
rules=(
  '\binternal\b'
  "names the implementation's namespace or its internals: they are neither the spec nor a promise"
  'namespace internal { struct Helper; }'

  '\bToolInputAccess\b'
  'a friend back door into ToolInput: the library reaches its members without the public type naming it'
  'friend struct ToolInputAccess;'

  '\bfriend[[:space:]]+(struct|class)[[:space:]]+[A-Za-z_]*::'
  'a friend from another namespace widens a public type for code the user cannot see'
  'friend class detail::Peek;'

  '\bkPeakHeapPerLineByte\b'
  'a test bound on the loaders: the promise (SPEC.md §8) is in prose, the number the tests hold is internal'
  'inline constexpr std::size_t kPeakHeapPerLineByte = 40;'

  '\bwhy_not_a_message\b'
  "used by tests only: load_session's error detail is the promise (SPEC.md §2), not a second way in"
  'std::optional<std::string> why_not_a_message(const Json& json);'

  '(^|[^A-Za-z0-9_./-])(src|spec|reference|tests|fuzz|bench|conform|tools|corpus|docs)/[A-Za-z0-9_]'
  'a path into the repository: the user has the installed headers, not the tree'
  '// see src/spec/load.cpp'

  '[A-Za-z0-9_]\.(cpp|cc|c)\b'
  'names a source file: the installed headers ship without sources'
  '// counted in session_object.cpp'

  '\b(FRIEND_TEST|gtest|gmock)\b|[Ff]or_?[Tt]esting\b'
  'a test hook: tests reach internals through src/, never through the public API'
  'void reset_for_testing();'

  '\b[A-Za-z_]*[Cc]ounters?\b'
  "an instrumentation counter: what tests count is the implementation's business"
  'std::uint64_t comparison_counter();'

  '^[[:space:]]*#[[:space:]]*if.*AGENT_SESSION_'
  'a build option in a public header: the API is the same in every build'
  '#if AGENT_SESSION_FAST'
)

# Prints each finding in the headers of $1; returns 1 when there is one.
check() {
  local dir=$1 findings=0 i pattern why
  local headers=("$dir"/*.hpp)
  [ -e "${headers[0]}" ] || { echo "public_headers: no header in $dir" >&2; return 2; }
  for ((i = 0; i < ${#rules[@]}; i += 3)); do
    pattern=${rules[i]} why=${rules[i + 1]}
    while IFS= read -r hit; do
      echo "public_headers: ${hit%%:*}:$(cut -d: -f2 <<<"$hit"): $why"
      findings=$((findings + 1))
    done < <(grep -nHE -- "$pattern" "${headers[@]}" | sed "s|^$dir/|include/agent_session/|")
  done
  echo "public_headers: ${#headers[@]} headers, $((${#rules[@]} / 3)) rules, $findings findings"
  [ "$findings" -eq 0 ]
}

if [ "${1:-}" = --self-test ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  failures=0
  for ((i = 2; i < ${#rules[@]}; i += 3)); do
    example=${rules[i]}
    rm -rf "$work/include" && cp -r "$here/../include/agent_session" "$work/include"
    printf '%s\n' "$example" >>"$work/include/message.hpp"
    if check "$work/include" >"$work/out"; then
      echo "public_headers --self-test: planting \`$example\` did not fail the check"
      failures=$((failures + 1))
    elif ! grep -qF "include/agent_session/message.hpp:$(wc -l <"$work/include/message.hpp"):" "$work/out"; then
      echo "public_headers --self-test: planting \`$example\` failed, but not on the planted line:"
      sed 's/^/  /' "$work/out"
      failures=$((failures + 1))
    fi
  done
  echo "public_headers --self-test: $((${#rules[@]} / 3)) rules, $failures not caught"
  [ "$failures" -eq 0 ]
  exit
fi

[ $# -le 1 ] || { sed -n '2,/^set /p' "$0" | sed '$d' >&2; exit 2; }
check "${1:-$here/../include/agent_session}"
