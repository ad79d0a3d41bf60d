#include "conform/fuzz/shrink.hpp"

#include "base/utf8.hpp"
#include "conform/fuzz/byte_damage.hpp"  // split_lines

#include <algorithm>
#include <string_view>
#include <vector>

namespace agent_session::conform::fuzz {
namespace {

class Shrinker {
 public:
  Shrinker(const std::function<bool(const std::string&)>& test, const ShrinkLimits& limits)
      : test_(test), limits_(limits) {}

  // Whether `candidate` (shorter than `best`) keeps the difference; if so it becomes `best`.
  bool attempt(std::string& best, std::string candidate) {
    if (candidate.size() >= best.size() || out_of_budget()) return false;
    ++tries_;
    if (!test_(candidate)) return false;
    best = std::move(candidate);
    return true;
  }
  bool out_of_budget() {
    if (tries_ >= limits_.max_tries || std::chrono::steady_clock::now() >= limits_.deadline) exhausted_ = true;
    return exhausted_;
  }
  std::size_t tries() const { return tries_; }
  bool exhausted() const { return exhausted_; }

 private:
  const std::function<bool(const std::string&)>& test_;
  ShrinkLimits limits_;
  std::size_t tries_ = 0;
  bool exhausted_ = false;
};

// Drops runs of `size` pieces, halving `size` down to one (ddmin).
template <typename Split, typename Join>
bool drop_pieces(std::string& best, Shrinker& shrinker, Split split, Join join) {
  bool progress = false;
  for (std::size_t size = std::max<std::size_t>(1, split(best).size() / 2); size > 0; size /= 2) {
    for (std::size_t at = 0;;) {
      auto pieces = split(best);
      if (at >= pieces.size() || shrinker.out_of_budget()) break;
      pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(at),
                   pieces.begin() + static_cast<std::ptrdiff_t>(std::min(pieces.size(), at + size)));
      if (shrinker.attempt(best, join(pieces))) {
        progress = true;
      } else {
        at += size;
      }
    }
  }
  return progress;
}

struct Edit {
  std::size_t begin, end;
  std::string with;
};

// The spans of JSON values and members in `text`, scanned leniently.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}
  std::vector<Edit> edits() {
    for (std::size_t at = 0; at < text_.size();) {
      const std::size_t end = value(at, 0);
      at = end == std::string_view::npos || end <= at ? at + 1 : end;
    }
    std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) {
      return a.end - a.begin - a.with.size() > b.end - b.begin - b.with.size();
    });
    return edits_;
  }

 private:
  static constexpr std::size_t npos = std::string_view::npos;
  std::size_t skip(std::size_t at) const {
    while (at < text_.size() && (text_[at] == ' ' || text_[at] == '\t' || text_[at] == '\r')) ++at;
    return at;
  }
  void replace(std::size_t begin, std::size_t end, std::string with) {
    if (end - begin > with.size()) edits_.push_back({begin, end, std::move(with)});
  }
  // A member or element from `begin` to `end`, dropped with a comma beside it.
  void droppable(std::size_t begin, std::size_t end) {
    const std::size_t after = skip(end);
    if (after < text_.size() && text_[after] == ',') {
      edits_.push_back({begin, after + 1, ""});
      return;
    }
    std::size_t before = begin;
    while (before > 0 && (text_[before - 1] == ' ' || text_[before - 1] == '\t')) --before;
    if (before > 0 && text_[before - 1] == ',') edits_.push_back({before - 1, end, ""});
  }
  std::size_t string(std::size_t at) const {
    for (std::size_t i = at + 1; i < text_.size(); ++i) {
      if (text_[i] == '\\')
        ++i;
      else if (text_[i] == '"')
        return i + 1;
      else if (text_[i] == '\n')
        return npos;
    }
    return npos;
  }
  std::size_t value(std::size_t at, int depth) {
    at = skip(at);
    if (at >= text_.size() || depth > 600) return npos;
    const char c = text_[at];
    std::size_t end = npos;
    if (c == '"') {
      end = string(at);
      if (end != npos) replace(at, end, "\"\"");
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      end = text_.find_first_not_of("0123456789.eE+-", at);
      if (end == npos) end = text_.size();
      replace(at, end, "0");
    } else if (c == 't' || c == 'f' || c == 'n') {
      end = text_.find_first_not_of("truefalsn", at);
      if (end == npos) end = text_.size();
    } else if (c == '[' || c == '{') {
      end = container(at, depth);
      if (end != npos) replace(at, end, c == '[' ? "[]" : "{}");
    }
    return end;
  }
  std::size_t container(std::size_t at, int depth) {
    const char close = text_[at] == '[' ? ']' : '}';
    std::size_t i = skip(at + 1);
    if (i < text_.size() && text_[i] == close) return i + 1;
    while (i < text_.size()) {
      const std::size_t begin = i;
      if (close == '}') {
        if (text_[i] != '"' || (i = string(i)) == npos) return npos;
        i = skip(i);
        if (i >= text_.size() || text_[i] != ':') return npos;
        ++i;
      }
      if ((i = value(i, depth + 1)) == npos) return npos;
      droppable(begin, i);
      i = skip(i);
      if (i >= text_.size()) return npos;
      if (text_[i] == close) return i + 1;
      if (text_[i] != ',') return npos;
      i = skip(i + 1);
    }
    return npos;
  }

  std::string_view text_;
  std::vector<Edit> edits_;
};

bool simplify_values(std::string& best, Shrinker& shrinker) {
  bool progress = false;
  for (bool again = true; again && !shrinker.out_of_budget();) {
    again = false;
    for (const Edit& edit : Scanner(best).edits()) {
      std::string candidate = best;
      candidate.replace(edit.begin, edit.end - edit.begin, edit.with);
      if (shrinker.attempt(best, std::move(candidate))) {
        progress = again = true;
        break;  // the spans moved: scan again
      }
      if (shrinker.out_of_budget()) break;
    }
  }
  return progress;
}

// Characters as a reader sees them: a JSON escape (`\uXXXX`, `\n`), a
// UTF-8 sequence, or a byte that is not part of one.
std::vector<std::string> characters(const std::string& text) {
  std::vector<std::string> pieces;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t size = base::utf8_sequence_length(text, at);
    if (text[at] == '\\' && at + 1 < text.size()) {
      const bool hex = text[at + 1] == 'u' && at + 6 <= text.size() &&
                       text.substr(at + 2, 4).find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
      size = hex ? 6 : 2;
    }
    size = std::max<std::size_t>(1, std::min(size, text.size() - at));
    pieces.push_back(text.substr(at, size));
    at += size;
  }
  return pieces;
}

}  // namespace

ShrinkResult shrink(const std::string& input, const std::function<bool(const std::string&)>& still_differs,
                    const ShrinkLimits& limits) {
  Shrinker shrinker(still_differs, limits);
  std::string best = input;
  const auto lines = [](const std::string& s) { return split_lines(s); };
  const auto chars = [](const std::string& s) { return characters(s); };
  const auto bytes = [](const std::string& s) { return std::vector<char>(s.begin(), s.end()); };
  for (bool progress = true; progress && !shrinker.out_of_budget();) {
    progress = drop_pieces(best, shrinker, lines, join_lines);
    progress = simplify_values(best, shrinker) || progress;
    progress = drop_pieces(best, shrinker, chars, join_lines) || progress;
    if (!progress) {
      progress = drop_pieces(best, shrinker, bytes,
                             [](const std::vector<char>& c) { return std::string(c.begin(), c.end()); });
    }
  }
  return {best, shrinker.tries(), shrinker.exhausted()};
}

}  // namespace agent_session::conform::fuzz
