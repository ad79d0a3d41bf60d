#include "conform/rules/spec_rules.hpp"

#include "conform/runner/conform_judge.hpp"  // is_rule_id

#include <algorithm>
#include <array>
#include <map>
#include <optional>

namespace agent_session::conform::rules {
namespace {

// A paragraph, a list item or a table row: where a sentence ends at the
// latest.
struct Block {
  std::size_t line = 0;  // of its first line
  std::string text;      // its lines joined by '\n'
};

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

std::string_view trimmed(std::string_view line) {
  const auto from = line.find_first_not_of(" \t");
  return from == std::string_view::npos ? std::string_view() : line.substr(from);
}

// `- item`, `* item` or `12. item`: a list item starts a block of its own.
bool starts_item(std::string_view text) {
  if (text.starts_with("- ") || text.starts_with("* ")) return true;
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  return digits > 0 && text.substr(digits).starts_with(". ");
}

// The section a heading numbers (`### 2.1 Stricter` gives 2), or nothing.
std::optional<int> heading_section(std::string_view line) {
  const auto hashes = line.find_first_not_of('#');
  if (hashes == 0 || hashes == std::string_view::npos || line[hashes] != ' ') return std::nullopt;
  int section = 0;
  std::size_t at = hashes + 1, digits = 0;
  while (at < line.size() && line[at] >= '0' && line[at] <= '9' && digits < 4) {
    section = section * 10 + (line[at++] - '0');
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  return section;
}

// The blocks of SPEC.md's sections 1 to 6, fenced code left out.
std::vector<Block> normative_blocks(std::string_view spec) {
  std::vector<Block> blocks;
  Block current;  // open while its text is not empty
  const auto flush = [&] {
    if (!current.text.empty()) blocks.push_back(std::move(current));
    current = Block{};
  };
  bool normative = false, fenced = false;
  std::size_t number = 0;
  for (std::size_t from = 0; from <= spec.size();) {
    const auto end = std::min(spec.find('\n', from), spec.size());
    const std::string_view line = spec.substr(from, end - from);
    from = end + 1;
    ++number;
    if (line.starts_with("```")) {
      fenced = !fenced;
      flush();
      continue;
    }
    if (fenced) continue;
    if (line.starts_with("#")) {
      flush();
      const auto section = heading_section(line);
      normative = section && *section >= 1 && *section <= 6;
      continue;
    }
    if (!normative) continue;
    if (blank(line)) {
      flush();
      continue;
    }
    const std::string_view text = trimmed(line);
    if (text.starts_with("|") || starts_item(text)) flush();
    if (current.text.empty()) current.line = number;
    current.text += (current.text.empty() ? "" : "\n") + std::string(line);
    if (text.starts_with("|")) flush();
  }
  flush();
  return blocks;
}

// `text` with every code span's characters, backticks included, as 'x'
// (line breaks kept): nothing in a code span is a key word, an ID or the
// end of a sentence.
std::string without_code(std::string_view text) {
  std::string masked(text);
  bool code = false;
  for (char& c : masked) {
    if (c == '`') {
      code = !code;
      c = 'x';
    } else if (code && c != '\n') {
      c = 'x';
    }
  }
  return masked;
}

bool word_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// The first key word of `sentence` used as one, or nothing.
std::optional<std::string> first_keyword(std::string_view sentence) {
  static constexpr std::array<std::string_view, 3> kKeywords = {"MUST", "SHALL", "REQUIRED"};
  std::optional<std::pair<std::size_t, std::string_view>> first;
  for (const auto keyword : kKeywords) {
    for (auto at = sentence.find(keyword); at != std::string_view::npos; at = sentence.find(keyword, at + 1)) {
      const auto after = at + keyword.size();
      if ((at > 0 && word_char(sentence[at - 1])) || (after < sentence.size() && word_char(sentence[after]))) continue;
      // "a MUST": the word as a noun, no requirement.
      if (at >= 2 && sentence.substr(at - 2, 2) == "a " && (at == 2 || !word_char(sentence[at - 3]))) continue;
      if (!first || at < first->first) first.emplace(at, keyword);
      break;
    }
  }
  if (!first) return std::nullopt;
  return std::string(first->second);
}

// The IDs in `masked` from `from` to `to`, as offsets and IDs.
std::vector<std::pair<std::size_t, std::string>> ids_in(std::string_view masked, std::size_t from, std::size_t to) {
  std::vector<std::pair<std::size_t, std::string>> ids;
  masked = masked.substr(0, to);  // each search stops at `to`: a block's sentences cost one pass in all
  for (auto at = masked.find("[R", from); at != std::string_view::npos; at = masked.find("[R", at + 1)) {
    // An ID is short: a `]` further on closes no ID, so a text of many
    // `[R` costs no more than one pass.
    const auto close = masked.substr(0, at + 2 + runner::kMaxRuleIdBytes).find(']', at);
    if (close == std::string_view::npos) continue;
    const std::string_view id = masked.substr(at + 1, close - at - 1);
    if (runner::is_rule_id(id)) ids.emplace_back(at, std::string(id));
  }
  return ids;
}

std::string one_line(std::string_view text) {
  std::string line;
  for (const char c : text) {
    const bool space = c == '\n' || c == ' ' || c == '\t';
    if (space && (line.empty() || line.back() == ' ')) continue;
    line += space ? ' ' : c;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

// The sentences of a block as [from, to) offsets: each ends after a `.`
// that white space (or the block's end) follows, outside parentheses.
std::vector<std::pair<std::size_t, std::size_t>> sentences(std::string_view masked) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::size_t from = 0;
  int depth = 0;
  for (std::size_t i = 0; i < masked.size(); ++i) {
    const char c = masked[i];
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    const bool end = i + 1 == masked.size() || masked[i + 1] == ' ' || masked[i + 1] == '\n';
    if (c == '.' && depth == 0 && end) {
      spans.emplace_back(from, i + 1);
      from = i + 1;
    }
  }
  if (from < masked.size()) spans.emplace_back(from, masked.size());
  return spans;
}

}  // namespace

SpecRules read_spec_rules(std::string_view spec) {
  SpecRules found;
  std::map<std::string, std::size_t> first_line;
  for (const Block& block : normative_blocks(spec)) {
    const std::string masked = without_code(block.text);
    std::vector<std::size_t> breaks;  // where its lines end, for line_at in logarithmic time
    for (std::size_t i = 0; i < masked.size(); ++i)
      if (masked[i] == '\n') breaks.push_back(i);
    const auto line_at = [&](std::size_t offset) {
      return block.line +
             static_cast<std::size_t>(std::lower_bound(breaks.begin(), breaks.end(), offset) - breaks.begin());
    };
    for (const auto& [at, id] : ids_in(masked, 0, masked.size())) {
      const auto [known, added] = first_line.emplace(id, line_at(at));
      if (added) {
        found.rules.push_back({id, line_at(at)});
      } else {
        found.repeated.push_back({id, known->second, line_at(at)});
      }
    }
    const auto spans = sentences(masked);
    std::vector<bool> tagged(spans.size(), false);
    for (std::size_t k = 0; k < spans.size(); ++k) {
      const auto [from, to] = spans[k];
      // An ID that opens a sentence tags the one before it: IDs follow
      // the sentence's final `.`.
      const auto start = masked.find_first_not_of(" \n", from);
      for (const auto& [at, id] : ids_in(masked, from, to)) {
        if (k > 0 && at == start) {
          tagged[k - 1] = true;
        } else {
          tagged[k] = true;
        }
      }
    }
    for (std::size_t k = 0; k < spans.size(); ++k) {
      const auto [from, to] = spans[k];
      const auto keyword = first_keyword(std::string_view(masked).substr(from, to - from));
      if (!keyword || tagged[k]) continue;
      // Shown from its first word: the ID that ends the sentence before
      // it is no part of it.
      auto start = std::min(masked.find_first_not_of(" \n", from), to);
      for (const auto& [at, id] : ids_in(masked, from, to)) {
        if (at != start) break;
        start = std::min(masked.find_first_not_of(" \n", at + id.size() + 2), to);
      }
      found.untraced.push_back(
          {line_at(start), *keyword, one_line(std::string_view(block.text).substr(start, to - start))});
    }
  }
  return found;
}

}  // namespace agent_session::conform::rules
