// A session as one object, for agent runtimes: the loaded history and its
// file, grown only by `append`, and the trimmed context cut from it.
//
// Spec: SPEC.md §9 (record: append to the file, then push to memory),
// §2 (loading), §5 (trimming), §8 (appends), §9 (run_agent, which
// records through this class).
//
// Example:
//   namespace as = agent_session;                          // and #include <agent_session/agent.hpp>
//   as::ModelClient& model = my_model;                     // your model: any as::ModelClient
//   const std::vector<as::ToolSpec> tools = {{"read_file", "reads a file"}};
//   as::Session session = as::Session::open("s.jsonl");   // SPEC §2; missing = empty
//   session.append(as::UserMessage{"What is in README.md?"});  // disk, then memory
//   as::Session::Context sent = session.context(20000);   // the newest messages that fit
//   as::AssistantMessage reply = model.next_message(sent.messages(), tools);   // a span, taken for this call
//   session.append(reply);                                // `sent` still names the same messages
//
// Why a Context is positions, not a std::span: a history only grows (the
// file is append-only, and so is this object), so a message's index names
// the same message for the life of the session, while a pointer into the
// vector dies at the next reallocation. trim_context's span is valid only
// while its vector is unchanged, and a runtime appends between trimming and
// using what it sent (the reply, then its tool results) — the classic
// dangling view. A Context holds {session, offset, size} and derives its
// span from the session's vector on each call, so appending never
// invalidates it; only a span taken from it is short-lived (valid until the
// next append, as any span into a growing vector): take it fresh for each
// use and do not keep it. Copying the messages instead would cost what the
// context costs on every request; the positions cost nothing.
#pragma once

#include "agent_session/append.hpp"
#include "agent_session/context.hpp"
#include "agent_session/message.hpp"
#include "agent_session/session.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace agent_session {

// The full record of one session: what its file holds, in memory, kept
// equal to the file by growing both only through append (file first).
//
// Not copyable: two copies would each append to the same file while
// holding only their own appends in memory. Movable: the moved-from
// session is an empty in-memory session, and the Contexts taken from it
// throw (see Context). It does not see lines other writers add to the file
// after open (memory is never re-read; reopen to see them): an agent's
// session file has one writer, the process that opened it (SPEC §8's
// locking keeps other writers' lines whole, not this memory current).
// Like std::vector, one thread at a time (or the caller's lock).
class Session {
 public:
  // What the model is sent: messages [offset, offset + size) of the
  // session that made it, a suffix of the history as it was then. Cheap to
  // copy.
  //
  // Lifetime: valid as long as its session lives and is not moved from or
  // assigned to; appends do not invalidate it (it keeps naming the same
  // messages, no longer the newest). Enforced: messages() on a Context
  // whose session was moved from or assigned to throws std::logic_error
  // instead of naming other messages. Not enforceable without shared
  // ownership: a Context used after its Session is destroyed is a
  // dangling reference, as with any reference.
  class Context {
   public:
    // The messages, a span into the session's history: valid until the
    // next append to the session (or its move or destruction). Throws
    // std::logic_error when the session was moved from or assigned to.
    std::span<const Message> messages() const;
    // Index, in the session's history, of the first message of the context.
    std::size_t offset() const noexcept { return offset_; }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }

