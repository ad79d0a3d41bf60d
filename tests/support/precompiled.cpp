// The source of agent_session_test_pch (tests/CMakeLists.txt): the target
// exists to build the test code's precompiled header once, which every
// test binary reuses; this file adds nothing to it.
