// The load loop of SPEC.md §2, for callers that choose the line parser
// (the differential tests run it with the reference and the fast one).
#pragma once

#include "agent_session/message.hpp"
#include "internal/line_parser.hpp"
#include "internal/line_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace agent_session::internal {

// Reads lines from `read_some` and parses each non-empty one with
// `parser`, in order; the first bad line stops the load (SessionError,
// with a hint to repair when `from_file` and the bad line is a last line
// without `\n`). `line_numbers`, when given, receives each message's line;
// `size_hint` is the input's size when known (LineReader).
std::vector<Message> load_lines(LineParser& parser, LineReader::ReadSome read_some, bool from_file,
                                std::vector<std::size_t>* line_numbers = nullptr,
                                std::optional<std::uint64_t> size_hint = std::nullopt);

// The canonical JSONL of `messages` (to_canonical_jsonl), refusing any
// line the load above would refuse: the writers' side of the line limit
// (SPEC.md §8). Throws SerializationError, MessageTooLong.
std::string loadable_lines(std::span<const Message> messages);

}  // namespace agent_session::internal