   private:
    friend class Session;
    Context(const Session& session, std::size_t offset, std::size_t size) noexcept
        : session_(&session), identity_(session.identity_), offset_(offset), size_(size) {}
    const Session* session_;
    std::uint64_t identity_;
    std::size_t offset_;
    std::size_t size_;
  };

  // An empty in-memory session: appends touch no file.
  Session() noexcept;

  // Opens the session stored at `path`: load_session(path) (SPEC §2; a
  // missing file is an empty session), and every later append goes to
  // that file with `options` (SyncPolicy: append.hpp). The file is not
  // created until the first append, nor held open between appends. A
  // symbolic link at `path` is loaded through, as load_session does, but
  // every append refuses it (ELOOP, SPEC §8): open the file's own path.
  // Throws what load_session throws: SessionError for a line that is not
  // a message, LineTooLong, std::system_error (EISDIR, EACCES, ...).
  static Session open(const std::filesystem::path& path, const AppendOptions& options = {});

  // An in-memory session that starts with `messages` (a history built by
  // the caller or loaded elsewhere). Throws SerializationError, naming the
  // message's index, when one cannot be serialized (what append refuses).
  static Session in_memory(std::vector<Message> messages = {});

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&& other) noexcept;
  Session& operator=(Session&& other) noexcept;
  ~Session() = default;

  // Records `message` (SPEC.md §9's record): appended to the file first
  // (append_session, with the options given to open), then to memory, so
  // memory never holds a message the file lacks. In memory only, the
  // message is serialized once to check it, so an in-memory session holds
  // only what a file could.
  // Strong guarantee: when it throws, memory is unchanged and so is the
  // file (append_session's promise; a failed first append may leave the
  // empty file it created). Throws what append_session throws:
  // SerializationError, SessionError (a torn last line written by someone
  // else), std::system_error (ELOOP: the path became a symbolic link;
  // EISDIR, ENOSPC, EFBIG, ...), std::bad_alloc. Costs what the message
  // costs (one write, no reload, one hash look-up per tool call or result
  // for the declarer index below), amortized over the vectors' growth.
  void append(Message message);

  // The whole history, oldest first: the loaded messages, then each
  // appended one. Valid until the next append, move or destruction.
  std::span<const Message> messages() const noexcept { return messages_; }
  std::size_t size() const noexcept { return messages_.size(); }
  // How many messages open (or in_memory) started with; messages() from
  // there on are this object's appends.
  std::size_t loaded() const noexcept { return loaded_; }
  // The file appends go to; nullopt in memory.
  const std::optional<std::filesystem::path>& path() const noexcept { return path_; }
  // estimate_context_chars(messages()) (SPEC.md §4), in UTF-16 code units,
  // kept as messages are appended: no walk over the history.
  std::uint64_t estimated_chars() const noexcept { return chars_; }

  // The newest messages that fit in `max_chars` UTF-16 code units, cut
  // between units: exactly the suffix trim_context(messages(), max_chars)
  // returns. Throws ContextError as trim_context does (empty_context for
  // an empty session, unit_exceeds_budget, unserializable_message). Costs
  // nothing when estimated_chars() is within the budget (it is all kept),
  // else what its packing reaches (SPEC.md §5.2: the kept messages and the unit
  // before them), in either build and whatever the history's shape (many
  // calls per turn, interleaved rounds, orphans, repeated ids), so with a
  // fixed budget not the history's length: the session knows each tool
  // result's declaring assistant since it was appended, where trim_context
  // on a bare span may search the whole history for it.
  Context context(std::uint64_t max_chars) const;
  // Without a budget: the whole history (empty for an empty session).
  Context context() const noexcept { return Context(*this, 0, messages_.size()); }

  // Takes the history out; leaves an empty in-memory session, as a move.
  std::vector<Message> release() && noexcept;

 private:
  Session(std::optional<std::filesystem::path> path, AppendOptions options, std::vector<Message> messages);
  void become_empty() noexcept;
  // The declarer index, in two steps so that append keeps its strong
  // guarantee: reserve_index allocates what indexing `message` needs (it
  // may throw, before anything is written); index_appended then cannot.
  void reserve_index(const Message& message);
  void index_appended(const Message& message) noexcept;

  std::optional<std::filesystem::path> path_;
  AppendOptions options_;
  std::vector<Message> messages_;
  std::size_t loaded_ = 0;
  // declaring_assistants(messages_) (SPEC.md §5.1: each tool result's
  // nearest earlier assistant declaring its id; nullopt otherwise), kept
  // as messages are appended, so context() never searches the history.
  std::vector<std::optional<std::size_t>> declarers_;
  // Each tool call id declared so far, and the latest assistant declaring
  // it: the declaring assistant of a result appended now, or a mark for
  // an id reserved by an append that failed.
  std::unordered_map<std::string, std::size_t> latest_declarer_;
  // estimated_chars(): when it is within the budget, context() keeps
  // everything without a walk.
  std::uint64_t chars_ = 0;
  // Distinct for every session object and renewed when one is emptied by
  // a move: what a Context checks to know its session still holds the
  // history it was cut from.
  std::uint64_t identity_;
};

}  // namespace agent_session
