#include "internal/fast_json_line.hpp"

#include "internal/canonical_element.hpp"
#include "internal/canonical_writer.hpp"
#include "internal/json_line.hpp"

#include <simdjson.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace agent_session::internal {
namespace {

namespace dom = simdjson::dom;

static_assert(kFastJsonLinePadding >= simdjson::SIMDJSON_PADDING);

// Why simdjson may stand in for parse_json_line at all (each rule is a case
// in tests/fast_json_line_test.cpp, and the fuzz target checks the rest):
// - it accepts only RFC 8259 JSON: no NUL or other raw control byte in a
//   string, only space, tab, CR and LF as whitespace (a byte-order mark is
//   checked in parse(), for simdjson releases that skip one);
// - it validates UTF-8 and rejects escaped lone surrogates;
// - it rejects a number that overflows a double, and an integer past
//   64 bits or below -2^63 (parse_json_line reads those through strtod:
//   they fall back); every other number is read correctly rounded, and
//   the integer token `-0` is the integer 0 in both;
// - with a maximum depth of kMaxNestingDepth it accepts exactly the
//   nesting parse_json_line accepts.
// What simdjson does not do, to_json() does as DomBuilder does: numbers
// become doubles, a duplicate key keeps its first position and takes the
// last value, and array-index keys come first.

Json to_json(dom::element element);

// Built as parse_json_line's DomBuilder builds it, through the same two
// calls: the same merging and order, in O(n log n) key comparisons.
Json object_to_json(dom::object object) {
  Json json = Json::object();
  json.get_ptr<Json::object_t*>()->reserve(object.size());
  for (dom::key_value_pair field : object) object_member_slot(json, field.key) = to_json(field.value);
  finish_object(json);
  return json;
}

Json array_to_json(dom::array array) {
  Json json = Json::array();
  auto& elements = *json.get_ptr<Json::array_t*>();
  elements.reserve(array.size());
  for (dom::element element : array) elements.push_back(to_json(element));
  return json;
}

// Recursion is bounded by the parser's maximum depth.
Json to_json(dom::element element) {
  switch (element.type()) {
    case dom::element_type::OBJECT:
      return object_to_json(dom::object(element));
    case dom::element_type::ARRAY:
      return array_to_json(dom::array(element));
    case dom::element_type::STRING:
      return Json(std::string(std::string_view(element)));
    // Every JSON number is a double (decisions §4); an integer is rounded
    // to one exactly as parse_json_line's static_cast rounds it.
    case dom::element_type::INT64:
      return Json(static_cast<double>(std::int64_t(element)));
    case dom::element_type::UINT64:
      return Json(static_cast<double>(std::uint64_t(element)));
    case dom::element_type::DOUBLE:
      return Json(double(element));
    case dom::element_type::BOOL:
      return Json(bool(element));
    case dom::element_type::NULL_VALUE:
      return Json(nullptr);
  }
  return Json();  // unreachable: every element type is handled above
}

std::optional<std::string> string_of(const dom::element* element) {
  std::string_view text;
  if (element == nullptr || element->get_string().get(text) != simdjson::SUCCESS) return std::nullopt;
  return std::string(text);
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
    return ToolInputAccess::from_canonical_json(std::string(scratch.view()));
  }
  return to_json(input);
}

// A tool call as discriminate_record reads it: id and name strings, input
// present; other members dropped.
std::optional<ToolCall> tool_call_of(dom::element element, TextBuffer& scratch) {
  dom::object call;
  if (element.get_object().get(call) != simdjson::SUCCESS) return std::nullopt;
  std::optional<dom::element> id, name, input;
  for (dom::key_value_pair field : call) {  // a repeated key: the last one wins, as in JavaScript
    if (field.key == "id") id = field.value;
    else if (field.key == "name") name = field.value;
    else if (field.key == "input") input = field.value;
  }
  auto id_text = string_of(id ? &*id : nullptr);
  auto name_text = string_of(name ? &*name : nullptr);
  if (!id_text || !name_text || !input) return std::nullopt;
  return ToolCall{std::move(*id_text), std::move(*name_text), tool_input_of(*input, scratch)};
}

// The message members discriminate_record looks at (decisions §1); the
// others are dropped. For a repeated key the last one wins, which is the
// value parse_json_line keeps.
struct RecordMembers {
  std::optional<dom::element> role, content, tool_calls, tool_call_id, is_error;
};

