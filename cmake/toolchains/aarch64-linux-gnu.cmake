# Cross-compiles for 64-bit little-endian Arm (AArch64) with Debian's cross
# compiler (g++-aarch64-linux-gnu): see debian-cross.cmake.
set(agent_session_cross_cpu aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
