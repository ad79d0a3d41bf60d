#include "fast/simd_line_parser.hpp"

#include "agent_session/session.hpp"
#include "fast/canonical_element.hpp"
#include "fast/text_buffer.hpp"
#include "fast/tool_input_access.hpp"
#include "fast/tree_discriminate.hpp"
#include "reference/js_object.hpp"
#include "reference/json_teardown.hpp"
#include "reference/load.hpp"
#include "reference/object_building.hpp"

#include <simdjson.h>

#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace agent_session::fast {
namespace {

namespace dom = simdjson::dom;

static_assert(kSimdPadding >= simdjson::SIMDJSON_PADDING);

// Why simdjson may stand in for the reference parser at all (each rule is a case
// in tests/fast/simd_line_parser_test.cpp, and the fuzz target checks the rest):
// - it accepts only RFC 8259 JSON: no NUL or other raw control byte in a
//   string, only space, tab, CR and LF as whitespace (a byte-order mark is
//   checked in parse(), for simdjson releases that skip one);
// - it validates UTF-8 and rejects escaped lone surrogates;
// - it rejects a number that overflows a double, and an integer past
//   64 bits or below -2^63 (the reference parser reads those through strtod:
//   they fall back); every other number is read correctly rounded, and
//   the integer token `-0` is the integer 0 in both;
// - with a maximum depth of kMaxNestingDepth it accepts exactly the
//   nesting the reference parser accepts.
// What simdjson does not do, to_json() does as the reference builder does: numbers
// become doubles, a duplicate key keeps its first position and takes the
// last value, and array-index keys come first.

Json to_json(dom::element element);

// Built as the reference parser's DomBuilder builds it, through the same two
// calls: the same merging and order, in O(n log n) key comparisons.
// A tree cut short by std::bad_alloc is torn down before it is destroyed
// (json_teardown.hpp: destroying it could allocate).
Json object_to_json(dom::object object) {
  Json json = Json::object();
  try {
    json.get_ptr<Json::object_t*>()->reserve(object.size());
    for (dom::key_value_pair field : object) {
      Json value = to_json(field.value);
      const reference::TornDownOnExit torn_down(value);
      reference::object_member_slot(json, field.key) = std::move(value);
    }
    reference::finish_object(json);
  } catch (...) {
    reference::tear_down(json);
    throw;
  }
  return json;
}

Json array_to_json(dom::array array) {
  Json json = Json::array();
  try {
    auto& elements = *json.get_ptr<Json::array_t*>();
    elements.reserve(array.size());
    for (dom::element element : array) elements.push_back(to_json(element));
  } catch (...) {
    reference::tear_down(json);
    throw;
  }
  return json;
}

// Recursion is bounded by the parser's maximum depth.
Json to_json(dom::element element) {
  switch (element.type()) {
    case dom::element_type::OBJECT: return object_to_json(dom::object(element));
    case dom::element_type::ARRAY: return array_to_json(dom::array(element));
    case dom::element_type::STRING: return Json(std::string(std::string_view(element)));
    // Every JSON number is a double (SPEC.md §3); an integer is rounded
    // to one exactly as the reference parser's static_cast rounds it.
    case dom::element_type::INT64: return Json(static_cast<double>(std::int64_t(element)));
    case dom::element_type::UINT64: return Json(static_cast<double>(std::uint64_t(element)));
    case dom::element_type::DOUBLE: return Json(double(element));
    case dom::element_type::BOOL: return Json(bool(element));
    case dom::element_type::NULL_VALUE: return Json(nullptr);
  }
  return Json();  // unreachable: every element type is handled above
}

// The tool call's input as a ToolCall holds it: its canonical text, printed
// straight from simdjson's tape, or for an object JavaScript would reorder
// or merge (index or repeated keys), printed from the Json to_json builds,
// which orders and merges as parse_json_line does. The text is printed into
// `scratch`, reused from input to input, then copied once at its exact size:
// no regrowth, and no slack kept for the life of the session.
ToolInput tool_input_of(dom::element input, TextBuffer& scratch) {
  scratch.clear();
  if (append_canonical_element(scratch, input)) {
    return tool_input_from_canonical_text(std::string(scratch.view()));
  }
  Json value = to_json(input);
  const reference::TornDownOnExit torn_down(value);
  return ToolInput(std::move(value));
}

// simdjson's tree as the discriminator looks at it (tree_discriminate.hpp).
struct SimdTree {
  using V = dom::element;
  TextBuffer& scratch;

