// The exception a callable throws, so that a test can assert on its fields
// (kind, line, index, errno) rather than on its presence alone.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>

namespace agent_session::test_support {

// Calls `f` and returns the `Error` it throws. When it throws nothing, the
// test fails and std::logic_error ends it (there is no Error to return).
template <class Error, class F>
Error thrown(F&& f) {
  try {
    f();
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "expected exception not thrown";
  throw std::logic_error("expected exception not thrown");
}

}  // namespace agent_session::test_support
