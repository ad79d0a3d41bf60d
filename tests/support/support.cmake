# tests/support as a library (included by tests/, bench/ and fuzz/, whichever
# comes first defines it): the histories (history_generator.hpp, with
# the one UTF-8 encoder of the generators), the spec-literal oracles
# (spec_units.hpp, json_string_units.hpp) and the helpers every test
# shares; the tests, the fuzz replays and the benchmarks link it. The
# counting allocator replaces the global operator new, so it is a library
# of its own that only the tests that count the heap link.
if(NOT TARGET agent_session_test_support)
  add_library(agent_session_test_support STATIC ${PROJECT_SOURCE_DIR}/tests/support/history_generator.cpp)
  target_include_directories(agent_session_test_support PUBLIC ${PROJECT_SOURCE_DIR}/tests ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(agent_session_test_support PUBLIC agent_session PRIVATE agent_session_warnings)
  add_library(agent_session_counting_allocator OBJECT ${PROJECT_SOURCE_DIR}/tests/support/counting_allocator.cpp)
  target_include_directories(agent_session_counting_allocator PUBLIC ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(agent_session_counting_allocator PRIVATE agent_session_warnings)
endif()
