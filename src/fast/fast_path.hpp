// The fast path's side of the seam (entry/implementation.hpp): the operations it
// takes over, with the reference's signatures and contracts
// (reference/reference.hpp). Built with AGENT_SESSION_FAST.
#pragma once

#include "fast/block_walk.hpp"
#include "fast/measure.hpp"
#include "fast/simd_line_parser.hpp"
