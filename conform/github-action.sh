#!/usr/bin/env bash
# The steps of conform/action.yml, one subcommand each, so that they run
# the same anywhere (.ci/stages/35-conform-action.sh runs them on our CI):
#   install  the runner's build dependencies, if missing (Debian/Ubuntu)
#   key      hash=<hash of everything the runner is built from>, for the cache
#   build    build the runner (and the command beside it) from the project,
#            install them and the vectors under $PREFIX
#   run      run $PREFIX/bin/agent-session-conform against $PORT (with
#            $KNOWN_FAILURES, if given; with --harness when $HARNESS is
#            true), write $JUNIT and $JSON, annotate each failing check
#            (::error) on GitHub, with $PREVIOUS_REPORT write what changed
#            since that JSON report to the job summary
#            ($GITHUB_STEP_SUMMARY; else standard output), and with
#            $FUZZ_SECONDS above 0 fuzz the port for that long, a
#            difference written under $FUZZ_OUT, annotated, failing the step;
#            with $MODE properties instead: judge the history trimmer
#            behind $PORT on SPEC.md §5's unit invariants (run_properties)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# The runner supervises the port with Linux-only calls (a child subreaper,
# openat2), so anything else stops here, saying what to do instead.
if [ "$(uname -s)" != Linux ]; then
  echo "::error title=agent-session conformance::the runner runs on Linux only (it supervises the port with" \
    "PR_SET_CHILD_SUBREAPER and openat2), not on $(uname -s): run this step on ubuntu-22.04 or ubuntu-24.04," \
    "or in a Debian/Ubuntu container; on macOS or Windows, run it locally in Docker (docker run -v \"\$PWD\":/port" \
    "-w /port debian:12 ...) or WSL 2 (corpus/conformance/README.md, \"Installing the runner\")" >&2
  exit 2
fi

# An Action's boolean input: true/True/TRUE/1/yes or false/False/FALSE/0/no
# (or empty); anything else is a usage error, never quietly false.
boolean() { # NAME VALUE
  case "$2" in
    true | True | TRUE | 1 | yes | Yes | YES) echo true ;;
    false | False | FALSE | 0 | no | No | NO | '') echo false ;;
    *)
      echo "::error title=agent-session conformance::$1: '$2' is neither true (true, True, TRUE, 1, yes) nor" \
        "false (false, False, FALSE, 0, no)" >&2
      return 2
      ;;
  esac
}

# mode: properties. `agent-session-conform properties` on $PORT, a
# trimmer's adapter (corpus/conformance/adapter.md) or a port's harness:
# $PROPERTIES_RUNS sessions from $PROPERTIES_SEED (empty: drawn), each
# violation shrunk into $PROPERTIES_OUT/INVARIANT-N/ and annotated naming
# its invariant and case file; the rate per invariant goes to the job
# summary; $JUNIT holds one test case per invariant, $JSON the counts,
# rates and case files. A violation is exit 1, as a failing check is.
run_properties() {
  local junit=${JUNIT:-agent-session-conformance.xml} json=${JSON:-agent-session-conformance.json}
  local out=${PROPERTIES_OUT:-agent-session-properties-found} runs=${PROPERTIES_RUNS:-1000}
  local seed=${PROPERTIES_SEED-1} input name strict
  # The conformance mode's inputs mean nothing here: one that is set is a
  # mistake in the workflow, and stops the step rather than being ignored.
  for input in skip-file:SKIP_FILE known-failures:KNOWN_FAILURES previous-report:PREVIOUS_REPORT only:ONLY; do
    name=${input#*:}
    if [ -n "${!name:-}" ]; then
      echo "::error title=agent-session conformance::${input%%:*}: is an input of mode conformance, not of mode" \
        "properties (remove it, or run the action twice)" >&2
      return 2
    fi
  done
  strict=$(boolean strict "${STRICT:-false}") || return 2
  if [ "$strict" = true ]; then
    echo "::error title=agent-session conformance::strict: is an input of mode conformance, not of mode properties" >&2
    return 2
  fi
  if [[ ! ${FUZZ_SECONDS:-0} =~ ^0+(\.0+)?$ ]]; then
    echo "::error title=agent-session conformance::fuzz-seconds: is an input of mode conformance, not of mode" \
      "properties" >&2
    return 2
  fi
  local args=(properties --runs "$runs" --out "$out" --timeout "${TIMEOUT:-10}" --report "junit=$junit"
    --report "json=$json")
  [ -z "$seed" ] || args+=(--seed "$seed")
  local summary
  summary=$(mktemp)
  args+=(--report "markdown=$summary")
  mkdir -p "$(dirname "$junit")" "$(dirname "$json")"
  local port
  read -r -a port <<<"$PORT"
  local artifact=${ARTIFACT_NAME:-agent-session-properties-${GITHUB_JOB:-job}-${JOB_INDEX:-0}-${RUNNER_OS:-$(uname -s)}-${RUNNER_ARCH:-$(uname -m)}}
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'junit=%s\njson=%s\nartifact=%s\nproperties-out=%s\n' "$junit" "$json" "$artifact" "$out" >>"$GITHUB_OUTPUT"
  fi
  local status=0 log line label file
  log=$(mktemp)
  "$PREFIX/bin/agent-session-conform" "${args[@]}" -- "${port[@]}" | tee "$log" || status=${PIPESTATUS[0]}
  if [ -n "${GITHUB_ACTIONS:-}" ]; then
    # One annotation a shrunk violation: `VIOLATION LABEL: what broke (N
    # messages, budget B; FILE)`, escaped as workflow commands want.
    while IFS= read -r line; do
      case "$line" in
        "VIOLATION "*)
          label=${line#VIOLATION }
          label=${label%%:*}
          file=${line##*; }
          file=${file%)}
          echo "::error title=$(as_property "properties ${label} (${file})")::${line//%/%25}"
          ;;
      esac
    done <"$log"
  fi
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -s "$summary" ]; then cat "$summary" >>"$GITHUB_STEP_SUMMARY"; fi
  rm -f "$log" "$summary"
  return "$status"
}

