// The agent loop's session boundary: where the full record (memory and the
// session file) meets the trimmed context sent to the model.
//
// Spec: SPEC.md §9 (this library's agent loop). The two states
// run their own pipes: every message is recorded whole (memory, and the
// session file when there is one), and only the copy handed to the model
// is trimmed to the character budget.
//
// Example:
//   namespace as = agent_session;
//   as::ModelClient& model = my_model;   // your model: any as::ModelClient
//   std::map<std::string, as::Tool> tools;
//   tools["echo"] = {"returns input.text", [](const as::Json& in) { return in.at("text").get<std::string>(); }};
//   as::AgentResult result = as::run_agent({.prompt = "hello",
//                                           .client = model,
//                                           .tools = tools,
//                                           .session_path = "s.jsonl",
//                                           .context_max_chars = 20000});
//   // s.jsonl now ends with the prompt, each assistant message and each
//   // tool result of this run; result.stop_reason says why the loop ended.
#pragma once

#include "agent_session/append.hpp"
#include "agent_session/message.hpp"
#include "agent_session/session.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace agent_session {

// What the model is told about a tool it may call.
struct ToolSpec {
  std::string name;
  std::string description;

  friend bool operator==(const ToolSpec&, const ToolSpec&) = default;
};

// A tool: given a tool call's `input`, returns the result text (UTF-8), or
// fails by throwing (any exception; a std::exception's what() becomes the
// error text).
struct Tool {
  std::string description;
  std::function<std::string(const Json& input)> run;
};

// The model: given the context to send (already trimmed when there is a
// budget) and the tools it may call, returns the next assistant message.
// Both spans are valid only during the call: copy what must outlive it.
// A client may throw; the exception reaches run_agent's caller.
class ModelClient {
 public:
  virtual ~ModelClient() = default;
  virtual AssistantMessage next_message(std::span<const Message> context, std::span<const ToolSpec> tools) = 0;
};

// What run_agent knows just before one model request (for `--verbose`).
// Characters are the estimate of SPEC.md §4, in UTF-16 code units.
struct RequestReport {
  std::size_t request = 0;          // 1-based, within this run
  std::size_t stored_messages = 0;  // the full record (memory = disk)
  std::uint64_t stored_chars = 0;
  std::size_t sent_messages = 0;  // what the client receives
  std::uint64_t sent_chars = 0;
};

struct AgentOptions {
  // Recorded as a user message before the first request. Without one
  // (std::nullopt) the run resumes the session: its last message must
  // await the model's reply (awaits_reply: tool results left by a run
  // that stopped at max_turns, or a prompt recorded before a budget error).
  std::optional<std::string> prompt;
  ModelClient& client;
  // Callable by name; the model sees them as ToolSpecs in name order.
  std::map<std::string, Tool> tools = {};
  // With a path: the session is loaded first (a missing file is a new
  // session) and every message is appended to it as soon as it exists.
  // Without: memory only; nothing touches the disk.
  std::optional<std::filesystem::path> session_path = std::nullopt;
  // How each message reaches the session file (append.hpp, SPEC §8):
  // {.sync = SyncPolicy::data} makes every message durable before the loop
  // goes on. Ignored without a session_path.
  AppendOptions append = {};
  // With a budget (UTF-16 code units): the client receives
  // trim_context(messages, budget). Without: the full record.
  std::optional<std::uint64_t> context_max_chars = std::nullopt;
  // The most model requests this run may make; at least 1.
  std::size_t max_turns = 8;
  // Called before each request, when set.
  std::function<void(const RequestReport&)> on_request = nullptr;
};

// Why the loop ended.
enum class StopReason {
  // The last assistant message has no tool calls: it is the answer.
  completed,
  // `max_turns` requests were made and the last assistant message still
  // had tool calls. Their results are recorded, so the record is whole and
  // the next run continues from it, without a prompt (prompt =
  // std::nullopt); no reply to those results was requested.
  max_turns,
};

struct AgentResult {
  StopReason stop_reason = StopReason::completed;
  // Model requests made by this run (1..max_turns).
  std::size_t requests = 0;
  // The full record: the `loaded` messages from the session file, then
  // this run's, exactly what the file holds when there is one.
  std::vector<Message> messages;
  std::size_t loaded = 0;

  // This run's messages: the prompt, then each assistant message and its
  // tool results, in order.
  std::span<const Message> recorded() const { return std::span<const Message>(messages).subspan(loaded); }
};

// Runs the agent loop (SPEC.md §9):
//   1. messages = load_session(session_path), or empty without a path;
//   2. record the prompt as a user message (without a prompt: the last
//      message loaded must await a reply, awaits_reply);
//   3. up to max_turns times: send trim_context(messages, budget) (or all
//      of them) with the tool specs; record the assistant message; if it
//      has no tool calls, stop (completed); else run each tool call in
//      order and record one tool result per call, with its id.
// To record is Session::append (session_object.hpp): append to the session
// file (when there is one; one line per message, at once, so a crash after
// N records leaves N lines), then push to memory; what is sent is a
// Session::Context, which the appends that follow never invalidate.
//
// Tool calls never end the loop (but for std::bad_alloc): an unknown name gives the result
// `unknown tool: NAME` and a tool that throws gives its message, both with
// isError true. Bytes of a tool's text that are not valid UTF-8 are
// replaced by U+FFFD, so no tool can make the record unserializable.
//
// Throws, and appends nothing more once thrown:
//   std::invalid_argument   max_turns is 0 (before anything is read), or
//                           no prompt and the session awaits no reply
//                           (after loading, before anything is appended);
//   SessionError, std::system_error from loading or appending the session;
//   ContextError            the budget cannot hold the newest unit (the
//                           prompt is already recorded; the client is not
//                           called), or a message cannot be serialized;
//   SerializationError      a client's message cannot be serialized (it is
//                           not recorded, with or without a session path);
//   whatever the client throws;
//   std::bad_alloc          out of memory, also inside a tool: never
//                           recorded as the tool's result.
AgentResult run_agent(const AgentOptions& options);

// Whether the last message awaits the model's reply: it is a tool result
// or a user message (false for an empty history). A run without a prompt
// resumes only such a session (SPEC.md §9).
bool awaits_reply(std::span<const Message> messages) noexcept;

}  // namespace agent_session
