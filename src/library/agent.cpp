#include "agent_session/agent.hpp"

#include "reference/json_teardown.hpp"

#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "agent_session/session_object.hpp"

#include "base/utf8.hpp"

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

namespace agent_session {
namespace {

// U+FFFD REPLACEMENT CHARACTER, in UTF-8.
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// `text` with each byte that does not start a valid UTF-8 sequence replaced
// by U+FFFD: a tool's bytes come from anywhere (a binary file, an errno
// text), but the record must stay serializable (SPEC.md §2.1).
std::string valid_utf8(std::string text) {
  std::string_view rest = text;
  std::size_t valid = base::valid_utf8_prefix(rest);
  if (valid == rest.size()) return text;  // the common case: no copy
  std::string out;
  out.reserve(text.size() + 8);
  while (true) {
    out.append(rest.substr(0, valid));
    if (valid == rest.size()) return out;
    out.append(kReplacement);
    rest.remove_prefix(valid + 1);
    valid = base::valid_utf8_prefix(rest);
  }
}

std::vector<ToolSpec> tool_specs(const std::map<std::string, Tool>& tools) {
  std::vector<ToolSpec> specs;
  specs.reserve(tools.size());
  for (const auto& [name, tool] : tools) specs.push_back({name, tool.description});
  return specs;
}

// One tool call's result. The loop never ends on a tool: whatever goes
// wrong becomes an error result the model can read.
ToolResultMessage dispatch(const ToolCall& call, const std::map<std::string, Tool>& tools) {
  const auto found = tools.find(call.name);
  if (found == tools.end() || !found->second.run) {
    return {valid_utf8("unknown tool: " + call.name), call.id, true};
  }
  // The tree goes without allocating (json_teardown.hpp): this may be
  // how the process learns it is out of memory.
  Json input = call.input.value();
  const reference::TornDownOnExit torn_down(input);
  try {
    return {valid_utf8(found->second.run(input)), call.id, false};
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is this process's failure, not a result the model should read
  } catch (const std::exception& error) {
    return {valid_utf8(error.what()), call.id, true};
  } catch (...) {
    return {valid_utf8("tool " + call.name + " failed with an exception that is not a std::exception"), call.id, true};
  }
}

// The stored history's estimate is the session's own (a sum per message,
// kept as it grows, SPEC.md §4), so a report costs what the request sends,
// not a walk over the whole history on every request.
void report_request(const AgentOptions& options, std::size_t request, const Session& session,
                    std::span<const Message> sent) {
  if (!options.on_request) return;
  const std::uint64_t stored_chars = session.estimated_chars();
  const std::uint64_t sent_chars = sent.size() == session.size() ? stored_chars : estimate_context_chars(sent);
  options.on_request({request, session.size(), stored_chars, sent.size(), sent_chars});
}

}  // namespace

AgentResult run_agent(const AgentOptions& options) {
  if (options.max_turns == 0) throw std::invalid_argument("run_agent: max_turns must be at least 1");
  // The full record: the session file first, then memory (Session::append),
  // so memory never holds a message the file lacks.
  Session session = options.session_path ? Session::open(*options.session_path, options.append) : Session();
  if (options.prompt) {
    session.append(UserMessage{*options.prompt});
  } else if (!awaits_reply(session.messages())) {
    throw std::invalid_argument(
        "run_agent: no prompt, and the session's last message awaits no reply (it is empty or ends in an "
        "assistant message): give a prompt");
  }
  const std::vector<ToolSpec> specs = tool_specs(options.tools);

  AgentResult result;
  result.stop_reason = StopReason::max_turns;
  while (result.requests < options.max_turns) {
    // The two states meet here: the record stays whole, the client gets the
    // budgeted context.
    const Session::Context sent =
        options.context_max_chars ? session.context(*options.context_max_chars) : session.context();
    ++result.requests;
    report_request(options, result.requests, session, sent.messages());
    AssistantMessage reply = options.client.next_message(sent.messages(), specs);

    const bool answered = reply.tool_calls.empty();
    const std::vector<ToolCall> calls = reply.tool_calls;  // the record takes the reply
    session.append(std::move(reply));
    if (answered) {
      result.stop_reason = StopReason::completed;
      break;
    }
    for (const ToolCall& call : calls) session.append(dispatch(call, options.tools));
  }
  result.loaded = session.loaded();
  result.messages = std::move(session).release();
  return result;
}

bool awaits_reply(std::span<const Message> messages) noexcept {
  return !messages.empty() && !std::holds_alternative<AssistantMessage>(messages.back());
}

}  // namespace agent_session
