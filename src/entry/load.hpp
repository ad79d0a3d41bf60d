// Loading a session (SPEC.md §2) from a file or a stream: the file opened
// (a missing one is an empty session), read a piece at a time by the line
// reader, and its lines given to the reference's loop (reference/load.hpp)
// with the seam's line parser (the differential tests choose the path).
#pragma once

#include "agent_session/message.hpp"
#include "agent_session/session.hpp"
#include "entry/implementation.hpp"
#include "entry/line_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::entry {

// Reads lines from `read_some` and loads them by §2's loop
// (reference::load_lines), each non-empty one parsed by `parser`; the
// first bad line stops the load (SessionError, with a hint to repair when
// `from_file` and the bad line is a last line without `\n`).
// `line_numbers`, when given, receives each message's line; `size_hint` is
// the input's size when known (LineReader).
std::vector<Message> load_lines(LineParser& parser, LineReader::ReadSome read_some, bool from_file,
                                std::vector<std::size_t>* line_numbers = nullptr,
                                std::optional<std::uint64_t> size_hint = std::nullopt);

// As above with the seam's line parser (entry/implementation.hpp): the load every
// entry point below and load_session share.
std::vector<Message> load_lines(LineReader::ReadSome read_some, bool from_file,
                                std::vector<std::size_t>* line_numbers = nullptr,
                                std::optional<std::uint64_t> size_hint = std::nullopt);

// The detail for a bad last line with no trailing newline, the mark of a
// write cut short: `error`'s detail, then a hint to run `agent-session
// repair`, then `more`.
std::string with_torn_tail_hint(const SessionError& error, std::string_view more = {});

// A session as load_session loads it (a path) or as a stream gives it
// (standard input, a piece at a time: never held whole, an endless line
// stops at kMaxLineBytes), plus the physical line (1-based, counting the
// empty lines loading skips) each message was read from: what a tool that
// points into the file needs (the CLI's `units` and budget errors).
struct NumberedSession {
  std::vector<Message> messages;
  std::vector<std::size_t> lines;  // lines[i] is the line of messages[i]
};

// What loading a path that does not exist gives: an empty session (the
// chapter's rule, SPEC.md §2: no session yet), or an error, std::system_error
// ENOENT "cannot open session 'PATH'" (a command line's FILE, SPEC.md
// §6: a typo must not look like an empty session). The open that reads the
// file decides, so no check before it can race a file's removal.
enum class MissingFile { empty_session, error };

// Throw as load_session does: SessionError, LineTooLong, std::system_error.
NumberedSession load_numbered_session(const std::filesystem::path& path,
                                      MissingFile missing = MissingFile::empty_session);
// Exceptions thrown by the stream's buffer (a read error) propagate.
NumberedSession load_numbered_session(std::istream& in);

}  // namespace agent_session::entry
