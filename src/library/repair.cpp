#include "agent_session/repair.hpp"

#include "base/printable.hpp"
#include "entry/line_reader.hpp"

#include "agent_session/session.hpp"
#include "base/utf8.hpp"
#include "library/pending_sync.hpp"
#include "library/posix_file.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <system_error>

#include <unistd.h>

namespace agent_session {
namespace {

// A short excerpt of a bad line, shown in double quotes: escaped as every
// untrusted text is (terminal_safe, base/printable.hpp), the start of the
// line and, for a long one, its end too (where a torn line stops), each
// cut between characters.
constexpr std::size_t kExcerptBytes = 80;
constexpr std::size_t kExcerptTailBytes = 16;

std::string excerpt_of(std::string_view line) {
  if (line.size() <= kExcerptBytes) return base::terminal_safe(line);
  const std::size_t head = base::character_boundary_before(line, kExcerptBytes - kExcerptTailBytes);
  std::size_t tail = line.size() - kExcerptTailBytes;
  while (tail < line.size() && (static_cast<unsigned char>(line[tail]) & 0xC0) == 0x80) ++tail;
  return base::terminal_safe(line.substr(0, head)) + " ... " + base::terminal_safe(line.substr(tail));
}

// `<name>.bak-20261130T023000Z`: sorts by time, names its origin.
std::string backup_suffix() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, ".bak-%Y%m%dT%H%M%SZ", &utc);
  return stamp;
}

constexpr int kBackupAttempts = 1000;
// ".bak-yyyymmddThhmmssZ" and "-999", the longest tail a backup name gets.
constexpr std::size_t kBackupTailBytes = 21 + 4;
// "~" and eight hex digits: what stands for the cut part of a long name.
constexpr std::size_t kHashBytes = 9;

// The longest file name the session's directory takes: NAME_MAX (255 on
// Linux's filesystems), or less where the filesystem says so.
std::size_t longest_name_in(const std::filesystem::path& dir) {
  const long longest = ::pathconf(dir.empty() ? "." : dir.c_str(), _PC_NAME_MAX);
  return longest > 0 ? static_cast<std::size_t>(longest) : 255;
}

// FNV-1a: a short, stable tag for the whole name, so that two long names
// that share their first bytes still get backup names of their own.
std::uint32_t name_hash(std::string_view name) {
  std::uint32_t hash = 2166136261u;
  for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return hash;
}

// The part of the backup name before `.bak-`: the session's own name when
// the whole backup name fits the directory's limit, else as many of its
// first bytes as fit (never half a UTF-8 character) and `~<hash>`. Every
// name `append` accepts can then be repaired (SPEC.md §8).
std::string backup_stem(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  const std::size_t longest = longest_name_in(path.parent_path());
  if (name.size() + kBackupTailBytes <= longest) return name;
  std::size_t keep = longest > kBackupTailBytes + kHashBytes ? longest - kBackupTailBytes - kHashBytes : 0;
  keep = base::character_boundary_before(name, std::min(keep, name.size()));
  char tag[16];
  std::snprintf(tag, sizeof tag, "~%08x", static_cast<unsigned>(name_hash(name)));
  return name.substr(0, keep) + tag;
}

std::filesystem::path write_backup(const std::filesystem::path& path, std::string_view bytes) {
  const std::filesystem::path base = path.parent_path() / (backup_stem(path) + backup_suffix());
  return library::write_new_file_synced(
      bytes,
      [&](int attempt) {
        return attempt == 0 ? base : std::filesystem::path(base.string() + "-" + std::to_string(attempt));
      },
      kBackupAttempts);
}

// A torn last line that is a pending-sync mark (library/pending_sync.hpp)
// of this boot ends a batch that was never acknowledged: the repair cuts
// the batch too, as the next append would, so that a retry of the failed
// append writes it once (SPEC.md §8). From another boot, the mark alone.
SessionDiagnosis with_pending_sync(std::string_view bytes, SessionDiagnosis found) {
  if (found.health != SessionHealth::torn_tail) return found;
  const auto cut = library::pending_sync_cut(bytes);
  if (!cut || *cut == found.offset) return found;
  // The cut may fall inside a line: the `\n` the batch put after a valid
  // unterminated last line is cut too, and that line stays, whole.
  const entry::LinePosition at = entry::line_at_offset(bytes, *cut);
  found.offset = static_cast<std::size_t>(*cut);
  found.messages = at.non_empty_before + (*cut > at.offset && !at.text.empty() ? 1 : 0);
  found.line = at.number;
  found.error += " (the pending-sync mark of an append that failed and could not roll back: its batch, from byte " +
                 std::to_string(found.offset) + ", was never acknowledged and is cut too)";
  return found;
}

}  // namespace

SessionDiagnosis diagnose_session_bytes(std::string_view bytes) {
  SessionDiagnosis found;
  found.size = bytes.size();
  try {
    found.messages = load_session_from_memory(bytes).size();
    found.missing_final_newline = !bytes.empty() && bytes.back() != '\n';
    return found;
  } catch (const SessionError& error) {
    found.line = error.line();
    found.error = error.what();
  }
  const entry::LinePosition bad = entry::line_numbered(bytes, found.line);
  found.offset = static_cast<std::size_t>(bad.offset);
  // Only an unterminated last line can be a write cut short; a bad line
  // with a newline after it was written whole, or damaged later.
  found.health = bad.terminated ? SessionHealth::corrupt : SessionHealth::torn_tail;
  found.last_line = bad.last;
  found.messages = bad.non_empty_before;
  found.excerpt = excerpt_of(bad.text);
  return found;
}

SessionDiagnosis diagnose_session(const std::filesystem::path& path) {
  const std::optional<std::string> bytes = entry::read_regular_file_if_exists(path);
  if (!bytes)
    throw std::system_error(ENOENT, std::generic_category(), "cannot repair session " + base::quoted(path.string()));
  return with_pending_sync(*bytes, diagnose_session_bytes(*bytes));
}

RepairResult repair_session(const std::filesystem::path& path) {
  // Exclusive for the whole diagnose-backup-cut: no append can slip a
  // line in between, and no append in progress looks torn.
  library::LockedFile file = library::LockedFile::for_repair(path);
  const std::string bytes = file.read_all();
  RepairResult result{with_pending_sync(bytes, diagnose_session_bytes(bytes)), false, std::nullopt};
  if (result.diagnosis.health != SessionHealth::torn_tail) return result;
  result.backup = write_backup(path, bytes);
  try {
    file.truncate_and_sync(result.diagnosis.offset);
  } catch (const std::system_error& error) {
    throw std::system_error(error.code(), std::string(error.what()) + " (the backup " + result.backup->string() +
                                              " holds the file as it was)");
  }
  result.repaired = true;
  return result;
}

}  // namespace agent_session
