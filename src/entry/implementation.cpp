#include "entry/implementation.hpp"

#include "agent_session/context.hpp"
#include "reference/reference.hpp"
#if AGENT_SESSION_FAST
#include "fast/fast_path.hpp"
#endif

namespace agent_session {

namespace entry {

#if AGENT_SESSION_FAST
constinit const Implementation chosen{fast::estimate_context_chars, fast::trim_context,
                                      fast::trim_context_given_declarers, fast::make_line_parser};
#else
constinit const Implementation chosen{reference::estimate_context_chars, reference::trim_context,
                                      reference::trim_context_given_declarers, reference::make_line_parser};
#endif

}  // namespace entry

// The public entry points of SPEC.md §4 and §5 (context.hpp): the chosen
// implementation's.
std::uint64_t estimate_context_chars(std::span<const Message> messages) {
  return entry::chosen.estimate_context_chars(messages);
}

std::span<const Message> trim_context(std::span<const Message> messages, std::uint64_t max_chars) {
  return entry::chosen.trim_context(messages, max_chars);
}

}  // namespace agent_session
