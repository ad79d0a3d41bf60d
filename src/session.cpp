#include "agent_session/session.hpp"

#include "internal/fast_json_line.hpp"
#include "internal/json_line.hpp"
#include "internal/posix_file.hpp"
#include "internal/record.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <istream>
#include <optional>
#include <system_error>
#include <utility>

namespace agent_session {
namespace {

std::string session_error_text(SessionErrorKind kind, std::size_t line, const std::string& detail) {
  std::string text = kind == SessionErrorKind::invalid_json ? "invalid session JSON at line "
                                                            : "invalid session record at line ";
  text += std::to_string(line);
  if (!detail.empty()) text += ": " + detail;
  return text;
}

Message load_line(std::string_view line, std::size_t line_number) {
  auto parsed = internal::parse_json_line(line);
  if (auto* detail = std::get_if<std::string>(&parsed)) {
    throw SessionError(SessionErrorKind::invalid_json, line_number, *detail);
  }
  auto verdict = internal::discriminate_record(std::move(std::get<Json>(parsed)));
  if (auto* reason = std::get_if<std::string>(&verdict)) {
    throw SessionError(SessionErrorKind::invalid_record, line_number, std::string(*reason));
  }
  return std::move(std::get<Message>(verdict));
}

// The detail a SessionError carries after "...at line N: ", or "".
std::string detail_of(const SessionError& error) {
  const std::string_view what = error.what();
  const std::size_t colon = what.find(": ");
  return colon == std::string_view::npos ? std::string() : std::string(what.substr(colon + 2));
}

// The detail for a failing last line with no trailing newline: the mark
// of a write cut short, which `agent-session repair` exists for.
std::string with_torn_tail_hint(const SessionError& error, std::string_view more = {}) {
  std::string detail = detail_of(error);
  if (!detail.empty()) detail += "; ";
  detail += "the last line has no newline, as a write cut short leaves it: ";
  detail += "`agent-session repair FILE` shows it and `--apply` cuts it off";
  detail += more;
  return detail;
}

}  // namespace

SessionError::SessionError(SessionErrorKind kind, std::size_t line, const std::string& detail)
    : std::runtime_error(session_error_text(kind, line, detail)), kind_(kind), line_(line) {}

namespace {

// Turns lines into messages in order, whether the input comes whole (from
// memory) or a piece of the file at a time, counting physical lines
// (decisions §2). `from_file` adds the repair hint to the error for a torn
// last line (on standard input there is no file to repair).
class LineLoader {
 public:
  // `lines`, when given, receives the physical line of each message.
  LineLoader(bool from_file, std::vector<std::size_t>* lines) : lines_(lines), from_file_(from_file) {}

  // Loads every line of `text`: each ends with `\n` but the last, which may
  // end with the input. `readable_after`: how many bytes past the end of
  // `text` may be read (the fast path reads a little past each line).
  void load(std::string_view text, std::size_t readable_after) {
    std::size_t start = 0;
    while (start < text.size()) {
      ++line_number_;
      const void* newline = std::memchr(text.data() + start, '\n', text.size() - start);
      const std::size_t end =
          newline == nullptr ? text.size() : static_cast<std::size_t>(static_cast<const char*>(newline) - text.data());
      // Only a line of zero bytes is skipped; it still counts (decisions §2).
      if (end > start) load_line_at(text.substr(start, end - start), text.size() - end + readable_after, newline != nullptr);
      start = end + 1;
    }
  }

  // A line longer than kMaxLineBytes is a resource error, not an invalid
  // session: the line being read is the next one.
  [[noreturn]] void refuse_long_line() const { throw LineTooLong(line_number_ + 1); }

  // One message per line at most: reserving spares the regrowth copies and
  // the up-to-2x slack of a doubling vector (peak memory, issue 6).
  void reserve(std::size_t lines) {
    messages_.reserve(lines);
    if (lines_ != nullptr) lines_->reserve(lines);
  }
  std::vector<Message> take() { return std::move(messages_); }

 private:
  void load_line_at(std::string_view line, std::size_t readable_after, bool terminated) {
    if (line.size() > kMaxLineBytes) throw LineTooLong(line_number_);
    // simdjson answers the lines it is sure of; load_line gives every other
    // answer, errors included, so their texts are parse_json_line's.
    std::optional<Message> message = fast_lines_.message(line, readable_after);
    if (!message) {
      try {
        message = load_line(line, line_number_);
      } catch (const SessionError& error) {
        if (!from_file_ || terminated) throw;
        throw SessionError(error.kind(), line_number_, with_torn_tail_hint(error));
      }
    }
    messages_.push_back(std::move(*message));
    if (lines_ != nullptr) lines_->push_back(line_number_);
  }

