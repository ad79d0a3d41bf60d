// Messages that say who wrote them and prove they are whole, for the
// durability tests (durability_test.cpp, durability_rules_test.cpp): each
// follows from its (writer, seq) pair, so a reader can tell which writer
// made it and whether it reached the file byte for byte.
#pragma once

#include "agent_session/message.hpp"

#include <cstddef>
#include <string>

namespace agent_session::test_support {

// The padding of message `seq` from `writer`: its length and its bytes both
// follow from the pair, so a truncated or welded message cannot pass.
// Sizes: mostly a few bytes to ~100, and per writer one message of 1 MiB,
// one of 256 KiB and one just past 64 KiB (the pipe buffer), so large
// writes race with small ones.
inline std::size_t padding_size(int writer, int seq) {
  switch (seq) {
    case 1000: return std::size_t{1} << 20;
    case 5000: return std::size_t{256} << 10;
    case 9000: return (std::size_t{64} << 10) + 1;
    default: return static_cast<std::size_t>((writer * 31 + seq * 17) % 97);
  }
}

inline std::string content_of(int writer, int seq) {
  std::string content = "w" + std::to_string(writer) + ":" + std::to_string(seq) + ":";
  content.append(padding_size(writer, seq), static_cast<char>('a' + (writer + seq) % 26));
  return content;
}

inline Message message_of(int writer, int seq) {
  // Alternate roles so the three shapes all go through the writer.
  const std::string content = content_of(writer, seq);
  switch (seq % 3) {
    case 0: return UserMessage{content};
    case 1: return AssistantMessage{content, {ToolCall{"c" + std::to_string(seq), "t", Json{{"n", seq}}}}};
    default: return ToolResultMessage{content, "c" + std::to_string(seq - 1), seq % 2 == 0};
  }
}

}  // namespace agent_session::test_support
