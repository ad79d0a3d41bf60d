// Differential testing against the JavaScript oracle (tests/oracle/cli.mjs,
// JSON.parse / JSON.stringify / .length plus decisions §3): random sessions
// rich in what breaks ports, written as raw JSONL text (duplicate keys and
// number spellings survive), must get byte-identical answers from our CLI
// and from the oracle: exit code, standard output, and the spec's error
// text. Then the same for every real session in corpus/real/.
//
// Reproducible: the seed is printed, and AGENT_SESSION_DIFF_SEED=N replays
// (or explores: any other N is a new run). On a mismatch the generated
// files are kept and their folder printed.
//
// Speed: our side runs in process (cli::run, what main() calls); the
// oracle side runs every job in one Node.js process
// (tests/differential/oracle_batch.mjs calls the oracle's own main()).
#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "cli/cli.hpp"
#include "cli/subprocess.hpp"

#include "history_generator.hpp"  // bench::append_utf8

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <span>
#include <sstream>

#include <unistd.h>

namespace agent_session {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = AGENT_SESSION_SOURCE_DIR;
const fs::path kOracle = kSource / "tests" / "oracle" / "cli.mjs";
const fs::path kOracleBatch = kSource / "tests" / "differential" / "oracle_batch.mjs";

constexpr std::uint64_t kDefaultSeed = 20261130;
constexpr int kMaxDepth = 512;          // decisions §3; the message object is level 1
constexpr int kMessageFiles = 10;       // 10 files x 2,000 valid messages
constexpr int kMessagesPerFile = 2000;  // (plus the invalid-line files)
constexpr int kInvalidFiles = 1500;     // each ends its valid lines with a broken one
constexpr int kHistories = 2000;        // tool-call histories, trimmed at many budgets

std::uint64_t seed() {
  const char* text = std::getenv("AGENT_SESSION_DIFF_SEED");
  return text != nullptr && *text != '\0' ? std::stoull(text) : kDefaultSeed;
}

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

  // JSON whitespace inside a line: never `\n` (it ends the line).
  std::string ws() {
    if (!chance(0.08)) return "";
    static const std::vector<std::string> kSpaces = {" ", "\t", "\r", "  ", " \t\r "};
    return pick(kSpaces);
  }

  std::string hex4(unsigned value) {
    static constexpr char kLower[] = "0123456789abcdef";
    static constexpr char kUpper[] = "0123456789ABCDEF";
    const char* digits = chance(0.5) ? kLower : kUpper;
    std::string text = "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) text += digits[(value >> shift) & 0xF];
    return text;
  }

  // A BMP scalar or an astral character, escaped as JSON allows.
  std::string escaped(char32_t c) {
    if (c < 0x10000) return hex4(static_cast<unsigned>(c));
    const char32_t v = c - 0x10000;
    return hex4(0xD800 + static_cast<unsigned>(v >> 10)) + hex4(0xDC00 + static_cast<unsigned>(v & 0x3FF));
  }

  char32_t astral() {
    if (chance(0.6)) return static_cast<char32_t>(0x1F300 + below(0x1FAFF - 0x1F300));
    return static_cast<char32_t>(0x10000 + below(0x10FFFF - 0x10000 + 1));
  }

  char32_t bmp_scalar() {
    static const std::vector<char32_t> kEdges = {0x7F,   0x80,   0x85,   0x9F,   0xA0,   0xE9,   0x2028,
                                                 0x2029, 0xD7FF, 0xE000, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF};
    if (chance(0.4)) return pick(kEdges);
    char32_t c;
    do {
      c = static_cast<char32_t>(0x20 + below(0x10000 - 0x20));
    } while (c >= 0xD800 && c <= 0xDFFF);
    return c;
  }

