#include "internal/pending_sync.hpp"

#include <charconv>
#include <fstream>

namespace agent_session::internal {
namespace {

// Unbalanced on purpose: `{` is never closed, so the mark is invalid JSON
// and can never be taken for a message.
constexpr std::string_view kPrefix = R"({"agentSessionPendingSync":{"boot":")";
constexpr std::string_view kMiddle = R"(","rollbackTo":)";

// This boot's id, read once; "" where /proc has none (then no mark is
// ever this boot's, and a stale mark is only cut off: the retry may then
// duplicate, which docs/durability.md says).
const std::string& boot_id() {
  static const std::string id = [] {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string line;
    std::getline(in, line);
    return line;
  }();
  return id;
}

}  // namespace

std::string pending_sync_mark(std::uint64_t rollback_to) {
  return std::string(kPrefix) + boot_id() + std::string(kMiddle) + std::to_string(rollback_to) + "}";
}

std::optional<std::uint64_t> pending_sync_cut(std::string_view line, std::uint64_t start) {
  if (line.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  line.remove_prefix(kPrefix.size());
  const std::size_t middle = line.find(kMiddle);
  if (middle == std::string_view::npos) return start;  // a mark, but not one of ours to trust
  const std::string_view boot = line.substr(0, middle);
  const std::string_view number = line.substr(middle + kMiddle.size());
  std::uint64_t rollback_to = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), rollback_to);
  const bool whole = error == std::errc() && std::string_view(end, number.data() + number.size() - end) == "}";
  if (!whole || boot.empty() || boot != boot_id() || rollback_to > start) return start;
  return rollback_to;
}

}  // namespace agent_session::internal
