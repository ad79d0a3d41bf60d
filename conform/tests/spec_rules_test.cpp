// SPEC.md's rule IDs as `agent-session-conform rules` reads them
// (conform/rules/spec_rules.hpp; SPEC.md Conventions, "Rule IDs"): the IDs
// of §1-§6 with their lines, and every sentence there with a key word and
// no ID.
#include "conform/rules/spec_rules.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace agent_session {
namespace {

using conform::rules::read_spec_rules;

std::vector<std::string> ids(const conform::rules::SpecRules& found) {
  std::vector<std::string> all;
  for (const auto& rule : found.rules) all.push_back(rule.id + "@" + std::to_string(rule.line));
  return all;
}

std::vector<std::string> untraced(const conform::rules::SpecRules& found) {
  std::vector<std::string> all;
  for (const auto& sentence : found.untraced) {
    all.push_back(std::to_string(sentence.line) + " " + sentence.keyword + ": " + sentence.text);
  }
  return all;
}

TEST(SpecRules, IdsOfSectionsOneToSixWithTheirLines) {
  const auto found = read_spec_rules(
      "# spec\n"
      "## Conventions\n"
      "A port MUST be untagged here, and `[R9-9]` is an example. [R8-1]\n"
      "## 1. Messages\n"
      "A port MUST do this. [R1-1] It prints that. [R1-2]\n"
      "### 1.1 More\n"
      "| a | row [R1.1-1] |\n"
      "```\n"
      "MUST in a code block [R1.1-9]\n"
      "```\n"
      "- an item MUST hold\n"
      "  over two lines. [R1.1-2]\n"
      "## 7. Not promised\n"
      "A port MUST NOT be read here. [R7-1]\n");
  EXPECT_EQ(ids(found), (std::vector<std::string>{"R1-1@5", "R1-2@5", "R1.1-1@7", "R1.1-2@12"}));
  EXPECT_TRUE(found.untraced.empty()) << untraced(found).front();
  EXPECT_TRUE(found.repeated.empty());
}

TEST(SpecRules, ASentenceWithAKeyWordAndNoIdIsUntraced) {
  const auto found = read_spec_rules(
      "## 2. Loading\n"
      "\n"
      "A port MUST load. [R2-1] A port MUST frob the widget (as `x.y` does, e.g. this).\n"
      "Then more.\n"
      "\n"
      "- a line SHALL end; it is REQUIRED\n"
      "- an item with `MUST` in code only, and this spec makes it a MUST.\n"
      "| a row that MUST hold | no ID |\n");
  EXPECT_EQ(untraced(found), (std::vector<std::string>{
                                 "3 MUST: A port MUST frob the widget (as `x.y` does, e.g. this).",
                                 "6 SHALL: - a line SHALL end; it is REQUIRED",
                                 "8 MUST: | a row that MUST hold | no ID |",
                             }));
}

// IDs follow their sentence's final `.`: an ID that opens a sentence tags
// the one before it, never the one it opens.
TEST(SpecRules, AnIdAfterASentenceTagsThatSentenceOnly) {
  const auto found = read_spec_rules(
      "## 3. Canon\n"
      "A port MUST print. [R3-1] Vectors: `y_a`, `y_b`. A port MUST also sort.\n");
  EXPECT_EQ(untraced(found), (std::vector<std::string>{"2 MUST: A port MUST also sort."}));
}

TEST(SpecRules, AnIdWrittenTwiceIsFoundWithBothLines) {
  const auto found = read_spec_rules(
      "## 4. Estimate\n"
      "It counts. [R4-1]\n"
      "\n"
      "It counts again. [R4-1]\n"
      "Not an ID: [R4-01] [Rx-1] [R4-2\n");
  EXPECT_EQ(ids(found), (std::vector<std::string>{"R4-1@2"}));
  ASSERT_EQ(found.repeated.size(), 1u);
  EXPECT_EQ(found.repeated[0].id, "R4-1");
  EXPECT_EQ(found.repeated[0].first_line, 2u);
  EXPECT_EQ(found.repeated[0].line, 4u);
}

// SPEC.md is a file the user names: a paragraph of a million unclosed
// `[R` and a million sentences is read in one pass, not one per sentence
// (quadratic, that would take hours; the bound is a safety net far above
// the linear time, never a measured duration).
TEST(SpecRules, AHugeParagraphIsReadInOnePass) {
  std::string spec = "## 2. Loading\n";
  for (int i = 0; i < 1000000; ++i) spec += "[R1-";
  for (int i = 0; i < 1000000; ++i) spec += "A. ";
  spec += "It MUST end.\n";
  const auto start = std::chrono::steady_clock::now();
  const auto found = read_spec_rules(spec);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_TRUE(found.rules.empty());
  ASSERT_EQ(found.untraced.size(), 1u);
  EXPECT_EQ(found.untraced[0].text, "It MUST end.");
}

}  // namespace
}  // namespace agent_session
