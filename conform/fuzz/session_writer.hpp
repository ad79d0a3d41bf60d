// SessionWriter: the raw JSONL text of random sessions, rich in what breaks
// ports: the one generator of `agent-session-conform fuzz`
// (fuzz/fuzz_command.hpp) and of the project's differential test against
// the JavaScript oracle (tests/differential_test.cpp). Written as text,
// not through a JSON library, so duplicate keys, escapes and number
// spellings reach both implementations as spelled.
//
// The same seed gives the same text: a failing run replays from its seed.
// The JSON pieces (strings, numbers, keys, values) are in
// session_writer.cpp; the records built from them (messages, broken lines,
// tool-call histories) in session_records.cpp; each token at its edge and
// its near misses in token_edges.cpp; damage to the bytes and mutations of
// the vectors' inputs in byte_damage.cpp. Every shape it writes is counted
// (Shape, counts()), so a test can see that each occurs.
#pragma once

#include "base/utf8.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace agent_session::conform::fuzz {

// SPEC.md §2.1's nesting limit; the message object is level 1.
inline constexpr int kMaxDepth = 512;

// What the generator wrote, one counter each (SessionWriter::counts()).
enum class Shape : std::size_t {
  user,
  assistant,
  tool,  // the three records (SPEC.md §1)
  astral,
  lone_escape,
  control_char,  // strings: astral characters, lone surrogate escapes, controls
  exponent_switch,
  int_2_53_to_2_63,
  near_max_double,
  digits_309,  // numbers at the printer's and parser's edges
  index_key,
  duplicate_key,
  wrong_case_key,  // keys: array-index-like near 2^32-2, repeated, Role/CONTENT
  deep_nesting,    // nesting at or past 512
  parallel_calls,
  interleaved_rounds,
  nested_rounds,
  pending_call,
  orphan_result,
  repeated_id,  // units (§5.1)
  invalid_utf8,
  torn_last_line,
  bom,
  cr,
  nul,
  whitespace_line,  // damage to the bytes
  vector_mutation,  // a mutated input of a conformance vector
  literal_near_miss,
  literal_case,  // token edges (token_edges.cpp): nulx, nul, trux; nUll, TRUE
  number_near_miss,
  number_form_edge,  // 0., .5, 01, -, 1e+; -0, 5e-324, the overflow midpoint
  escape_letter,
  escape_near_miss,  // \n, \u00E9; \x, \U, \u041
  unicode_escape_edge,
  surrogate_pair_order,
  high_escape_line_end,  // \u at range edges, surrogate pairs in every order, a line cut after a high one
  raw_control,
  utf8_edge,    // raw 0x00-0x1F and DEL in strings; UTF-8 lead and continuation edges
  nested_edge,  // a token edge inside nested arrays: {"":[["\ud800"]]}
  count
};
inline constexpr std::size_t kShapeCount = static_cast<std::size_t>(Shape::count);
using ShapeCounts = std::array<std::uint64_t, kShapeCount>;
const char* shape_name(Shape shape);

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
  std::mt19937_64& rng() { return rng_; }
  void note(Shape shape) { ++counts_[static_cast<std::size_t>(shape)]; }
  const ShapeCounts& counts() const { return counts_; }
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
  // A number at the edges of JavaScript's printer and of the parser: the
  // switches to exponent form (1e21, 1e-7), integers from 2^53 to 2^63,
  // the largest doubles, integers of 309 digits and more; never one that
  // overflows a double.
  std::string edge_number();
  // A string literal of up to `max_pieces` pieces, quotes included.
  std::string string_literal(std::size_t max_pieces);

  // Token edges (token_edges.cpp), right or one step past SPEC.md §2/§2.1.
  // A literal, or one with a letter missing, changed, added or recased.
  std::string literal_edge();
  // A number form at an edge (-0, 5e-324, the overflow midpoint), or a near
  // miss that is no number (0., .5, 01, -, 1e+).
  std::string number_edge_form();
  // A piece of a string's body: an escape or near miss, `\u` at a range
  // edge, surrogate escapes in any order, a raw control, UTF-8 edge bytes.
  std::string string_edge();
  // A line holding token edges where a rule sees them (content, a tool
  // input, a key, a dropped field, nested arrays), without its line end;
  // now and then cut right after a high escape.
  std::string edge_line();

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
  ShapeCounts counts_{};
};

// The one UTF-8 encoder (base/utf8.hpp).
using base::append_utf8;

}  // namespace agent_session::conform::fuzz
