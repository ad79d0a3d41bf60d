// A strict reader of the XML 1.0 subset a JUnit report uses, for tests:
// elements, attributes, character data, the five entities and character
// references, an optional <?xml ...?> declaration. It throws on anything
// that is not well formed (mismatched tags, a raw `<` or `&`, `]]>` in
// text, a character XML 1.0 forbids, even as a reference; invalid UTF-8),
// so a report it reads is one a real consumer reads too.
#pragma once

#include "support/history_generator.hpp"  // bench::append_utf8

#include <cstddef>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::test_support {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;  // decoded
  std::vector<XmlElement> children;
  std::string text;  // the decoded character data directly inside

  std::vector<const XmlElement*> all(const std::string& child) const {
    std::vector<const XmlElement*> found;
    for (const auto& c : children) {
      if (c.name == child) found.push_back(&c);
    }
    return found;
  }
  const std::string& at(const std::string& attribute) const { return attributes.at(attribute); }
};

class MiniXml {
 public:
  static XmlElement parse(std::string_view text) {
    MiniXml reader(text);
    reader.check_characters();
    if (reader.text_.substr(0, 5) == "<?xml") {
      const auto end = reader.text_.find("?>");
      if (end == std::string_view::npos) reader.fail("unterminated XML declaration");
      reader.at_ = end + 2;
    }
    reader.skip_blanks();
    XmlElement root = reader.element();
    reader.skip_blanks();
    if (reader.at_ != reader.text_.size()) reader.fail("content after the root element");
    return root;
  }

 private:
  explicit MiniXml(std::string_view text) : text_(text) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("XML not well formed at byte " + std::to_string(at_) + ": " + why);
  }

  static bool allowed(char32_t c) {
    return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
           (c >= 0x10000 && c <= 0x10FFFF);
  }

  // Every character valid UTF-8 and allowed by XML 1.0's Char production.
  void check_characters() {
    for (at_ = 0; at_ < text_.size();) {
      const auto c = static_cast<unsigned char>(text_[at_]);
      const std::size_t n = c < 0x80                 ? 1
                            : c >= 0xC2 && c <= 0xDF ? 2
                            : c >= 0xE0 && c <= 0xEF ? 3
                            : c >= 0xF0 && c <= 0xF4 ? 4
                                                     : 0;
      if (n == 0 || at_ + n > text_.size()) fail("invalid UTF-8");
      char32_t cp = n == 1 ? c : c & (0x7F >> n);
      for (std::size_t k = 1; k < n; ++k) {
        const auto b = static_cast<unsigned char>(text_[at_ + k]);
        if ((b & 0xC0) != 0x80) fail("invalid UTF-8");
        cp = (cp << 6) | (b & 0x3F);
      }
      const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
      if (cp < least[n]) fail("overlong UTF-8");
      if (!allowed(cp)) fail("a character XML 1.0 forbids");
      at_ += n;
    }
    at_ = 0;
  }

  void skip_blanks() {
    while (at_ < text_.size() && std::string_view(" \t\r\n").find(text_[at_]) != std::string_view::npos) ++at_;
  }

  std::string name() {
    const auto start = at_;
    const auto ok = [&](char c, bool first) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
             (!first && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
    };
    while (at_ < text_.size() && ok(text_[at_], at_ == start)) ++at_;
    if (at_ == start) fail("a name expected");
    return std::string(text_.substr(start, at_ - start));
  }

  // At `&`: the entity or character reference, decoded.
  void reference(std::string& out) {
    const auto end = text_.find(';', at_);
    if (end == std::string_view::npos || end - at_ > 12) fail("an unterminated reference");
    const std::string_view ref = text_.substr(at_ + 1, end - at_ - 1);
    static const std::map<std::string_view, char> kEntities = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    if (const auto e = kEntities.find(ref); e != kEntities.end()) {
      out += e->second;
    } else if (ref.size() > 1 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const std::string digits(ref.substr(hex ? 2 : 1));
      if (digits.empty() ||
          digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos) {
        fail("a bad character reference");
      }
      const unsigned long c = std::stoul(digits, nullptr, hex ? 16 : 10);
      if (c > 0x10FFFF || !allowed(static_cast<char32_t>(c))) fail("a reference to a character XML 1.0 forbids");
      bench::append_utf8(out, static_cast<char32_t>(c));
    } else {
      fail("an unknown entity");
    }
    at_ = end + 1;
  }

  XmlElement element() {
    if (at_ >= text_.size() || text_[at_] != '<') fail("'<' expected");
    ++at_;
    XmlElement node;
    node.name = name();
    for (;;) {
      const auto before = at_;
      skip_blanks();
      if (at_ >= text_.size()) fail("an unterminated tag");
      if (text_.substr(at_, 2) == "/>") {
        at_ += 2;
        return node;
      }
      if (text_[at_] == '>') {
        ++at_;
        break;
      }
      if (at_ == before) fail("a blank expected before an attribute");
      const std::string attribute = name();
      if (at_ >= text_.size() || text_[at_] != '=') fail("'=' expected");
      ++at_;
      if (at_ >= text_.size() || (text_[at_] != '"' && text_[at_] != '\'')) fail("a quoted value expected");
      const char quote = text_[at_++];
      std::string value;
      while (at_ < text_.size() && text_[at_] != quote) {
        if (text_[at_] == '<') fail("'<' in an attribute value");
        if (text_[at_] == '&') {
          reference(value);
        } else {
          // A parser normalises literal blanks in attribute values to spaces.
          const char c = text_[at_++];
          value += (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;
        }
      }
      if (at_ >= text_.size()) fail("an unterminated attribute value");
      ++at_;
      if (!node.attributes.emplace(attribute, value).second) fail("a duplicate attribute " + attribute);
    }
    for (;;) {
      if (at_ >= text_.size()) fail("</" + node.name + "> expected");
      if (text_.substr(at_, 2) == "</") {
        at_ += 2;
        if (name() != node.name) fail("mismatched end tag for " + node.name);
        skip_blanks();
        if (at_ >= text_.size() || text_[at_] != '>') fail("'>' expected");
        ++at_;
        return node;
      }
      if (text_[at_] == '<') {
        node.children.push_back(element());
      } else if (text_[at_] == '&') {
        reference(node.text);
      } else {
        if (text_.substr(at_, 3) == "]]>") fail("']]>' in character data");
        node.text += text_[at_++];
      }
    }
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace agent_session::test_support
