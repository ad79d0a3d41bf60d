// Deterministic session histories for the benchmarks and the property
// tests (the library agent_session_history_generator): the same profile
// and length give the same messages on every machine and in every run, so
// the C++ suite and the JavaScript comparison (bench/compare-js) measure
// the same bytes, and a property that fails on a realistic history fails
// again on the same one.
//
// A history is a run of rounds: a user message, an assistant message with
// one to three tool calls, their tool results in call order, and a final
// assistant answer without calls. Tool call ids are unique in the history,
// so rounds never interleave and the JavaScript's units equal ours
// (SPEC.md §5.1). The history of n messages is the first n messages of the
// profile's endless stream: a shorter history is a prefix of a longer one.
//
// Example:
//   auto history = generate_history(Profile::cjk, 10'000);
//   std::string jsonl = agent_session::to_canonical_jsonl(history);
#pragma once

#include "base/utf8.hpp"

#include "agent_session/append.hpp"
#include "agent_session/message.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::bench {

// What the strings of a history are made of.
enum class Profile {
  ascii_prose,  // English prose: the all-ASCII fast path
  cjk,          // Chinese text: 3-byte UTF-8, one UTF-16 unit each
  emoji,        // emoji-heavy chat: 4-byte UTF-8, two UTF-16 units each
  escapes,      // source code and terminal output: quotes, `\`, newlines, tabs, control bytes
  numbers,      // large tool inputs full of numbers (integers, decimals, exponents)
};

inline constexpr std::array kProfiles = {Profile::ascii_prose, Profile::cjk, Profile::emoji, Profile::escapes,
                                         Profile::numbers};

// "ascii", "cjk", "emoji", "escapes", "numbers": used in benchmark and file names.
std::string_view profile_name(Profile profile);
std::optional<Profile> profile_from_name(std::string_view name);

// The one UTF-8 encoder (base/utf8.hpp).
using base::append_utf8;

// Text of the profile, the kind its messages hold: at least `bytes` bytes
// (whole characters and words, so a few more), the same for the same seed.
std::string profile_text(Profile profile, std::size_t bytes, std::uint64_t seed);

// The first `count` messages of the profile's history.
std::vector<Message> generate_history(Profile profile, std::size_t count);

// `dir/<profile>-<count>.jsonl`: the canonical JSONL text of the history
// (what append_session would have written). Written when missing; returns
// its path. Throws std::system_error / SerializationError.
std::filesystem::path history_file(const std::filesystem::path& dir, Profile profile, std::size_t count);

}  // namespace agent_session::bench
