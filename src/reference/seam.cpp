#include "reference/seam.hpp"

#include "reference/reference.hpp"
#if AGENT_SESSION_FAST
#include "fast/fast_path.hpp"
#endif

namespace agent_session::seam {

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

std::span<const Message> trim_context_given_declarers(std::span<const Message> messages,
                                                      std::span<const std::optional<std::size_t>> declarers,
                                                      std::uint64_t max_chars) {
  return chosen::trim_context_given_declarers(messages, declarers, max_chars);
}

std::unique_ptr<internal::LineParser> make_line_parser() { return chosen::make_line_parser(); }

}  // namespace agent_session::seam
