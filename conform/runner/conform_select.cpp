#include "conform/runner/conform_select.hpp"
#include "base/decimal.hpp"

#include "base/printable.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>

#include <fcntl.h>
#include <fnmatch.h>

#ifndef AGENT_SESSION_VERSION
#error "AGENT_SESSION_VERSION (the CMake project's VERSION) must be defined"
#endif

namespace agent_session::conform::runner {
namespace {

namespace fs = std::filesystem;
using agent_session::base::terminal_safe;

// A version's number as written: decimal, without a leading zero.
bool is_number(std::string_view text) { return base::is_decimal(text) && (text.size() == 1 || text[0] != '0'); }

// MAJOR, MINOR and PATCH of `text` when it is three numbers joined by '.',
// whatever their size; else nothing.
std::optional<std::array<std::string_view, 3>> version_numbers(std::string_view text) {
  const auto first = text.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = text.find('.', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const std::array<std::string_view, 3> numbers = {text.substr(0, first), text.substr(first + 1, second - first - 1),
                                                   text.substr(second + 1)};
  if (!std::all_of(numbers.begin(), numbers.end(), is_number)) return std::nullopt;
  return numbers;
}

std::string_view trimmed(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

// A skip-file line without its comment: `#` at the start of the line or
// after a blank starts one ("y_x   # not yet: surrogates").
std::string_view without_comment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) return line.substr(0, i);
  }
  return line;
}

// Whether `name` could name a vector: letters, digits, '_', '-' and '.',
// at most 200 of them (corpus/conformance/README.md names vectors so).
bool could_be_a_vector_name(std::string_view name) {
  return name.size() <= 200 && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                  c == '.';
         });
}

}  // namespace

std::string_view runner_version() noexcept { return AGENT_SESSION_VERSION; }

bool is_semantic_version(std::string_view text) noexcept {
  // Each number within 64 bits: one past them is none the runner can
  // compare (which vectors have the built-in checks, README.md step 3), so
  // such a VERSION is refused as a malformed one, never half read.
  const auto numbers = version_numbers(text);
  return numbers && std::all_of(numbers->begin(), numbers->end(),
                                [](std::string_view number) { return base::parse_decimal(number).has_value(); });
}

VectorsVersion read_vectors_version(const fs::path& vectors) {
  std::string text;
  try {
    // The folder the user named, a link or not; VERSION in it is the
    // vectors' own file, never read through a link.
    const base::Fd root(::open(vectors.empty() ? "." : vectors.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (root.get() < 0) return {"", std::string("cannot open VERSION: ") + std::strerror(errno)};
    text = read_file_at(root.get(), "VERSION", "VERSION");
  } catch (const std::runtime_error& error) {
    return {"", terminal_safe(error.what())};
  }
  std::string_view version = text;
  if (!version.empty() && version.back() == '\n') version.remove_suffix(1);
  if (!is_semantic_version(version)) {
    return {"", "VERSION holds \"" + terminal_safe(text.substr(0, 40)) + (text.size() > 40 ? "\"..." : "\"") +
                    ", not MAJOR.MINOR.PATCH" +
                    (version_numbers(version) ? " (a number past " + std::to_string(UINT64_MAX) + ")" : "")};
  }
  return {std::string(version), ""};
}

bool version_at_least(const VectorsVersion& version, unsigned long long wanted_minor) {
  const std::string_view text = version.version;
  const std::string_view major_digits = base::leading_digits(text);
  if (major_digits.empty() || major_digits.size() == text.size()) return false;
  const auto major = base::parse_decimal(major_digits);
  const auto minor = base::parse_decimal(base::leading_digits(text.substr(major_digits.size() + 1)));
  if (!major || !minor) return false;
  return *major > 1 || (*major == 1 && *minor >= wanted_minor);
}

std::vector<SelectedVector> select_vectors(const std::vector<VectorDir>& all, const std::vector<std::string>& only,
                                           const std::string& skip_file) {
  std::map<std::string, bool, std::less<>> skipped;  // every vector's name: listed in the skip file?
  for (const auto& dir : all) skipped.emplace(dir.path.filename().string(), false);
  if (!skip_file.empty()) {
    const fs::path path(skip_file);
    const std::string shown = "skip file '" + terminal_safe(skip_file) + "'";
    std::string text;
    try {
      text = read_named_file(path);  // the user's own file: a link is followed
    } catch (const std::runtime_error& error) {
      throw std::invalid_argument("cannot read the " + shown + ": " + terminal_safe(error.what()));
    }
    std::size_t number = 0;
    for (std::size_t at = 0; at < text.size();) {
      const auto end = std::min(text.find('\n', at), text.size());
      const std::string_view name = trimmed(without_comment(std::string_view(text).substr(at, end - at)));
      ++number;
      at = end + 1;
      if (name.empty()) continue;
      const auto found = skipped.find(name);
      if (found == skipped.end()) {
        // The line is shown only when it could be a vector's name: a skip
        // file that is something else (a link to /proc/self/environ, a
        // report) must not be printed.
        throw std::invalid_argument(shown + " line " + std::to_string(number) + ": " +
                                    (could_be_a_vector_name(name)
                                         ? "no vector named \"" + std::string(name) + "\""
                                         : "not a vector name (" + std::to_string(name.size()) + " bytes, not shown)"));
      }
      found->second = true;
    }
  }
  std::vector<SelectedVector> selected;
  std::vector<bool> used(only.size(), false);
  for (const auto& dir : all) {
    const std::string name = dir.path.filename().string();
    bool chosen = only.empty();
    for (std::size_t i = 0; i < only.size(); ++i) {
      if (::fnmatch(only[i].c_str(), name.c_str(), 0) == 0) chosen = used[i] = true;
    }
    if (chosen) selected.push_back({dir, skipped.find(name)->second});
  }
  for (std::size_t i = 0; i < only.size(); ++i) {
    if (!used[i]) throw std::invalid_argument("--only '" + terminal_safe(only[i]) + "' matches no vector");
  }
  return selected;
}

}  // namespace agent_session::conform::runner
