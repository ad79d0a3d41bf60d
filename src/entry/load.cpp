#include "entry/load.hpp"

#include "agent_session/session.hpp"
#include "entry/implementation.hpp"
#include "entry/read_file.hpp"
#include "reference/load.hpp"

#include <algorithm>
#include <cerrno>
#include <istream>
#include <system_error>
#include <utility>

namespace agent_session::entry {

// The detail for a failing last line with no trailing newline: the mark
// of a write cut short, which `agent-session repair` exists for.
std::string with_torn_tail_hint(const SessionError& error, std::string_view more) {
  std::string detail = error.detail();
  if (!detail.empty()) detail += "; ";
  detail += "the last line has no newline, as a write cut short leaves it: ";
  detail += "`agent-session repair FILE` shows it and `--apply` cuts it off";
  detail += more;
  return detail;
}

namespace {

// The line reader's lines as §2's loop takes them; the last one handed
// out is the one being parsed, with the bytes readable after it.
class ReadLines final : public reference::Lines {
 public:
  explicit ReadLines(LineReader& reader) : reader_(reader) {}
  std::optional<reference::Line> next() override {
    last_ = reader_.next();
    if (!last_) return std::nullopt;
    return reference::Line{last_->text, last_->number, last_->terminated};
  }
  std::size_t readable_after() const { return last_->readable_after; }

 private:
  LineReader& reader_;
  std::optional<LineReader::Line> last_;
};

}  // namespace

std::vector<Message> load_lines(LineParser& parser, LineReader::ReadSome read_some, bool from_file,
                                std::vector<std::size_t>* line_numbers, std::optional<std::uint64_t> size_hint) {
  LineReader reader(std::move(read_some), parser.read_ahead(), size_hint);
  ReadLines lines(reader);
  const auto parse = [&](const reference::Line& line) {
    try {
      return parser.parse(line.text, line.number, lines.readable_after());
    } catch (const SessionError& error) {
      // On standard input there is no file to repair.
      if (!from_file || line.terminated) throw;
      throw SessionError(error.kind(), line.number, with_torn_tail_hint(error));
    }
  };
  return reference::load_lines(lines, parse, line_numbers);
}

std::vector<Message> load_lines(LineReader::ReadSome read_some, bool from_file, std::vector<std::size_t>* line_numbers,
                                std::optional<std::uint64_t> size_hint) {
  const auto parser = entry::chosen.make_line_parser();
  return load_lines(*parser, std::move(read_some), from_file, line_numbers, size_hint);
}

namespace {

// The smallest first buffer of a file load: a file that grows after it is
// opened is still read in pieces of a useful size.
constexpr std::uint64_t kFilePiece = std::uint64_t{64} << 10;

std::vector<Message> load_file(const std::filesystem::path& path, std::vector<std::size_t>* lines,
                               MissingFile missing = MissingFile::empty_session) {
  std::optional<SharedReadFile> file = SharedReadFile::open_if_exists(path);
  if (!file && missing == MissingFile::error) {
    throw_errno(ENOENT, "cannot open session", path);
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

}  // namespace agent_session::entry

namespace agent_session {

// The public entry points of SPEC.md §2 (session.hpp).
std::vector<Message> load_session(const std::filesystem::path& path) {
  return entry::load_numbered_session(path).messages;
}

// A piece of `bytes` at a time, as from a file: one way through the loader.
std::vector<Message> load_session_from_memory(std::string_view bytes) {
  return entry::load_lines(entry::read_from(bytes), /*from_file=*/false, nullptr, bytes.size());
}

}  // namespace agent_session
