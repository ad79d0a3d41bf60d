#include "conform/fuzz/rule_triggers.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <variant>

namespace agent_session::conform::fuzz {
namespace {

using Rules = std::set<std::string>;

bool is_json_whitespace(unsigned char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The length of the UTF-8 sequence at `at` when it is valid (SPEC.md
// §2.1: no overlong form, no surrogate code point, nothing past U+10FFFF),
// else 0.
std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u; };
  const unsigned lead = byte(at);
  const auto continuation = [&](std::size_t i) { return (byte(i) & 0xC0) == 0x80; };
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(at + 1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    const unsigned second = byte(at + 1);
    const bool ok = (lead == 0xE0 ? second >= 0xA0 : lead == 0xED ? second < 0xA0 : true);
    return ok && continuation(at + 1) && continuation(at + 2) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    const unsigned second = byte(at + 1);
    const bool ok = (lead == 0xF0 ? second >= 0x90 : lead == 0xF4 ? second < 0x90 : true);
    return ok && continuation(at + 1) && continuation(at + 2) && continuation(at + 3) ? 4 : 0;
  }
  return 0;
}

// The decimal exponent a number token's value has roughly (digits before
// the point plus its exponent, leading zeros aside), saturated far past
// any double's: enough to tell overflow's and underflow's neighbourhood.
long long rough_exponent(std::string_view number) {
  long long before_point = 0, leading_zeros = 0, exponent = 0;
  bool in_fraction = false, seen_digit = false;
  std::size_t i = number.front() == '-' ? 1 : 0;
  for (; i < number.size() && number[i] != 'e' && number[i] != 'E'; ++i) {
    if (number[i] == '.') {
      in_fraction = true;
    } else if (number[i] != '0' || seen_digit) {
      seen_digit = true;
      if (!in_fraction) ++before_point;
    } else if (in_fraction) {
      ++leading_zeros;
    }
  }
  if (!seen_digit) return 0;  // a zero is never near overflow (SPEC.md §2.1)
  bool negative = false;
  if (++i < number.size() && (number[i] == '+' || number[i] == '-')) negative = number[i++] == '-';
  for (; i < number.size() && std::isdigit(static_cast<unsigned char>(number[i])); ++i) {
    exponent = exponent > 100000 ? exponent : exponent * 10 + (number[i] - '0');
  }
  return (before_point > 0 ? before_point : -leading_zeros) + (negative ? -exponent : exponent);
}

// What a tolerant walk over the bytes finds: strings, keys, numbers,
// words and nesting, line by line, whatever the line's validity.
void scan_bytes(std::string_view bytes, Rules& rules) {
  if (bytes.empty()) rules.insert("R2-14");
  if (!bytes.empty() && bytes.back() != '\n') rules.insert("R2-13");
  std::size_t line_start = 0;
  while (line_start < bytes.size()) {
    std::size_t end = bytes.find('\n', line_start);
    const bool last = end == std::string_view::npos;
    if (last) end = bytes.size();
    const std::string_view line = bytes.substr(line_start, end - line_start);
    line_start = end + 1;
    if (line.empty()) {
      if (!last) rules.insert({"R2-6", "R2-7"});
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) rules.insert({"R2-7", "R2-8"});
    if (line.back() == '\r') rules.insert("R2-9");
    if (line.starts_with("\xEF\xBB\xBF")) rules.insert("R2-11");
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string_view::npos && line[first] != '{') rules.insert("R1.1-2");
    int depth = 0, deepest = 0;
    std::vector<std::set<std::string>> keys;  // the keys seen in each open object
    for (std::size_t i = 0; i < line.size();) {
      const auto c = static_cast<unsigned char>(line[i]);
      if (c == '"') {
        const std::size_t start = ++i;
        bool escaped_surrogate = false;
        while (i < line.size() && line[i] != '"') {
          const auto s = static_cast<unsigned char>(line[i]);
          if (s == '\\' && i + 1 < line.size()) {
            if (line[i + 1] == 'u' && i + 2 < line.size() && (line[i + 2] | 0x20) == 'd' && i + 3 < line.size() &&
                std::string_view("89abcdefABCDEF").find(line[i + 3]) != std::string_view::npos) {
              escaped_surrogate = true;
            }
            i += 2;
            continue;
          }
          if (s < 0x20) rules.insert("R2-18");
          if (line.substr(i).starts_with("\xEF\xBB\xBF")) rules.insert("R2-12");
          if (s == '[' || s == '{') rules.insert("R2.1-12");
          if (s >= 0x80) {
            const std::size_t length = utf8_length(line, i);
            if (length == 0) rules.insert({"R2.1-1", "R2.1-3", "R2-5"});
            i += length == 0 ? 1 : length;
            continue;
          }
          ++i;
        }
        if (escaped_surrogate) rules.insert({"R2.1-1", "R2.1-4"});
        const std::string text(line.substr(start, i - start));
        ++i;
        std::size_t next = line.find_first_not_of(" \t\r", i);
        if (next != std::string_view::npos && line[next] == ':' && !keys.empty()) {
          if (!keys.back().insert(text).second) rules.insert("R2-16");
          if (escaped_surrogate) rules.insert("R2.1-2");
        }
        continue;
      }
      if (c == '{' || c == '[') {
        deepest = std::max(deepest, ++depth);
        if (c == '{') keys.emplace_back();
        ++i;
      } else if (c == '}' || c == ']') {
        --depth;
        if (c == '}' && !keys.empty()) keys.pop_back();
        ++i;
      } else if (c == '-' || std::isdigit(c)) {
        std::size_t j = i + 1;
        while (j < line.size() && std::string_view("0123456789.eE+-").find(line[j]) != std::string_view::npos) ++j;
        const std::string_view number = line.substr(i, j - i);
        if (number == "-") rules.insert("R2-18");
        if (number.size() > 20) rules.insert("R2.1-11");
        if (number.find_first_of("123456789") != std::string_view::npos) {
          const long long exponent = rough_exponent(number);
          if (exponent >= 300) rules.insert({"R2.1-1", "R2.1-5", "R2.1-8", "R2.1-9", "R2.1-10"});
          if (exponent <= -300) rules.insert("R2.1-7");
        }
        i = j;
      } else if (std::isalpha(c)) {
        std::size_t j = i + 1;
        while (j < line.size() && std::isalpha(static_cast<unsigned char>(line[j]))) ++j;
        rules.insert("R2-18");  // a literal, or a near miss of one
        i = j;
      } else if (c == 0) {
        rules.insert("R2-17");
        ++i;
      } else if (c >= 0x80 || c == '\f') {
        rules.insert("R2-10");  // not JSON whitespace: a BOM, a no-break space
        ++i;
      } else {
        if (is_json_whitespace(c) && i > first) rules.insert("R2-10");
        ++i;
      }
    }
    if (deepest >= 512) rules.insert({"R2.1-1", "R2.1-6", "R2.1-13"});
  }
}

bool has_json_escape(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\') return true;
  }
  return false;
}