  // One piece of a string literal's body.
  std::string string_piece() {
    std::string piece;
    switch (below(10)) {
      case 0: {  // plain ASCII, no quote or backslash
        static const std::string kAscii =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !#$%&'()*+,-./:;<=>?@[]^_`{|}~";
        for (std::size_t n = 1 + below(12); n > 0; --n) piece += kAscii[below(kAscii.size())];
        return piece;
      }
      case 1: {
        static const std::vector<std::string> kShort = {"\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"};
        return pick(kShort);
      }
      case 2:  // every control character, escaped (raw ones are invalid JSON)
        return hex4(static_cast<unsigned>(below(0x20)));
      case 3:  // CJK, Hangul, kana: raw UTF-8
        for (std::size_t n = 1 + below(6); n > 0; --n) {
          static const std::vector<std::pair<char32_t, char32_t>> kRanges = {
              {0x4E00, 0x9FFF}, {0xAC00, 0xD7A3}, {0x3041, 0x30FF}};
          const auto& [low, high] = pick(kRanges);
          bench::append_utf8(piece, static_cast<char32_t>(low + below(high - low + 1)));
        }
        return piece;
      case 4:  // astral: raw, or as an escaped surrogate pair
        for (std::size_t n = 1 + below(3); n > 0; --n) {
          const char32_t c = astral();
          if (chance(0.5)) {
            bench::append_utf8(piece, c);
          } else {
            piece += escaped(c);
          }
        }
        return piece;
      case 5:
        return escaped(bmp_scalar());
      case 6:  // raw DEL, C1 controls, line separators, BOM, noncharacters
        bench::append_utf8(piece, bmp_scalar());
        return piece;
      case 7: {  // combining marks, ZWJ sequences, flags
        static const std::vector<std::string> kClusters = {"e\xCC\x81", "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9",
                                                           "\xF0\x9F\x87\xAF\xF0\x9F\x87\xB5", "\xE2\x80\x8B",
                                                           "\xEF\xBB\xBF"};
        return pick(kClusters);
      }
      case 8:
        return "\\\"\\\\";
      default:
        return "x";
    }
  }

  std::string string_literal(std::size_t max_pieces) {
    std::string literal = "\"";
    for (std::size_t n = below(max_pieces + 1); n > 0; --n) literal += string_piece();
    return literal + "\"";
  }

  std::string digits(std::size_t count, bool leading_nonzero) {
    std::string text;
    for (std::size_t i = 0; i < count; ++i) {
      text += static_cast<char>('0' + (i == 0 && leading_nonzero ? 1 + below(9) : below(10)));
    }
    return text;
  }

  // Every shape of JSON number; never one that overflows a double.
  std::string number() {
    static const std::vector<std::string> kSpellings = {
        "0", "-0", "0.0", "-0.0", "0e0", "0E-0", "-0e+0", "1", "1.0", "1.50", "-1", "1E+2", "1e2", "1E2", "1e+2",
        "1E-2", "100e-2", "1e21", "1e20", "999999999999999999999", "123456789012345678901", "1e-7", "1e-6",
        "0.000001", "0.0000001", "1.5e-7", "5e-324", "4.9e-324", "2e-324", "3e-324", "1e-400", "-1e-400",
        "1.7976931348623157e308", "-1.7976931348623157e308", "1.7976931348623158e308", "1e308", "1E+308",
        "2.2250738585072014e-308", "2.225073858507201e-308", "9007199254740991", "9007199254740992",
        "9007199254740993", "-9007199254740993", "18446744073709551615", "18446744073709551616", "4294967295",
        "4294967296", "0.1", "0.2", "0.30000000000000004", "3.141592653589793238462643383279502884197169399",
        "1.00000000000000011102230246251565404236316680908203125", "123.456", "1e-5", "0.00001", "1.5e300",
        "12345678901234567890e-10", "2.5", "1.25e-3", "100", "1e0", "10e-1", "0.1e1",
        "0.000000000000000000000000000000000000000000001"};
    switch (below(4)) {
      case 0:
        return pick(kSpellings);
      case 1: {  // a random double, printed with 1 to 17 significant digits
        double value;
        do {
          const std::uint64_t bits = rng_();
          std::memcpy(&value, &bits, sizeof value);
        } while (!std::isfinite(value));
        char text[64];
        std::snprintf(text, sizeof text, chance(0.5) ? "%.*g" : "%.*e", static_cast<int>(1 + below(17)), value);
        std::string spelled = text;
        if (chance(0.3)) std::replace(spelled.begin(), spelled.end(), 'e', 'E');
        return spelled;
      }
      case 2: {  // an integer of any length, past 2^53 included
        const std::size_t n = 1 + below(chance(0.2) ? 40 : 17);
        return (chance(0.3) ? "-" : "") + (n == 1 ? digits(1, false) : digits(n, true));
      }
      default: {  // a long decimal with an exponent that keeps it finite
        const std::size_t int_digits = 1 + below(20);
        std::string text = (chance(0.3) ? "-" : "") + (int_digits == 1 ? digits(1, false) : digits(int_digits, true));
        if (chance(0.8)) text += "." + digits(1 + below(30), false);
        if (chance(0.6)) {
          const int exponent = static_cast<int>(below(640)) - 340;
          const int bounded = std::min(exponent, 307 - static_cast<int>(int_digits));
          text += std::string(chance(0.5) ? "e" : "E") + (bounded >= 0 && chance(0.5) ? "+" : "") +
                  std::to_string(bounded);
        }
        return text;
      }
    }
  }

