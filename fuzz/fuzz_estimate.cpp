// Messages built in memory from raw bytes, as an embedding program would
// build them: strings may be invalid UTF-8, numbers may be NaN, infinite or
// 64-bit integers, inputs may nest past the limit or hold binary values.
// estimate_context_chars must equal a slow reference written here from
// decisions §4 and §5 (its own UTF-8 decoder, its own shortest-digits
// search through printf/strtod), or throw
// ContextError(unserializable_message) naming the first message the
// reference cannot print. to_canonical_json must print the reference's
// bytes exactly, or throw SerializationError for the same messages.
#include "agent_session/context.hpp"
#include "agent_session/message.hpp"

#include "fuzz_support.hpp"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agent_session::fuzz {
namespace {

// ---- Building messages from raw bytes ---------------------------------------

std::string raw_string(FuzzedDataProvider& in) { return in.ConsumeRandomLengthString(24); }

Json value(FuzzedDataProvider& in, int recursion_left);

Json container(FuzzedDataProvider& in, bool object, int recursion_left) {
  Json out = object ? Json::object() : Json::array();
  const auto count = in.ConsumeIntegralInRange<std::size_t>(0, 4);
  for (std::size_t i = 0; i < count; ++i) {
    if (object) {
      out[raw_string(in)] = value(in, recursion_left - 1);
    } else {
      out.push_back(value(in, recursion_left - 1));
    }
  }
  return out;
}

// Around the 512-level limit: the input is level 4 of its line.
Json deeply_nested(FuzzedDataProvider& in) {
  const auto levels = in.ConsumeIntegralInRange<int>(500, 520);
  const bool objects = in.ConsumeBool();
  Json inner = nullptr;
  for (int i = 0; i < levels; ++i) {
    Json outer = objects ? Json::object() : Json::array();
    if (objects) {
      outer["k"] = std::move(inner);
    } else {
      outer.push_back(std::move(inner));
    }
    inner = std::move(outer);
  }
  return inner;
}

Json value(FuzzedDataProvider& in, int recursion_left) {
  switch (in.ConsumeIntegralInRange(0, recursion_left > 0 ? 8 : 5)) {
    case 0: return nullptr;
    case 1: return in.ConsumeBool();
    case 2: return std::bit_cast<double>(in.ConsumeIntegral<std::uint64_t>());  // NaN and ±inf included
    case 3: return in.ConsumeIntegral<std::int64_t>();
    case 4: return in.ConsumeIntegral<std::uint64_t>();
    case 5: return raw_string(in);
    case 6: return container(in, false, recursion_left);
    case 7: return container(in, true, recursion_left);
    default: return Json::binary({1, 2, 3});
  }
}

// A tool call's input: now and then one nested around the limit (costly to
// build and print, so not anywhere in the tree).
Json input(FuzzedDataProvider& in) {
  return in.ConsumeIntegralInRange(0, 15) == 0 ? deeply_nested(in) : value(in, 3);
}

Message message(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 2)) {
    case 0: return UserMessage{raw_string(in)};
    case 1: {
      AssistantMessage assistant{raw_string(in), {}};
      const auto calls = in.ConsumeIntegralInRange<std::size_t>(0, 3);
      for (std::size_t i = 0; i < calls; ++i) {
        std::string id = raw_string(in);
        std::string name = raw_string(in);
        assistant.tool_calls.push_back({std::move(id), std::move(name), input(in)});
      }
      return assistant;
    }
    default: {
      std::string content = raw_string(in);
      std::string id = raw_string(in);
      return ToolResultMessage{std::move(content), std::move(id), in.ConsumeBool()};
    }
  }
}

// ---- The reference printer (nullopt: cannot be serialized) -----------------

