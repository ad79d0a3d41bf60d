// SessionWriter's JSON text: whitespace, string literals, numbers, keys and
// values, each spelled in the many ways JSON allows.
#include "conform/fuzz/session_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

namespace agent_session::conform::fuzz {

const char* shape_name(Shape shape) {
  static constexpr const char* kNames[] = {"user",
                                           "assistant",
                                           "tool",
                                           "astral",
                                           "lone_escape",
                                           "control_char",
                                           "exponent_switch",
                                           "int_2_53_to_2_63",
                                           "near_max_double",
                                           "digits_309",
                                           "index_key",
                                           "duplicate_key",
                                           "wrong_case_key",
                                           "deep_nesting",
                                           "parallel_calls",
                                           "interleaved_rounds",
                                           "nested_rounds",
                                           "pending_call",
                                           "orphan_result",
                                           "repeated_id",
                                           "invalid_utf8",
                                           "torn_last_line",
                                           "bom",
                                           "cr",
                                           "nul",
                                           "whitespace_line",
                                           "vector_mutation",
                                           "literal_near_miss",
                                           "literal_case",
                                           "number_near_miss",
                                           "number_form_edge",
                                           "escape_letter",
                                           "escape_near_miss",
                                           "unicode_escape_edge",
                                           "surrogate_pair_order",
                                           "high_escape_line_end",
                                           "raw_control",
                                           "utf8_edge",
                                           "nested_edge"};
  static_assert(std::size(kNames) == kShapeCount);
  return kNames[static_cast<std::size_t>(shape)];
}

std::string SessionWriter::ws() {
  if (!chance(0.08)) return "";
  static const std::vector<std::string> kSpaces = {" ", "\t", "\r", "  ", " \t\r "};
  return pick(kSpaces);
}

std::string SessionWriter::hex4(unsigned value) {
  static constexpr char kLower[] = "0123456789abcdef";
  static constexpr char kUpper[] = "0123456789ABCDEF";
  const char* digits = chance(0.5) ? kLower : kUpper;
  std::string text = "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) text += digits[(value >> shift) & 0xF];
  return text;
}

std::string SessionWriter::escaped(char32_t c) {
  if (c < 0x10000) return hex4(static_cast<unsigned>(c));
  const char32_t v = c - 0x10000;
  return hex4(0xD800 + static_cast<unsigned>(v >> 10)) + hex4(0xDC00 + static_cast<unsigned>(v & 0x3FF));
}

char32_t SessionWriter::astral() {
  note(Shape::astral);
  if (chance(0.2)) return static_cast<char32_t>(0xE0020 + below(0x60));  // tags: UTF-8 lead F3
  if (chance(0.6)) return static_cast<char32_t>(0x1F300 + below(0x1FAFF - 0x1F300));
  return static_cast<char32_t>(0x10000 + below(0x10FFFF - 0x10000 + 1));
}

char32_t SessionWriter::bmp_scalar() {
  static const std::vector<char32_t> kEdges = {0x7F,   0x80,   0x85,   0x9F,   0xA0,   0xE9,   0x2028,
                                               0x2029, 0xD7FF, 0xE000, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF};
  if (chance(0.4)) return pick(kEdges);
  char32_t c;
  do {
    c = static_cast<char32_t>(0x20 + below(0x10000 - 0x20));
  } while (c >= 0xD800 && c <= 0xDFFF);
  return c;
}

std::string SessionWriter::string_piece() {
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
      note(Shape::control_char);
      return hex4(static_cast<unsigned>(below(0x20)));
    case 3:  // CJK, Hangul, kana: raw UTF-8
      for (std::size_t n = 1 + below(6); n > 0; --n) {
        static const std::vector<std::pair<char32_t, char32_t>> kRanges = {
            {0x4E00, 0x9FFF}, {0xAC00, 0xD7A3}, {0x3041, 0x30FF}};
        const auto& [low, high] = pick(kRanges);
        append_utf8(piece, static_cast<char32_t>(low + below(high - low + 1)));
      }
      return piece;
    case 4:  // astral: raw, or as an escaped surrogate pair
      for (std::size_t n = 1 + below(3); n > 0; --n) {
        const char32_t c = astral();
        if (chance(0.5)) {
          append_utf8(piece, c);
        } else {
          piece += escaped(c);
        }
      }
      return piece;
    case 5: return escaped(bmp_scalar());
    case 6:  // raw DEL, C1 controls, line separators, BOM, noncharacters
      append_utf8(piece, bmp_scalar());
      return piece;
    case 7: {  // combining marks, ZWJ sequences, flags
      static const std::vector<std::string> kClusters = {"e\xCC\x81", "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9",
                                                         "\xF0\x9F\x87\xAF\xF0\x9F\x87\xB5", "\xE2\x80\x8B",
                                                         "\xEF\xBB\xBF"};
      return pick(kClusters);
    }
    case 8: return "\\\"\\\\";
    default: return "x";
  }
}

