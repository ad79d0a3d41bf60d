#include "conform/runner/text_search.hpp"

#include <algorithm>
#include <cstring>

namespace agent_session::conform::runner {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// Counts the byte comparisons the search makes (text_search.hpp's bound).
struct Counter {
  std::size_t* count;
  bool equal(unsigned char a, unsigned char b) const {
    if (count) ++*count;
    return a == b;
  }
  bool less(unsigned char a, unsigned char b) const {
    if (count) ++*count;
    return a < b;
  }
};

// The start of the longer of the maximal suffixes of `pattern` for the
// byte order and its reverse: a critical factorization, with `period`
// the period of that suffix (Crochemore and Perrin's Theorem 3.1).
std::size_t maximal_suffix(std::string_view pattern, bool reverse, std::size_t& period, const Counter& counter) {
  std::size_t suffix = kNone, j = 0, k = 1;  // suffix + k wraps to k - 1 while suffix is kNone
  period = 1;
  while (j + k < pattern.size()) {
    const auto a = static_cast<unsigned char>(pattern[j + k]);
    const auto b = static_cast<unsigned char>(pattern[suffix + k]);
    if (counter.equal(a, b)) {
      if (k != period) {
        ++k;
      } else {
        j += period;
        k = 1;
      }
    } else if (reverse ? counter.less(b, a) : counter.less(a, b)) {
      j += k;
      k = 1;
      period = j - suffix;
    } else {
      suffix = j++;
      k = period = 1;
    }
  }
  return suffix + 1;
}

}  // namespace

bool find_each(std::string_view text, std::string_view pattern, const std::function<bool(std::size_t)>& found,
               std::size_t* comparisons) {
  const std::size_t n = pattern.size();
  if (n == 0 || n > text.size()) return false;
  const Counter counter{comparisons};
  const auto at = [&](std::size_t i, std::size_t j) {
    return counter.equal(static_cast<unsigned char>(pattern[i]), static_cast<unsigned char>(text[i + j]));
  };
  std::size_t period = 0, period_reverse = 0;
  const std::size_t forward = maximal_suffix(pattern, false, period, counter);
  const std::size_t backward = maximal_suffix(pattern, true, period_reverse, counter);
  const std::size_t split = std::max(forward, backward);
  if (backward >= forward) period = period_reverse;
  bool periodic = split + period <= n;
  for (std::size_t i = 0; periodic && i < split; ++i) periodic = counter.equal(pattern[i], pattern[i + period]);
  if (periodic) {
    // The whole pattern has period `period`: after a shift by it, what
    // matched of the right half still does (`memory`), never compared twice.
    std::size_t memory = 0;
    for (std::size_t j = 0; j + n <= text.size();) {
      std::size_t i = std::max(split, memory);
      while (i < n && at(i, j)) ++i;
      if (i < n) {
        j += i - split + 1;
        memory = 0;
        continue;
      }
      i = split;
      while (i > memory && at(i - 1, j)) --i;
      if (i <= memory && found(j)) return true;
      j += period;
      memory = n - period;
    }
    return false;
  }
  // The halves differ: two occurrences are more than the longer half apart.
  const std::size_t shift = std::max(split, n - split) + 1;
  for (std::size_t j = 0; j + n <= text.size();) {
    std::size_t i = split;
    while (i < n && at(i, j)) ++i;
    if (i < n) {
      j += i - split + 1;
      continue;
    }
    i = split;
    while (i > 0 && at(i - 1, j)) --i;
    if (i == 0 && found(j)) return true;
    j += shift;
  }
  return false;
}

}  // namespace agent_session::conform::runner