# TEXT as a workflow command's property value: %, colon and comma escaped
# (a message escapes % alone: ${line//%/%25}).
as_property() { # TEXT
  local text=${1//%/%25}
  text=${text//:/%3A}
  echo "${text//,/%2C}"
}

case "${1:-}" in
  install)
    # The project's build of the runner: it links the library (its `fuzz`
    # computes the reference's answers), built without the fast path.
    # nlohmann/json 3.11 or newer: Ubuntu 24.04, Debian 12 (not Ubuntu 22.04's 3.10).
    packages=(g++ cmake make nlohmann-json3-dev libcli11-dev)
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
    hash=$(cd "$root" && find CMakeLists.txt cmake include src conform corpus/conformance \
      -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-32)
    echo "hash=$hash"
    # And the image: a runner built against one glibc does not start on an
    # older one (GLIBC_2.34 not found), so the image and glibc key it too.
    glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | tr -c 'A-Za-z0-9.\n' - || true)
    echo "platform=${ImageOS:-unknown-image}-${glibc:-unknown-libc}"
    ;;
  build)
    : "${PREFIX:?PREFIX: where to install the runner}"
    build=$(mktemp -d)
    start=$SECONDS
    # The project itself, only the two programs installed: no tests,
    # benchmarks or fast path (what a port's CI needs is the runner).
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DAGENT_SESSION_BUILD_TESTS=OFF \
      -DAGENT_SESSION_BUILD_BENCH=OFF -DAGENT_SESSION_FAST=OFF -DAGENT_SESSION_WERROR=OFF
    cmake --build "$build" -j "$(nproc)" --target agent-session-conform agent-session
    cmake --install "$build" --prefix "$PREFIX"
    rm -rf "$build"
    echo "runner built and installed in $PREFIX in $((SECONDS - start)) s"
    ;;
  run)
    : "${PREFIX:?}" "${PORT:?PORT: the port command}"
    case "${MODE:-conformance}" in
      conformance) ;;
      properties)
        status=0
        run_properties || status=$?
        exit "$status"
        ;;
      *)
        echo "::error title=agent-session conformance::mode: '$MODE' is neither conformance (the vectors) nor" \
          "properties (SPEC.md §5's unit invariants)" >&2
        exit 2
        ;;
    esac
    junit=${JUNIT:-agent-session-conformance.xml}
    json=${JSON:-agent-session-conformance.json}
    strict=$(boolean strict "${STRICT:-false}") || exit 2
    harness=$(boolean harness "${HARNESS:-false}") || exit 2
    fuzz_seconds=${FUZZ_SECONDS:-0}
    fuzz_out=${FUZZ_OUT:-agent-session-fuzz-found}
    if ! [[ $fuzz_seconds =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
      echo "::error title=agent-session conformance::fuzz-seconds: '$fuzz_seconds' is not a decimal number of" \
        "seconds (0: no fuzzing)" >&2
      exit 2
    fi
    args=(--timeout "${TIMEOUT:-10}" --jobs "${JOBS:-2}" --report "junit=$junit" --report "json=$json")
    [ -n "${SKIP_FILE:-}" ] && args+=(--skip-file "$SKIP_FILE")
    [ -n "${KNOWN_FAILURES:-}" ] && args+=(--known-failures "$KNOWN_FAILURES")
    # `only` holds one glob or several, separated by blanks or commas.
    only=${ONLY:-}
    read -r -a globs <<<"${only//,/ }"
    for glob in "${globs[@]}"; do args+=(--only "$glob"); done
    [ "$strict" = true ] && args+=(--strict)
    [ "$harness" = true ] && args+=(--harness)
    # The reports' folders may not exist yet (reports/conformance.xml).
    mkdir -p "$(dirname "$junit")" "$(dirname "$json")"
    # The port command is split on whitespace, never run through a shell
    # (a command needing quotes or a pipe belongs in a script of the port's).
    read -r -a port <<<"$PORT"
    # The artifact's name: one per leg of a matrix (upload-artifact@v4
    # refuses a name twice in a run), or the `artifact-name` input.
    artifact=${ARTIFACT_NAME:-agent-session-conformance-${GITHUB_JOB:-job}-${JOB_INDEX:-0}-${RUNNER_OS:-$(uname -s)}-${RUNNER_ARCH:-$(uname -m)}}
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
      echo "junit=$junit" >>"$GITHUB_OUTPUT"
      echo "json=$json" >>"$GITHUB_OUTPUT"
      echo "artifact=$artifact" >>"$GITHUB_OUTPUT"
    fi
    status=0
    # Live, line by line, and kept for the annotations below.
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    "$PREFIX/bin/agent-session-conform" "${args[@]}" -- "${port[@]}" | tee "$log" || status=${PIPESTATUS[0]}
    output=$(cat "$log")
    if grep -q '^FAIL ' "$log"; then
      # Reproduce lines name the vectors installed on this runner; a
      # developer's copy is corpus/conformance of the same commit.
      echo "The reproduce lines name the vectors in $PREFIX/share/agent-session/conformance, on this runner." \
        "On your machine they are corpus/conformance of agent-session${ACTION_REPOSITORY:+ ($ACTION_REPOSITORY)}" \
        "at ${ACTION_REF:-the ref this workflow pins}: clone it and replace that folder with yours, or run" \
        "agent-session-conform (which finds its installed vectors) with the same arguments."
    fi
    if [ -n "${GITHUB_ACTIONS:-}" ]; then
      # One annotation a failing check, escaped as workflow commands want:
      # % in the message; %, colon and comma in a property.
      while IFS= read -r line; do
        case "$line" in
          "FAIL "*)
            title=${line#FAIL }
            title=${title%%:*}
            echo "::error title=$(as_property "conformance ${title}")::${line//%/%25}"
            ;;
          "XPASS "*) # a known failure that passes: its line can go
            echo "::warning title=conformance unexpected pass::${line//%/%25}"
            ;;
        esac
      done <<<"$output"
    fi
    # What changed since the previous run's JSON report (an artifact of an
    # earlier run, of the port's last release): newly failing and newly
    # passing checks, in the job summary. The run's own exit status stays
    # the verdict; a previous report that is not there yet (a first run)
    # is a notice, one that cannot be read stops the step (exit 2 or 3).
    if [ -n "${PREVIOUS_REPORT:-}" ]; then
      summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}
      if [ ! -e "$PREVIOUS_REPORT" ]; then
        echo "::notice title=agent-session conformance::no previous report at $PREVIOUS_REPORT: nothing to compare with"
      elif [ -f "$json" ]; then
        diff_status=0
        "$PREFIX/bin/agent-session-conform" report --diff "$PREVIOUS_REPORT" "$json" --markdown >>"$summary" ||
          diff_status=$?
        [ "$diff_status" -le 1 ] || exit "$diff_status"
      fi
    fi
    # Then the port fuzzer, for as long as asked: a difference is a new
    # vector folder under $fuzz_out, and fails the step as a failing check
    # does. A usage or I/O error of the fuzzer (2, 3) is the step's.
    if [[ ! $fuzz_seconds =~ ^0+(\.0+)?$ ]]; then
      fuzz_args=(fuzz --time "$fuzz_seconds" --timeout "${TIMEOUT:-10}" --jobs "${JOBS:-2}" --out "$fuzz_out")
      [ "$harness" = true ] && fuzz_args+=(--harness)
      fuzz_status=0
      "$PREFIX/bin/agent-session-conform" "${fuzz_args[@]}" -- "${port[@]}" | tee "$log" || fuzz_status=${PIPESTATUS[0]}
      if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "fuzz-out=$fuzz_out" >>"$GITHUB_OUTPUT"; fi
      if [ "$fuzz_status" -eq 1 ] && [ -n "${GITHUB_ACTIONS:-}" ]; then
        while IFS= read -r line; do
          case "$line" in
            "wrote "*) echo "::error title=conformance fuzz difference::${line//%/%25} (reproduce.sh in the artifact)" ;;
          esac
        done <"$log"
      fi
      [ "$fuzz_status" -le 1 ] || exit "$fuzz_status"
      [ "$fuzz_status" -eq 0 ] || [ "$status" -ne 0 ] || status=1
    fi
    exit "$status"
    ;;
  *)
    echo "usage: $0 install|key|build|run" >&2
    exit 2
    ;;
esac
