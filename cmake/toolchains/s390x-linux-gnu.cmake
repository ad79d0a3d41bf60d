# Cross-compiles for 64-bit big-endian IBM Z (s390x) with Debian's cross
# compiler (g++-s390x-linux-gnu): see debian-cross.cmake.
set(agent_session_cross_cpu s390x)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
