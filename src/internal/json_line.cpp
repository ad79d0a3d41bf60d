#include "internal/json_line.hpp"

#include "internal/canonical_writer.hpp"
#include "internal/terminal_text.hpp"
#include "internal/utf8.hpp"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace agent_session::internal {
namespace {
using Members = std::vector<std::pair<const std::string, Json>>;  // ordered_map's base

Members& members_of(Json& object) { return static_cast<Members&>(*object.get_ptr<Json::object_t*>()); }

// Up to this many members, a new key is compared with each one before it
// (tool inputs have a handful of keys); past it, keys are appended and
// finish_object merges the repeated ones by sorting, once.
constexpr std::size_t kFewMembers = 16;

thread_local std::uint64_t key_comparisons = 0;

// Merges each repeated key into its first occurrence, which takes the last
// occurrence's value; the order of the members kept is unchanged.
void merge_repeated_keys(Members& members) {
  std::uint64_t comparisons = 0;
  std::vector<std::size_t> order(members.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // By key, then by position: each key's occurrences end up together, first to last.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    ++comparisons;
    const int by_key = members[a].first.compare(members[b].first);
    return by_key < 0 || (by_key == 0 && a < b);
  });
  const auto same_key = [&](std::size_t a, std::size_t b) {
    ++comparisons;
    return members[a].first == members[b].first;
  };
  std::vector<bool> dropped(members.size(), false);
  std::size_t dropped_count = 0;
  for (std::size_t run = 0; run < order.size();) {
    std::size_t end = run + 1;
    while (end < order.size() && same_key(order[end], order[run])) ++end;
    if (end - run > 1) {
      members[order[run]].second = std::move(members[order[end - 1]].second);
      for (std::size_t i = run + 1; i < end; ++i) dropped[order[i]] = true;
      dropped_count += end - run - 1;
    }
    run = end;
  }
  key_comparisons += comparisons;
  if (dropped_count == 0) return;
  // Keys are const in a member: the kept ones are copied into a new list.
  Members merged;
  merged.reserve(members.size() - dropped_count);
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (!dropped[i]) merged.emplace_back(members[i].first, std::move(members[i].second));
  }
  members.swap(merged);
}

}  // namespace

Json& object_member_slot(Json& object, std::string_view key) {
  auto& members = members_of(object);
  if (members.size() < kFewMembers) {
    for (auto& member : members) {
      ++key_comparisons;
      if (member.first == key) return member.second;  // the caller overwrites: the last value wins
    }
  }
  return members.emplace_back(std::string(key), Json()).second;
}

void finish_object(Json& object) {
  auto& members = members_of(object);
  if (members.size() > kFewMembers) merge_repeated_keys(members);
  put_in_javascript_order(object);
}

std::uint64_t object_key_comparisons() noexcept { return key_comparisons; }
void add_key_comparisons(std::uint64_t comparisons) noexcept { key_comparisons += comparisons; }

// Rebuilding is needed only for the rare object that holds an index key.
void put_in_javascript_order(Json& object) {
  auto& members = members_of(object);
  const auto is_index = [](const auto& member) { return is_array_index(member.first); };
  if (std::none_of(members.begin(), members.end(), is_index)) return;
  std::vector<std::pair<unsigned long, std::size_t>> index_positions;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (is_index(members[i])) index_positions.emplace_back(std::stoul(members[i].first), i);
  }
  std::sort(index_positions.begin(), index_positions.end());
  Members ordered;
  ordered.reserve(members.size());
  for (const auto& [index, i] : index_positions) ordered.emplace_back(members[i].first, std::move(members[i].second));
  for (auto& member : members) {
    if (!is_index(member)) ordered.emplace_back(member.first, std::move(member.second));
  }
  members.swap(ordered);
}

namespace {

// Builds the DOM from nlohmann's SAX events, applying the JavaScript and
// decisions §3 rules the lexer alone does not.
class DomBuilder : public nlohmann::json_sax<Json> {
 public:
  explicit DomBuilder(std::string_view line) : line_(line) {}

  bool null() override { return place(Json(nullptr)); }
  bool boolean(bool value) override { return place(Json(value)); }
  // Every JSON number is a double, as in JavaScript (decisions §4).
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

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& error) override {
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
    return "byte " + std::to_string(position) + ": " + printable_excerpt(what, 200);
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
        if (c == '\\') ++i;
        else if (c == '"') in_string = false;
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

namespace {

// The length of the one UTF-8 character `bytes` starts with when it is
// valid and a terminal may show it raw (terminal_text.hpp); 0 otherwise.
std::size_t shown_character(std::string_view bytes) {
  const auto lead = static_cast<unsigned char>(bytes[0]);
  const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
  if (length == 0 || valid_utf8_prefix(bytes.substr(0, length)) != length) return 0;
  char32_t c = lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) c = (c << 6) | (static_cast<unsigned char>(bytes[i]) & 0x3F);
  return hidden_code_point(c) ? 0 : length;
}

}  // namespace

std::string printable_excerpt(std::string_view bytes, std::size_t limit) {
  std::string out;
  std::size_t i = 0;
  while (i < bytes.size() && out.size() < limit) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    const std::size_t shown = c >= 0x80 ? shown_character(bytes.substr(i)) : 0;
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (shown > 0) {
      out.append(bytes.substr(i, shown));
      i += shown;
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 0xF]};
      ++i;
    }
  }
  if (i < bytes.size()) out += "...";
  return out;
}

}  // namespace agent_session::internal
