#include "agent_session/session.hpp"

#include "internal/json_line.hpp"
#include "internal/json_teardown.hpp"
#include "internal/line_parser.hpp"
#include "internal/line_reader.hpp"
#include "internal/loader.hpp"
#include "internal/pending_sync.hpp"
#include "internal/posix_file.hpp"
#include "internal/record.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
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

namespace internal {

Message JsonLineParser::parse(std::string_view line, std::size_t line_number, std::size_t) {
  auto parsed = parse_json_line(line);
  if (auto* detail = std::get_if<std::string>(&parsed)) {
    throw SessionError(SessionErrorKind::invalid_json, line_number, *detail);
  }
  Json& json = std::get<Json>(parsed);
  const TornDownOnExit torn_down(json);
  auto verdict = discriminate_record(std::move(json));
  if (auto* reason = std::get_if<std::string>(&verdict)) {
    throw SessionError(SessionErrorKind::invalid_record, line_number, *reason);
  }
  return std::move(std::get<Message>(verdict));
}

std::vector<Message> load_lines(LineParser& parser, LineReader::ReadSome read_some, bool from_file,
                                std::vector<std::size_t>* line_numbers, std::optional<std::uint64_t> size_hint) {
  LineReader reader(std::move(read_some), parser.read_ahead(), size_hint);
  std::vector<Message> messages;
  while (const auto line = reader.next()) {
    if (line->text.empty()) continue;  // skipped, but counted (SPEC.md §2)
    try {
      messages.push_back(parser.parse(line->text, line->number, line->readable_after));
    } catch (const SessionError& error) {
      // On standard input there is no file to repair.
      if (!from_file || line->terminated) throw;
      throw SessionError(error.kind(), line->number, with_torn_tail_hint(error));
    }
    if (line_numbers != nullptr) line_numbers->push_back(line->number);
  }
  return messages;
}

}  // namespace internal

namespace {

std::size_t count_lines(std::string_view text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

std::vector<Message> load_lines(internal::LineReader::ReadSome read_some, bool from_file,
                                std::vector<std::size_t>* line_numbers, std::optional<std::uint64_t> size_hint) {
  const auto parser = internal::make_line_parser();
  return internal::load_lines(*parser, std::move(read_some), from_file, line_numbers, size_hint);
}

// The torn-tail guard of append_session: returns what must precede the
// batch (a `\n` after a valid unterminated last line), or throws the
// SessionError load_session would throw for a torn one. A pending-sync
// mark (internal/pending_sync.hpp) is no torn line: it is the rollback a
// failed synced append could not finish, so it is finished first, and a
// retry of that append writes its batch once (SPEC.md §8).
std::string_view separator_before_append(internal::LockedFile& file) {
  if (file.size() == 0 || file.last_byte() == '\n') return {};
  const std::string bytes = file.read_all();  // rare: only after a crash, a hand edit or a failed rollback
  const std::size_t last_newline = bytes.rfind('\n');
  const std::size_t start = last_newline == std::string::npos ? 0 : last_newline + 1;
  if (const auto cut = internal::pending_sync_cut(bytes)) {
    file.cut(*cut, "finishing the rollback of an earlier synced append that failed");
    return separator_before_append(file);
  }
  const std::size_t line_number = count_lines(std::string_view(bytes).substr(0, start)) + 1;
  try {
    internal::JsonLineParser().parse(std::string_view(bytes).substr(start), line_number);
  } catch (const SessionError& error) {
    throw SessionError(error.kind(), line_number, with_torn_tail_hint(error, "; nothing was appended"));
  }
  return "\n";
}

}  // namespace

// A piece of `bytes` at a time, as from a file: one way through the loader.
std::vector<Message> load_session_from_memory(std::string_view bytes) {
  return load_lines(internal::read_from(bytes), /*from_file=*/false, nullptr, bytes.size());
}

namespace {

// The smallest first buffer of a file load: a file that grows after it is
// opened is still read in pieces of a useful size.
constexpr std::uint64_t kFilePiece = std::uint64_t{64} << 10;

std::vector<Message> load_file(const std::filesystem::path& path, std::vector<std::size_t>* lines,
                               MissingFile missing = MissingFile::empty_session) {
  std::optional<internal::SharedReadFile> file = internal::SharedReadFile::open_if_exists(path);
  if (!file && missing == MissingFile::error) {
    throw std::system_error(ENOENT, std::generic_category(), "cannot open session file '" + path.string() + "'");
  }
  if (!file) return {};  // ENOENT: no session yet, not a corrupt one
  // A file may grow while it is read: its size when opened is a floor.
  const std::uint64_t size_hint = std::max(file->size_when_opened(), kFilePiece);
  return load_lines([&file](char* buffer, std::size_t size) { return file->read_some(buffer, size); },
                    /*from_file=*/true, lines, size_hint);
}

std::vector<Message> load_stream(std::istream& in, std::vector<std::size_t>* lines) {
  std::streambuf* bytes = in.rdbuf();
  if (bytes == nullptr) return {};
  // sgetn, not istream::read: an exception thrown by the stream buffer (a
  // read error with its errno) reaches the caller instead of a state bit.
  return load_lines(
      [bytes](char* buffer, std::size_t size) {
        return static_cast<std::size_t>(bytes->sgetn(buffer, static_cast<std::streamsize>(size)));
      },
      /*from_file=*/false, lines, std::nullopt);
}

}  // namespace

std::vector<Message> load_session(const std::filesystem::path& path) { return load_file(path, nullptr); }

std::vector<Message> load_session_from_stream(std::istream& in) { return load_stream(in, nullptr); }

NumberedSession load_numbered_session(const std::filesystem::path& path, MissingFile missing) {
  NumberedSession session;
  session.messages = load_file(path, &session.lines, missing);
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

MessageTooLong::MessageTooLong(std::size_t index, std::size_t batch_size, std::size_t bytes)
    : std::system_error(EFBIG, std::generic_category(),
                        "cannot append message " + std::to_string(index + 1) + " of " + std::to_string(batch_size) +
                            ": its canonical line is " + std::to_string(bytes) + " bytes, longer than " +
                            std::to_string(kMaxLineBytes) +
                            " bytes, the longest line this implementation loads; nothing was appended"),
      index_(index),
      bytes_(bytes) {}

namespace internal {

std::string loadable_lines(std::span<const Message> messages) {
  std::string lines;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const std::size_t start = lines.size();
    append_canonical_json(lines, messages[i]);
    if (lines.size() - start > kMaxLineBytes) throw MessageTooLong(i, messages.size(), lines.size() - start);
    lines.push_back('\n');
  }
  return lines;
}

}  // namespace internal

void append_session(const std::filesystem::path& path, const Message& message, const AppendOptions& options) {
  append_session(path, std::span<const Message>(&message, 1), options);
}

void append_session(const std::filesystem::path& path, std::span<const Message> messages,
                    const AppendOptions& options) {
  std::string lines = internal::loadable_lines(messages);  // may throw: the file is not touched yet
  const bool sync = options.sync == SyncPolicy::data;
  internal::LockedFile file = internal::LockedFile::for_append(path, sync);
  const std::string_view separator = separator_before_append(file);
  const std::uint64_t size_before = file.size();  // after any rollback the separator check finished
  if (!separator.empty()) lines.insert(0, separator);
  // One write for the whole batch: all or nothing.
  if (sync) {
    file.append_synced(std::move(lines), size_before);
  } else {
    file.append(lines);
  }
}

}  // namespace agent_session
