#include "entry/implementation.hpp"

#include "agent_session/context.hpp"
#include "reference/load.hpp"
#include "reference/reference.hpp"
#if AGENT_SESSION_FAST
#include "fast/fast_path.hpp"
#endif

namespace agent_session {

namespace entry {
namespace {

class ReferenceLineParser final : public LineParser {
 public:
  Message parse(std::string_view line, std::size_t line_number, std::size_t) override {
    return reference::parse_session_line(line, line_number);
  }
  std::size_t read_ahead() const noexcept override { return 0; }
};

std::unique_ptr<LineParser> make_reference_line_parser() { return std::make_unique<ReferenceLineParser>(); }

#if AGENT_SESSION_FAST
class FastLineParser final : public LineParser {
 public:
  Message parse(std::string_view line, std::size_t line_number, std::size_t readable_after) override {
    return simd_.parse(line, line_number, readable_after);
  }
  std::size_t read_ahead() const noexcept override { return fast::kSimdPadding; }

 private:
  fast::SimdLineParser simd_;
};

std::unique_ptr<LineParser> make_fast_line_parser() { return std::make_unique<FastLineParser>(); }
#endif

}  // namespace

constinit const Implementation reference_path{reference::estimate_context_chars, reference::trim_context,
                                              reference::trim_context_given_declarers, make_reference_line_parser};
#if AGENT_SESSION_FAST
constinit const Implementation fast_path{fast::estimate_context_chars, fast::trim_context,
                                         fast::trim_context_given_declarers, make_fast_line_parser};
constinit const Implementation& chosen = fast_path;
#else
constinit const Implementation& chosen = reference_path;
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
