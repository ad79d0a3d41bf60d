#include "agent_session/session_object.hpp"

#include "internal/loader.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace agent_session {
namespace {

// append pushes after the file is written, so that push must not throw:
// the room is reserved first, and moving a Message into it must not throw.
static_assert(std::is_nothrow_move_constructible_v<Message>);

std::uint64_t fresh_identity() noexcept {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// Room for one more message, growing geometrically (reserving exactly one
// more would copy the history on every append).
void reserve_one_more(std::vector<Message>& messages) {
  if (messages.size() < messages.capacity()) return;
  messages.reserve(std::max<std::size_t>(16, 2 * messages.capacity()));
}

}  // namespace

std::span<const Message> Session::Context::messages() const {
  if (session_->identity_ != identity_) {
    throw std::logic_error("Session::Context used after its session was moved from or assigned to");
  }
  return session_->messages().subspan(offset_, size_);
}

Session::Session() noexcept : identity_(fresh_identity()) {}

Session::Session(std::optional<std::filesystem::path> path, AppendOptions options,
                 std::vector<Message> messages) noexcept
    : path_(std::move(path)),
      options_(options),
      messages_(std::move(messages)),
      loaded_(messages_.size()),
      identity_(fresh_identity()) {}

Session Session::open(const std::filesystem::path& path, const AppendOptions& options) {
  return Session(path, options, load_session(path));
}

Session Session::in_memory(std::vector<Message> messages) {
  for (std::size_t i = 0; i < messages.size(); ++i) {
    try {
      (void)to_canonical_json(messages[i]);
    } catch (const SerializationError& error) {
      throw SerializationError("message " + std::to_string(i) + " cannot be serialized: " + error.what());
    }
  }
  return Session(std::nullopt, {}, std::move(messages));
}

Session::Session(Session&& other) noexcept
    : path_(std::move(other.path_)),
      options_(other.options_),
      messages_(std::move(other.messages_)),
      loaded_(other.loaded_),
      identity_(other.identity_) {
  other.become_empty();
}

Session& Session::operator=(Session&& other) noexcept {
  if (this == &other) return *this;
  path_ = std::move(other.path_);
  options_ = other.options_;
  messages_ = std::move(other.messages_);
  loaded_ = other.loaded_;
  identity_ = other.identity_;  // this session's own Contexts now fail their check
  other.become_empty();
  return *this;
}

void Session::become_empty() noexcept {
  path_.reset();
  options_ = {};
  messages_ = std::vector<Message>();
  loaded_ = 0;
  identity_ = fresh_identity();
}

std::vector<Message> Session::release() && noexcept {
  std::vector<Message> messages = std::move(messages_);
  become_empty();
  return messages;
}

void Session::append(Message message) {
  reserve_one_more(messages_);  // may throw std::bad_alloc: nothing is written yet
  if (path_) {
    append_session(*path_, message, options_);
  } else {
    (void)internal::loadable_lines(std::span<const Message>(&message, 1));  // refuse what a file would refuse
  }
  messages_.push_back(std::move(message));  // cannot throw: room reserved, move is noexcept
}

Session::Context Session::context(std::uint64_t max_chars) const {
  const std::span<const Message> kept = trim_context(messages(), max_chars);
  return Context(*this, messages_.size() - kept.size(), kept.size());
}

}  // namespace agent_session
