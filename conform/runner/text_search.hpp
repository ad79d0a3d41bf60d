// Where one text occurs in another, in time linear in both whatever their
// bytes, for the judge (runner/conform_judge.hpp): a vector's expected
// error and a port's standard error are both untrusted and may each be
// megabytes (SPEC.md §6.1), and std::string::find compares the pattern
// again at every place its first byte occurs (quadratic: a 500 KB error
// of "a...ab" against 1 MB of "a" took minutes of comparisons).
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace agent_session::conform::runner {

// Calls `found(at)` for each place `pattern` starts in `text`, in order,
// until it returns true; returns whether it did. Nothing is found for an
// empty `pattern`. The Two-Way algorithm (Crochemore and Perrin, 1991):
// no memory of its own, and at most 2 × text.size() + 5 × pattern.size()
// byte comparisons in all, which `comparisons`, when not null, counts.
bool find_each(std::string_view text, std::string_view pattern, const std::function<bool(std::size_t)>& found,
               std::size_t* comparisons = nullptr);

}  // namespace agent_session::conform::runner
