#include "reference/canonical_value.hpp"

#include "base/utf8.hpp"
#include "reference/js_number.hpp"
#include "reference/js_object.hpp"
#include "reference/json_line.hpp"
#include "reference/json_teardown.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace agent_session::reference {

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  std::size_t run = 0;  // start of the pending run of raw bytes
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = base::utf8_sequence_length(text, i);
      if (length == 0) throw SerializationError("string is not valid UTF-8");
      i += length;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    out.append(text.substr(run, i - run));
    static constexpr char kShort[] = {'b', 't', 'n', 0, 'f', 'r'};  // for \b \t \n \v \f \r
    static constexpr char kHex[] = "0123456789abcdef";
    if (c == '"' || c == '\\') {
      out.append(c == '"' ? "\\\"" : "\\\\");
    } else if (c >= '\b' && c <= '\r' && kShort[c - '\b'] != 0) {
      out.push_back('\\');
      out.push_back(kShort[c - '\b']);
    } else {
      const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out.append(escape, 6);
    }
    run = ++i;
  }
  out.append(text.substr(run));
  out.push_back('"');
}

void append_canonical_value(std::string& out, const Json& value, int depth) {
  using Type = Json::value_t;
  if ((value.is_object() || value.is_array()) && depth > kMaxNestingDepth) {
    throw SerializationError("nesting deeper than 512 levels");
  }
  const auto number = [&out](double number) {
    if (!std::isfinite(number)) throw SerializationError("number is not finite");
    append_js_number(out, number);
  };
  switch (value.type()) {
    case Type::null: out += "null"; return;
    case Type::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case Type::string: append_json_string(out, value.get_ref<const std::string&>()); return;
    // Every number is a double, as in JavaScript (SPEC.md §3).
    case Type::number_integer: number(static_cast<double>(value.get<std::int64_t>())); return;
    case Type::number_unsigned: number(static_cast<double>(value.get<std::uint64_t>())); return;
    case Type::number_float: number(value.get<double>()); return;
    case Type::array: {
      out += '[';
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i > 0) out += ',';
        append_canonical_value(out, value[i], depth + 1);
      }
      out += ']';
      return;
    }
    case Type::object: {
      // JavaScript's property order; a loaded object is in it already, one
      // built in memory may not be.
      const auto& object = *value.get_ptr<const Json::object_t*>();
      const auto member = [&](std::size_t i) -> const auto& {
        return *(object.begin() + static_cast<std::ptrdiff_t>(i));
      };
      const std::vector<std::size_t> order =
          javascript_order(object.size(), [&](std::size_t i) -> std::string_view { return member(i).first; });
      out += '{';
      for (std::size_t k = 0; k < order.size(); ++k) {
        if (k > 0) out += ',';
        append_json_string(out, member(order[k]).first);
        out += ':';
        append_canonical_value(out, member(order[k]).second, depth + 1);
      }
      out += '}';
      return;
    }
    case Type::binary:
    case Type::discarded: break;
  }
  throw SerializationError("value has no JSON form");
}

}  // namespace agent_session::reference

// ToolInput (message.hpp): a tool call's input held as the canonical text
// above, printed once when the input is built.
namespace agent_session {

namespace {

// The canonical text of a tool call's input, and true; or, when it has
// none, why (the SerializationError's text), and false.
std::pair<std::string, bool> printed_input(const Json& value) {
  std::string text;
  try {
    reference::append_canonical_value(text, value, reference::kToolInputDepth);
  } catch (const SerializationError& error) {
    return {error.what(), false};
  }
  return {std::move(text), true};
}

}  // namespace

ToolInput::ToolInput(const Json& value) {
  auto [text, printed] = printed_input(value);
  canonical_json_ = std::move(text);
  if (!printed) unprintable_ = value;
}

ToolInput::ToolInput(Json&& value) {
  auto [text, printed] = printed_input(value);
  canonical_json_ = std::move(text);
  if (!printed) unprintable_ = std::move(value);
}

Json ToolInput::value() const {
  if (unprintable_) return *unprintable_;
  // Canonical text is JSON that parse_json_line always accepts.
  return std::get<Json>(reference::parse_json_line(canonical_json_));
}

std::optional<std::string_view> ToolInput::canonical_json() const noexcept {
  if (unprintable_) return std::nullopt;
  return canonical_json_;
}

std::string_view ToolInput::canonical_json_or_throw() const {
  if (unprintable_) throw SerializationError(canonical_json_);
  return canonical_json_;
}

bool operator==(const ToolInput& a, const ToolInput& b) {
  if (a.unprintable_ || b.unprintable_) return a.unprintable_ == b.unprintable_;
  return a.canonical_json_ == b.canonical_json_;
}

// Mechanics, to the end of the file: moving and destroying inputs.
ToolInput::ToolInput(ToolInput&& other) noexcept
    : canonical_json_(std::move(other.canonical_json_)), unprintable_(std::move(other.unprintable_)) {
  other.become_null();
}

// An unprintable value is a tree built in memory: destroyed without
// allocating (json_teardown.hpp), as noexcept and destructors must.
ToolInput::~ToolInput() {
  if (unprintable_) reference::tear_down(*unprintable_);
}

ToolInput& ToolInput::operator=(ToolInput&& other) noexcept {
  if (this != &other) {
    if (unprintable_) reference::tear_down(*unprintable_);
    canonical_json_ = std::move(other.canonical_json_);
    unprintable_ = std::move(other.unprintable_);
    other.become_null();
  }
  return *this;
}

// "null" fits the string's inline buffer: no allocation, so no throw.
void ToolInput::become_null() noexcept {
  canonical_json_.assign("null");
  unprintable_.reset();
}

}  // namespace agent_session
