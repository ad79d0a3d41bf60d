#include "agent_session/session_object.hpp"

#include "agent_session/context.hpp"
#include "entry/implementation.hpp"
#include "entry/load.hpp"
#include "library/loadable_lines.hpp"
#include "reference/units.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
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

// Room for one more element, growing geometrically (reserving exactly one
// more would copy the history on every append).
template <class T>
void reserve_one_more(std::vector<T>& elements) {
  if (elements.size() < elements.capacity()) return;
  elements.reserve(std::max<std::size_t>(16, 2 * elements.capacity()));
}

// An id in latest_declarer_ that no recorded assistant declares: its
// append reserved the key and then failed.
constexpr std::size_t kUndeclared = std::numeric_limits<std::size_t>::max();

}  // namespace

std::span<const Message> Session::Context::messages() const {
  if (session_->identity_ != identity_) {
    throw std::logic_error("Session::Context used after its session was moved from or assigned to");
  }
  return session_->messages().subspan(offset_, size_);
}

Session::Session() noexcept : identity_(fresh_identity()) {}

Session::Session(std::optional<std::filesystem::path> path, AppendOptions options, std::vector<Message> messages)
    : path_(std::move(path)),
      options_(options),
      messages_(std::move(messages)),
      loaded_(messages_.size()),
      identity_(fresh_identity()) {
  declarers_.reserve(messages_.size());
  for (const Message& message : messages_) {
    reserve_index(message);
    index_appended(message);
  }
  chars_ = estimate_context_chars(messages_);
}

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
      declarers_(std::move(other.declarers_)),
      latest_declarer_(std::move(other.latest_declarer_)),
      chars_(other.chars_),
      identity_(other.identity_) {
  other.become_empty();
}

Session& Session::operator=(Session&& other) noexcept {
  if (this == &other) return *this;
  path_ = std::move(other.path_);
  options_ = other.options_;
  messages_ = std::move(other.messages_);
  loaded_ = other.loaded_;
  declarers_ = std::move(other.declarers_);
  latest_declarer_ = std::move(other.latest_declarer_);
  chars_ = other.chars_;
  identity_ = other.identity_;  // this session's own Contexts now fail their check
  other.become_empty();
  return *this;
}

void Session::become_empty() noexcept {
  path_.reset();
  options_ = {};
  messages_ = std::vector<Message>();
  loaded_ = 0;
  declarers_ = std::vector<std::optional<std::size_t>>();  // `= {}` would keep the capacity
  latest_declarer_ = std::unordered_map<std::string, std::size_t>();
  chars_ = 0;
  identity_ = fresh_identity();
}

std::vector<Message> Session::release() && noexcept {
  std::vector<Message> messages = std::move(messages_);
  become_empty();
  return messages;
}

// declaring_assistants' forward pass (context.cpp), one message at a time.
void Session::reserve_index(const Message& message) {
  reserve_one_more(declarers_);
  if (const auto* assistant = std::get_if<AssistantMessage>(&message)) {
    // A key the append then fails to declare stays kUndeclared: a later
    // result with that id finds no declaring assistant, as without it.
    for (const ToolCall& call : assistant->tool_calls) latest_declarer_.try_emplace(call.id, kUndeclared);
  }
}

void Session::index_appended(const Message& message) noexcept {
  const std::size_t index = declarers_.size();
  std::optional<std::size_t> declarer;
  if (const auto* assistant = std::get_if<AssistantMessage>(&message)) {
    for (const ToolCall& call : assistant->tool_calls) latest_declarer_.find(call.id)->second = index;
    reference::work_counters().declarer_steps += assistant->tool_calls.size();
  } else if (const auto* result = std::get_if<ToolResultMessage>(&message)) {
    const auto found = latest_declarer_.find(result->tool_call_id);
    if (found != latest_declarer_.end() && found->second != kUndeclared) declarer = found->second;
    ++reference::work_counters().declarer_steps;
  }
  declarers_.push_back(declarer);  // cannot throw: room reserved
}

void Session::append(Message message) {
  // May throw std::bad_alloc: nothing is written yet.
  reserve_one_more(messages_);
  reserve_index(message);
  std::uint64_t chars = 0;
  try {
    chars = estimate_context_chars(std::span<const Message>(&message, 1));
  } catch (const ContextError&) {
    // It cannot be serialized: the write below refuses it, and says so
    // in its own terms (SerializationError).
  }
  if (path_) {
    append_session(*path_, message, options_);
  } else {
    (void)library::loadable_lines(std::span<const Message>(&message, 1));  // refuse what a file would refuse
  }
  index_appended(message);
  messages_.push_back(std::move(message));  // cannot throw: room reserved, move is noexcept
  chars_ += chars;
}

Session::Context Session::context(std::uint64_t max_chars) const {
  // Everything fits: the packing would keep every unit (SPEC.md §5.2), so
  // nothing is walked, and a budget the history has not outgrown costs
  // nothing per request.
  if (!messages_.empty() && chars_ <= max_chars) return Context(*this, 0, messages_.size());
  const std::span<const Message> kept = entry::chosen.trim_context_given_declarers(messages(), declarers_, max_chars);
  return Context(*this, messages_.size() - kept.size(), kept.size());
}

}  // namespace agent_session
