// Explicit repair of a session file whose last line was cut short.
//
// Loading stays strict (a torn line refuses to load, SPEC.md §2), and nothing here changes that. A writer killed
// mid-append (a crash, SIGKILL, SIGXFSZ) can leave the file ending in part of a line: no trailing `\n` and not a valid
// message. These functions find that line and, only when asked, cut it off after backing the file up. Damage anywhere
// before the last line is reported, never "repaired": which records to believe there is a person's call.
// See SPEC.md §8.
//
// Example:
//   namespace as = agent_session;
//   as::SessionDiagnosis found = as::diagnose_session("s.jsonl");
//   if (found.health == as::SessionHealth::torn_tail) {
//     as::RepairResult done = as::repair_session("s.jsonl");
//     // done.backup == "s.jsonl.bak-20261130T023000Z", and
//     // load_session("s.jsonl") now returns the found.messages whole ones.
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace agent_session {

enum class SessionHealth {
  valid,      // load_session accepts every line
  torn_tail,  // only the last line fails, and it has no trailing `\n`
  corrupt,    // a line fails that a truncation cannot fix: a person must look
};

// What a session file holds, and where it breaks if it does.
struct SessionDiagnosis {
  SessionHealth health = SessionHealth::valid;
  // Bytes in the file.
  std::uint64_t size = 0;
  // Messages that load before the failing line (all of them when valid).
  std::size_t messages = 0;
  // The failing line: physical, 1-based (SPEC.md §2); 0 when valid.
  std::size_t line = 0;
  // Byte offset of the failing line's first byte (0 when valid). For a torn
  // tail this is the size the file is cut to.
  std::uint64_t offset = 0;
  // The failing line's start (and end, if long) as printable ASCII: other
  // bytes as `\xNN`, quotes and backslashes escaped. At most ~80 bytes.
  std::string excerpt;
  // load_session's error text for that line (`invalid session JSON at line
  // N: ...`); empty when valid.
  std::string error;
  // The failing line is the file's last non-empty line (for torn_tail,
  // always; for corrupt, a last line written whole, with its `\n`).
  bool last_line = false;
  // Valid, but the last line has no trailing `\n` (a hand edit, or a write
  // cut exactly before its newline). Nothing to repair: the next append
  // starts with a `\n`.
  bool missing_final_newline = false;
};

// Diagnoses a session from its raw bytes, by load_session_from_memory's
// rules (SPEC.md §2). Pure; never throws (except std::bad_alloc). An empty
// input is valid with 0 messages.
SessionDiagnosis diagnose_session_bytes(std::string_view bytes);

// Diagnoses the session file at `path` as diagnose_session_bytes does, read
// under a shared flock(2) (SPEC.md §8) so an append in progress is not
// mistaken for a torn line. Changes nothing.
// `path` must be a regular file: a FIFO or device throws (EINVAL) without
// blocking or reading.
// Throws std::system_error (ENOENT included: there is no file to diagnose).
SessionDiagnosis diagnose_session(const std::filesystem::path& path);

struct RepairResult {
  // What was found, before any change.
  SessionDiagnosis diagnosis;
  // True when the torn tail was cut off (only for SessionHealth::torn_tail).
  bool repaired = false;
  // The backup written before the cut: the file's exact bytes, mode 0600,
  // next to it as `<name>.bak-<UTC yyyymmddThhmmssZ>[-N]`.
  std::optional<std::filesystem::path> backup;
};

// Repairs a torn tail: under an exclusive flock(2), diagnoses the file and,
// when (and only when) the health is torn_tail, writes a backup copy of
// the whole file and then truncates the file at `diagnosis.offset`
// (fsynced), keeping every complete valid line. A valid or corrupt file is
// left untouched (repaired == false).
// The backup is written to `<backup>.tmp-<pid>`, fsynced, renamed to its
// final name (never replacing a file) and its directory fsynced, all
// before the cut: a backup under its final name is always complete.
// `path` must be a regular file, not a symbolic link (SPEC.md §8).
// Throws std::system_error. Thrown before the cut (open, lock, read,
// backup), the file is unchanged and no backup name exists; thrown by the
// cut's ftruncate, the file is unchanged and the backup exists; thrown by
// the cut's fsync, the file is cut but the cut may not be on disk yet,
// and what() says so and names the backup.
RepairResult repair_session(const std::filesystem::path& path);

}  // namespace agent_session
