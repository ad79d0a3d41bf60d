# Cross-compiles for 64-bit big-endian IBM Z with Debian's cross compiler
# (g++-s390x-linux-gnu); the binaries run under qemu-user:
#   qemu-s390x -L /usr/s390x-linux-gnu ./agent-session
# Meant for the reference configuration (-DAGENT_SESSION_FAST=OFF), whose
# only dependencies, nlohmann/json and CLI11, are header-only and
# architecture-independent, so the host's /usr/include and /usr/share/cmake
# serve every target.
#
# Debian's multiarch layout (as debhelper's debtoolchainfilegen does): no
# find root; the target's libraries live in /usr/lib/s390x-linux-gnu, and
# with CMAKE_LIBRARY_ARCHITECTURE set CMake searches that folder and never
# the host's /usr/lib/<host triplet>, so no host-architecture library or
# package config (simdjson, {fmt}) can be picked up.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_LIBRARY_ARCHITECTURE s390x-linux-gnu)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER s390x-linux-gnu-g++)
set(PKG_CONFIG_EXECUTABLE s390x-linux-gnu-pkg-config)
# try_run and test commands run target binaries through qemu-user.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x -L /usr/s390x-linux-gnu)
