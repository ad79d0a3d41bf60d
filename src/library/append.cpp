#include "agent_session/append.hpp"

#include "agent_session/session.hpp"
#include "entry/line_reader.hpp"
#include "entry/load.hpp"
#include "library/loadable_lines.hpp"
#include "library/pending_sync.hpp"
#include "library/posix_file.hpp"
#include "reference/load.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

namespace agent_session {
namespace library {
namespace {

// The torn-tail guard of append_session: returns what must precede the
// batch (a `\n` after a valid unterminated last line), or throws the
// SessionError load_session would throw for a torn one. A pending-sync
// mark (library/pending_sync.hpp) is no torn line: it is the rollback a
// failed synced append could not finish, so it is finished first, and a
// retry of that append writes its batch once (SPEC.md §8).
std::string_view separator_before_append(LockedFile& file) {
  if (file.size() == 0 || file.last_byte() == '\n') return {};
  const std::string bytes = file.read_all();  // rare: only after a crash, a hand edit or a failed rollback
  if (const auto cut = pending_sync_cut(bytes)) {
    file.cut(*cut, "finishing the rollback of an earlier synced append that failed");
    return separator_before_append(file);
  }
  const entry::LinePosition torn = entry::last_line(bytes);  // as the loader numbers it
  try {
    (void)reference::parse_session_line(torn.text, torn.number);
  } catch (const SessionError& error) {
    throw SessionError(error.kind(), torn.number, entry::with_torn_tail_hint(error, "; nothing was appended"));
  }
  return "\n";
}

}  // namespace
}  // namespace library

MessageTooLong::MessageTooLong(std::size_t index, std::size_t batch_size, std::size_t bytes)
    : std::system_error(EFBIG, std::generic_category(),
                        "cannot append message " + std::to_string(index + 1) + " of " + std::to_string(batch_size) +
                            ": its canonical line is " + std::to_string(bytes) + " bytes, longer than " +
                            std::to_string(kMaxLineBytes) +
                            " bytes, the longest line this implementation loads; nothing was appended"),
      index_(index),
      bytes_(bytes) {}

void append_session(const std::filesystem::path& path, const Message& message, const AppendOptions& options) {
  append_session(path, std::span<const Message>(&message, 1), options);
}

void append_session(const std::filesystem::path& path, std::span<const Message> messages,
                    const AppendOptions& options) {
  std::string lines = library::loadable_lines(messages);  // may throw: the file is not touched yet
  const bool sync = options.sync == SyncPolicy::data;
  library::LockedFile file = library::LockedFile::for_append(path, sync);
  const std::string_view separator = library::separator_before_append(file);
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
