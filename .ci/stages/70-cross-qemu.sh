#!/usr/bin/env bash
# Portability (docs/portability.md): the reference configuration
# (-DAGENT_SESSION_FAST=OFF: portable C++20 on nlohmann/json, the CLI on
# CLI11) cross-built with Debian's compilers for s390x (64-bit big-endian,
# char unsigned) on every run, and aarch64 as well nightly
# (.github/workflows/nightly.yml, CROSS_ARCHES="s390x aarch64"), then every
# conformance vector run on each under qemu-user:
# the host's `conform --harness` runner drives `qemu-<cpu> -L /usr/<triplet>
# build-<cpu>/agent-session` exactly as it drives any port. A big-endian
# machine catches byte-order assumptions no x86 or Arm run can.
# Every architecture asked for runs; any failure (install, configure, build,
# a binary of the wrong architecture, one failing vector) fails the stage.
# The conformance passes run in harness mode (one qemu process per job,
# not one per run); the host runner is the main build's. The step table
# this stage prints gives each part's seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."

# The host build whose runner drives the ports: the main CI build by
# default (.ci/run builds it first); built here if it is not there.
host_build=${CROSS_HOST_BUILD:-build}
jobs=${CROSS_JOBS:-2}
read -r -a arches <<<"${CROSS_ARCHES:-s390x}"

stage_start=$SECONDS
step() { # step LABEL COMMAND...: runs COMMAND, prints how long it took
  local label=$1 start=$SECONDS status=0
  shift
  "$@" || status=$?
  printf 'cross-qemu: %-34s %4d s%s\n' "$label" $((SECONDS - start)) \
    "$([ "$status" -eq 0 ] || echo "  FAILED (exit status $status)")"
  return "$status"
}

install_missing() {
  local packages=(qemu-user) missing=() p
  for arch in "${arches[@]}"; do packages+=("g++-$arch-linux-gnu"); done
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    echo "cross-qemu: cross compilers and qemu-user are installed"
    return 0
  fi
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "cross-qemu: installing ${missing[*]}"
  $sudo apt-get update -qq || return
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

host_runner() {
  if [ ! -f "$host_build/CMakeCache.txt" ]; then
    cmake -S . -B "$host_build" -G Ninja -DAGENT_SESSION_BUILD_TESTS=OFF -DAGENT_SESSION_BUILD_BENCH=OFF || return
  fi
  # `agent-session conform` runs the runner beside it: both are built.
  cmake --build "$host_build" --target agent-session agent-session-conform -j"$jobs"
}

# The two DISABLE_FIND_PACKAGE flags prove the reference build needs neither
# simdjson nor {fmt} (a find_package of either would fail); CMake calls them
# unused when nothing asks, hence --no-warn-unused-cli. Release's asserts
# off, at -O1: byte order and char signedness show at any optimization
# level, and -O3's compile time was most of this stage.
configure() { # configure ARCH
  cmake -S . -B "build-$1" -G Ninja --no-warn-unused-cli \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/$1-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DAGENT_SESSION_FAST=OFF \
    -DCMAKE_DISABLE_FIND_PACKAGE_simdjson=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON \
    -DAGENT_SESSION_BUILD_TESTS=OFF -DAGENT_SESSION_BUILD_BENCH=OFF >/dev/null
}

build() { # build ARCH
  cmake --build "build-$1" --target agent-session -j"$jobs"
}

# The binary is the target's (not a host one picked up by mistake), links
# nothing of simdjson or {fmt}, and starts under qemu.
smoke() { # smoke ARCH
  local header want linked
  header=$("$1-linux-gnu-readelf" -h "build-$1/agent-session")
  case $1 in
    s390x) want="big endian" ;;
    *) want="little endian" ;;
  esac
  if ! grep -q "$want" <<<"$header"; then
    echo "build-$1/agent-session is not a $want ELF file:" >&2
    echo "$header" >&2
    return 1
  fi
  grep -E 'Class|Data|Machine' <<<"$header"
  linked=$("$1-linux-gnu-nm" -C "build-$1/agent-session" | grep -E 'simdjson|fmt::' | head -5) || true
  if [ -n "$linked" ]; then
    echo "build-$1/agent-session links simdjson or {fmt}:" >&2
    echo "$linked" >&2
    return 1
  fi
  qemu-"$1" -L "/usr/$1-linux-gnu" "build-$1/agent-session" --version
}

conform() { # conform ARCH
  # Harness mode: qemu starts the command once per job instead of once per
  # run (about a tenth of a second each). The answers are the same in both
  # modes (ctest's HarnessSameVerdicts, stage 32); exec mode's process
  # rules are the host's. --timeout is per request and leaves room for a
  # loaded machine.
  # The JSON report is a column of the conformance matrix (75-matrix.sh).
  mkdir -p build/matrix
  "$host_build/agent-session" conform --harness --jobs "$jobs" --timeout 30 \
    --report "junit=build-$1/conformance.xml" --report "json=build/matrix/qemu-$1.json" --label "qemu $1" \
    -- qemu-"$1" -L "/usr/$1-linux-gnu" "build-$1/agent-session"
}

step "install" install_missing
step "host runner ($host_build)" host_runner
failed=()
for arch in "${arches[@]}"; do
  if step "$arch: configure" configure "$arch" &&
    step "$arch: build agent-session" build "$arch" &&
    step "$arch: binary, links, qemu" smoke "$arch" &&
    step "$arch: conformance under qemu" conform "$arch"; then
    echo "cross-qemu: $arch passes every vector (report: build-$arch/conformance.xml)"
  else
    failed+=("$arch")
  fi
done
printf 'cross-qemu: %-34s %4d s\n' "whole stage" $((SECONDS - stage_start))
if ((${#failed[@]} > 0)); then
  echo "cross-qemu: failed on ${failed[*]}" >&2
  exit 1
fi
