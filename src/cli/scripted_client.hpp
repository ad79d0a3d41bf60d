// The demo's model (`agent-session run`): a script of replies played back,
// one per request, for demos and tests of the agent loop (SPEC.md §9)
// without a real model.
#pragma once

#include "agent_session/agent.hpp"
#include "agent_session/message.hpp"

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <vector>

namespace agent_session::cli {

// A script of model replies that is not usable: a line that is not JSON or
// not an assistant message, or no reply left when one is requested.
class ScriptError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a script: a JSONL file whose every non-empty line is an assistant
// message in the session format (SPEC.md §1), e.g.
//   {"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"echo","input":{"text":"hi"}}]}
// Lines follow the session's rules (SPEC.md §2, §2.1): exactly empty lines
// are skipped; line numbers in errors are physical, 1-based.
// Throws std::system_error when the file cannot be read (a missing file
// included: a script is never implicitly empty), ScriptError for a line
// that is not an assistant message.
std::vector<AssistantMessage> load_script(const std::filesystem::path& path);

// A model that replays a script, for demos and tests: reply `next`, then
// the following ones. It ignores what it is sent.
//
// Resuming: a script is the model's side of a whole session, so the
// session's Nth assistant message is the script's Nth reply. To continue a
// session, start at the number of assistant messages it already holds
// (count_assistant_messages): a second run picks up where the first
// stopped, with no state kept anywhere but the session file.
class ScriptedClient : public ModelClient {
 public:
  explicit ScriptedClient(std::vector<AssistantMessage> replies, std::size_t next = 0);

  // Throws ScriptError when no reply is left.
  AssistantMessage next_message(std::span<const Message> context, std::span<const ToolSpec> tools) override;

  // Replies not yet given.
  std::size_t remaining() const noexcept { return next_ < replies_.size() ? replies_.size() - next_ : 0; }

 private:
  std::vector<AssistantMessage> replies_;
  std::size_t next_;
};

// How many assistant messages `messages` holds: the script position of a
// resumed session.
std::size_t count_assistant_messages(std::span<const Message> messages) noexcept;

}  // namespace agent_session::cli
