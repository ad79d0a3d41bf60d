// The fast path's discriminator (src/fast/tree_discriminate.hpp, reading
// simdjson's tree) against the reference's (reference/discriminate.cpp,
// SPEC.md §1.1), reason by reason: every row of the table with every kind
// of value (or none) in every field it checks, alone and two at a time
// (which row decides first), every role as a reason shows it, and
// repeated keys. A drift in a reason's text, in the order of the checks or
// in which repeated key counts fails here. Every line is one simdjson
// reads, so the fast discriminator gives the answer, not the reference
// parser it falls back to.
#include "fast/simd_line_parser.hpp"

#include "agent_session/message.hpp"
#include "agent_session/session.hpp"
#include "reference/load.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace agent_session::fast {
namespace {

// What a parse says of a line: its message's canonical line, or its
// error's text ("invalid session record at line 3: ...").
template <class Parse>
std::string verdict(const Parse& parse) {
  try {
    return "message " + to_canonical_json(parse());
  } catch (const SessionError& error) {
    return error.what();
  }
}

class TreeDiscriminateTest : public ::testing::Test {
 protected:
  void expect_same_verdict(const std::string& line) {
    ASSERT_TRUE(simd_.json(line, 0).has_value()) << "the reference parser would answer: " << line;
    EXPECT_EQ(verdict([&] { return simd_.parse(line, 3, 0); }),
              verdict([&] { return reference::parse_session_line(line, 3); }))
        << line;
    ++lines_;
  }

  // `base` with the value at `pointer` replaced by `value`, or removed
  // when `value` is nullopt; false when `base` has no such place.
  static bool edit(Json& base, const std::string& pointer, const std::optional<Json>& value) {
    const Json::json_pointer at(pointer);
    if (!base.contains(at)) return false;
    if (value) {
      base.at(at) = *value;
      return true;
    }
    Json& parent = base.at(at.parent_pointer());
    if (parent.is_array()) {
      parent.erase(std::stoul(at.back()));
    } else {
      parent.erase(at.back());
    }
    return true;
  }

  SimdLineParser simd_;
  std::size_t lines_ = 0;
};

Json call(const char* id) { return Json{{"id", id}, {"name", "n"}, {"input", Json{{"k", 1}}}}; }

// A message of each role, and the places SPEC.md §1.1 checks in it.
struct Base {
  Json message;
  std::vector<std::string> places;
};

std::vector<Base> bases() {
  return {
      {Json{{"role", "user"}, {"content", "c"}}, {"/role", "/content"}},
      {Json{{"role", "assistant"}, {"content", "c"}, {"toolCalls", Json::array({call("1"), call("2"), call("3")})}},
       {"/role", "/content", "/toolCalls", "/toolCalls/1", "/toolCalls/0/id", "/toolCalls/1/name", "/toolCalls/2/input",
        "/toolCalls/2/id"}},
      {Json{{"role", "tool"}, {"content", "c"}, {"toolCallId", "1"}, {"isError", false}},
       {"/role", "/content", "/toolCallId", "/isError"}},
  };
}

// A value of every kind, and none.
const std::vector<std::optional<Json>> kValues = {std::nullopt,  Json(nullptr),    Json(true),     Json(false),
                                                  Json(0),       Json(-1.5),       Json(""),       Json("x"),
                                                  Json::array(), Json::array({1}), Json::object(), Json{{"a", 1}}};

TEST_F(TreeDiscriminateTest, EveryFieldWithEveryKindOfValueGetsTheReferencesReason) {
  for (const std::optional<Json>& value : kValues) {
    if (value) expect_same_verdict(value->dump());  // the whole line: not an object, or an object of no role
  }
  for (const Base& base : bases()) {
    for (const std::string& place : base.places) {
      for (const std::optional<Json>& value : kValues) {
        Json line = base.message;
        ASSERT_TRUE(edit(line, place, value)) << place;
        expect_same_verdict(line.dump());
      }
    }
  }
}

// Two fields wrong at once: the row that comes first in SPEC.md §1.1's
// table (and the first tool call, of several) is the one the reason names.
TEST_F(TreeDiscriminateTest, TheFirstProblemInTheTablesOrderIsTheOneNamed) {
  const std::vector<std::optional<Json>> values = {std::nullopt, Json(nullptr), Json(1), Json("x"), Json::array()};
  for (const Base& base : bases()) {
    for (std::size_t a = 0; a < base.places.size(); ++a) {
      for (std::size_t b = a + 1; b < base.places.size(); ++b) {
        for (const std::optional<Json>& first : values) {
          for (const std::optional<Json>& second : values) {
            Json line = base.message;
            if (edit(line, base.places[b], second) && edit(line, base.places[a], first)) {
              expect_same_verdict(line.dump());
            }
          }
        }
      }
    }
  }
  EXPECT_GT(lines_, 500u);
}

// Each role against each message's fields, and the role as an unknown
// one is shown: escaped, and cut after 64 bytes, never inside a character.
TEST_F(TreeDiscriminateTest, EveryRoleIsJudgedAndShownAsTheReferenceShowsIt) {
  const std::vector<std::string> roles = {"user",
                                          "assistant",
                                          "tool",
                                          "User",
                                          "system",
                                          "",
                                          "user ",
                                          "a\n\x1b[2Jb\u202e\"\\",
                                          std::string(64, 'r'),
                                          std::string(65, 'r'),
                                          std::string(1000, 'r'),
                                          std::string(63, 'r') + "\u00e9\u00e9",
                                          std::string(62, 'r') + "\u4e2d!",
                                          std::string(61, 'r') + "\U0001F600"};
  for (const Base& base : bases()) {
    for (const std::string& role : roles) {
      Json line = base.message;
      line["role"] = role;
      expect_same_verdict(line.dump());
    }
  }
}

// A repeated key: the last one is the value JSON.parse keeps (SPEC.md §2),
// whichever of the two is the wrong one.
TEST_F(TreeDiscriminateTest, TheLastOfARepeatedKeyIsTheOneJudged) {
  const std::string good_call = R"({"id":"1","name":"n","input":1})";
  for (const std::string& line : std::vector<std::string>{
           R"({"role":"user","content":"c","content":1})",
           R"({"role":"user","content":1,"content":"c"})",
           R"({"role":"user","role":"tool","content":"c","toolCallId":"1","isError":true})",
           R"({"role":"assistant","content":"c","toolCalls":[],"toolCalls":{}})",
           R"({"role":"assistant","content":"c","toolCalls":{},"toolCalls":[]})",
           R"({"role":"assistant","content":"c","toolCalls":[{"id":"1","id":2,"name":"n","input":1}]})",
           R"({"role":"assistant","content":"c","toolCalls":[{"id":2,"id":"1","name":"n","name":null,"input":1}]})",
           R"({"role":"assistant","content":"c","toolCalls":[)" + good_call + "," + good_call +
               R"(,{"id":"3","name":"n","input":null,"input":2}]})",
           R"({"role":"tool","content":"c","toolCallId":"1","toolCallId":[],"isError":false})",
           R"({"role":"tool","content":"c","toolCallId":"1","isError":"no","isError":false})",
       }) {
    expect_same_verdict(line);
  }
}

}  // namespace
}  // namespace agent_session::fast