std::optional<RecordMembers> record_members(dom::element root) {
  dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) return std::nullopt;
  RecordMembers members;
  for (dom::key_value_pair field : object) {
    if (field.key == "role") members.role = field.value;
    else if (field.key == "content") members.content = field.value;
    else if (field.key == "toolCalls") members.tool_calls = field.value;
    else if (field.key == "toolCallId") members.tool_call_id = field.value;
    else if (field.key == "isError") members.is_error = field.value;
  }
  return members;
}

std::optional<Message> assistant_message(std::string&& content, const std::optional<dom::element>& tool_calls,
                                         TextBuffer& scratch) {
  dom::array calls;
  if (!tool_calls || tool_calls->get_array().get(calls) != simdjson::SUCCESS) return std::nullopt;
  AssistantMessage message{std::move(content), {}};
  message.tool_calls.reserve(calls.size());
  for (dom::element element : calls) {
    auto call = tool_call_of(element, scratch);
    if (!call) return std::nullopt;
    message.tool_calls.push_back(std::move(*call));
  }
  return message;
}

std::optional<Message> tool_result_message(std::string&& content, const RecordMembers& members) {
  auto tool_call_id = string_of(members.tool_call_id ? &*members.tool_call_id : nullptr);
  bool is_error = false;
  if (!tool_call_id || !members.is_error || members.is_error->get_bool().get(is_error) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  return ToolResultMessage{std::move(content), std::move(*tool_call_id), is_error};
}

// The message discriminate_record would make of `root`, or nullopt for a
// record it rejects (its reason is parse_json_line's path to tell).
std::optional<Message> message_of(dom::element root, TextBuffer& scratch) {
  const auto members = record_members(root);
  if (!members) return std::nullopt;
  std::string_view role;
  if (!members->role || members->role->get_string().get(role) != simdjson::SUCCESS) return std::nullopt;
  auto content = string_of(members->content ? &*members->content : nullptr);
  if (!content) return std::nullopt;
  if (role == "user") return UserMessage{std::move(*content)};
  if (role == "assistant") return assistant_message(std::move(*content), members->tool_calls, scratch);
  if (role == "tool") return tool_result_message(std::move(*content), *members);
  return std::nullopt;
}

}  // namespace

struct FastJsonLine::Parser {
  dom::parser parser{kFastJsonLineMaxBytes};
  std::string padded_copy;  // for a line too close to the end of its buffer
  TextBuffer input_text;    // where tool inputs are printed

  Parser() {
    // The depth limit is set once; later growth keeps it.
    if (parser.allocate(1 << 16, kMaxNestingDepth) != simdjson::SUCCESS) throw std::bad_alloc();
  }

  // The line's root element, or nullopt when simdjson rejects the line.
  std::optional<dom::element> parse(std::string_view line, std::size_t readable_after) {
    if (line.size() > kFastJsonLineMaxBytes) return std::nullopt;
    // simdjson 3.0.1 rejects a leading byte-order mark, but later releases
    // skip it as whitespace; JavaScript and parse_json_line do not.
    if (line.substr(0, 3) == "\xEF\xBB\xBF") return std::nullopt;
    const char* data = line.data();
    if (readable_after < kFastJsonLinePadding) {
      padded_copy.assign(line);
      padded_copy.append(kFastJsonLinePadding, ' ');
      data = padded_copy.data();
    }
    dom::element root;
    if (parser.parse(data, line.size(), /*realloc_if_needed=*/false).get(root) != simdjson::SUCCESS) {
      return std::nullopt;
    }
    return root;
  }
};

FastJsonLine::FastJsonLine() : parser_(std::make_unique<Parser>()) {}
FastJsonLine::~FastJsonLine() = default;

std::optional<Message> FastJsonLine::message(std::string_view line, std::size_t readable_after) {
  const auto root = parser_->parse(line, readable_after);
  if (!root) return std::nullopt;
  return message_of(*root, parser_->input_text);
}

std::optional<Json> FastJsonLine::json(std::string_view line, std::size_t readable_after) {
  const auto root = parser_->parse(line, readable_after);
  if (!root) return std::nullopt;
  return to_json(*root);
}

}  // namespace agent_session::internal