using Text = std::optional<std::string>;

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// JSON.stringify of a string: escape `"`, `\` and U+0000..U+001F only.
Text string_text(std::string_view text) {
  const auto code_points = decode_utf8(text);
  if (!code_points) return std::nullopt;
  std::string out = "\"";
  for (const char32_t c : *code_points) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
          out += escape;
        } else {
          append_utf8(out, c);
        }
    }
  }
  return out + "\"";
}

// ECMAScript Number::toString (ECMA-262 §6.1.6.1.20): the fewest decimal
// digits that read back as `value`, found by asking printf for 1, 2, ...
// significant digits until strtod returns the same double; printf rounds
// correctly, so the first hit is also the closest candidate.
Text number_text(double value) {
  if (!std::isfinite(value)) return std::nullopt;
  if (value == 0) return "0";
  std::string sign = value < 0 ? "-" : "";
  char printed[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(printed, sizeof printed, "%.*e", precision - 1, std::fabs(value));
    if (std::strtod(printed, nullptr) == std::fabs(value)) break;
  }
  // printed is d.ddde±XX: s = the digits, k = their count, n = exponent + 1.
  std::string digits;
  const char* p = printed;
  for (; *p != 'e'; ++p) {
    if (*p != '.') digits += *p;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int k = static_cast<int>(digits.size());
  const int n = std::atoi(p + 1) + 1;
  if (k <= n && n <= 21) return sign + digits + std::string(static_cast<std::size_t>(n - k), '0');
  if (0 < n && n <= 21) return sign + digits.substr(0, static_cast<std::size_t>(n)) + "." + digits.substr(static_cast<std::size_t>(n));
  if (-6 < n && n <= 0) return sign + "0." + std::string(static_cast<std::size_t>(-n), '0') + digits;
  const std::string mantissa = k == 1 ? digits : digits.substr(0, 1) + "." + digits.substr(1);
  return sign + mantissa + "e" + (n - 1 >= 0 ? "+" : "-") + std::to_string(std::abs(n - 1));
}

// An array index: the canonical decimal form of an integer 0..2^32 - 2.
std::optional<std::uint64_t> array_index(const std::string& key) {
  if (key.empty() || key.size() > 10 || !std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const std::uint64_t index = std::stoull(key);
  if (std::to_string(index) != key || index > 4294967294ULL) return std::nullopt;
  return index;
}

Text value_text(const Json& value, int level);

Text member_text(const std::string& key, const Json& value, int level) {
  const Text key_text = string_text(key);
  const Text member = value_text(value, level + 1);
  if (!key_text || !member) return std::nullopt;
  return *key_text + ":" + *member;
}

// Members in JavaScript's order: array-index keys ascending, then the rest
// in insertion order.
Text object_text(const Json& object, int level) {
  std::vector<std::pair<std::uint64_t, const std::string*>> index_keys;
  std::vector<const std::string*> other_keys;
  for (const auto& member : *object.get_ptr<const Json::object_t*>()) {
    if (const auto index = array_index(member.first)) {
      index_keys.emplace_back(*index, &member.first);
    } else {
      other_keys.push_back(&member.first);
    }
  }
  std::sort(index_keys.begin(), index_keys.end());
  std::vector<const std::string*> keys;
  for (const auto& [index, key] : index_keys) keys.push_back(key);
  keys.insert(keys.end(), other_keys.begin(), other_keys.end());
  std::string out = "{";
  for (const std::string* key : keys) {
    const Text member = member_text(*key, object.at(*key), level);
    if (!member) return std::nullopt;
    out += (out.size() > 1 ? "," : "") + *member;
  }
  return out + "}";
}

Text array_text(const Json& array, int level) {
  std::string out = "[";
  for (const auto& element : array) {
    const Text text = value_text(element, level + 1);
    if (!text) return std::nullopt;
    out += (out.size() > 1 ? "," : "") + *text;
  }
  return out + "]";
}

// `level` is the nesting level a container at this place occupies; a line
// may hold 512 (decisions §3).
Text value_text(const Json& value, int level) {
  if ((value.is_array() || value.is_object()) && level > 512) return std::nullopt;
  if (value.is_null()) return "null";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_integer() && value.is_number_unsigned()) return number_text(static_cast<double>(value.get<std::uint64_t>()));
  if (value.is_number_integer()) return number_text(static_cast<double>(value.get<std::int64_t>()));
  if (value.is_number_float()) return number_text(value.get<double>());
  if (value.is_string()) return string_text(value.get_ref<const std::string&>());
  if (value.is_array()) return array_text(value, level);
  if (value.is_object()) return object_text(value, level);
  return std::nullopt;  // binary: no JSON form
}

// Concatenates pieces, any of which may be missing.
Text join(std::initializer_list<Text> pieces) {
  std::string out;
  for (const Text& piece : pieces) {
    if (!piece) return std::nullopt;
    out += *piece;
  }
  return out;
}

Text message_text(const Message& m) {
  if (const auto* user = std::get_if<UserMessage>(&m)) {
    return join({R"({"role":"user","content":)", string_text(user->content), "}"});
  }
  if (const auto* result = std::get_if<ToolResultMessage>(&m)) {
    return join({R"({"role":"tool","content":)", string_text(result->content), R"(,"toolCallId":)",
                 string_text(result->tool_call_id), result->is_error ? R"(,"isError":true})" : R"(,"isError":false})"});
  }
  const auto& assistant = std::get<AssistantMessage>(m);
  Text calls = "";
  for (const auto& call : assistant.tool_calls) {
    // message 1, toolCalls 2, the call 3, its input 4.
    calls = join({calls, *calls == "" ? "" : ",", R"({"id":)", string_text(call.id), R"(,"name":)",
                  string_text(call.name), R"(,"input":)", value_text(call.input, 4), "}"});
    if (!calls) return std::nullopt;
  }
  return join({R"({"role":"assistant","content":)", string_text(assistant.content), R"(,"toolCalls":[)", calls, "]}"});
}

// ---- The checks -------------------------------------------------------------

void check_estimate(const std::vector<Message>& messages) {
  std::uint64_t expected = 0;
  std::optional<std::size_t> first_bad;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Text text = message_text(messages[i]);
    if (!text) {
      first_bad = first_bad.value_or(i);
      continue;
    }
    expected += *utf16_length(*text) + 1;
  }
  try {
    const std::uint64_t estimate = estimate_context_chars(messages);
    FUZZ_CHECK(!first_bad, "estimated a message that cannot be serialized: " + std::to_string(*first_bad));
    FUZZ_CHECK(estimate == expected, std::to_string(estimate) + " != reference " + std::to_string(expected));
  } catch (const ContextError& error) {
    const std::string_view what = error.what();
    FUZZ_CHECK(first_bad && error.kind() == ContextErrorKind::unserializable_message &&
                   error.message_index() == first_bad,
               "unexpected error: " + std::string(what));
    FUZZ_CHECK(what.starts_with("message " + std::to_string(*first_bad) + " cannot be serialized"),
               "wrong text: " + std::string(what));
  }
}

void check_canonical(const Message& m) {
  const Text expected = message_text(m);
  try {
    const std::string printed = to_canonical_json(m);
    FUZZ_CHECK(expected.has_value(), "printed what cannot be serialized: " + escaped(printed));
    FUZZ_CHECK(printed == *expected, escaped(printed) + "\n  != reference " + escaped(*expected));
  } catch (const SerializationError& error) {
    FUZZ_CHECK(!expected, std::string("refused a printable message: ") + error.what() + ": " + escaped(*expected));
  }
}

}  // namespace
}  // namespace agent_session::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agent_session;
  FuzzedDataProvider in(data, size);
  std::vector<Message> messages(in.ConsumeIntegralInRange<std::size_t>(0, 8));
  for (auto& m : messages) m = fuzz::message(in);
  fuzz::check_estimate(messages);
  for (const auto& m : messages) fuzz::check_canonical(m);
  return 0;
}
