// JavaScript's object rules as src/reference/js_object.hpp states them
// (SPEC.md §2 [R2-16], §3 [R3-6]): which keys are array indexes, and the
// object JSON.parse builds from members as a line spells them out.
#include "reference/js_object.hpp"

#include "agent_session/json.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace agent_session::reference {
namespace {

TEST(JsObject, AnArrayIndexIsTheCanonicalDecimalOfZeroTo4294967294) {
  EXPECT_EQ(array_index("0"), 0u);
  EXPECT_EQ(array_index("7"), 7u);
  EXPECT_EQ(array_index("4294967294"), 4294967294u);
  for (const char* key : {"", "01", "-1", "+1", "1.0", "1e3", " 1", "4294967295", "10000000000", "a"}) {
    EXPECT_FALSE(array_index(key).has_value()) << key;
  }
}

using Members = std::vector<std::pair<std::string, double>>;

// The members of javascript_object(members), in its order.
Members built(std::vector<std::pair<std::string, Json>> members) {
  const Json object = javascript_object(std::move(members));
  Members seen;
  for (const auto& [key, value] : object.items()) seen.emplace_back(key, value.get<double>());
  return seen;
}

// `{"b":1,"a":2,"b":3,"10":4,"2":5,"02":6}` as JSON.parse reads it:
// JSON.stringify gives {"2":5,"10":4,"b":3,"a":2,"02":6}.
TEST(JsObject, ARepeatedKeyKeepsItsFirstPlaceAndTakesTheLastValueThenIndexesComeFirst) {
  std::vector<std::pair<std::string, Json>> members = {{"b", 1.0},  {"a", 2.0}, {"b", 3.0},
                                                       {"10", 4.0}, {"2", 5.0}, {"02", 6.0}};
  EXPECT_EQ(built(std::move(members)), (Members{{"2", 5.0}, {"10", 4.0}, {"b", 3.0}, {"a", 2.0}, {"02", 6.0}}));
}

// Index keys alone, repeated, at the edges of the range: ascending by
// value, each at its last value; "4294967295" is past the range, so it
// keeps its insertion place after the indexes.
TEST(JsObject, IndexKeysComeFirstAscendingRepeatedOnesTakeTheirLastValue) {
  std::vector<std::pair<std::string, Json>> members = {{"4294967295", 1.0}, {"10", 2.0}, {"9", 3.0},
                                                       {"4294967294", 4.0}, {"10", 5.0}, {"0", 6.0}};
  EXPECT_EQ(built(std::move(members)),
            (Members{{"0", 6.0}, {"9", 3.0}, {"10", 5.0}, {"4294967294", 4.0}, {"4294967295", 1.0}}));
}

}  // namespace
}  // namespace agent_session::reference
