// Destroying a JSON tree without allocating. nlohmann's destructor of a
// container first reserves a stack as large as the container (its way of
// not recursing), so destroying a tree can throw std::bad_alloc inside a
// destructor, which ends the process (std::terminate). Under memory
// pressure that is exactly when trees are destroyed: a load unwinding from
// std::bad_alloc. Out of memory must be an error, never a signal (SPEC.md
// §6, §8), so every tree the loader builds is torn down here first.
#pragma once

#include "agent_session/json.hpp"

namespace agent_session::reference {

// Leaves `tree` a scalar or an empty container, destroying its contents
// from the leaves up with no allocation: nlohmann's destructor then has
// nothing to reserve. Linear in the tree's size. Levels past
// kMaxNestingDepth + 1, which no loaded line has (SPEC.md §2.1) but a tree
// built in memory may, are left to nlohmann's destructor.
void tear_down(Json& tree) noexcept;

// Tears down `tree` when it goes out of scope: on a normal exit and while
// an exception unwinds.
class TornDownOnExit {
 public:
  explicit TornDownOnExit(Json& tree) noexcept : tree_(tree) {}
  TornDownOnExit(const TornDownOnExit&) = delete;
  TornDownOnExit& operator=(const TornDownOnExit&) = delete;
  ~TornDownOnExit() { tear_down(tree_); }

 private:
  Json& tree_;
};

}  // namespace agent_session::reference
