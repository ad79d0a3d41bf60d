// Messages built in memory from raw bytes, as an embedding program would
// build them: strings may be invalid UTF-8, numbers may be NaN, infinite or
// 64-bit integers, inputs may nest past the limit or hold binary values.
// estimate_context_chars must equal a slow reference written here from
// decisions §4 and §5 (its own UTF-8 decoder, its own shortest-digits
// search through printf/strtod/strtold), or throw
// ContextError(unserializable_message) naming the first message the
// reference cannot print. to_canonical_json must print the reference's
// bytes exactly, or throw SerializationError for the same messages. Every
// string kernel of internal/utf8.hpp must agree with the reference on the
// whole input as one string.
#include "agent_session/context.hpp"
#include "agent_session/message.hpp"

#include "fuzz_support.hpp"
#include "internal/utf8.hpp"

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

// Up to 96 bytes: long enough to cross the estimator's 32-byte blocks.
std::string raw_string(FuzzedDataProvider& in) { return in.ConsumeRandomLengthString(96); }

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

// ---- The reference printer --------------------------------------------------
// Each put_* appends the canonical text of its value to `out` and returns
// false when the value cannot be serialized (then `out` is garbage).

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
bool put_string(std::string& out, std::string_view text) {
  const auto code_points = decode_utf8(text);
  if (!code_points) return false;
  out += '"';
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
  out += '"';
  return true;
}

// Decimal digits and an exponent: value = 0.d1d2...dk × 10^n (ECMA-262's
// s, k and n).
struct Decimal {
  std::string digits;
  int n = 0;
};

// The digits one unit up or down in the last place, keeping their count.
Decimal step(Decimal d, int direction) {
  std::string& s = d.digits;
  if (direction > 0) {
    std::size_t i = s.size();
    while (i > 0 && s[i - 1] == '9') s[--i] = '0';
    if (i == 0) return {"1" + s.substr(1), d.n + 1};  // 99..9 + 1 = 10..0
    ++s[i - 1];
  } else {
    if (s[0] == '1' && s.find_first_not_of('0', 1) == std::string::npos) return {std::string(s.size(), '9'), d.n - 1};
    std::size_t i = s.size();
    while (s[i - 1] == '0') s[--i] = '9';
    --s[i - 1];
  }
  return d;
}

std::string scientific(const Decimal& d) { return "0." + d.digits + "e" + std::to_string(d.n); }

// ECMAScript Number::toString (ECMA-262 §6.1.6.1.20) of |value|'s digits:
// the fewest digits k that read back as `value`, and among those the
// closest to it. For each k, printf's correctly rounded candidate and its
// two neighbours are the only ones that can read back (the interval that
// rounds to `value` is convex, and lopsided at powers of two, which is
// why the neighbours matter).
Decimal shortest_digits(double value) {
  for (int k = 1; k <= 17; ++k) {
    char printed[64];
    std::snprintf(printed, sizeof printed, "%.*e", k - 1, value);  // d.ddde±XX
    Decimal rounded;
    const char* p = printed;
    for (; *p != 'e'; ++p) {
      if (*p != '.') rounded.digits += *p;
    }
    rounded.n = std::atoi(p + 1) + 1;
    std::optional<Decimal> best;
    long double best_distance = 0;
    for (const Decimal& candidate : {rounded, step(rounded, +1), step(rounded, -1)}) {
      const std::string text = scientific(candidate);
      if (std::strtod(text.c_str(), nullptr) != value) continue;
      const long double distance = std::fabs(std::strtold(text.c_str(), nullptr) - static_cast<long double>(value));
      if (!best || distance < best_distance) {
        best = candidate;
        best_distance = distance;
      }
    }
    if (best) {
      while (best->digits.size() > 1 && best->digits.back() == '0') best->digits.pop_back();
      return *best;
    }
  }
  fail(__FILE__, __LINE__, "shortest_digits", "no 17-digit form reads back");
}

// ECMAScript Number::toString: the layout of those digits.
bool put_number(std::string& out, double value) {
  if (!std::isfinite(value)) return false;
  if (value == 0) {
    out += '0';
    return true;
  }
  if (value < 0) out += '-';
  const auto [digits, n] = shortest_digits(std::fabs(value));
  const int k = static_cast<int>(digits.size());
  const auto count = [](int c) { return static_cast<std::size_t>(c); };
  if (k <= n && n <= 21) {
    out += digits + std::string(count(n - k), '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, count(n)) + "." + digits.substr(count(n));
  } else if (-6 < n && n <= 0) {
    out += "0." + std::string(count(-n), '0') + digits;
  } else {
    out += k == 1 ? digits : digits.substr(0, 1) + "." + digits.substr(1);
    out += "e" + std::string(n - 1 >= 0 ? "+" : "-") + std::to_string(std::abs(n - 1));
  }
  return true;
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

bool put_value(std::string& out, const Json& value, int level);

// Members in JavaScript's order: array-index keys ascending, then the rest
// in insertion order.
bool put_object(std::string& out, const Json& object, int level) {
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
  out += '{';
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) out += ',';
    if (!put_string(out, *keys[i])) return false;
    out += ':';
    if (!put_value(out, object.at(*keys[i]), level + 1)) return false;
  }
  out += '}';
  return true;
}

