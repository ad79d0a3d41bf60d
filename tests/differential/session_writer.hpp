// SessionWriter: the raw JSONL text of random sessions for the differential
// test (differential_test.cpp), rich in what breaks ports. Written as text,
// not through a JSON library, so duplicate keys, escapes and number
// spellings reach both implementations as spelled.
//
// The same seed gives the same text: a failing run replays from its seed.
// The JSON pieces (strings, numbers, keys, values) are in
// session_writer.cpp; the records built from them (messages, broken lines,
// tool-call histories) in session_records.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace agent_session::differential {

// SPEC.md §2.1's nesting limit; the message object is level 1.
inline constexpr int kMaxDepth = 512;

struct Field {
  std::string key;    // a JSON string literal, quotes included
  std::string value;  // raw JSON text
};

// Raw JSON text of random sessions: the same value can be spelled many
// ways (escapes, number forms, whitespace, duplicate keys), and each
// spelling is a chance for two implementations to disagree.
class SessionWriter {
 public:
  explicit SessionWriter(std::uint64_t seed) : rng_(seed) {}

  std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }

  // A valid message of any role, on one line, without its line end.
  std::string message();
  // How a line ends: mostly `\n`, sometimes CRLF or trailing whitespace.
  std::string line_end();
  // Now and then one or two empty lines (SPEC.md §2 skips them).
  std::string empty_lines();
  // A line that parses as JSON but is not a message.
  std::string bad_record();
  // A line that is not JSON, or breaks a rule of SPEC.md §2.1.
  std::string bad_json();
  // A history with the tool-call structure trimming cares about: rounds of
  // calls, results out of order (interleaved rounds), repeated call ids,
  // orphan results, calls never answered.
  std::string history();

 private:
  // JSON text (session_writer.cpp).
  // JSON whitespace inside a line: never `\n` (it ends the line).
  std::string ws();
  // `\uXXXX`, in lower or upper case hex digits.
  std::string hex4(unsigned value);
  // A BMP scalar or an astral character, escaped as JSON allows.
  std::string escaped(char32_t c);
  char32_t astral();
  char32_t bmp_scalar();
  // One piece of a string literal's body.
  std::string string_piece();
  // A string literal of up to `max_pieces` pieces, quotes included.
  std::string string_literal(std::size_t max_pieces);
  std::string digits(std::size_t count, bool leading_nonzero);
  // Every shape of JSON number; never one that overflows a double.
  std::string number();
  // Index-like keys ("0", "10", "4294967294") go first in JavaScript's
  // key order; near misses ("01", "-1", "4294967295") do not.
  std::string key();
  std::string object(const std::vector<Field>& fields);
  std::string array(const std::vector<std::string>& items);
  // Arrays and objects nested from `level` down to exactly level `deepest`.
  std::string deep(int level, int deepest);
  // Any JSON value; a container here would sit at nesting `level`.
  std::string value(int level);

  // Records (session_records.cpp).
  // Extra fields are dropped by parsing, but must still be valid JSON:
  // deep nesting and exotic numbers hide there too.
  // Never one of the message's own keys: a later duplicate would win.
  void add_extras(std::vector<Field>& fields, int level);
  // Shuffles, then sometimes gives a field an earlier duplicate holding a
  // wrong value: the last one wins, so the message stays valid.
  std::vector<Field> scramble(std::vector<Field> fields, int level);
  // "user" etc., now and then with an escaped first letter ("\u0075ser").
  std::string role(const char* name);
  std::string tool_call(const std::string& id);
  std::string user(std::size_t pieces);
  std::string assistant(std::size_t pieces, const std::vector<std::string>& call_ids);
  std::string tool(std::size_t pieces, const std::string& call_id);

  std::mt19937_64 rng_;
};

}  // namespace agent_session::differential
