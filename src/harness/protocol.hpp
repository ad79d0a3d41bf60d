// What both sides of the harness protocol (corpus/conformance/harness.md)
// share: what a port says of itself in its `start` answer, and how large a
// run's standard input may be. The port's side is server.hpp (used by
// `agent-session harness` and the kit's exec-adapter), the runner's side
// conform/runner/harness_client.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace agent_session::harness {

// What the port said of itself in its start response.
struct HarnessPort {
  std::string name, version, language;
  std::vector<std::string> commands;
};

// A vector's files are at most this large: the biggest in the corpus is
// 70 KB, and every job holds its vector's input in memory. A run request
// carries at most one of them as its standard input.
inline constexpr std::size_t kMaxVectorFile = std::size_t{64} << 20;

}  // namespace agent_session::harness
