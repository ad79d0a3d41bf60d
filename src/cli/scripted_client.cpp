#include "cli/scripted_client.hpp"

#include "agent_session/session.hpp"
#include "base/printable.hpp"
#include "entry/load.hpp"

#include <algorithm>
#include <string>
#include <system_error>
#include <utility>
#include <variant>

namespace agent_session::cli {

std::vector<AssistantMessage> load_script(const std::filesystem::path& path) {
  // A script is read by the session loader: the same lines, limits and
  // errors, only worded for a script. But a missing script is an error,
  // never an empty one.
  entry::NumberedSession script;
  try {
    script = entry::load_numbered_session(path, entry::MissingFile::error);
  } catch (const SessionError& error) {
    // "invalid session JSON at line N: detail" becomes "script 'P' line N: not JSON: detail".
    throw ScriptError("script " + base::quoted(path.string()) + " line " + std::to_string(error.line()) + ": " +
                      (error.kind() == SessionErrorKind::invalid_json ? "not JSON" : "not a message") +
                      (error.detail().empty() ? "" : ": " + error.detail()));
  } catch (const std::system_error& error) {
    throw std::system_error(error.code(), "cannot read script " + base::quoted(path.string()));
  }
  std::vector<AssistantMessage> replies;
  for (std::size_t i = 0; i < script.messages.size(); ++i) {
    auto* reply = std::get_if<AssistantMessage>(&script.messages[i]);
    if (reply == nullptr) {
      throw ScriptError("script " + base::quoted(path.string()) + " line " + std::to_string(script.lines[i]) + ": a " +
                        role_of(script.messages[i]) +
                        " message, not an assistant message (a script holds only the model's replies)");
    }
    replies.push_back(std::move(*reply));
  }
  return replies;
}

ScriptedClient::ScriptedClient(std::vector<AssistantMessage> replies, std::size_t next)
    : replies_(std::move(replies)), next_(next) {}

AssistantMessage ScriptedClient::next_message(std::span<const Message>, std::span<const ToolSpec>) {
  if (next_ >= replies_.size()) {
    throw ScriptError("script has no reply left: it holds " + std::to_string(replies_.size()) + " replies and reply " +
                      std::to_string(next_ + 1) + " was requested");
  }
  return replies_[next_++];
}

std::size_t count_assistant_messages(std::span<const Message> messages) noexcept {
  return static_cast<std::size_t>(std::count_if(messages.begin(), messages.end(), [](const Message& message) {
    return std::holds_alternative<AssistantMessage>(message);
  }));
}

}  // namespace agent_session::cli
