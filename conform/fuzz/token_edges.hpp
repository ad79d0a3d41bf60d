// SessionWriter's token edges (token_edges.cpp): each token SPEC.md §2
// and §2.1 define, right at its edge and one step past it (literals,
// number forms, escapes, surrogate pairs in every order, raw controls,
// UTF-8 lead and continuation edges). They are SessionWriter's members,
// declared with it.
#pragma once

#include "conform/fuzz/session_writer.hpp"
