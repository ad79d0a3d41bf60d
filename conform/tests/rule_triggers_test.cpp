// conform/fuzz/rule_triggers.hpp: the rules an input puts to the test, read
// from what it holds; each case names what must be there and what must not.
#include "conform/fuzz/rule_triggers.hpp"

#include "agent_session/session.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

namespace {

namespace fs = std::filesystem;
using agent_session::conform::fuzz::triggered_rules;

// The rules `bytes` triggers, the reference loading them as the fuzzer does.
std::set<std::string> rules_of(const std::string& bytes) {
  const fs::path file = fs::temp_directory_path() / ("rule_triggers_" + std::to_string(::getpid()) + ".jsonl");
  std::ofstream(file, std::ios::binary) << bytes;
  std::optional<std::vector<agent_session::Message>> messages;
  try {
    messages = agent_session::load_session(file.string());
  } catch (const agent_session::SessionError&) {
  }
  fs::remove(file);
  const auto ids = triggered_rules(bytes, messages);
  return {ids.begin(), ids.end()};
}

const std::string kUser = R"({"role":"user","content":"hi"})";

TEST(RuleTriggers, APlainUserMessageTriggersLoadingPrintingAndTrimmingOnly) {
  const auto rules = rules_of(kUser + "\n");
  for (const char* id : {"R2-1", "R1.1-1", "R1.1-4", "R1-1", "R3-2", "R4-3", "R5.2-1"})
    EXPECT_TRUE(rules.count(id)) << id;
  for (const char* id : {"R2-6", "R2-13", "R2.1-4", "R2.1-5", "R3-4", "R4-2", "R5.1-1", "R5.1-5", "R1.1-9", "R2-19"}) {
    EXPECT_FALSE(rules.count(id)) << id;
  }
}

TEST(RuleTriggers, LinesEmptyBlankCrlfAndAMissingLastNewline) {
  const auto rules = rules_of(kUser + "\n\n" + kUser + "\r\n" + kUser);
  for (const char* id : {"R2-6", "R2-7", "R2-9", "R2-13"}) EXPECT_TRUE(rules.count(id)) << id;
  EXPECT_FALSE(rules.count("R2-8"));
  EXPECT_TRUE(rules_of(kUser + "\n \t\n").count("R2-8"));
  EXPECT_TRUE(rules_of("").count("R2-14"));
  EXPECT_TRUE(rules_of("").count("R5.2-3"));
  EXPECT_TRUE(rules_of("\xEF\xBB\xBF" + kUser + "\n").count("R2-11"));
}

TEST(RuleTriggers, TheStrictRulesOfSection21ByWhatTheLineSpells) {
  const auto surrogate_key = rules_of(R"({"role":"user","content":"x","\udc00":1})"
                                      "\n");
  EXPECT_TRUE(surrogate_key.count("R2.1-4"));
  EXPECT_TRUE(surrogate_key.count("R2.1-2"));  // in a key of a dropped field
  EXPECT_TRUE(surrogate_key.count("R2-19"));   // refused, with one of the two texts
  EXPECT_TRUE(rules_of(R"({"role":"user","content":"x","n":1e400})"
                       "\n")
                  .count("R2.1-5"));
  EXPECT_TRUE(rules_of(R"({"role":"user","content":"x","n":0.00000e-400})"
                       "\n")
                  .count("R2.1-7") == 0);  // a zero is never near an edge
  EXPECT_TRUE(rules_of(R"({"role":"user","content":"x","n":1e-400})"
                       "\n")
                  .count("R2.1-7"));
  EXPECT_TRUE(rules_of(R"({"role":"user","content":"x","n":0e999})"
                       "\n")
                  .count("R2.1-5") == 0);
  EXPECT_TRUE(rules_of(std::string(513, '[') + std::string(513, ']') + "\n").count("R2.1-6"));
  EXPECT_TRUE(rules_of("{\"role\":\"user\",\"content\":\"\xC0\xAF\"}\n").count("R2.1-3"));
  EXPECT_TRUE(rules_of("{\"role\":\"user\",\"content\":\"a\x01\"}\n").count("R2-18"));
  EXPECT_TRUE(rules_of(R"({"role":"user","content":"x","d":1,"d":2})"
                       "\n")
                  .count("R2-16"));
}

TEST(RuleTriggers, RecordsFieldNamesAndRoles) {
  EXPECT_TRUE(rules_of(R"({"Role":"user","role":"user","content":"x"})"
                       "\n")
                  .count("R1.1-3"));
  EXPECT_TRUE(rules_of(R"({"role":"system","content":"x"})"
                       "\n")
                  .count("R1.1-8"));
  EXPECT_TRUE(rules_of(R"({"role":"user","content":"x","extra":true})"
                       "\n")
                  .count("R1.1-9"));
  EXPECT_TRUE(rules_of("[1]\n").count("R1.1-2"));
}

TEST(RuleTriggers, RoundsUnitsAndOrphansOfSection5) {
  const std::string round =
      R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"f","input":{"2":1,"1":-0.5}}]})"
      "\n"
      R"({"role":"tool","content":"r","toolCallId":"a","isError":false})"
      "\n";
  const auto rules = rules_of(kUser + "\n" + round);
  for (const char* id : {"R1.1-5", "R1.1-7", "R5.1-1", "R5.1-2", "R3-4", "R3-6"}) EXPECT_TRUE(rules.count(id)) << id;
  EXPECT_FALSE(rules.count("R5.1-5"));
  const auto orphan = rules_of(R"({"role":"tool","content":"r","toolCallId":"z","isError":true})"
                               "\n");
  EXPECT_TRUE(orphan.count("R5.1-5"));
  EXPECT_TRUE(rules_of("{\"role\":\"user\",\"content\":\"\xF0\x9F\x9A\x80\"}\n").count("R4-2"));
}

}  // namespace
