// Byte-level damage to a session file, and mutations of the conformance
// vectors' inputs: what `agent-session-conform fuzz` feeds a port besides
// SessionWriter's well-formed text. Each change is counted on the writer
// (Shape), whose random numbers it draws, so the same seed damages the same
// way.
#pragma once

#include "conform/fuzz/session_writer.hpp"

#include <string>
#include <vector>

namespace agent_session::conform::fuzz {

// `bytes` with one to three of: an invalid UTF-8 sequence, a torn last line
// (cut mid-line, no newline), a byte-order mark (at the start or at a
// line's), CR (a CRLF line end or a lone `\r` line), a NUL byte, an
// escaped lone surrogate, an integer past the largest double, a
// whitespace-only line, a token edge inside a string (an escape, a
// surrogate order, a raw control, UTF-8 edge bytes: token_edges.cpp).
std::string damage(std::string bytes, SessionWriter& writer);

// One of `inputs` (the vectors' input.jsonl bytes, not empty) changed: lines
// dropped, repeated, swapped or spliced from another vector, a generated
// message inserted, a digit or a byte changed, a literal, number or `\u`
// escape replaced by a token edge, or damage() above.
std::string mutate_vector(const std::vector<std::string>& inputs, SessionWriter& writer);

// `bytes` split after each `\n` (the last piece may lack one), and joined back.
std::vector<std::string> split_lines(const std::string& bytes);
std::string join_lines(const std::vector<std::string>& lines);

}  // namespace agent_session::conform::fuzz
