#!/usr/bin/env bash
# Every public header's "Example:" block compiles as written: each is put
# in a function of its own after all the public headers, with `my_model`
# (a ModelClient, the model a runtime brings) in scope, and checked by the
# compiler. Usage: tests/header_examples.sh CXX SOURCE_DIR. Exit 0 when
# every example compiles, 1 otherwise (naming the header).
set -uo pipefail
cxx=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 examples=0
for header in "$root"/include/agent_session/*.hpp; do
  body=$(awk '/^\/\/ Example:/{p=1;next} p&&/^\/\/   /{sub(/^\/\/   /,"");print;next} p{exit}' "$header")
  [ -z "$body" ] && continue
  examples=$((examples + 1))
  name=$(basename "$header" .hpp)
  {
    for h in "$root"/include/agent_session/*.hpp; do echo "#include <agent_session/$(basename "$h")>"; done
    echo '#include <map>'
    echo '#include <string>'
    echo '#include <vector>'
    echo 'namespace {'
    echo 'struct ExampleModel final : agent_session::ModelClient {'
    echo '  agent_session::AssistantMessage next_message(std::span<const agent_session::Message>,'
    echo '                                               std::span<const agent_session::ToolSpec>) override {'
    echo '    return {};'
    echo '  }'
    echo '} my_model;'
    echo '}  // namespace'
    echo "void example_$name() {"
    printf '%s\n' "$body"
    echo '}'
  } >"$work/$name.cpp"
  if ! "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Werror -Wno-unused-variable -Wno-unused-function \
       -I"$root/include" "$work/$name.cpp" 2>"$work/$name.err"; then
    echo "header_examples: the example in include/agent_session/$name.hpp does not compile:"
    sed 's/^/  /' "$work/$name.err" | head -20
    failures=$((failures + 1))
  fi
done
echo "header_examples: $examples examples, $failures that do not compile"
[ "$examples" -gt 0 ] && [ "$failures" -eq 0 ]