  internal::FastJsonLine fast_lines_;
  std::vector<Message> messages_;
  std::vector<std::size_t>* lines_;
  std::size_t line_number_ = 0;
  bool from_file_;
};

std::size_t count_lines(std::string_view text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// How many messages a file of `file_size` bytes likely holds, from its first
// piece of whole lines: reserving them spares most regrowth. Capped at one
// per 64 bytes (a message is 80 bytes in memory), so that a first piece of
// blank or tiny lines cannot reserve several times the file's size.
std::size_t expected_messages(std::string_view first_lines, std::uint64_t file_size) {
  const double lines_per_byte = static_cast<double>(count_lines(first_lines)) / static_cast<double>(first_lines.size());
  const auto estimate = static_cast<std::uint64_t>(lines_per_byte * 1.05 * static_cast<double>(file_size)) + 1;
  return static_cast<std::size_t>(std::min(estimate, file_size / 64 + 1));
}

// Reads the file a piece at a time into one buffer, loading its whole lines
// as they arrive: the file is never held whole next to its messages (peak
// memory, issue 6), and the buffer stays in cache. A line longer than the
// buffer grows it. The buffer keeps the fast path's padding past its end.
// `read_some(buffer, size)` returns how many bytes it read, 0 only at the
// end; `size_hint` is the input's size if known (else 0). A line past
// kMaxLineBytes stops the read there: an endless line (/dev/zero) costs a
// bounded amount of memory, never all of it.
template <class ReadSome>
std::vector<Message> load_pieces(ReadSome read_some, std::uint64_t size_hint, bool from_file,
                                 std::vector<std::size_t>* lines = nullptr) {
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  LineLoader loader(from_file, lines);
  std::size_t capacity = kPiece;
  std::string buffer(capacity + internal::kFastJsonLinePadding, ' ');
  std::size_t filled = 0;  // bytes of a line not yet complete, at the front
  bool reserved = false;
  for (;;) {
    if (filled == capacity) {
      if (capacity > kMaxLineBytes) loader.refuse_long_line();
      capacity = std::min(2 * capacity, kMaxLineBytes + 1);
      buffer.resize(capacity + internal::kFastJsonLinePadding, ' ');
    }
    const std::size_t got = read_some(buffer.data() + filled, capacity - filled);
    if (got == 0) break;
    const std::size_t newline = std::string_view(buffer.data() + filled, got).rfind('\n');
    filled += got;
    if (newline == std::string_view::npos) continue;
    const std::size_t complete = filled - got + newline + 1;
    const std::string_view lines(buffer.data(), complete);
    if (!reserved) {
      if (size_hint > 0) loader.reserve(expected_messages(lines, size_hint));
      reserved = true;
    }
    loader.load(lines, buffer.size() - complete);
    std::memmove(buffer.data(), buffer.data() + complete, filled - complete);
    filled -= complete;
  }
  loader.load(std::string_view(buffer.data(), filled), buffer.size() - filled);  // a last line without `\n`
  return loader.take();
}

// The torn-tail guard of append_session: returns what must precede the
// batch (a `\n` after a valid unterminated last line), or throws the
// SessionError load_session would throw for a torn one.
std::string_view separator_before_append(const internal::LockedFile& file) {
  if (file.size() == 0 || file.last_byte() == '\n') return {};
  const std::string bytes = file.read_all();  // rare: only after a crash or a hand edit
  const std::size_t last_newline = bytes.rfind('\n');
  const std::size_t start = last_newline == std::string::npos ? 0 : last_newline + 1;
  const std::size_t line_number = count_lines(std::string_view(bytes).substr(0, start)) + 1;
  try {
    load_line(std::string_view(bytes).substr(start), line_number);
  } catch (const SessionError& error) {
    throw SessionError(error.kind(), line_number, with_torn_tail_hint(error, "; nothing was appended"));
  }
  return "\n";
}

}  // namespace

std::vector<Message> load_session_from_memory(std::string_view bytes) {
  LineLoader loader(/*from_file=*/false, nullptr);
  loader.reserve(count_lines(bytes) + 1);
  loader.load(bytes, 0);
  return loader.take();
}

namespace {

std::vector<Message> load_file(const std::filesystem::path& path, std::vector<std::size_t>* lines) {
  std::optional<internal::SharedReadFile> file = internal::SharedReadFile::open_if_exists(path);
  if (!file) return {};  // ENOENT: no session yet, not a corrupt one
  return load_pieces([&file](char* buffer, std::size_t size) { return file->read_some(buffer, size); },
                     file->size_when_opened(), /*from_file=*/true, lines);
}

std::vector<Message> load_stream(std::istream& in, std::vector<std::size_t>* lines) {
  std::streambuf* bytes = in.rdbuf();
  if (bytes == nullptr) return {};
  // sgetn, not istream::read: an exception thrown by the stream buffer (a
  // read error with its errno) reaches the caller instead of a state bit.
  return load_pieces(
      [bytes](char* buffer, std::size_t size) {
        return static_cast<std::size_t>(bytes->sgetn(buffer, static_cast<std::streamsize>(size)));
      },
      0, /*from_file=*/false, lines);
}

}  // namespace

std::vector<Message> load_session(const std::filesystem::path& path) { return load_file(path, nullptr); }

std::vector<Message> load_session_from_stream(std::istream& in) { return load_stream(in, nullptr); }

NumberedSession load_numbered_session(const std::filesystem::path& path) {
  NumberedSession session;
  session.messages = load_file(path, &session.lines);
  return session;
}

NumberedSession load_numbered_session(std::istream& in) {
  NumberedSession session;
  session.messages = load_stream(in, &session.lines);
  return session;
}

LineTooLong::LineTooLong(std::size_t line)
    : std::system_error(EFBIG, std::generic_category(),
                        "cannot load line " + std::to_string(line) + ": it is longer than " +
                            std::to_string(kMaxLineBytes) + " bytes, the longest line this implementation loads"),
      line_(line) {}

void append_session(const std::filesystem::path& path, const Message& message, const AppendOptions& options) {
  append_session(path, std::span<const Message>(&message, 1), options);
}

void append_session(const std::filesystem::path& path, std::span<const Message> messages,
                    const AppendOptions& options) {
  const std::string lines = to_canonical_jsonl(messages);  // may throw: the file is not touched yet
  internal::LockedFile file = internal::LockedFile::for_append(path);
  const std::uint64_t size_before = file.size();
  const std::string_view separator = separator_before_append(file);
  // One write for the whole batch: all or nothing.
  if (separator.empty()) {
    file.append(lines);
  } else {
    file.append(std::string(separator) + lines);
  }
  if (options.sync == SyncPolicy::data) file.sync_data(size_before);
}

}  // namespace agent_session
