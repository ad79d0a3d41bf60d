# What every Debian cross toolchain file here shares: set
# agent_session_cross_cpu (s390x, aarch64, ...) and include this. The
# compiler is Debian's g++-<cpu>-linux-gnu; the binaries run under
# qemu-user: qemu-<cpu> -L /usr/<cpu>-linux-gnu ./agent-session
# Meant for the reference configuration (-DAGENT_SESSION_FAST=OFF), whose
# only dependencies, nlohmann/json and CLI11, are header-only and
# architecture-independent, so the host's /usr/include and /usr/share/cmake
# serve every target.
#
# Debian's multiarch layout (as debhelper's debtoolchainfilegen does): no
# find root; the target's libraries live in /usr/lib/<cpu>-linux-gnu, and
# with CMAKE_LIBRARY_ARCHITECTURE set CMake searches that folder and never
# the host's /usr/lib/<host triplet>, so no host-architecture library or
# package config (simdjson, {fmt}) can be picked up.
set(triplet ${agent_session_cross_cpu}-linux-gnu)
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${agent_session_cross_cpu})
set(CMAKE_LIBRARY_ARCHITECTURE ${triplet})
set(CMAKE_C_COMPILER ${triplet}-gcc)
set(CMAKE_CXX_COMPILER ${triplet}-g++)
set(PKG_CONFIG_EXECUTABLE ${triplet}-pkg-config)
# try_run and test commands run target binaries through qemu-user.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-${agent_session_cross_cpu} -L /usr/${triplet})