  // Index-like keys ("0", "10", "4294967294") go first in JavaScript's
  // key order; near misses ("01", "-1", "4294967295") do not.
  std::string key() {
    static const std::vector<std::string> kKeys = {
        R"("0")",        R"("1")",          R"("2")",        R"("9")",        R"("10")",
        R"("4294967294")", R"("4294967295")", R"("4294967296")", R"("01")",      R"("00")",
        R"("-1")",       R"("-0")",         R"("1.5")",      R"("1e3")",      R"("+1")",
        R"(" 1")",       R"("99999999999")", R"("\u0030")",   R"("1\u0030")",  R"("__proto__")",
        R"("constructor")", R"("toString")", R"("length")",   R"("")",         R"("a")",
        R"("b")",        R"("role")",       R"("content")",  R"("é")",        R"("😀")",
        R"("\ud83d\ude00")"};
    return chance(0.8) ? pick(kKeys) : string_literal(3);
  }

  std::string object(const std::vector<Field>& fields) {
    std::string text = "{" + ws();
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) text += "," + ws();
      text += fields[i].key + ws() + ":" + ws() + fields[i].value + ws();
    }
    return text + "}";
  }

  std::string array(const std::vector<std::string>& items) {
    std::string text = "[" + ws();
    for (std::size_t i = 0; i < items.size(); ++i) text += (i > 0 ? "," + ws() : "") + items[i] + ws();
    return text + "]";
  }

  // Arrays and objects nested from `level` down to exactly level `deepest`.
  std::string deep(int level, int deepest) {
    std::string open, close;
    for (int l = level; l <= deepest; ++l) {
      if (chance(0.5)) {
        open += "[";
        close.insert(0, "]");
      } else {
        open += "{\"k\":";
        close.insert(0, "}");
      }
    }
    return open + "0" + close;
  }

  // Any JSON value; a container here would sit at nesting `level`.
  std::string value(int level) {
    const std::size_t kind = below(level > 6 ? 5 : 7);
    switch (kind) {
      case 0:
        return pick(std::vector<std::string>{"null", "true", "false"});
      case 1:
      case 2:
        return number();
      case 3:
      case 4:
        return string_literal(4);
      case 5: {
        std::vector<std::string> items;
        for (std::size_t n = below(4); n > 0; --n) items.push_back(value(level + 1));
        return array(items);
      }
      default: {
        std::vector<Field> fields;
        for (std::size_t n = below(5); n > 0; --n) {
          // Duplicate keys: the small key pool repeats them often.
          fields.push_back({key(), value(level + 1)});
        }
        return object(fields);
      }
    }
  }

  // Extra fields are dropped by parsing, but must still be valid JSON:
  // deep nesting and exotic numbers hide there too.
  // Never one of the message's own keys: a later duplicate would win.
  void add_extras(std::vector<Field>& fields, int level) {
    static const std::vector<std::string> kExtras = {R"("extra")", R"("meta")", R"("0")", R"("ts")",
                                                     R"("toolCalls")", R"("__proto__")", R"("isError")"};
    for (std::size_t n = chance(0.3) ? 1 + below(3) : 0; n > 0; --n) {
      const std::string& name = pick(kExtras);
      const bool own = std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return f.key == name; });
      if (own) continue;
      fields.push_back({name, chance(0.05) ? deep(level, kMaxDepth) : value(level)});
    }
  }

  // Shuffles, then sometimes gives a field an earlier duplicate holding a
  // wrong value: the last one wins, so the message stays valid.
  std::vector<Field> scramble(std::vector<Field> fields, int level) {
    std::shuffle(fields.begin(), fields.end(), rng_);
    if (!fields.empty() && chance(0.1)) {
      const std::size_t at = below(fields.size());
      fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(at), Field{fields[at].key, value(level)});
    }
    return fields;
  }

  std::string role(const char* name) {
    if (chance(0.9)) return std::string("\"") + name + "\"";
    return "\"" + escaped(static_cast<char32_t>(name[0])) + (name + 1) + "\"";  // "\u0075ser"
  }

  std::string tool_call(const std::string& id) {
    std::vector<Field> fields = {{R"("id")", id}, {R"("name")", string_literal(2)}};
    fields.push_back({R"("input")", chance(0.03) ? deep(4, kMaxDepth) : value(4)});
    add_extras(fields, 4);
    return object(scramble(fields, 4));
  }

  std::string user(std::size_t pieces) {
    std::vector<Field> fields = {{R"("role")", role("user")}, {R"("content")", string_literal(pieces)}};
    add_extras(fields, 2);
    return object(scramble(fields, 2));
  }

  std::string assistant(std::size_t pieces, const std::vector<std::string>& call_ids) {
    std::vector<std::string> calls;
    for (const auto& id : call_ids) calls.push_back(tool_call(id));
    std::vector<Field> fields = {{R"("role")", role("assistant")},
                                 {R"("content")", string_literal(pieces)},
                                 {R"("toolCalls")", array(calls)}};
    add_extras(fields, 2);
    return object(scramble(fields, 2));
  }

  std::string tool(std::size_t pieces, const std::string& call_id) {
    std::vector<Field> fields = {{R"("role")", role("tool")},
                                 {R"("content")", string_literal(pieces)},
                                 {R"("toolCallId")", call_id},
                                 {R"("isError")", chance(0.5) ? "true" : "false"}};
    add_extras(fields, 2);
    return object(scramble(fields, 2));
  }

  std::string message() {
    switch (below(3)) {
      case 0:
        return user(8);
      case 1: {
        std::vector<std::string> ids;
        for (std::size_t n = below(4); n > 0; --n) ids.push_back(string_literal(2));
        return assistant(6, ids);
      }
      default:
        return tool(8, string_literal(2));
    }
  }

  // How a line ends: mostly `\n`, sometimes CRLF or trailing whitespace.
  std::string line_end() {
    if (chance(0.9)) return "\n";
    static const std::vector<std::string> kEnds = {"\r\n", " \n", "\t\r\n"};
    return pick(kEnds);
  }

  std::string empty_lines() { return chance(0.05) ? std::string(1 + below(2), '\n') : ""; }

  // A line that parses as JSON but is not a message.
  std::string bad_record() {
    static const std::vector<std::string> kLines = {
        R"([])", R"(null)", R"(42)", R"("user")", R"(true)", R"([{"role":"user","content":"x"}])",
        R"({"role":"system","content":"x"})", R"({"role":"User","content":"x"})", R"({"role":"","content":"x"})",
        R"({"content":"x"})", R"({"role":null,"content":"x"})", R"({"role":["user"],"content":"x"})",
        R"({"role":"user"})", R"({"role":"user","content":null})", R"({"role":"user","content":1})",
        R"({"role":"user","content":["x"]})", R"({"role":"assistant","content":"x"})",
        R"({"role":"assistant","content":"x","toolCalls":null})",
        R"({"role":"assistant","content":"x","toolCalls":{}})",
        R"({"role":"assistant","content":"x","toolCalls":[null]})",
        R"({"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n"}]})",
        R"({"role":"assistant","content":"x","toolCalls":[{"id":1,"name":"n","input":1}]})",
        R"({"role":"assistant","content":"x","toolCalls":[{"id":"a","input":1}]})",
        R"({"role":"assistant","content":"x","toolCalls":[[]]})",
        R"({"role":"tool","content":"x","isError":false})", R"({"role":"tool","content":"x","toolCallId":"a"})",
        R"({"role":"tool","content":"x","toolCallId":"a","isError":"true"})",
        R"({"role":"tool","content":"x","toolCallId":"a","isError":0})",
        R"({"role":"tool","content":"x","toolCallId":null,"isError":false})",
        R"({"role":"user","content":"x","role":"nope"})",
        R"({"role":"tool","content":"x","toolCallId":"a","isError":false,"role":"assistant"})"};
    return pick(kLines);
  }

  // A line that is not JSON, or breaks a rule of decisions §3.
  std::string bad_json() {
    const std::string good = user(4);
    switch (below(9)) {
      case 0:  // cut short (a proper prefix of an object is never JSON)
        return good.substr(0, 1 + below(good.size() - 1));
      case 1: {  // trailing garbage, a raw NUL among it
        static const std::vector<std::string> kTails = {"x", ",", "}", "{}", std::string(1, '\0'), "\f", "\xC2\xA0"};
        return good + pick(kTails);
      }
      case 2: {
        static const std::vector<std::string> kLeads = {"\xEF\xBB\xBF", "\f", "\xC2\xA0", "\v"};
        return pick(kLeads) + good;
      }
      case 3: {
        static const std::vector<std::string> kLines = {" ", "\r", "\t", " \r", "x", "{", "}", "'x'"};
        return pick(kLines);
      }
      case 4: {  // invalid UTF-8 inside a string, a key or a dropped field
        static const std::vector<std::string> kBytes = {"\xFF", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80",
                                                        "\xF4\x90\x80\x80", "\x80", "\xE4\xB8", "\xE9"};
        const std::string bytes = pick(kBytes);
        static const std::vector<std::string> kWhere = {
            R"({"role":"user","content":"a@b"})", R"({"role":"user","content":"x","@":1})",
            R"({"role":"user","content":"x","extra":["@"]})"};
        std::string line = pick(kWhere);
        return line.replace(line.find('@'), 1, bytes);
      }
      case 5: {  // escaped lone surrogates
        static const std::vector<std::string> kEscapes = {R"(\ud800)", R"(\udc00)", R"(\uDBFF)", R"(\ud800\u0041)",
                                                          R"(\udc00\ud800)", R"(\ud800\ud800)", R"(\ud800x)"};
        static const std::vector<std::string> kWhere = {
            R"({"role":"user","content":"@"})", R"({"role":"user","content":"x","@":1})",
            R"({"role":"user","content":"x","extra":{"k":"@"}})"};
        std::string line = pick(kWhere);
        return line.replace(line.find('@'), 1, pick(kEscapes));
      }
      case 6: {  // numbers that overflow a double
        static const std::vector<std::string> kHuge = {"1e400", "-1e400", "1.7976931348623159e308", "1e309",
                                                       "-1.8e308", "1" + std::string(400, '0'),
                                                       "0.1e310"};
        return R"({"role":"user","content":"x","n":[1,)" + pick(kHuge) + "]}";
      }
      case 7:  // one level too deep
        return R"({"role":"user","content":"x","extra":)" + deep(2, kMaxDepth + 1) + "}";
      default: {
        static const std::vector<std::string> kLines = {
            R"({"role":"user","content":"x",})",   R"({'role':'user','content':'x'})",
            "{\"role\":\"user\",\"content\":\"a\tb\"}", R"({"role":"user","content":"\x"})",
            R"({"role":"user","content":"\u12"})", R"({"role":"user","content":"x","n":01})",
            R"({"role":"user","content":"x","n":NaN})", R"({"role":"user","content":"x","n":Infinity})",
            R"({"role":"user","content":"x","n":+1})", R"({"role":"user","content":"x","n":.5})",
            R"({"role":"user","content":"x","n":5.})", R"({"role":"user","content":"x","n":0x10})",
            R"({"role":"user","content":"x"} {})", R"({"role":"user" "content":"x"})"};
        return pick(kLines);
      }
    }
  }

  // A history with the tool-call structure trimming cares about: rounds of
  // calls, results out of order (interleaved rounds), repeated call ids,
  // orphan results, calls never answered.
  std::string history() {
    static const std::vector<std::string> kIds = {R"("a")", R"("b")", R"("c")", R"("call_1")", R"("call_2")",
                                                  R"("\u0061")"};
    if (chance(0.01)) return pick(std::vector<std::string>{"", "\n", "\n\n"});  // an empty session
    std::vector<std::string> open_ids;
    std::string text;
    for (std::size_t n = 1 + below(chance(0.2) ? 40 : 12); n > 0; --n) {
      const std::size_t kind = below(10);
      if (kind < 2) {
        text += user(3);
      } else if (kind < 5) {
        std::vector<std::string> ids;
        for (std::size_t c = below(4); c > 0; --c) ids.push_back(pick(kIds));
        open_ids.insert(open_ids.end(), ids.begin(), ids.end());
        text += assistant(2, ids);
      } else if (kind < 9 && !open_ids.empty()) {
        const std::size_t at = chance(0.7) ? 0 : below(open_ids.size());  // mostly in order
        text += tool(3, open_ids[at]);
        open_ids.erase(open_ids.begin() + static_cast<std::ptrdiff_t>(at));
      } else {
        text += tool(3, chance(0.5) ? pick(kIds) : R"("orphan")");
      }
      text += line_end() + empty_lines();
    }
    return text;
  }

 private:
  std::mt19937_64 rng_;
};