  static JsonKind kind(V value) {
    switch (value.type()) {
      case dom::element_type::OBJECT: return JsonKind::object;
      case dom::element_type::ARRAY: return JsonKind::array;
      case dom::element_type::STRING: return JsonKind::string;
      case dom::element_type::BOOL: return JsonKind::boolean;
      case dom::element_type::NULL_VALUE: return JsonKind::null;
      default: return JsonKind::number;
    }
  }
  // simdjson keeps a repeated key's every occurrence: the last one is the
  // value JSON.parse keeps.
  static std::optional<V> member(V object, const char* key) {
    std::optional<V> found;
    for (dom::key_value_pair field : dom::object(object)) {
      if (field.key == key) found = field.value;
    }
    return found;
  }
  // The discriminator asks for items by position, in order.
  std::size_t size(V array) {
    items.clear();
    for (dom::element item : dom::array(array)) items.push_back(item);
    return items.size();
  }
  V item(V, std::size_t i) const { return items[i]; }
  static std::string_view view(V string) { return std::string_view(string); }
  static std::string text(V string) { return std::string(std::string_view(string)); }
  static bool flag(V boolean) { return bool(boolean); }
  ToolInput input(V value) const { return tool_input_of(value, scratch); }

  std::vector<V> items{};
};

}  // namespace

struct SimdLineParser::Parser {
  dom::parser parser{kSimdMaxLineBytes};
  std::string padded_copy;  // for a line too close to the end of its buffer
  TextBuffer input_text;    // where tool inputs are printed
  SimdTree tree{input_text};

  Parser() {
    // The depth limit is set once; later growth keeps it.
    // Small at first: a load of a few short lines costs little; longer
    // lines grow the buffers (to their own size, so growing stays linear).
    if (parser.allocate(4096, kMaxNestingDepth) != simdjson::SUCCESS) throw std::bad_alloc();
  }

  // The line's root element, or nullopt when simdjson rejects the line.
  std::optional<dom::element> parse(std::string_view line, std::size_t readable_after) {
    if (line.size() > kSimdMaxLineBytes) return std::nullopt;
    // simdjson 3.0.1 rejects a leading byte-order mark, but later releases
    // skip it as whitespace; JavaScript and the reference parser do not.
    if (line.substr(0, 3) == "\xEF\xBB\xBF") return std::nullopt;
    const char* data = line.data();
    if (readable_after < kSimdPadding) {
      padded_copy.assign(line);
      padded_copy.append(kSimdPadding, ' ');
      data = padded_copy.data();
    }
    dom::element root;
    const simdjson::error_code error = parser.parse(data, line.size(), /*realloc_if_needed=*/false).get(root);
    // Out of memory is the answer, not a reason to try the reference
    // parser, which needs more memory than simdjson.
    if (error == simdjson::MEMALLOC) throw std::bad_alloc();
    if (error != simdjson::SUCCESS) return std::nullopt;
    return root;
  }

  // Before the reference parser reads a line simdjson rejected: the two
  // never hold their buffers for a long line at once, so the load's peak
  // is the larger parser's, not their sum (tests/json_growth_test.cpp,
  // kPeakHeapPerLineByte). Short lines keep the buffers for the next one.
  void release_buffers_after(std::string_view line) {
    constexpr std::size_t kKept = std::size_t{64} << 10;
    if (line.size() <= kKept) return;
    std::string().swap(padded_copy);
    parser = dom::parser{kSimdMaxLineBytes};  // a new one: allocate() keeps the document's buffers
    if (parser.allocate(4096, kMaxNestingDepth) != simdjson::SUCCESS) throw std::bad_alloc();
  }
};

SimdLineParser::SimdLineParser() : parser_(std::make_unique<Parser>()) {}
SimdLineParser::~SimdLineParser() = default;

Message SimdLineParser::parse(std::string_view line, std::size_t line_number, std::size_t readable_after) {
  const auto root = parser_->parse(line, readable_after);
  if (!root) {
    parser_->release_buffers_after(line);
    return reference::parse_session_line(line, line_number);
  }
  auto verdict = discriminate(parser_->tree, *root);
  if (auto* reason = std::get_if<std::string>(&verdict)) {
    throw SessionError(SessionErrorKind::invalid_record, line_number, *reason);
  }
  return std::move(std::get<Message>(verdict));
}

std::optional<Json> SimdLineParser::json(std::string_view line, std::size_t readable_after) {
  const auto root = parser_->parse(line, readable_after);
  if (!root) return std::nullopt;
  return to_json(*root);
}

}  // namespace agent_session::fast
