#!/usr/bin/env bash
# The steps of conform/action.yml, one subcommand each, so that they run
# the same anywhere (.ci/stages/35-conform-action.sh runs them on our CI):
#   install  the runner's build dependencies, if missing (Debian/Ubuntu)
#   key      hash=<hash of everything the runner is built from>, for the cache
#   build    build the runner, install it and the vectors under $PREFIX
#   run      run $PREFIX/bin/agent-session-conform against $PORT, write
#            $JUNIT, and annotate each failing check (::error) on GitHub
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

case "${1:-}" in
  install)
    packages=(g++ cmake make nlohmann-json3-dev)
    missing=()
    for p in "${packages[@]}"; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]} == 0)); then
      echo "the runner's dependencies are installed"
      exit 0
    fi
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
    ;;
  key)
    # Sources, build files and vectors: a change to any makes a new runner.
    hash=$(cd "$root" && find conform src/base corpus/conformance \
      -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-32)
    echo "hash=$hash"
    ;;
  build)
    : "${PREFIX:?PREFIX: where to install the runner}"
    build=$(mktemp -d)
    start=$SECONDS
    cmake -S "$root/conform" -B "$build" -DCMAKE_BUILD_TYPE=Release
    cmake --build "$build" -j "$(nproc)"
    cmake --install "$build" --prefix "$PREFIX"
    rm -rf "$build"
    echo "runner built and installed in $PREFIX in $((SECONDS - start)) s"
    ;;
  run)
    : "${PREFIX:?}" "${PORT:?PORT: the port command}"
    junit=${JUNIT:-agent-session-conformance.xml}
    args=(--timeout "${TIMEOUT:-10}" --jobs "${JOBS:-2}" --report "junit=$junit")
    [ -n "${SKIP_FILE:-}" ] && args+=(--skip-file "$SKIP_FILE")
    [ -n "${ONLY:-}" ] && args+=(--only "$ONLY")
    [ "${STRICT:-false}" = true ] && args+=(--strict)
    # The port command is split on whitespace, never run through a shell
    # (a command needing quotes or a pipe belongs in a script of the port's).
    read -r -a port <<<"$PORT"
    [ -n "${GITHUB_OUTPUT:-}" ] && echo "junit=$junit" >>"$GITHUB_OUTPUT"
    status=0
    output=$("$PREFIX/bin/agent-session-conform" "${args[@]}" -- "${port[@]}") || status=$?
    printf '%s\n' "$output"
    if [ -n "${GITHUB_ACTIONS:-}" ]; then
      # One annotation a failing check, escaped as workflow commands want:
      # % in the message; %, colon and comma in a property.
      while IFS= read -r line; do
        case "$line" in
          "FAIL "*)
            title=${line#FAIL }
            title=${title%%:*}
            title=${title//%/%25}
            title=${title//:/%3A}
            title=${title//,/%2C}
            echo "::error title=conformance ${title}::${line//%/%25}"
            ;;
        esac
      done <<<"$output"
    fi
    exit "$status"
    ;;
  *)
    echo "usage: $0 install|key|build|run" >&2
    exit 2
    ;;
esac