struct Answer {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// The spec's error text (decisions §2, §6), wherever the port puts it,
// with its line number; "" when there is none.
std::string spec_error(const std::string& err, bool with_line_number = true) {
  static const std::vector<std::string> kTexts = {"invalid session JSON at line ", "invalid session record at line ",
                                                  "context budget cannot contain the smallest consistent message unit",
                                                  "context budget cannot be empty"};
  for (const auto& text : kTexts) {
    for (auto at = err.find(text); at != std::string::npos; at = err.find(text, at + 1)) {
      auto end = at + text.size();
      if (text.back() == ' ') {
        const auto digits = err.find_first_not_of("0123456789", end);
        if (digits == end) continue;
        end = digits == std::string::npos ? err.size() : digits;
      }
      const std::string_view rest = std::string_view(err).substr(end, 2);
      if (!rest.empty() && rest[0] != '\n' && rest != ": ") continue;
      return with_line_number ? err.substr(at, end - at) : text;
    }
  }
  return "";
}

// A short excerpt on one line: newlines and other controls escaped.
std::string shown(const std::string& bytes, std::size_t from) {
  std::string text = "\"";
  for (const char c : bytes.substr(std::min(from, bytes.size()), 100)) {
    if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      text += escape;
    } else {
      text += c;
    }
  }
  return text + "\"";
}

