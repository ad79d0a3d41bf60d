// A fresh directory for each test, removed afterwards, and byte-exact file
// reads and writes for assertions: every test that touches real files
// derives from TempDirTest.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <unistd.h>

namespace agent_session::test_support {

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // The pid keeps parallel ctest runs of the same binary apart. One
    // folder, not nested: a parameterized test's names hold `/`
    // ("Resolvers/ConfinedRead", "Reads/walk"), which would leave the
    // outer folders behind.
    std::string leaf =
        "agent_session_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name();
    std::replace(leaf.begin(), leaf.end(), '/', '_');
    dir_ = std::filesystem::temp_directory_path() / leaf;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path path(const std::string& name) const { return dir_ / name; }

  static std::string read(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }

  static void write(const std::filesystem::path& file, std::string_view bytes) {
    std::ofstream(file, std::ios::binary) << bytes;
  }

  std::filesystem::path dir_;
};

}  // namespace agent_session::test_support