std::string SessionWriter::string_literal(std::size_t max_pieces) {
  std::string literal = "\"";
  for (std::size_t n = below(max_pieces + 1); n > 0; --n) literal += string_piece();
  return literal + "\"";
}

std::string SessionWriter::digits(std::size_t count, bool leading_nonzero) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) {
    text += static_cast<char>('0' + (i == 0 && leading_nonzero ? 1 + below(9) : below(10)));
  }
  return text;
}

std::string SessionWriter::number() {
  static const std::vector<std::string> kSpellings = {"0",
                                                      "-0",
                                                      "0.0",
                                                      "-0.0",
                                                      "0e0",
                                                      "0E-0",
                                                      "-0e+0",
                                                      "1",
                                                      "1.0",
                                                      "1.50",
                                                      "-1",
                                                      "1E+2",
                                                      "1e2",
                                                      "1E2",
                                                      "1e+2",
                                                      "1E-2",
                                                      "100e-2",
                                                      "1e21",
                                                      "1e20",
                                                      "999999999999999999999",
                                                      "123456789012345678901",
                                                      "1e-7",
                                                      "1e-6",
                                                      "0.000001",
                                                      "0.0000001",
                                                      "1.5e-7",
                                                      "5e-324",
                                                      "4.9e-324",
                                                      "2e-324",
                                                      "3e-324",
                                                      "1e-400",
                                                      "-1e-400",
                                                      "1.7976931348623157e308",
                                                      "-1.7976931348623157e308",
                                                      "1.7976931348623158e308",
                                                      "1e308",
                                                      "1E+308",
                                                      "2.2250738585072014e-308",
                                                      "2.225073858507201e-308",
                                                      "9007199254740991",
                                                      "9007199254740992",
                                                      "9007199254740993",
                                                      "-9007199254740993",
                                                      "18446744073709551615",
                                                      "18446744073709551616",
                                                      "4294967295",
                                                      "4294967296",
                                                      "0.1",
                                                      "0.2",
                                                      "0.30000000000000004",
                                                      "3.141592653589793238462643383279502884197169399",
                                                      "1.00000000000000011102230246251565404236316680908203125",
                                                      "123.456",
                                                      "1e-5",
                                                      "0.00001",
                                                      "1.5e300",
                                                      "12345678901234567890e-10",
                                                      "2.5",
                                                      "1.25e-3",
                                                      "100",
                                                      "1e0",
                                                      "10e-1",
                                                      "0.1e1",
                                                      "0.000000000000000000000000000000000000000000001"};
  switch (below(5)) {
    case 0: return pick(kSpellings);
    case 4: return edge_number();
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
        text +=
            std::string(chance(0.5) ? "e" : "E") + (bounded >= 0 && chance(0.5) ? "+" : "") + std::to_string(bounded);
      }
      return text;
    }
  }
}

