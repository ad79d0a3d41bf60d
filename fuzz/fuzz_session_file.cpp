// Arbitrary bytes as a session file on disk: the file side of the load
// contract (SPEC.md §2), with the repair module beside it. Never a crash, a
// leak or undefined behaviour, and
//   - diagnose_session_bytes (the repair module) tells the in-memory load's
//     story: valid with as many messages, or the same line, error text and
//     offset, a torn tail exactly when the bad line is unterminated;
//   - the bytes stored in a file load (load_session) and diagnose
//     (diagnose_session) with the same answer as from memory;
//   - appending to that file never welds onto a torn last line and leaves
//     the file as it was when it refuses; repair_session cuts exactly a
//     torn tail, after an exact backup; append_session of the loaded
//     messages writes a file that loads back to them; a directory is
//     EISDIR, to read or to append to.
// The in-memory contract alone, at parser speed, is fuzz_load_session's.
// Any other exception escapes and libFuzzer reports it.
#include "agent_session/append.hpp"
#include "agent_session/repair.hpp"
#include "agent_session/session.hpp"

#include "base/printable.hpp"
#include "fuzz_support.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>
#include <vector>

namespace agent_session::fuzz {
namespace {

// A scratch directory for this process, removed at exit. On tmpfs when
// there is one: repair and SyncPolicy::data fsync, which costs nothing
// there and milliseconds on a disk. The removal is registered after the
// path is built, so it runs before the path dies.
const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::error_code no_shm;
    const std::filesystem::path parent =
        std::filesystem::is_directory("/dev/shm", no_shm) ? "/dev/shm" : std::filesystem::temp_directory_path();
    std::string name = (parent / "agent-session-fuzz-XXXXXX").string();
    FUZZ_CHECK(mkdtemp(name.data()) != nullptr, "cannot create a scratch directory");
    return std::filesystem::path(name);
  }();
  static const int registered = std::atexit([] {
    std::error_code ignored;  // nothing to report at exit
    std::filesystem::remove_all(scratch_dir(), ignored);
  });
  (void)registered;
  return dir;
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The file holding `bytes`, freshly written.
std::filesystem::path stored(std::string_view bytes, const char* name) {
  const std::filesystem::path file = scratch_dir() / name;
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return file;
}

// The repair module's diagnosis agrees with the loader; `error` is null
// when the bytes loaded.
void check_diagnosis(const SessionDiagnosis& found, std::string_view bytes, std::size_t messages,
                     const SessionError* error) {
  FUZZ_CHECK(found.size == bytes.size(), "diagnosis size");
  FUZZ_CHECK(found.messages == messages, "diagnosis counts " + std::to_string(found.messages) + " messages");
  if (error == nullptr) {
    FUZZ_CHECK(found.health == SessionHealth::valid && found.line == 0 && found.offset == 0 && found.error.empty(),
               "a loadable session diagnosed as broken");
    FUZZ_CHECK(found.missing_final_newline == (!bytes.empty() && bytes.back() != '\n'), "missing_final_newline");
    return;
  }
  const auto lines = split_lines(bytes);
  const std::string_view bad = lines[error->line() - 1];
  const auto offset = static_cast<std::size_t>(bad.data() - bytes.data());
  FUZZ_CHECK(found.line == error->line() && found.error == error->what() && found.offset == offset,
             "diagnosis names another line: " + found.error);
  const bool unterminated = offset + bad.size() == bytes.size();
  FUZZ_CHECK(found.health == (unterminated ? SessionHealth::torn_tail : SessionHealth::corrupt), "diagnosis health");
  FUZZ_CHECK(!found.missing_final_newline, "missing_final_newline on a broken session");
  // Safe for a terminal, as every untrusted text is shown (printable.hpp):
  // nothing but characters a terminal may see raw.
  bool printable = true;
  for (std::size_t i = 0; i < found.excerpt.size() && printable;) {
    const std::size_t n = base::printable_length(found.excerpt, i);
    printable = n > 0;
    i += n;
  }
  FUZZ_CHECK(printable, "excerpt is not terminal-safe: " + escaped(found.excerpt));
}

// Every I/O error keeps its own errno (session.hpp): a directory is no
// session, to read or to append to.
void check_io_errors() {
  for (const bool append : {false, true}) {
    try {
      if (append) {
        append_session(scratch_dir(), UserMessage{"x"});
      } else {
        load_session(scratch_dir());
      }
      FUZZ_CHECK(false, "a directory used as a session");
    } catch (const std::system_error& error) {
      FUZZ_CHECK(error.code() == std::errc::is_a_directory, std::string("not EISDIR: ") + error.what());
    }
  }
}

// append_session writes what loads back: one message (synced, into a new
// file), then the rest at once.
void check_append_round_trip(const std::vector<Message>& messages) {
  const std::filesystem::path file = scratch_dir() / "appended.jsonl";
  std::filesystem::remove(file);
  FUZZ_CHECK(load_session(file).empty(), "a missing file is an empty session");
  if (messages.empty()) return;
  append_session(file, messages.front(), AppendOptions{SyncPolicy::data});
  append_session(file, std::span<const Message>(messages).subspan(1));
  FUZZ_CHECK(load_session(file) == messages, "appended messages load otherwise");
  check_io_errors();
}

// Appending to a file holding `bytes` (session.hpp): never welded onto an
// unterminated last line. If that line is a message, a `\n` comes first;
// if not, SessionError for it, as loading would say, and the file is as it
// was. A file ending in `\n` (or empty) just grows by the line.
void check_append_to_existing(std::string_view bytes) {
  const std::filesystem::path file = stored(bytes, "existing.jsonl");
  const Message appended = UserMessage{"appended"};
  const std::string line = to_canonical_json(appended) + "\n";
  const std::size_t last_newline = bytes.rfind('\n');
  const std::string_view last = bytes.substr(last_newline == std::string_view::npos ? 0 : last_newline + 1);
  std::optional<SessionError> last_error;
  if (!last.empty()) {
    try {
      load_session_from_memory(last);
    } catch (const SessionError& error) {
      last_error = error;
    }
  }
  try {
    append_session(file, appended, AppendOptions{SyncPolicy::data});
    FUZZ_CHECK(!last_error, "appended after a torn last line");
    FUZZ_CHECK(read_file(file) == std::string(bytes) + (last.empty() ? "" : "\n") + line, "append wrote other bytes");
  } catch (const SessionError& error) {
    const std::size_t last_line = split_lines(bytes).size();
    FUZZ_CHECK(last_error && error.kind() == last_error->kind() && error.line() == last_line,
               "append refused for another reason: " + std::string(error.what()));
    FUZZ_CHECK(read_file(file) == bytes, "a refused append changed the file");
  }
}

// repair_session cuts a torn tail off, after a backup of the exact bytes,
// and touches nothing else.
void check_repair(std::string_view bytes, const SessionDiagnosis& found) {
  const std::filesystem::path file = stored(bytes, "repaired.jsonl");
  const RepairResult result = repair_session(file);
  FUZZ_CHECK(result.diagnosis.health == found.health && result.diagnosis.offset == found.offset, "repair diagnosis");
  if (found.health != SessionHealth::torn_tail) {
    FUZZ_CHECK(!result.repaired && !result.backup && read_file(file) == bytes, "repair changed a file it must not");
    return;
  }
  FUZZ_CHECK(result.repaired && result.backup && read_file(*result.backup) == bytes, "no exact backup");
  std::filesystem::remove(*result.backup);
  FUZZ_CHECK(read_file(file) == bytes.substr(0, found.offset), "repair cut elsewhere");
  FUZZ_CHECK(load_session(file).size() == found.messages, "the repaired file does not load its whole lines");
}

// The file side of the same contract: load_session(path) and
// diagnose_session(path) answer as their in-memory forms did, and appending
// and repairing behave as promised.
void check_file_agrees(std::string_view bytes, const std::vector<Message>* messages, const SessionError* error) {
  const std::filesystem::path file = stored(bytes, "input.jsonl");
  const SessionDiagnosis from_file = diagnose_session(file);
  const SessionDiagnosis from_bytes = diagnose_session_bytes(bytes);
  FUZZ_CHECK(from_file.health == from_bytes.health && from_file.error == from_bytes.error &&
                 from_file.excerpt == from_bytes.excerpt && from_file.offset == from_bytes.offset,
             "diagnose_session disagrees with diagnose_session_bytes");
  try {
    const std::vector<Message> loaded = load_session(file);
    FUZZ_CHECK(messages != nullptr && loaded == *messages, "the file loads otherwise than the bytes");
  } catch (const SessionError& from_file) {
    // Same kind and line; from a file, a torn last line's detail may go on
    // with a hint to repair it (session.hpp), so compare the start only.
    FUZZ_CHECK(error != nullptr && from_file.kind() == error->kind() && from_file.line() == error->line() &&
                   std::string_view(from_file.what()).starts_with(error->what()),
               "the file fails otherwise than the bytes: " + std::string(from_file.what()));
  }
  check_append_to_existing(bytes);
  check_repair(bytes, from_bytes);
}

}  // namespace
}  // namespace agent_session::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agent_session;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto loaded = fuzz::load_from_memory(bytes);
  const auto* messages = std::get_if<std::vector<Message>>(&loaded);
  const auto* error = std::get_if<SessionError>(&loaded);
  std::size_t loaded_messages = messages ? messages->size() : 0;
  if (error) {
    // The first bad line stops the load: the lines before it load.
    const std::string_view bad = fuzz::split_lines(bytes).at(error->line() - 1);
    loaded_messages =
        load_session_from_memory(bytes.substr(0, static_cast<std::size_t>(bad.data() - bytes.data()))).size();
  }
  fuzz::check_diagnosis(diagnose_session_bytes(bytes), bytes, loaded_messages, error);
  fuzz::check_file_agrees(bytes, messages, error);
  if (messages) fuzz::check_append_round_trip(*messages);
  return 0;
}