// Why two answers differ, or "" when they agree.
std::string difference(const Answer& ours, const Answer& oracle) {
  std::ostringstream text;
  if (ours.exit_code != oracle.exit_code) {
    text << "exit " << ours.exit_code << ", oracle " << oracle.exit_code << "; our stderr: " << shown(ours.err, 0)
         << "; oracle stderr: " << shown(oracle.err, 0);
  } else if (ours.out != oracle.out) {
    const auto [a, b] = std::mismatch(ours.out.begin(), ours.out.end(), oracle.out.begin(), oracle.out.end());
    const auto at = static_cast<std::size_t>(a - ours.out.begin());
    const std::size_t from = at > 40 ? at - 40 : 0;
    text << "stdout differs at byte " << at << "; ours: " << shown(ours.out, from)
         << "\n  oracle: " << shown(oracle.out, from);
  } else if (ours.exit_code == 1 && (spec_error(ours.err).empty() || spec_error(ours.err) != spec_error(oracle.err))) {
    text << "error text differs; ours: " << shown(ours.err, 0) << "; oracle: " << shown(oracle.err, 0);
  }
  return text.str();
}

std::string json_string(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

// Runs every job through the oracle in one Node.js process.
std::vector<Answer> ask_oracle(const std::vector<std::vector<std::string>>& jobs, const fs::path& dir) {
  {
    std::ofstream out(dir / "jobs.jsonl", std::ios::binary);
    for (const auto& args : jobs) {
      std::string line = "[";
      for (const auto& arg : args) line += (line.size() > 1 ? "," : "") + json_string(arg);
      out << line << "]\n";
    }
  }
  const auto run = cli::run_process(
      {"node", kOracleBatch.string(), (dir / "jobs.jsonl").string(), (dir / "results.bin").string()}, "",
      std::chrono::minutes(10));
  if (run.end != cli::ProcessEnd::exited || run.exit_code != 0) {
    ADD_FAILURE() << "oracle_batch.mjs: " << cli::describe_end(run, std::chrono::minutes(10)) << "\n" << run.err;
    return {};
  }
  std::ifstream in(dir / "results.bin", std::ios::binary);
  std::vector<Answer> answers;
  for (Answer answer; in >> answer.exit_code;) {
    std::size_t out_size = 0, err_size = 0;
    in >> out_size >> err_size;
    in.get();  // the header's '\n'
    answer.out.resize(out_size);
    answer.err.resize(err_size);
    in.read(answer.out.data(), static_cast<std::streamsize>(out_size));
    in.read(answer.err.data(), static_cast<std::streamsize>(err_size));
    answers.push_back(answer);
  }
  return answers;
}

Answer ask_ours(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out, err;
  Answer answer;
  answer.exit_code = cli::run(args, in, out, err);
  answer.out = out.str();
  answer.err = err.str();
  return answer;
}

// Budgets around every interesting size of a session: exactly the estimate
// of a suffix (it fits) and one less (it does not), a random one, and now
// and then 0 and a huge one (the trivial ends, so only now and then).
std::vector<std::uint64_t> budgets(const std::string& bytes, SessionWriter& writer, std::size_t suffixes) {
  std::vector<std::uint64_t> chosen;
  if (writer.chance(0.1)) chosen = {0, 18446744073709551615ull};
  try {
    const std::vector<Message> messages = load_session_from_memory(bytes);
    if (messages.empty()) return {writer.below(100)};  // "context budget cannot be empty"
    for (std::size_t n = 0; n < suffixes; ++n) {
      const std::size_t from = writer.below(messages.size());
      const std::uint64_t size = estimate_context_chars(std::span(messages).subspan(from));
      chosen.insert(chosen.end(), {size, size - 1});
    }
    chosen.push_back(writer.below(estimate_context_chars(messages) + 1));
  } catch (const SessionError&) {
  }
  return chosen;
}

class Workspace {
 public:
  Workspace() {
    std::string pattern = (fs::temp_directory_path() / "agent_session_diff_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() {
    if (keep_) {
      std::cout << "generated files kept in " << dir_ << "\n";
    } else {
      fs::remove_all(dir_);
    }
  }
  fs::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  const fs::path& dir() const { return dir_; }
  void keep() { keep_ = true; }

 private:
  fs::path dir_;
  bool keep_ = false;
};

struct Plan {
  std::vector<std::vector<std::string>> jobs;
  std::size_t messages = 0, invalid_files = 0, histories = 0;
};

void plan_trims(Plan& plan, const fs::path& file, const std::vector<std::uint64_t>& chosen) {
  for (const std::uint64_t budget : chosen) plan.jobs.push_back({"trim", "--max-chars", std::to_string(budget), file.string()});
}

Plan generate(std::uint64_t seed, Workspace& space) {
  SessionWriter writer(seed);
  Plan plan;
  for (int f = 0; f < kMessageFiles; ++f) {
    std::string bytes;
    for (int m = 0; m < kMessagesPerFile; ++m) bytes += writer.message() + writer.line_end() + writer.empty_lines();
    if (writer.chance(0.5)) bytes.pop_back();  // no newline at the end of the file
    const fs::path file = space.write("messages_" + std::to_string(f) + ".jsonl", bytes);
    for (const char* command : {"estimate", "canon"}) plan.jobs.push_back({command, file.string()});
    plan_trims(plan, file, budgets(bytes, writer, 1));
    plan.messages += kMessagesPerFile;
  }
  for (int f = 0; f < kInvalidFiles; ++f) {
    std::string bytes;
    for (std::size_t n = writer.below(4); n > 0; --n) bytes += writer.message() + writer.line_end() + writer.empty_lines();
    bytes += (writer.chance(0.5) ? writer.bad_json() : writer.bad_record()) + writer.line_end();
    for (std::size_t n = writer.below(3); n > 0; --n) {
      bytes += (writer.chance(0.5) ? writer.message() : writer.bad_record()) + writer.line_end();
    }
    const fs::path file = space.write("invalid_" + std::to_string(f) + ".jsonl", bytes);
    plan.jobs.push_back({"check", file.string()});
    plan.jobs.push_back({"trim", "--max-chars", "1000", file.string()});
    ++plan.invalid_files;
  }
  for (int h = 0; h < kHistories; ++h) {
    const std::string bytes = writer.history();
    const fs::path file = space.write("history_" + std::to_string(h) + ".jsonl", bytes);
    for (const char* command : {"estimate", "canon"}) plan.jobs.push_back({command, file.string()});
    plan_trims(plan, file, budgets(bytes, writer, 2));
    ++plan.histories;
  }
  return plan;
}

TEST(Differential, RandomSessionsAgreeWithTheJavaScriptOracle) {
  const std::uint64_t run_seed = seed();
  std::cout << "differential seed " << run_seed << " (AGENT_SESSION_DIFF_SEED=" << run_seed << " replays it)\n";
  SCOPED_TRACE("AGENT_SESSION_DIFF_SEED=" + std::to_string(run_seed));
  Workspace space;
  const auto start = std::chrono::steady_clock::now();
  const auto seconds_since = [](auto from) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
  };
  const Plan plan = generate(run_seed, space);
  std::cout << "generated " << plan.messages << " messages, " << plan.invalid_files << " invalid files, "
            << plan.histories << " histories in " << seconds_since(start) << " s\n";
  ASSERT_GE(plan.messages, 20000u);
  ASSERT_GE(plan.histories, 2000u);

  auto phase = std::chrono::steady_clock::now();
  const std::vector<Answer> oracle = ask_oracle(plan.jobs, space.dir());
  ASSERT_EQ(oracle.size(), plan.jobs.size());
  std::cout << "the oracle answered in " << seconds_since(phase) << " s\n";
  phase = std::chrono::steady_clock::now();
  std::size_t mismatches = 0;
  std::map<int, std::size_t> exits;
  std::set<std::string> errors;
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
    const Answer ours = ask_ours(plan.jobs[i]);
    ++exits[oracle[i].exit_code];
    errors.insert(spec_error(oracle[i].err, false));
    const std::string why = difference(ours, oracle[i]);
    if (why.empty()) continue;
    if (++mismatches <= 10) {
      std::string args;
      for (const auto& arg : plan.jobs[i]) args += " " + arg;
      ADD_FAILURE() << "agent-session" << args << ":\n  " << why;
    }
  }
  std::cout << "our CLI answered in " << seconds_since(phase) << " s\n";
  EXPECT_EQ(mismatches, 0u) << "of " << plan.jobs.size() << " command lines";
  if (mismatches > 0) space.keep();
  // The generator really reaches every outcome (else this test proves little).
  EXPECT_GT(exits[0], plan.jobs.size() / 2);
  EXPECT_GT(exits[1], plan.invalid_files);
  for (const char* error : {"invalid session JSON at line ", "invalid session record at line ",
                            "context budget cannot contain the smallest consistent message unit",
                            "context budget cannot be empty"}) {
    EXPECT_TRUE(errors.count(error)) << error;
  }
  std::cout << plan.jobs.size() << " command lines: " << exits[0] << " exit 0, " << exits[1] << " exit 1, "
            << mismatches << " mismatches\n";
}

