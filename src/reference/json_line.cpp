#include "reference/json_line.hpp"

#include "base/printable.hpp"
#include "reference/js_object.hpp"
#include "reference/json_teardown.hpp"
#include "reference/object_building.hpp"

#include <utility>
#include <vector>

// Who enforces what (SPEC.md §2, §2.1, §3), rule by rule:
//
//   rule                                         enforced by
//   -------------------------------------------  -----------------------------
//   JSON grammar (RFC 8259), whitespace is only   nlohmann's lexer
//     space, tab, CR and LF
//   bytes that are not valid UTF-8, in strings    nlohmann's lexer (it checks
//     (outside strings they are syntax errors)      every string's bytes)
//   an escaped lone surrogate ("\ud800")          nlohmann's lexer
//   a number that rounds past the largest double  nlohmann's parser (the
//                                                   lexer's strtod overflows:
//                                                   out_of_range.406)
//   every number is a double, as in JavaScript    DomBuilder (number_integer,
//                                                   number_unsigned below)
//   nesting deeper than 512 levels                DomBuilder::open
//   a byte-order mark is no whitespace            parse_json_line (named)
//   a line of only whitespace is not empty, so    parse_json_line (named)
//     not JSON (SPEC.md §2)
//   a raw NUL byte, anywhere                      parse_json_line (nlohmann's
//                                                   lexer stops at one)
//   a repeated key keeps its first position and   object_member_slot, as
//     takes the last value                          javascript_object states
//   array-index keys first, ascending, then the     it (reference/js_object.hpp);
//     others in insertion order (ECMA-262)          finish_object (mechanics:
//                                                   object_building.hpp)
//
// Each rule applies to every value a line spells out, dropped fields,
// keys and overwritten values included: the DOM is built whole before a
// message is discriminated from it.

namespace agent_session::reference {
namespace {

// Builds the DOM from nlohmann's SAX events, applying the JavaScript and
// SPEC.md §2.1 rules the lexer alone does not.
class DomBuilder : public nlohmann::json_sax<Json> {
 public:
  explicit DomBuilder(std::string_view line) : line_(line) {}
  DomBuilder(const DomBuilder&) = delete;
  DomBuilder& operator=(const DomBuilder&) = delete;
  // What is left of the tree (all of it when the parse fails, part of it
  // when std::bad_alloc stops it) goes without allocating.
  ~DomBuilder() override { tear_down(root_); }

  bool null() override { return place(Json(nullptr)); }
  bool boolean(bool value) override { return place(Json(value)); }
  // Every JSON number is a double, as in JavaScript (SPEC.md §3).
  bool number_integer(number_integer_t value) override { return place(Json(static_cast<double>(value))); }
  bool number_unsigned(number_unsigned_t value) override { return place(Json(static_cast<double>(value))); }
  bool number_float(number_float_t value, const string_t&) override { return place(Json(value)); }
  // Copied, not moved: the copy is allocated to the string's exact size,
  // while the lexer's buffer has grown by doubling (up to 2x slack that a
  // loaded session would keep), and the lexer keeps reusing its buffer.
  bool string(string_t& value) override { return place(Json(value)); }
  bool binary(binary_t&) override { return false; }  // never produced by the JSON lexer

  bool start_object(std::size_t) override { return open(Json::object()); }
  bool key(string_t& key) override {
    pending_slot_ = &object_member_slot(*stack_.back(), key);
    return true;
  }
  bool end_object() override {
    finish_object(*stack_.back());
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return open(Json::array()); }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const Json::exception& error) override {
    error_ = describe(position, error.what());
    return false;
  }

  bool failed() const { return !error_.empty(); }
  std::string& error() { return error_; }
  Json& root() { return root_; }

