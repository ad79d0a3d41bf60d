#pragma once

// Which of SPEC.md's rules one generated input puts to the test, read
// from the input itself: a rule is exercised when the input holds what
// the rule is about (an empty line for R2-6's numbering, a surrogate
// escape for R2.1-4, an orphan tool result for R5.1-5), whatever a port
// answers. The fuzzer's coverage (campaign_tally.hpp) adds these to the
// rules its checks name, so a campaign shows the rules its generator
// never reached. A tolerant scan of the bytes (the input may be any
// bytes) and the reference's load of them; no rule's verdict is decided
// here.

#include "agent_session/message.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::fuzz {

// The rule IDs of SPEC.md §1.1-§5 `bytes` exercises (`messages`: the
// reference's load of them, nullopt when it refused the file), each once,
// sorted.
std::vector<std::string> triggered_rules(std::string_view bytes, const std::optional<std::vector<Message>>& messages);

}  // namespace agent_session::conform::fuzz
