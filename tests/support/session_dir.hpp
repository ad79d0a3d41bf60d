// A fresh directory per test with the session file a run records to, and
// what that file holds (agent and run-command tests).
#pragma once

#include "agent_session/session.hpp"
#include "support/temp_dir.hpp"

#include <filesystem>
#include <vector>

namespace agent_session::test_support {

class SessionDirTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    session_ = path("session.jsonl");
  }
  std::vector<Message> on_disk() const { return load_session(session_); }
  std::filesystem::path session_;
};

}  // namespace agent_session::test_support