 private:
  bool open(Json&& container) {
    if (static_cast<int>(stack_.size()) + 1 > kMaxNestingDepth) {
      error_ = "byte " + std::to_string(too_deep_at()) + ": nesting deeper than 512 levels";
      return false;
    }
    Json* placed = nullptr;
    place(std::move(container), &placed);
    stack_.push_back(placed);
    return true;
  }

  bool place(Json&& value, Json** placed = nullptr) {
    Json* slot = &root_;
    if (!stack_.empty()) {
      if (stack_.back()->is_array()) {
        auto& array = *stack_.back()->get_ptr<Json::array_t*>();
        array.push_back(std::move(value));
        slot = &array.back();
      } else {
        slot = pending_slot_;
        *slot = std::move(value);
      }
    } else {
      root_ = std::move(value);
    }
    if (placed != nullptr) *placed = slot;
    return true;
  }

  // nlohmann's text is "[json.exception.parse_error.101] parse error at
  // line 1, column 5: syntax error ...", or for a number past a double's
  // range "[json.exception.out_of_range.406] number overflow parsing
  // '1e400'": keep the reason after the id and the location (a column
  // counts characters, and the line is always 1), and say where in the
  // line, in bytes.
  static std::string describe(std::size_t position, std::string_view what) {
    if (const auto id_end = what.find("] "); what.starts_with('[') && id_end != std::string_view::npos) {
      what.remove_prefix(id_end + 2);
    }
    if (const auto colon = what.find(": "); what.starts_with("parse error") && colon != std::string_view::npos) {
      what.remove_prefix(colon + 2);
    }
    return "byte " + std::to_string(position) + ": " + base::printable_excerpt(what, 200);
  }

  // Where the first array or object past kMaxNestingDepth opens (1-based),
  // found again in the line: nlohmann says where only for errors. Its
  // lexer has read the line up to there, so it is JSON so far.
  std::size_t too_deep_at() const {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < line_.size(); ++i) {
      const char c = line_[i];
      if (in_string) {
        if (c == '\\')
          ++i;
        else if (c == '"')
          in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        if (++depth > kMaxNestingDepth) return i + 1;
      } else if (c == ']' || c == '}') {
        --depth;
      }
    }
    return line_.size();  // not reached: the lexer read this opening
  }

  std::string_view line_;
  Json root_;
  std::vector<Json*> stack_;
  Json* pending_slot_ = nullptr;
  std::string error_;
};

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

}  // namespace

std::variant<Json, std::string> parse_json_line(std::string_view line) {
  // nlohmann skips a leading byte-order mark; JavaScript does not.
  if (line.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
    return std::string("byte 1: a byte-order mark is not JSON whitespace");
  }
  // SPEC §2: a line of only whitespace is not empty, so it is parsed, and
  // holds no JSON value: invalid JSON. Said plainly, since nlohmann's "unexpected end of input" hides
  // that the line looked blank (a CRLF file's blank line is a lone "\r").
  if (!line.empty() && line.find_first_not_of(" \t\r") == std::string_view::npos) {
    return std::string(line == "\r" ? "byte 1: the line is a lone carriage return, a blank line of a CRLF file"
                                    : "byte 1: the line holds only whitespace (spaces, tabs, carriage returns)") +
           ": not an empty line, so not skipped (only an exactly empty line is)";
  }
  // nlohmann's lexer takes a NUL byte for the end of input, so
  // `{...}\0garbage` would pass; JSON allows a raw NUL nowhere.
  if (const auto nul = line.find('\0'); nul != std::string_view::npos) {
    return "byte " + std::to_string(nul + 1) + ": a NUL byte is not JSON";
  }
  DomBuilder builder(line);
  const bool ok = Json::sax_parse(line.begin(), line.end(), &builder, nlohmann::json::input_format_t::json,
                                  /*strict=*/true);
  if (!ok || builder.failed()) {
    if (!builder.failed()) builder.error() = "not JSON";
    return std::move(builder.error());
  }
  return std::move(builder.root());
}

}  // namespace agent_session::reference
