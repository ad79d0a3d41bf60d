// The sessions the properties mode judges a trimmer on: valid histories
// of SPEC.md §1's three shapes (users, assistants with 0-3 tool calls,
// tool results; parallel, interleaved and nested rounds, orphans, pending
// calls), drawn by the port fuzzer's generator (conform/fuzz/
// session_writer.hpp) and held in the normalized form an adapter reads
// (corpus/conformance/adapter.md §3), with their units (SPEC.md §5.1).
//
// Example:
//   fuzz::SessionWriter writer(7);
//   PropSession session = draw_session(writer);
//   session.lines[0];  // R"({"role":"user","content":"hi"})"
#pragma once

#include "agent_session/context.hpp"
#include "agent_session/message.hpp"
#include "conform/fuzz/session_writer.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace agent_session::conform::properties {

struct PropSession {
  std::vector<Message> messages;
  std::vector<std::string> lines;                     // each message's canonical line (SPEC.md §3)
  std::vector<ContextUnit> units;                     // SPEC.md §5.1, oldest first
  std::vector<std::optional<std::size_t>> declaring;  // each tool result's declaring assistant
};

// `messages` with their lines, units and declaring assistants.
PropSession make_session(std::vector<Message> messages);

// The JSON array of `lines`, as a request carries it.
std::string messages_array(const std::vector<std::string>& lines);

// A non-empty session that travels within harness.md §2's limits (64
// levels, 10,000 values a request) and holds no lone surrogate (which no
// JSON parser of the kit takes back); drawn again until one does.
PropSession draw_session(fuzz::SessionWriter& writer);

// `session` without the messages [begin, end).
PropSession without(const PropSession& session, std::size_t begin, std::size_t end);

}  // namespace agent_session::conform::properties
