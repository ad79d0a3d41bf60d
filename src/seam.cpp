// The one seam between SPEC.md's reference algorithms and the optional
// fast path (src/fast/, built with AGENT_SESSION_FAST): the operations
// below are the only ones the fast path takes over. Each fast version is
// proven equal to its reference by differential tests and fuzz targets
// (tests/fast/, fuzz/), so whichever is built, the answers are the same.
#include "agent_session/context.hpp"
#include "internal/line_parser.hpp"
#include "internal/reference.hpp"
#include "internal/units.hpp"

#if AGENT_SESSION_FAST
#include "fast/fast_path.hpp"
#endif

namespace agent_session {

#if AGENT_SESSION_FAST
namespace chosen = fast;
#else
namespace chosen = reference;
#endif

std::uint64_t estimate_context_chars(std::span<const Message> messages) {
  return chosen::estimate_context_chars(messages);
}

std::span<const Message> trim_context(std::span<const Message> messages, std::uint64_t max_chars) {
  return chosen::trim_context(messages, max_chars);
}

namespace internal {

std::span<const Message> trim_context_given_declarers(std::span<const Message> messages,
                                                      std::span<const std::optional<std::size_t>> declarers,
                                                      std::uint64_t max_chars) {
  return chosen::trim_context_given_declarers(messages, declarers, max_chars);
}

std::unique_ptr<LineParser> make_line_parser() {
#if AGENT_SESSION_FAST
  return fast::make_line_parser();
#else
  return std::make_unique<JsonLineParser>();
#endif
}

}  // namespace internal
}  // namespace agent_session
