#include "harness/untrusted_json.hpp"

#include "base/printable.hpp"

#include <iterator>
#include <utility>
#include <vector>

namespace agent_session::harness {
namespace {

using base::printable_excerpt;
using nlohmann::json;

// A pointer into the text that records, for the builder, how far the
// lexer has read: nlohmann's SAX events carry no position but the error's.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* at, const char** read) : at_(at), read_(read) {}
  reference operator*() const { return *at_; }
  CountingIterator& operator++() {
    *read_ = ++at_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return at_ == other.at_; }
  bool operator!=(const CountingIterator& other) const { return at_ != other.at_; }

 private:
  const char* at_;
  const char** read_;
};

// Builds the DOM from the SAX events as nlohmann's own parser does (the
// last of a repeated key wins), but refuses to go past the limits and
// hands the streamed array's elements over one by one.
class Builder final : public nlohmann::json_sax<json> {
 public:
  Builder(const char* begin, const std::string* streamed_key, const std::function<void(json&)>* each)
      : begin_(begin), read_(begin), streamed_key_(streamed_key), each_(each) {}
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  bool null() override { return place(json(nullptr)); }
  bool boolean(bool value) override { return place(json(value)); }
  bool number_integer(number_integer_t value) override { return place(json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return place(json(value)); }
  bool number_float(number_float_t value, const string_t&) override { return place(json(value)); }
  // A short string is copied (the lexer reuses its buffer, whose capacity
  // has grown by doubling); a long one is taken, buffer and all: its
  // unused capacity was never written, so it costs no memory, and a copy
  // would double what an expect.json's long "stdout" costs.
  bool string(string_t& value) override {
    return place(value.size() < (std::size_t{64} << 10) ? json(value) : json(std::move(value)));
  }
  bool binary(binary_t&) override { return false; }  // never produced by the JSON lexer

  bool start_object(std::size_t) override { return open(json::object()); }
  bool key(string_t& key) override {
    if (!count()) return false;
    json& object = *stack_.back();
    if (stack_.size() == 1 && streamed_key_ && key == *streamed_key_ && object.contains(key)) {
      return refuse("gives \"" + printable_excerpt(key, 60) + "\" twice");
    }
    slot_ = &object[key];
    at_top_key_ = stack_.size() == 1 ? key : std::string();
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override {
    const bool streamed = stack_.size() == 1 && streamed_key_ && at_top_key_ == *streamed_key_;
    if (!open(json::array())) return false;
    if (streamed) {
      streamed_level_ = stack_.size();
      values_at_stream_ = values_;
    }
    return true;
  }
  bool end_array() override {
    if (stack_.size() == streamed_level_) streamed_level_ = 0;
    return close();
  }

  bool parse_error(std::size_t position, const std::string&, const json::exception& error) override {
    // "[json.exception.parse_error.101] parse error at line 1, column 5:
    // syntax error ...": the reason after the id and the place, and the
    // place in bytes.
    std::string_view what = error.what();
    if (const auto id_end = what.find("] "); what.starts_with('[') && id_end != std::string_view::npos) {
      what.remove_prefix(id_end + 2);
    }
    if (const auto colon = what.find(": "); what.starts_with("parse error") && colon != std::string_view::npos) {
      what.remove_prefix(colon + 2);
    }
    problem_ = UntrustedJson::Problem::not_json;
    reason_ = "not JSON: byte " + std::to_string(position) + ": " + printable_excerpt(what, 200);
    return false;
  }

  UntrustedJson result(bool parsed) {
    if (parsed && problem_ == UntrustedJson::Problem::none) return {std::move(root_), problem_, ""};
    if (problem_ == UntrustedJson::Problem::none) return {json(), UntrustedJson::Problem::not_json, "not JSON"};
    return {json(), problem_, std::move(reason_)};
  }

  const char** read() { return &read_; }

 private:
  std::size_t at() const { return static_cast<std::size_t>(read_ - begin_); }

  bool refuse(std::string reason) {
    problem_ = UntrustedJson::Problem::refused;
    reason_ = std::move(reason);
    return false;
  }

  bool count() {
    if (++values_ <= kMaxJsonValues) return true;
    return refuse("holds more than " + std::to_string(kMaxJsonValues) + " values at once (at byte " +
                  std::to_string(at()) + ")");
  }

  bool open(json&& container) {
    // The lexer has read the bracket that opens this level, and no further.
    if (stack_.size() + 1 > static_cast<std::size_t>(kMaxJsonDepth)) {
      return refuse("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels at byte " + std::to_string(at()));
    }
    json* placed = nullptr;
    if (!place(std::move(container), &placed)) return false;
    stack_.push_back(placed);
    return true;
  }

  bool close() {
    stack_.pop_back();
    return handed_over();
  }

  bool place(json&& value, json** placed = nullptr) {
    if (!count()) return false;
    json* slot = &root_;
    if (stack_.empty()) {
      root_ = std::move(value);
    } else if (stack_.back()->is_array()) {
      auto& array = *stack_.back()->get_ptr<json::array_t*>();
      array.push_back(std::move(value));
      slot = &array.back();
    } else {
      slot = slot_;
      *slot = std::move(value);
    }
    if (placed) {
      *placed = slot;
      return true;  // a container: complete when it closes
    }
    return handed_over();
  }

  // A complete element of the streamed array goes to `each` and is dropped.
  bool handed_over() {
    if (streamed_level_ == 0 || stack_.size() != streamed_level_) return true;
    auto& array = *stack_.back()->get_ptr<json::array_t*>();
    (*each_)(array.back());
    array.pop_back();
    values_ = values_at_stream_;
    return true;
  }

  const char* begin_;
  const char* read_;
  const std::string* streamed_key_;
  const std::function<void(json&)>* each_;
  json root_;
  std::vector<json*> stack_;
  json* slot_ = nullptr;
  std::string at_top_key_;          // the last key of the top-level object
  std::size_t streamed_level_ = 0;  // the streamed array's stack size while open; 0 when none
  std::size_t values_ = 0, values_at_stream_ = 0;
  UntrustedJson::Problem problem_ = UntrustedJson::Problem::none;
  std::string reason_;
};

UntrustedJson parse(std::string_view text, const std::string* streamed_key, const std::function<void(json&)>* each) {
  // nlohmann's lexer takes a NUL byte for the end of the input, so
  // `{...}\0garbage` would pass; JSON allows a raw NUL nowhere.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    return {json(), UntrustedJson::Problem::not_json, "not JSON: byte " + std::to_string(nul + 1) + ": a NUL byte"};
  }
  Builder builder(text.data(), streamed_key, each);
  const char* const end = text.data() + text.size();
  const bool parsed = json::sax_parse(CountingIterator(text.data(), builder.read()), CountingIterator(end, nullptr),
                                      &builder, json::input_format_t::json, /*strict=*/true);
  return builder.result(parsed);
}

}  // namespace

UntrustedJson parse_untrusted_json(std::string_view text) { return parse(text, nullptr, nullptr); }

UntrustedJson parse_untrusted_json(std::string_view text, const std::string& streamed_key,
                                   const std::function<void(nlohmann::json& element)>& each) {
  return parse(text, &streamed_key, &each);
}

const json& member(const json& object, const std::string& key) {
  static const json absent;
  if (!object.is_object()) return absent;
  const auto found = object.find(key);
  return found == object.end() ? absent : *found;
}

std::string shown_value(const json& value, std::size_t limit) {
  if (value.is_array()) return value.empty() ? "[]" : "[...]";
  if (value.is_object()) return value.empty() ? "{}" : "{...}";
  if (!value.is_string()) return value.dump();  // a number, true, false or null: short
  const std::string& text = value.get_ref<const std::string&>();
  if (text.size() <= limit) return value.dump(-1, ' ', false, json::error_handler_t::replace);
  return json(text.substr(0, limit)).dump(-1, ' ', false, json::error_handler_t::replace) + "...";
}

}  // namespace agent_session::harness
