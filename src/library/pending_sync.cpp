#include "library/pending_sync.hpp"
#include "base/decimal.hpp"

#include "agent_session/session.hpp"
#include "reference/load.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <utility>

namespace agent_session::library {
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

namespace {

// `line` is exactly a mark as pending_sync_mark writes it: the boot id's
// characters, digits, and nothing after the `}`. A message can never be
// one (the outer `{` is never closed), and nothing else is taken for one.
std::optional<std::pair<std::string_view, std::uint64_t>> parse_mark(std::string_view line) {
  if (!line.starts_with(kPrefix)) return std::nullopt;
  line.remove_prefix(kPrefix.size());
  const std::size_t middle = line.find(kMiddle);
  if (middle == std::string_view::npos || middle == 0 || middle > 64) return std::nullopt;
  const std::string_view boot = line.substr(0, middle);
  const auto boot_char = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-'; };
  if (!std::all_of(boot.begin(), boot.end(), boot_char)) return std::nullopt;
  const std::string_view number = line.substr(middle + kMiddle.size());
  if (number.size() < 2 || number.back() != '}') return std::nullopt;
  const std::string_view digits = number.substr(0, number.size() - 1);
  const std::optional<std::uint64_t> rollback_to = base::parse_decimal(digits);
  if (!rollback_to) return std::nullopt;
  return std::pair{boot, *rollback_to};
}

// The bytes a mark says its batch began at hold what a synced append
// writes there: from a line boundary (or the `\n` it put after a valid
// unterminated line), whole lines up to the mark, each a message.
bool is_a_batch(std::string_view bytes, std::uint64_t from, std::size_t mark) {
  if (from > mark) return false;
  std::size_t at = static_cast<std::size_t>(from);
  if (at > 0 && bytes[at - 1] != '\n') {
    if (bytes[at] != '\n') return false;
    ++at;
  }
  for (std::size_t line = 1; at < mark; ++line) {
    const std::size_t end = bytes.find('\n', at);
    if (end == std::string_view::npos || end >= mark || end == at) return false;
    try {
      (void)reference::parse_session_line(bytes.substr(at, end - at), line);
    } catch (const SessionError&) {
      return false;
    }
    at = end + 1;
  }
  return true;
}

}  // namespace

std::optional<std::uint64_t> pending_sync_cut(std::string_view bytes) {
  if (bytes.empty() || bytes.back() == '\n') return std::nullopt;
  const std::size_t newline = bytes.rfind('\n');
  const std::size_t start = newline == std::string_view::npos ? 0 : newline + 1;
  const auto mark = parse_mark(bytes.substr(start));
  if (!mark) return std::nullopt;
  const auto [boot, rollback_to] = *mark;
  // This boot's mark over a batch of ours: the batch was never
  // acknowledged. Any other mark is cut off alone: the lines before it
  // are kept as they are.
  if (boot == boot_id() && is_a_batch(bytes, rollback_to, start)) return rollback_to;
  return start;
}

}  // namespace agent_session::library
