// Shrinks an input on which a port and the reference differ, keeping the
// difference: whole lines first, then JSON values (a member or an element
// dropped, a value replaced by the simplest of its kind: "", 0, [], {}),
// then characters, each phase repeated while it makes progress.
//
// Example:
//   const std::string small = shrink(bytes, [&](const std::string& s) { return differs(s); }, limits);
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace agent_session::conform::fuzz {

struct ShrinkLimits {
  std::size_t max_tries = 2000;  // calls of the predicate
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

struct ShrinkResult {
  std::string input;       // the smallest input found on which the predicate holds
  std::size_t tries = 0;   // calls of the predicate
  bool exhausted = false;  // stopped by a limit, not because nothing smaller was found
};

// `input` must satisfy `still_differs`; the result does too and is never
// longer. Deterministic: the same predicate gives the same result.
ShrinkResult shrink(const std::string& input, const std::function<bool(const std::string&)>& still_differs,
                    const ShrinkLimits& limits = {});

}  // namespace agent_session::conform::fuzz
