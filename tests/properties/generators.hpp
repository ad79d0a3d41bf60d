// RapidCheck generators for the property tests: unicode-rich strings,
// arbitrary JSON tool inputs, messages of the three roles, structured
// histories (rounds of user -> assistant with tool calls -> results) and
// budgets near the points where trimming changes its answer.
//
// Every generator shrinks towards something small and readable: strings
// towards "" and then "a", JSON towards null, histories towards fewer
// rounds, fewer calls and results in declaration order, budgets towards 0.
//
// Example:
//   RC_GTEST_PROP(Trim, Example, ()) {
//     const auto history = *properties::history();
//     const auto max_chars = *properties::budget_for(history);
//     ...
//   }
#pragma once

#include "agent_session/context.hpp"
#include "agent_session/message.hpp"
#include "reference.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace agent_session {

// Counterexamples print each message as its canonical line (control
// characters escaped, everything else raw), the form a reader knows from
// session files. Found by argument-dependent lookup from RapidCheck.
inline void showValue(const Message& message, std::ostream& os) {
  try {
    os << to_canonical_json(message);
  } catch (const SerializationError& error) {
    os << "<unserializable " << role_of(message) << " message: " << error.what() << ">";
  }
}

}  // namespace agent_session

namespace agent_session::properties {

// ---------------------------------------------------------------- text

// UTF-8 bytes of one Unicode scalar value (never a surrogate).
inline void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

inline std::string to_utf8(const std::vector<char32_t>& code_points) {
  std::string out;
  for (char32_t c : code_points) append_utf8(out, c);
  return out;
}

// One character, weighted towards the ones that stress JSON escaping and
// UTF-16 counting. Lower-case ASCII comes first so shrinking lands on "a".
inline rc::Gen<char32_t> code_point() {
  return rc::gen::weightedOneOf<char32_t>({
      {30, rc::gen::inRange<char32_t>(U'a', U'z' + 1)},
      {6, rc::gen::inRange<char32_t>(0x20, 0x7F)},                    // printable ASCII
      {6, rc::gen::element<char32_t>(U'"', U'\\', U'/')},             // escaped or not
      {6, rc::gen::inRange<char32_t>(0x00, 0x20)},                    // control: \n, \u0001...
      {2, rc::gen::element<char32_t>(0x7F, 0x2028, 0x2029, 0xFEFF)},  // raw in JSON.stringify
      {6, rc::gen::inRange<char32_t>(0xA0, 0x800)},                   // two UTF-8 bytes
      {8, rc::gen::inRange<char32_t>(0x4E00, 0xA000)},                // CJK: three bytes, one unit
      {3, rc::gen::oneOf(rc::gen::inRange<char32_t>(0x800, 0xD800),   // rest of the BMP,
                         rc::gen::inRange<char32_t>(0xE000, 0x10000))},  // no surrogates
      {5, rc::gen::inRange<char32_t>(0x1F600, 0x1F650)},              // emoji: two units
      {3, rc::gen::inRange<char32_t>(0x10000, 0x110000)},             // any astral
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
// ascending, then the others in insertion order (decisions §4). This is
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

// Every number is a double, as JavaScript holds it (decisions §4): small
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
  auto object = rc::gen::map(
      rc::gen::scale(0.05, rc::gen::container<std::vector<std::pair<std::string, Json>>>(
                               rc::gen::pair(json_key(), element))),
      object_from);
  return rc::gen::weightedOneOf<Json>({{4, scalar}, {1, array}, {2, object}});
}

// ---------------------------------------------------------------- messages

// Tool call ids come from a small pool so that ids repeat across rounds
// and within one assistant; now and then a unicode id.
inline rc::Gen<std::string> call_id() {
  return rc::gen::weightedOneOf<std::string>({
      {8, rc::gen::element<std::string>("a", "b", "c", "d", "e")},
      {1, unicode_text()},
  });
}

inline rc::Gen<std::string> tool_name() {
  return rc::gen::weightedOneOf<std::string>({
      {4, rc::gen::element<std::string>("read", "grep", "\u8bfb\u6587\u4ef6", "\U0001F527")},
      {1, unicode_text()},
  });
}

inline rc::Gen<ToolCall> tool_call(rc::Gen<std::string> ids, int input_depth) {
  return rc::gen::apply([](std::string id, std::string name,
                           Json input) { return ToolCall{std::move(id), std::move(name), std::move(input)}; },
                        std::move(ids), tool_name(), json_value(input_depth));
}

// 0 to 5 tool calls.
inline rc::Gen<std::vector<ToolCall>> tool_calls(rc::Gen<std::string> ids, int input_depth) {
  auto call = tool_call(std::move(ids), input_depth);
  return rc::gen::mapcat(rc::gen::inRange(0, 6),
                         [call](int count) { return rc::gen::container<std::vector<ToolCall>>(count, call); });
}

inline rc::Gen<Message> user_message() {
  return rc::gen::map(unicode_text(), [](std::string text) -> Message { return UserMessage{std::move(text)}; });
}

inline rc::Gen<Message> assistant_message(int input_depth = 3) {
  return rc::gen::apply(
      [](std::string text, std::vector<ToolCall> calls) -> Message {
        return AssistantMessage{std::move(text), std::move(calls)};
      },
      unicode_text(), tool_calls(call_id(), input_depth));
}

inline rc::Gen<Message> tool_result(rc::Gen<std::string> ids) {
  return rc::gen::apply(
      [](std::string text, std::string id, bool is_error) -> Message {
        return ToolResultMessage{std::move(text), std::move(id), is_error};
      },
      unicode_text(), std::move(ids), rc::gen::arbitrary<bool>());
}

// Any message of any role, unrelated to its neighbours.
inline rc::Gen<Message> message() {
  return rc::gen::oneOf(user_message(), assistant_message(), tool_result(call_id()));
}

// A short list of unrelated messages (a valid session file's content).
inline rc::Gen<std::vector<Message>> messages(int min_count = 0) {
  return rc::gen::withSize([min_count](int size) {
    return rc::gen::mapcat(rc::gen::inRange(min_count, min_count + 1 + size / 10), [size](int count) {
      return rc::gen::container<std::vector<Message>>(static_cast<std::size_t>(count),
                                                      rc::gen::resize(size, message()));
    });
  });
}

// ---------------------------------------------------------------- histories

// One round: an optional user prompt, an assistant with 0-5 calls, then
// what follows it: results for some of the calls (a call may never get
// one) in any order, sometimes a user message between a call and its
// result, sometimes a result nobody declared. The last `postponed` of those
// are held back until after the next round's assistant, which interleaves
// rounds (assistant x, assistant y, result x, result y: decisions §6).
struct Round {
  std::vector<Message> before;  // the user prompt, if any
  Message assistant;
  std::vector<Message> after;
  std::size_t postponed = 0;
};

// Results of ids that no assistant ever declares.
inline rc::Gen<std::string> orphan_id() { return rc::gen::element<std::string>("x", "y"); }

inline rc::Gen<Round> round() {
  return rc::gen::exec([] {
    Round round;
    if (*rc::gen::weightedElement<bool>({{3, true}, {1, false}})) round.before.push_back(*user_message());
    const auto calls = *tool_calls(call_id(), 2);
    round.assistant = AssistantMessage{*unicode_text(), calls};
    for (const auto& call : calls) {
      if (!*rc::gen::weightedElement<bool>({{5, true}, {1, false}})) continue;  // never answered
      round.after.push_back(ToolResultMessage{*unicode_text(), call.id, *rc::gen::arbitrary<bool>()});
    }
    // Any order: sort by random keys; keys shrink to 0, i.e. declaration order.
    const auto keys = *rc::gen::container<std::vector<int>>(round.after.size(), rc::gen::inRange(0, 8));
    std::vector<std::pair<int, Message>> keyed;
    for (std::size_t i = 0; i < keys.size(); ++i) keyed.emplace_back(keys[i], round.after[i]);
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < keyed.size(); ++i) round.after[i] = keyed[i].second;

    const auto orphans = *rc::gen::weightedElement<int>({{6, 0}, {2, 1}, {1, 2}});
    for (int i = 0; i < orphans; ++i) {
      const auto at = *rc::gen::inRange<std::size_t>(0, round.after.size() + 1);
      round.after.insert(round.after.begin() + static_cast<std::ptrdiff_t>(at), *tool_result(orphan_id()));
    }
    if (*rc::gen::weightedElement<bool>({{3, false}, {1, true}})) {
      const auto at = *rc::gen::inRange<std::size_t>(0, round.after.size() + 1);
      round.after.insert(round.after.begin() + static_cast<std::ptrdiff_t>(at), *user_message());
    }
    if (*rc::gen::weightedElement<bool>({{3, false}, {1, true}})) {
      round.postponed = *rc::gen::inRange<std::size_t>(0, round.after.size() + 1);
    }
    return round;
  });
}

// The rounds laid out as one history, postponed messages after the next
// round's assistant.
inline std::vector<Message> flatten(const std::vector<Round>& rounds) {
  std::vector<Message> history;
  std::vector<Message> held;
  for (const auto& round : rounds) {
    history.insert(history.end(), round.before.begin(), round.before.end());
    history.push_back(round.assistant);
    history.insert(history.end(), held.begin(), held.end());
    const auto split = round.after.end() - static_cast<std::ptrdiff_t>(round.postponed);
    history.insert(history.end(), round.after.begin(), split);
    held.assign(split, round.after.end());
  }
  history.insert(history.end(), held.begin(), held.end());
  return history;
}

// A structured history of 1 to about size/8 rounds; now and then the
// empty history.
inline rc::Gen<std::vector<Message>> history() {
  auto rounds = rc::gen::withSize([](int size) {
    return rc::gen::resize(std::max(1, size / 8), rc::gen::nonEmpty(rc::gen::container<std::vector<Round>>(
                                                      rc::gen::resize(size, round()))));
  });
  return rc::gen::weightedOneOf<std::vector<Message>>({
      {1, rc::gen::just(std::vector<Message>{})},
      {30, rc::gen::map(rounds, flatten)},
  });
}

// ---------------------------------------------------------------- budgets

// Budgets around the points where the answer changes: for every suffix of
// whole units, its estimate exactly, one less and one more; plus zero,
// anything up to the whole estimate, and huge.
inline rc::Gen<std::uint64_t> budget_for(const std::vector<Message>& history) {
  std::vector<std::uint64_t> points = {0};
  for (const auto& unit : reference::units(history)) {
    const std::uint64_t chars =
        estimate_context_chars(std::span<const Message>(history).subspan(unit.begin));
    points.insert(points.end(), {chars - 1, chars, chars + 1});
  }
  const std::uint64_t whole = estimate_context_chars(history);
  return rc::gen::weightedOneOf<std::uint64_t>({
      {8, rc::gen::elementOf(points)},
      {2, rc::gen::inRange<std::uint64_t>(0, whole + 2)},
      {1, rc::gen::element<std::uint64_t>(std::numeric_limits<std::uint64_t>::max(), std::uint64_t{1} << 53)},
  });
}

}  // namespace agent_session::properties
