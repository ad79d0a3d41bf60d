#include "fast/canonical_element.hpp"

#include "fast/js_number.hpp"
#include "reference/js_object.hpp"
#include "reference/object_building.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace agent_session::fast {
namespace {

using reference::is_array_index;

namespace dom = simdjson::dom;

// A string as JSON.stringify prints it (SPEC.md §3): `"`, `\` and
// U+0000..U+001F escaped (`\b \f \n \r \t`, the others as `\u00xx`),
// everything else raw. The reference's append_json_string also checks the
// UTF-8; here simdjson has checked it. tests/fast/canonical_element_test.cpp
// holds the two equal on every ASCII byte and on characters of each length.
void append_json_string(TextBuffer& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;  // start of the pending run of raw bytes
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.substr(run, i - run));
    run = i + 1;
    char* at = out.room(6);
    *at++ = '\\';
    switch (c) {
      case '"': *at++ = '"'; break;
      case '\\': *at++ = '\\'; break;
      case '\b': *at++ = 'b'; break;
      case '\f': *at++ = 'f'; break;
      case '\n': *at++ = 'n'; break;
      case '\r': *at++ = 'r'; break;
      case '\t': *at++ = 't'; break;
      default:
        *at++ = 'u';
        *at++ = '0';
        *at++ = '0';
        *at++ = kHex[c >> 4];
        *at++ = kHex[c & 0xF];
    }
    out.advance_to(at);
  }
  out.append(text.substr(run));
  out.push_back('"');
}

// Tool inputs have a handful of keys: comparing each with those before it
// costs less than sorting them, up to about this many.
constexpr std::size_t kFewKeys = 16;

bool has_index_or_repeated_key(dom::object object) {
  if (object.size() <= kFewKeys) {
    std::array<std::string_view, kFewKeys> seen;
    std::size_t count = 0;
    for (dom::key_value_pair field : object) {
      if (is_array_index(field.key)) return true;
      if (std::find(seen.begin(), seen.begin() + static_cast<std::ptrdiff_t>(count), field.key) !=
          seen.begin() + static_cast<std::ptrdiff_t>(count)) {
        return true;
      }
      seen[count++] = field.key;
    }
    return false;
  }
  std::vector<std::string_view> keys;
  keys.reserve(object.size());
  for (dom::key_value_pair field : object) {
    if (is_array_index(field.key)) return true;
    keys.push_back(field.key);
  }
  // Counted (see object_key_comparisons): the one place where the fast
  // path's cost depends on how many keys an object has.
  std::uint64_t comparisons = 0;
  std::sort(keys.begin(), keys.end(), [&](std::string_view a, std::string_view b) {
    ++comparisons;
    return a < b;
  });
  const bool repeated = std::adjacent_find(keys.begin(), keys.end(), [&](std::string_view a, std::string_view b) {
                          ++comparisons;
                          return a == b;
                        }) != keys.end();
  reference::add_key_comparisons(comparisons);
  return repeated;
}

bool append_object(TextBuffer& out, dom::object object) {
  if (has_index_or_repeated_key(object)) return false;
  out.push_back('{');
  bool first = true;
  for (dom::key_value_pair field : object) {
    if (!first) out.push_back(',');
    first = false;
    append_json_string(out, field.key);
    out.push_back(':');
    if (!append_canonical_element(out, field.value)) return false;
  }
  out.push_back('}');
  return true;
}

// Every JSON number is a double (SPEC.md §3), an integer rounded to one
// as parse_json_line rounds it. Numbers are printed in place (simdjson read
// them finite); an integer token skips the tests a double needs to find
// out it is an integer. False, printing nothing, for any other element.
bool append_number(TextBuffer& out, dom::element element) {
  switch (element.type()) {
    case dom::element_type::INT64:
      out.advance_to(write_js_integer(out.room(kJsNumberRoom), element.get_int64().value_unsafe()));
      return true;
    case dom::element_type::DOUBLE:
      out.advance_to(write_js_number(out.room(kJsNumberRoom), element.get_double().value_unsafe()));
      return true;
    case dom::element_type::UINT64:  // 2^63 and up
      out.advance_to(
          write_js_number(out.room(kJsNumberRoom), static_cast<double>(element.get_uint64().value_unsafe())));
      return true;
    default: return false;
  }
}

bool append_array(TextBuffer& out, dom::array array) {
  out.push_back('[');
  bool first = true;
  for (dom::element element : array) {
    if (!first) out.push_back(',');
    first = false;
    // Numbers first, inline: series and matrices then cost no call each.
    if (!append_number(out, element) && !append_canonical_element(out, element)) return false;
  }
  out.push_back(']');
  return true;
}

}  // namespace

// Recursion is bounded by the parser's maximum depth (kMaxNestingDepth).
bool append_canonical_element(TextBuffer& out, dom::element element) {
  switch (element.type()) {
    case dom::element_type::OBJECT: return append_object(out, dom::object(element));
    case dom::element_type::ARRAY: return append_array(out, dom::array(element));
    case dom::element_type::STRING: append_json_string(out, std::string_view(element)); return true;
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE: return append_number(out, element);
    case dom::element_type::BOOL: out.append(bool(element) ? "true" : "false"); return true;
    case dom::element_type::NULL_VALUE: out.append("null"); return true;
  }
  return false;  // a type simdjson does not have today: the Json route decides
}

}  // namespace agent_session::fast