bool put_array(std::string& out, const Json& array, int level) {
  out += '[';
  for (std::size_t i = 0; i < array.size(); ++i) {
    if (i > 0) out += ',';
    if (!put_value(out, array[i], level + 1)) return false;
  }
  out += ']';
  return true;
}

// `level` is the nesting level a container at this place occupies; a line
// may hold 512 (decisions §3).
bool put_value(std::string& out, const Json& value, int level) {
  if ((value.is_array() || value.is_object()) && level > 512) return false;
  if (value.is_null() || value.is_boolean()) {
    out += value.is_null() ? "null" : value.get<bool>() ? "true" : "false";
    return true;
  }
  if (value.is_number_unsigned()) return put_number(out, static_cast<double>(value.get<std::uint64_t>()));
  if (value.is_number_integer()) return put_number(out, static_cast<double>(value.get<std::int64_t>()));
  if (value.is_number_float()) return put_number(out, value.get<double>());
  if (value.is_string()) return put_string(out, value.get_ref<const std::string&>());
  if (value.is_array()) return put_array(out, value, level);
  if (value.is_object()) return put_object(out, value, level);
  return false;  // binary: no JSON form
}

bool put_message(std::string& out, const Message& m) {
  if (const auto* user = std::get_if<UserMessage>(&m)) {
    out += R"({"role":"user","content":)";
    if (!put_string(out, user->content)) return false;
  } else if (const auto* result = std::get_if<ToolResultMessage>(&m)) {
    out += R"({"role":"tool","content":)";
    if (!put_string(out, result->content)) return false;
    out += R"(,"toolCallId":)";
    if (!put_string(out, result->tool_call_id)) return false;
    out += result->is_error ? R"(,"isError":true)" : R"(,"isError":false)";
  } else {
    const auto& assistant = std::get<AssistantMessage>(m);
    out += R"({"role":"assistant","content":)";
    if (!put_string(out, assistant.content)) return false;
    out += R"(,"toolCalls":[)";
    for (std::size_t i = 0; i < assistant.tool_calls.size(); ++i) {
      const ToolCall& call = assistant.tool_calls[i];
      out += i > 0 ? R"(,{"id":)" : R"({"id":)";
      if (!put_string(out, call.id)) return false;
      out += R"(,"name":)";
      if (!put_string(out, call.name)) return false;
      out += R"(,"input":)";
      if (!put_value(out, call.input.value(), 4)) return false;  // message 1, toolCalls 2, the call 3, input 4
      out += '}';
    }
    out += ']';
  }
  out += '}';
  return true;
}

// The canonical line of `m`, or nullopt when it cannot be serialized.
std::optional<std::string> reference_line(const Message& m) {
  std::string out;
  if (!put_message(out, m)) return std::nullopt;
  return out;
}

// ---- The checks -------------------------------------------------------------

using Lines = std::vector<std::optional<std::string>>;  // reference_line of each message

void check_estimate(const std::vector<Message>& messages, const Lines& lines) {
  std::uint64_t expected = 0;
  std::optional<std::size_t> first_bad;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (!lines[i]) {
      first_bad = first_bad.value_or(i);
      continue;
    }
    expected += *utf16_length(*lines[i]) + 1;
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

void check_canonical(const Message& m, const std::optional<std::string>& expected) {
  try {
    const std::string printed = to_canonical_json(m);
    FUZZ_CHECK(expected.has_value(), "printed what cannot be serialized: " + escaped(printed));
    FUZZ_CHECK(printed == *expected, escaped(printed) + "\n  != reference " + escaped(*expected));
  } catch (const SerializationError& error) {
    FUZZ_CHECK(!expected, std::string("refused a printable message: ") + error.what() + ": " + escaped(*expected));
  }
}

// Every string kernel (scalar, AVX2, AVX-512; one this CPU cannot run
// falls back to the scalar one), not only the one the estimator picks, on
// the raw input as one string: it crosses every block size, and its ends
// fall anywhere inside a sequence.
void check_kernels(std::string_view text) {
  std::string literal;
  const bool printable = put_string(literal, text);
  for (const internal::Utf8Kernel kernel : internal::kUtf8Kernels) {
    const std::string name(internal::kernel_name(kernel));
    const auto units = internal::json_string_units_with(kernel, text);
    FUZZ_CHECK(units.has_value() == printable, name + " kernel: validity differs: " + escaped(text));
    if (!printable) continue;
    FUZZ_CHECK(*units == *utf16_length(literal), name + " kernel: " + std::to_string(*units) + " units != reference " +
                                                     std::to_string(*utf16_length(literal)) + ": " + escaped(text));
    FUZZ_CHECK(internal::utf16_length_with(kernel, text) == *utf16_length(text),
               name + " kernel: utf16_length differs: " + escaped(text));
  }
}

}  // namespace
}  // namespace agent_session::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agent_session;
  fuzz::check_kernels(std::string_view(reinterpret_cast<const char*>(data), size));
  FuzzedDataProvider in(data, size);
  std::vector<Message> messages(in.ConsumeIntegralInRange<std::size_t>(0, 8));
  for (auto& m : messages) m = fuzz::message(in);
  fuzz::Lines lines;
  for (const auto& m : messages) lines.push_back(fuzz::reference_line(m));
  // The printed bytes first: on a mismatch they say more than a count.
  for (std::size_t i = 0; i < messages.size(); ++i) fuzz::check_canonical(messages[i], lines[i]);
  fuzz::check_estimate(messages, lines);
  return 0;
}
