# agent_session_history_generator: the deterministic realistic histories
# (history_generator.hpp) that the benchmarks measure and the property
# tests check. Included by bench/ and tests/properties/, whichever comes
# first defines it, so either builds without the other.
if(NOT TARGET agent_session_history_generator)
  add_library(agent_session_history_generator STATIC ${PROJECT_SOURCE_DIR}/bench/history_generator.cpp)
  target_include_directories(agent_session_history_generator PUBLIC ${PROJECT_SOURCE_DIR}/bench)
  target_link_libraries(agent_session_history_generator PUBLIC agent_session PRIVATE agent_session_warnings)
endif()