std::string SessionWriter::edge_number() {
  const std::string sign = chance(0.3) ? "-" : "";
  switch (below(4)) {
    case 0: {  // Number::toString's switches: exponent form from 1e21 up and below 1e-6
      note(Shape::exponent_switch);
      static const std::vector<int> kExponents = {19, 20, 21, 22, -5, -6, -7, -8};
      const int exponent = pick(kExponents);
      std::string mantissa = digits(1, true);
      if (chance(0.6)) mantissa += "." + digits(1 + below(16), false);
      if (chance(0.3))
        return sign + (exponent > 0
                           ? mantissa.substr(0, 1) + digits(static_cast<std::size_t>(exponent), false)
                           : "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + mantissa.substr(0, 1));
      return sign + mantissa + (chance(0.5) ? "e" : "E") + std::to_string(exponent);
    }
    case 1: {  // integers from 2^53 to 2^63, exact powers now and then
      note(Shape::int_2_53_to_2_63);
      const unsigned power = 53 + static_cast<unsigned>(below(11));
      const std::uint64_t low = std::uint64_t{1} << power;
      const std::uint64_t value = chance(0.3) ? low : low + rng_() % low;
      return sign + std::to_string(chance(0.2) ? value + below(3) - 1 : value);
    }
    case 2: {  // the largest doubles, spelled every way
      note(Shape::near_max_double);
      static const std::vector<std::string> kLargest = {
          "1.7976931348623157e308",  "1.7976931348623156e308",  "1.797693134862315e308",
          "1.7976931348623158e308",  "1.7976931348623157E+308", "17976931348623157e292",
          "0.17976931348623157e309", "8.98846567431158e307",    "1.7976931348623155e308"};
      return sign + pick(kLargest);
    }
    default: {  // 309 digits and more: the largest double's length; fits while below 1.797...e308
      note(Shape::digits_309);
      if (chance(0.3)) return sign + "17976931348623157" + std::string(292, '0');
      std::string text = "1" + std::to_string(below(7)) + digits(307, false);
      if (chance(0.3)) text = "0." + std::string(below(3) * 200, '0') + text;
      return sign + text;
    }
  }
}

std::string SessionWriter::key() {
  static const std::vector<std::string> kKeys = {
      R"("0")",           R"("1")",          R"("2")",           R"("9")",        R"("10")",          R"("4294967294")",
      R"("4294967295")",  R"("4294967296")", R"("01")",          R"("00")",       R"("-1")",          R"("-0")",
      R"("1.5")",         R"("1e3")",        R"("+1")",          R"(" 1")",       R"("99999999999")", R"("\u0030")",
      R"("1\u0030")",     R"("__proto__")",  R"("constructor")", R"("toString")", R"("length")",      R"("")",
      R"("a")",           R"("b")",          R"("role")",        R"("content")",  R"("é")",           R"("😀")",
      R"("\ud83d\ude00")"};
  if (chance(0.25)) {  // around the largest array index, 2^32 - 2
    note(Shape::index_key);
    static const std::vector<std::string> kEdges = {"4294967293", "4294967294", "4294967295",          "4294967296",
                                                    "4294967297", "8589934592", "18446744073709551616"};
    return "\"" + (chance(0.7) ? pick(kEdges) : std::to_string(4294967290ull + below(10))) + "\"";
  }
  return chance(0.8) ? pick(kKeys) : string_literal(3);
}

std::string SessionWriter::object(const std::vector<Field>& fields) {
  std::string text = "{" + ws();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) text += "," + ws();
    text += fields[i].key + ws() + ":" + ws() + fields[i].value + ws();
  }
  return text + "}";
}

std::string SessionWriter::array(const std::vector<std::string>& items) {
  std::string text = "[" + ws();
  for (std::size_t i = 0; i < items.size(); ++i) text += (i > 0 ? "," + ws() : "") + items[i] + ws();
  return text + "]";
}

std::string SessionWriter::deep(int level, int deepest) {
  note(Shape::deep_nesting);
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

std::string SessionWriter::value(int level) {
  const std::size_t kind = below(level > 6 ? 5 : 7);
  switch (kind) {
    case 0: return pick(std::vector<std::string>{"null", "true", "false"});
    case 1:
    case 2: return number();
    case 3:
    case 4: return string_literal(4);
    case 5: {
      std::vector<std::string> items;
      for (std::size_t n = below(4); n > 0; --n) items.push_back(value(level + 1));
      return array(items);
    }
    default: {
      std::vector<Field> fields;
      for (std::size_t n = below(5); n > 0; --n) {
        // Duplicate keys: the small key pool repeats them often.
        Field field{key(), value(level + 1)};
        for (const Field& before : fields) {
          if (before.key == field.key) note(Shape::duplicate_key);
        }
        fields.push_back(std::move(field));
      }
      return object(fields);
    }
  }
}

}  // namespace agent_session::conform::fuzz