void scan_text(std::string_view text, Rules& rules) {
  if (has_json_escape(text)) rules.insert({"R3-5", "R4-4"});
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) rules.insert("R4-1");
    if (c >= 0xF0) rules.insert("R4-2");
  }
}

// A tool input's canonical text: numbers printed (§3's Number::toString),
// index-like and `__proto__` keys ordered (§3).
void scan_input(std::string_view canonical, Rules& rules) {
  bool in_string = false;
  for (std::size_t i = 0; i < canonical.size(); ++i) {
    const char c = canonical[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      const std::size_t close = canonical.find('"', i + 1);
      if (close != std::string_view::npos && close + 1 < canonical.size() && canonical[close + 1] == ':') {
        const std::string_view key = canonical.substr(i + 1, close - i - 1);
        if (key == "__proto__" || (!key.empty() && key.find_first_not_of("0123456789") == std::string_view::npos)) {
          rules.insert({"R3-6", "R3-7"});
        }
      }
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      rules.insert({"R3-1", "R3-4", "R3-8", "R3-9", "R3-10", "R3-11", "R3-12"});
    }
  }
}

// What the loaded messages hold: §1.1's records, §3's printing, §4's
// units, §5's rounds.
void scan_messages(const std::vector<Message>& messages, Rules& rules) {
  rules.insert({"R1.1-1", "R2-1"});
  if (messages.empty()) {
    rules.insert("R5.2-3");
    return;
  }
  rules.insert({"R1-1", "R3-2", "R3-3", "R3-14", "R4-3", "R5.1-4", "R5.2-1", "R5.2-2", "R5.2-5"});
  std::set<std::string> declared;
  for (const Message& message : messages) {
    std::visit([&](const auto& m) { scan_text(m.content, rules); }, message);
    if (std::holds_alternative<UserMessage>(message)) rules.insert("R1.1-4");
    if (const auto* assistant = std::get_if<AssistantMessage>(&message)) {
      for (const ToolCall& call : assistant->tool_calls) {
        rules.insert("R1.1-5");
        if (call.id.empty() || call.name.empty() || !declared.insert(call.id).second) rules.insert("R1.1-10");
        scan_text(call.id, rules);
        scan_text(call.name, rules);
        const std::optional<std::string_view> input = call.input.canonical_json();
        if (input && !input->starts_with("{")) rules.insert("R1.1-6");
        if (input) scan_input(*input, rules);
      }
    }
    if (const auto* result = std::get_if<ToolResultMessage>(&message)) {
      rules.insert("R1.1-7");
      scan_text(result->tool_call_id, rules);
      if (declared.count(result->tool_call_id) != 0) {
        rules.insert({"R5.1-1", "R5.1-2", "R5.1-3"});
      } else {
        rules.insert({"R5.1-5", "R1.1-10"});
      }
    }
  }
}

