// SessionWriter's token edges: each token SPEC.md §2 defines (through
// JSON.parse's grammar) and §2.1 tightens, spelled right at its edge or one
// step past it, where hand-written parsers go wrong: a literal with a
// letter missing, changed, added or in another case; every number form and
// its near misses, the overflow and underflow edges of §2.1; every escape
// letter and its near misses; `\u` values at each range edge, alone and in
// every surrogate pair order; raw control characters; UTF-8 at every lead
// and continuation edge. edge_line() puts one where a session's rules see
// it: content, keys, tool inputs, dropped fields, nested arrays.
#include "conform/fuzz/token_edges.hpp"

#include <cctype>
#include <utility>

namespace agent_session::conform::fuzz {

namespace {

// SPEC.md §2.1: M = 2^1024 - 2^970, the smallest magnitude that overflows.
constexpr const char* kMidpoint =
    "1797693134862315807937289714053034150799341327100378269361737789804449682927647509466490179775872070963"
    "3028641669288791094655554785194040263065748867150582068190890200070838367627385484581771153176447573027"
    "0069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792";
// M - 1: the largest double, not an overflow.
constexpr const char* kBelowMidpoint =
    "1797693134862315807937289714053034150799341327100378269361737789804449682927647509466490179775872070963"
    "3028641669288791094655554785194040263065748867150582068190890200070838367627385484581771153176447573027"
    "0069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791";

}  // namespace

std::string SessionWriter::literal_edge() {
  static const std::vector<std::string> kLiterals = {"null", "true", "false"};
  std::string text = pick(kLiterals);
  if (chance(0.15)) return text;  // the literal itself, as a control
  switch (below(4)) {
    case 0:  // a letter missing: nul, tue, fals
      note(Shape::literal_near_miss);
      text.erase(below(text.size()), 1);
      return text;
    case 1:  // a letter changed: nulx, trux, fakse
      note(Shape::literal_near_miss);
      text[below(text.size())] = static_cast<char>('a' + below(26));
      return text;
    case 2: {  // a letter added: nulll, truex, falsee
      note(Shape::literal_near_miss);
      static const std::string kAdded = "abelnrstuxy0_";
      text.insert(below(text.size() + 1), 1, kAdded[below(kAdded.size())]);
      return text;
    }
    default:  // its case changed: nUll, True, FALSE
      note(Shape::literal_case);
      if (chance(0.3)) {
        for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      } else {
        char& c = text[below(text.size())];
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      }
      return text;
  }
}

std::string SessionWriter::number_edge_form() {
  if (chance(0.5)) {  // not a number by JSON.parse's grammar (SPEC.md §2)
    note(Shape::number_near_miss);
    static const std::vector<std::string> kNearMisses = {
        "0.",        ".5",  "1.e5", "01",    "00",    "-01",   "-",       "1e", "1e+",  "1E-",
        "+1",        "-.5", "1.5.", "1e5.5", "0x1F",  "--1",   "1ee5",    ".",  "e5",   "-e5",
        "0.e1",      "1_0", "1,5",  "-+1",   "1e+-5", "01.5",  "-0.",     "0e", "1.5e", "Infinity",
        "-Infinity", "NaN", "- 1",  "1 2",   "0-",    "1.2.3", "\xD9\xA1"};
    return pick(kNearMisses);
  }
  note(Shape::number_form_edge);
  static const std::vector<std::string> kForms = {
      "0", "-0", "0.0", "-0.0", "0e0", "-0E+0", "0e-0", "1E1", "1e-1", "1.5E+2", "-1.5e-2", "10", "-10",
      // huge and tiny exponents, the underflow side of SPEC.md §2.1 (never an error)
      "1e308", "1e-307", "1e-308", "1e-323", "1e-324", "1e-400", "-1e-400", "1e-99999", "0e99999", "0e-99999", "5e-324",
      "4.9406564584124654e-324", "2.4703282292062328e-324", "2.4703282292062327e-324", "2.2250738585072011e-308",
      "2.2250738585072014e-308",
      // the overflow side: past the largest double is invalid JSON
      "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "-1.7976931348623159e308", "1e309",
      "1e400", "-1e400", "1e99999", "1e4294967297", "0.1e310", kBelowMidpoint, kMidpoint, std::string("-") + kMidpoint};
  return pick(kForms);
}

std::string SessionWriter::string_edge() {
  switch (below(7)) {
    case 0: {  // every escape letter, \u in either hex case
      note(Shape::escape_letter);
      static const std::vector<std::string> kLetters = {"\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"};
      return chance(0.7) ? pick(kLetters) : hex4(static_cast<unsigned>(0x20 + below(0xD800 - 0x20)));
    }
    case 1: {  // not an escape: a wrong letter, a short or bad \u
      note(Shape::escape_near_miss);
      static const std::vector<std::string> kNearMisses = {
          "\\x41",   "\\U0041", "\\u041", "\\u04",      "\\u0", "\\u", "\\u00G1", "\\u0g41", "\\u+041",
          "\\u-041", "\\u 041", "\\a",    "\\v",        "\\0",  "\\'", "\\ ",     "\\e",     "\\B",
          "\\N",     "\\T",     "\\/\\",  "\\\xC3\xA9", "\\U",  "\\x", "\\uD8",   "\\uDC0"};
      return pick(kNearMisses);
    }
    case 2: {  // \u at each range edge, alone (surrogates alone are lone: SPEC.md §2.1)
      note(Shape::unicode_escape_edge);
      static const std::vector<unsigned> kEdges = {0x0000, 0x001F, 0x0020, 0x007F, 0x0080, 0x07FF, 0x0800, 0xD7FF,
                                                   0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFEFF, 0xFFFE, 0xFFFF};
      return hex4(pick(kEdges));
    }
    case 3: {  // surrogate escapes in every pair order
      note(Shape::surrogate_pair_order);
      static const std::vector<unsigned> kHigh = {0xD800, 0xDBFF, 0xD83D};
      static const std::vector<unsigned> kLow = {0xDC00, 0xDFFF, 0xDE00};
      static const std::vector<unsigned> kOther = {0xE000, 0xD7FF, 0x0041, 0xFFFF, 0x0000};
      const unsigned high = pick(kHigh), low = pick(kLow);
      switch (below(6)) {
        case 0: return hex4(high) + hex4(low);
        case 1: return hex4(high) + hex4(pick(kHigh));
        case 2: return hex4(low) + hex4(pick(kLow));
        case 3: return hex4(low) + hex4(high);
        case 4: return hex4(high) + (chance(0.8) ? hex4(pick(kOther)) : std::string("\\n"));
        default: {  // a raw character after the high escape, even the low half's own
          static const std::vector<std::string> kRaw = {"x", "\xC3\xA9", "\xF0\x9F\x98\x80", "\xEE\x80\x80"};
          return hex4(high) + pick(kRaw);
        }
      }
    }
    case 4: {  // a raw control character: every one is invalid in a string but DEL
      note(Shape::raw_control);
      const unsigned value = chance(0.1) ? 0x7F : static_cast<unsigned>(below(0x20));
      return std::string(1, static_cast<char>(value));
    }
    default: {  // UTF-8 at every lead and continuation edge, valid and not (SPEC.md §2.1)
      note(Shape::utf8_edge);
      static const std::vector<std::string> kBytes = {"\x7F",
                                                      "\xC2\x80",
                                                      "\xDF\xBF",
                                                      "\xE0\xA0\x80",
                                                      "\xED\x9F\xBF",
                                                      "\xEE\x80\x80",
                                                      "\xEF\xBF\xBF",
                                                      "\xF0\x90\x80\x80",
                                                      "\xF4\x8F\xBF\xBF",
                                                      "\xC0\x80",
                                                      "\xC1\xBF",
                                                      "\xC2",
                                                      "\xC2\x41",
                                                      "\xDF",
                                                      "\xE0\x9F\xBF",
                                                      "\xE0\xA0",
                                                      "\xED\xA0\x80",
                                                      "\xED\xBF\xBF",
                                                      "\xEF\xBF",
                                                      "\xF0\x8F\xBF\xBF",
                                                      "\xF0\x90\x80",
                                                      "\xF4\x90\x80\x80",
                                                      "\xF5\x80\x80\x80",
                                                      "\xF8\x88\x80\x80",
                                                      "\xFE",
                                                      "\xFF",
                                                      "\x80",
                                                      "\xBF",
                                                      "\xC2\xC0",
                                                      "\xE0\xA0\xC0"};
      return pick(kBytes);
    }
  }
}

std::string SessionWriter::edge_line() {
  // Where a string piece matters: content, a tool input, a key, a dropped
  // field, nested arrays (a check that skips them misses a lone surrogate).
  static const std::vector<std::pair<std::string, bool>> kInString = {
      {R"({"role":"user","content":"a@b"})", false},
      {R"({"role":"tool","content":"@","toolCallId":"a","isError":false})", false},
      {R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":"@"}]})", false},
      {R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{"":[["@"]]}}]})", true},
      {R"({"role":"user","content":"x","extra":{"":[["@"]]}})", true},
      {R"({"role":"user","content":"x","@":1})", false},
      {R"({"role":"assistant","content":"","toolCalls":[{"id":"@","name":"n","input":{"k@":null}}]})", false}};
  // Where a literal or a number matters: a tool input, isError, a dropped
  // field, nested arrays, the whole line.
  static const std::vector<std::pair<std::string, bool>> kAsValue = {
      {R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":@}]})", false},
      {R"({"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{"":[[@]]}}]})", true},
      {R"({"role":"tool","content":"x","toolCallId":"a","isError":@})", false},
      {R"({"role":"user","content":"x","extra":@})", false},
      {R"({"role":"user","content":"x","extra":{"":[[1,@]]}})", true},
      {R"(@)", false},
      {R"([@])", false}};
  if (chance(0.1)) {  // the line ends right after a high escape; the low half may open the next
    note(Shape::high_escape_line_end);
    const std::string high = hex4(chance(0.5) ? 0xD800 : 0xDBFF);
    std::string line = R"({"role":"user","content":"a)" + high;
    if (chance(0.5)) line += "\n" + hex4(0xDC00) + R"("})";
    return line;
  }
  const bool in_string = chance(0.6);
  std::string token;
  if (in_string) {
    for (std::size_t n = 1 + below(2); n > 0; --n) token += string_edge();
  } else {
    token = chance(0.4) ? literal_edge() : number_edge_form();
  }
  const auto& [line, nested] = pick(in_string ? kInString : kAsValue);
  if (nested) note(Shape::nested_edge);
  std::string text = line;
  return text.replace(text.find('@'), 1, token);
}

}  // namespace agent_session::conform::fuzz
