// RapidCheck generators of values: unicode-rich strings and arbitrary JSON
// tool inputs, and how counterexamples print messages (generators.hpp
// builds messages, histories and budgets from them).
//
// Strings shrink towards "" and then "a", JSON towards null.
#pragma once

#include "agent_session/context.hpp"
#include "agent_session/message.hpp"
#include "support/history_generator.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace agent_session {

// Counterexamples print each message as a JSON line rendered by nlohmann,
// not by the library: a display that went through the code under test
// would hide a printing bug (both sides of a failed comparison would show
// the same wrong text). Found by argument-dependent lookup from RapidCheck.
inline Json display_json(const Message& message) {
  Json json = {{"role", role_of(message)}};
  std::visit([&](const auto& m) { json["content"] = m.content; }, message);
  if (const auto* assistant = std::get_if<AssistantMessage>(&message)) {
    json["toolCalls"] = Json::array();
    for (const auto& call : assistant->tool_calls) {
      json["toolCalls"].push_back({{"id", call.id}, {"name", call.name}, {"input", call.input.value()}});
    }
  } else if (const auto* result = std::get_if<ToolResultMessage>(&message)) {
    json["toolCallId"] = result->tool_call_id;
    json["isError"] = result->is_error;
  }
  return json;
}

inline void showValue(const Message& message, std::ostream& os) {
  os << display_json(message).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A unit as counterexamples show it: [begin, end) and its characters.
inline void showValue(const ContextUnit& unit, std::ostream& os) {
  os << "[" << unit.begin << ", " << unit.end << "), " << unit.chars << " chars";
}

}  // namespace agent_session

namespace agent_session::properties {

// ---------------------------------------------------------------- text

inline std::string to_utf8(const std::vector<char32_t>& code_points) {
  std::string out;
  for (char32_t c : code_points) bench::append_utf8(out, c);
  return out;
}

// One character, weighted towards the ones that stress JSON escaping and
// UTF-16 counting. Lower-case ASCII comes first so shrinking lands on "a".
inline rc::Gen<char32_t> code_point() {
  return rc::gen::weightedOneOf<char32_t>({
      {30, rc::gen::inRange<char32_t>(U'a', U'z' + 1)},
      {6, rc::gen::inRange<char32_t>(0x20, 0x7F)},                       // printable ASCII
      {6, rc::gen::element<char32_t>(U'"', U'\\', U'/')},                // escaped or not
      {6, rc::gen::inRange<char32_t>(0x00, 0x20)},                       // control: \n, \u0001...
      {2, rc::gen::element<char32_t>(0x7F, 0x2028, 0x2029, 0xFEFF)},     // raw in JSON.stringify
      {6, rc::gen::inRange<char32_t>(0xA0, 0x800)},                      // two UTF-8 bytes
      {8, rc::gen::inRange<char32_t>(0x4E00, 0xA000)},                   // CJK: three bytes, one unit
      {3, rc::gen::oneOf(rc::gen::inRange<char32_t>(0x800, 0xD800),      // rest of the BMP,
                         rc::gen::inRange<char32_t>(0xE000, 0x10000))},  // no surrogates
      {5, rc::gen::inRange<char32_t>(0x1F600, 0x1F650)},                 // emoji: two units
      {3, rc::gen::inRange<char32_t>(0x10000, 0x110000)},                // any astral
  });
}

// A valid UTF-8 string of up to about size/3 characters.
inline rc::Gen<std::string> unicode_text() {
  return rc::gen::map(rc::gen::scale(0.3, rc::gen::container<std::vector<char32_t>>(code_point())), to_utf8);
}

// ---------------------------------------------------------------- JSON

// JavaScript's array-index keys: the canonical decimal form of an integer
// 0..4294967294. Written here again, not taken from the library, so that
// the round trip checks the library's key order against an independent one.
inline bool is_js_array_index(const std::string& key) {
  if (key.empty() || key.size() > 10) return false;
  if (!std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  if (key.size() > 1 && key[0] == '0') return false;
  return std::stoull(key) <= 4294967294ULL;
}

// An object with its keys in JavaScript's property order: array-index keys
// ascending, then the others in insertion order (SPEC.md §3). This is
// the order in which loading returns objects, so generated inputs compare
// equal to loaded ones exactly, order included.
inline Json in_js_key_order(const Json& object) {
  std::vector<std::pair<std::string, const Json*>> index_keys;
  std::vector<std::pair<std::string, const Json*>> other_keys;
  for (const auto& [key, value] : object.items()) {
    (is_js_array_index(key) ? index_keys : other_keys).emplace_back(key, &value);
  }
  std::stable_sort(index_keys.begin(), index_keys.end(),
                   [](const auto& a, const auto& b) { return std::stoull(a.first) < std::stoull(b.first); });
  Json ordered = Json::object();
  for (const auto& [key, value] : index_keys) ordered[key] = *value;
  for (const auto& [key, value] : other_keys) ordered[key] = *value;
  return ordered;
}

inline double from_bits(std::uint64_t bits) { return std::bit_cast<double>(bits); }

// Every number is a double, as JavaScript holds it (SPEC.md §3): small
// integers, integers near 2^53, the printing thresholds, and arbitrary
// finite bit patterns.
inline rc::Gen<double> json_number() {
  return rc::gen::weightedOneOf<double>({
      {4, rc::gen::cast<double>(rc::gen::inRange(-1000, 1000))},
      {2, rc::gen::cast<double>(rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 54), std::int64_t{1} << 54))},
      {2, rc::gen::element(0.5, -0.0, 0.1, 1e-7, 1e-6, 1e21, 1e20, 123456789012345680000.0, 5e-324,
                           1.7976931348623157e308, -2.5e-300)},
      {3, rc::gen::suchThat(rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), from_bits),
                            [](double d) { return std::isfinite(d); })},
  });
}

// Object keys: array-index lookalikes (some are, some are not) and text.
inline rc::Gen<std::string> json_key() {
  return rc::gen::weightedOneOf<std::string>({
      {3, rc::gen::element<std::string>("a", "b", "role", "content", "id")},
      {2, rc::gen::element<std::string>("0", "1", "7", "10", "4294967294", "4294967295", "01", "-1", "1.5", " 1")},
      {3, unicode_text()},
  });
}

inline Json object_from(const std::vector<std::pair<std::string, Json>>& members) {
  Json object = Json::object();
  for (const auto& [key, value] : members) object[key] = value;  // a repeated key keeps its first place
  return in_js_key_order(object);
}

// Any JSON value, nested at most `depth` levels below the top.
inline rc::Gen<Json> json_value(int depth) {
  auto scalar = rc::gen::weightedOneOf<Json>({
      {2, rc::gen::just(Json(nullptr))},
      {1, rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return Json(b); })},
      {3, rc::gen::map(json_number(), [](double d) { return Json(d); })},
      {3, rc::gen::map(unicode_text(), [](std::string s) { return Json(std::move(s)); })},
  });
  if (depth == 0) return scalar;
  auto element = json_value(depth - 1);
  auto array = rc::gen::map(rc::gen::scale(0.05, rc::gen::container<std::vector<Json>>(element)),
                            [](std::vector<Json> items) { return Json(std::move(items)); });
  auto object = rc::gen::map(rc::gen::scale(0.05, rc::gen::container<std::vector<std::pair<std::string, Json>>>(
                                                      rc::gen::pair(json_key(), element))),
                             object_from);
  return rc::gen::weightedOneOf<Json>({{4, scalar}, {1, array}, {2, object}});
}

}  // namespace agent_session::properties