// The real sessions, through both real command lines.
class RealSession : public ::testing::TestWithParam<std::string> {};

TEST_P(RealSession, OurCliAndTheOracleGiveTheSameBytes) {
  const fs::path file = kSource / "corpus" / "real" / GetParam();
  const std::vector<std::vector<std::string>> checks = {{"check"},
                                                        {"estimate"},
                                                        {"canon"},
                                                        {"trim", "--max-chars", "2000"},
                                                        {"trim", "--max-chars", "20000"},
                                                        {"trim", "--max-chars", "200000"}};
  for (const auto& check : checks) {
    std::vector<std::string> ours = {AGENT_SESSION_CLI}, oracle = {"node", kOracle.string()};
    for (auto* argv : {&ours, &oracle}) {
      argv->insert(argv->end(), check.begin(), check.end());
      argv->push_back(file.string());
    }
    const auto timeout = std::chrono::minutes(2);
    const auto a = cli::run_process(ours, "", timeout);
    const auto b = cli::run_process(oracle, "", timeout);
    ASSERT_EQ(a.end, cli::ProcessEnd::exited) << cli::describe_end(a, timeout);
    ASSERT_EQ(b.end, cli::ProcessEnd::exited) << cli::describe_end(b, timeout);
    EXPECT_EQ(difference({a.exit_code, a.out, a.err}, {b.exit_code, b.out, b.err}), "") << check.back();
    if (check[0] != "trim") {
      EXPECT_EQ(a.exit_code, 0) << a.err;
    }
  }
}

std::vector<std::string> real_sessions() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kSource / "corpus" / "real")) {
    if (entry.path().extension() == ".jsonl") names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Corpus, RealSession, ::testing::ValuesIn(real_sessions()), [](const auto& info) {
  std::string name = info.param.substr(0, info.param.rfind('.'));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
});

}  // namespace
}  // namespace agent_session