// Field names: one a letter's case away from §1's (R1.1-3), another one
// (R1.1-9), a role §1.1 does not know (R1.1-8). Read from the bytes, as a
// dropped field never reaches a message.
void scan_fields(std::string_view bytes, Rules& rules) {
  static const std::set<std::string> known = {"role",    "content", "toolCalls", "toolCallId",
                                              "isError", "id",      "name",      "input"};
  for (std::size_t at = bytes.find("\":"); at != std::string_view::npos; at = bytes.find("\":", at + 2)) {
    const std::size_t open = bytes.rfind('"', at == 0 ? 0 : at - 1);
    if (open == std::string_view::npos || at - open > 40) continue;
    std::string key(bytes.substr(open + 1, at - open - 1));
    if (known.count(key) != 0) {
      if (key == "role") {
        const std::string_view value = bytes.substr(at + 2, 12);
        if (!value.starts_with("\"user\"") && !value.starts_with("\"assistant\"") && !value.starts_with("\"tool\"")) {
          rules.insert("R1.1-8");
        }
      }
      continue;
    }
    rules.insert("R1.1-9");
    // The known names in lower case, for a name a letter's case away.
    static const std::set<std::string> known_lower = {"role",    "content", "toolcalls", "toolcallid",
                                                      "iserror", "id",      "name",      "input"};
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (known_lower.count(key) != 0) rules.insert("R1.1-3");
  }
}

}  // namespace

std::vector<std::string> triggered_rules(std::string_view bytes, const std::optional<std::vector<Message>>& messages) {
  Rules rules;
  scan_bytes(bytes, rules);
  scan_fields(bytes, rules);
  if (messages) {
    scan_messages(*messages, rules);
  } else {
    rules.insert({"R2-4", "R2-19"});  // the first bad line stops the load, with one of two texts
  }
  return {rules.begin(), rules.end()};
}

}  // namespace agent_session::conform::fuzz
