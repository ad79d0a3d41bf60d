// JSON the kit did not write: a port's harness answers, a harness
// request, a vector's expect.json (SPEC.md §6.1: a vector is data and a port
// is a suspect). nlohmann's parser is iterative, but a copy, a comparison
// of containers or a dump() of a value recurses once per level, so JSON
// nested 10^6 deep (2 MB, within a harness line) used to end the runner
// with SIGSEGV; and its DOM costs 16 to 27 times the text (an array of
// `{}` 27x, of `""` 22x, of `[]` 16x, of `0` 8x, measured), so a 64 MiB
// expect.json cost gigabytes. Here such text is refused as it is read,
// with the reason, and nothing the kit reads is ever copied or dumped
// whole: values are reached through `member` (a reference) and shown
// through `shown_value` (a scalar, or `[...]`).
//
// Example:
//   const UntrustedJson answer = parse_untrusted_json(line);
//   if (!answer) return "answered a line " + answer.reason;  // "nested deeper than 64 levels at byte 70"
//   if (member(answer.value, "op") != "run") ...
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace agent_session::harness {

// The deepest nesting taken; the top-level value is level 1. What the kit
// reads is at most 4 deep (a start answer 2: {"port":{...}}; expect.json
// 4: {"checks":[{"args":[...]}]}), so 64 is a wide margin that no
// recursion over it can exhaust a stack with.
inline constexpr int kMaxJsonDepth = 64;

// The most values (arrays, objects, scalars and keys, each one) a parse
// holds at once: at most about 1 MB of DOM besides the strings' bytes.
// A harness message holds a dozen (a start answer one more per command);
// expect.json is read one check at a time (below), and a check holds a
// dozen or two.
inline constexpr std::size_t kMaxJsonValues = 10000;

struct UntrustedJson {
  enum class Problem {
    none,
    not_json,  // not one JSON value (RFC 8259), or a raw NUL byte anywhere
    refused,   // JSON, but past a limit above (or a streamed key given twice)
  };
  nlohmann::json value;  // null unless the problem is none
  Problem problem = Problem::none;
  // One printable line when there is a problem: "nested deeper than 64
  // levels at byte 70", "holds more than 10000 values at once (at byte
  // N)", "not JSON: byte 5: syntax error while parsing value - invalid
  // literal; last read: 'nul?'" (a byte is 1-based, counted in `text`).
  std::string reason;
  explicit operator bool() const { return problem == Problem::none; }
};

// `text` as one JSON value, within kMaxJsonDepth and kMaxJsonValues.
UntrustedJson parse_untrusted_json(std::string_view text);

// The same, for a document whose top-level object holds a long array
// under `streamed_key` (expect.json's "checks"): each element of that
// array is handed to `each` as soon as it is complete, then dropped, so
// that the limits apply to one element at a time and the document comes
// back with that array empty. What `each` throws ends the parse and is
// thrown on. The key given twice is refused.
UntrustedJson parse_untrusted_json(std::string_view text, const std::string& streamed_key,
                                   const std::function<void(nlohmann::json& element)>& each);

// `object[key]` by reference: null when `object` is not an object or has
// no `key`. Never a copy (json::value(key, default) copies, recursively).
const nlohmann::json& member(const nlohmann::json& object, const std::string& key);

// `value` for a one-line message: a scalar as JSON text (a string quoted
// and escaped, invalid UTF-8 replaced), cut after `limit` bytes with
// "..."; an array or object as "[...]" or "{...}" ("[]", "{}" when
// empty), never dumped whole.
std::string shown_value(const nlohmann::json& value, std::size_t limit = 120);

}  // namespace agent_session::harness
