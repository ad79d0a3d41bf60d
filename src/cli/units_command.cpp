#include "cli/units_command.hpp"
#include "entry/load.hpp"

#include "agent_session/context.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <set>
#include <utility>

namespace agent_session::cli {

using entry::NumberedSession;
namespace {

std::string range(std::size_t first, std::size_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

Json unit_json(const NumberedSession& session, const ContextUnit& unit) {
  Json json = Json::object();
  json["begin"] = unit.begin;
  json["end"] = unit.end;
  json["first_line"] = session.lines[unit.begin];
  json["last_line"] = session.lines[unit.end - 1];
  json["chars"] = unit.chars;
  return json;
}

struct Counts {
  std::size_t user = 0, assistant = 0, tool = 0;
  std::size_t tool_calls = 0, orphan_results = 0, pending_calls = 0;
};

// A tool call is pending when no result has it as its declaring call:
// the same (assistant, id) pair that trimming uses (SPEC.md §5.1).
Counts count(std::span<const Message> messages) {
  Counts counts;
  const std::vector<std::optional<std::size_t>> declarer = declaring_assistants(messages);
  std::set<std::pair<std::size_t, std::string_view>> answered;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (const auto* result = std::get_if<ToolResultMessage>(&messages[i])) {
      ++counts.tool;
      if (declarer[i]) {
        answered.emplace(*declarer[i], result->tool_call_id);
      } else {
        ++counts.orphan_results;
      }
    } else if (const auto* assistant = std::get_if<AssistantMessage>(&messages[i])) {
      ++counts.assistant;
      counts.tool_calls += assistant->tool_calls.size();
    } else {
      ++counts.user;
    }
  }
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (const auto* assistant = std::get_if<AssistantMessage>(&messages[i])) {
      for (const ToolCall& call : assistant->tool_calls) counts.pending_calls += answered.count({i, call.id}) == 0;
    }
  }
  return counts;
}

}  // namespace

std::string describe_lines(const NumberedSession& session, std::size_t begin, std::size_t end) {
  const std::size_t first = session.lines[begin], last = session.lines[end - 1];
  return (first == last ? "line " : "lines ") + range(first, last);
}

std::string describe_unit(const NumberedSession& session, std::size_t begin, std::size_t end) {
  return (end - begin == 1 ? "message " : "messages ") + range(begin, end - 1) + " (" +
         describe_lines(session, begin, end) + ")";
}

void print_units(const NumberedSession& session, bool json, std::ostream& out) {
  const std::vector<ContextUnit> units = context_units(session.messages);
  std::uint64_t cumulative = 0;
  if (json) {
    // Written unit by unit, never as one document of the whole session: a
    // Json value costs hundreds of bytes per unit (a 10-million-line
    // session took gigabytes). The bytes are what Json::dump() wrote: the
    // keys in this order, no spaces; the total comes before the units.
    std::uint64_t total = 0;
    for (const ContextUnit& unit : units) total += unit.chars;
    out << "{\"messages\":" << session.messages.size() << ",\"chars\":" << total << ",\"units\":[";
    for (auto unit = units.rbegin(); unit != units.rend(); ++unit) {
      cumulative += unit->chars;
      out << (unit == units.rbegin() ? "" : ",") << "{\"begin\":" << unit->begin << ",\"end\":" << unit->end
          << ",\"first_line\":" << session.lines[unit->begin] << ",\"last_line\":" << session.lines[unit->end - 1]
          << ",\"chars\":" << unit->chars << ",\"cumulative_chars\":" << cumulative << '}';
    }
    out << "]}\n";
    return;
  }
  out << "newest first; a budget N keeps the units whose cumulative chars are <= N (UTF-16 code units)\n";
  out << std::setw(6) << "unit"
      << "  " << std::left << std::setw(16) << "messages" << std::setw(16) << "lines" << std::right << std::setw(12)
      << "chars" << std::setw(14) << "cumulative" << '\n';
  std::size_t rank = 0;
  for (auto unit = units.rbegin(); unit != units.rend(); ++unit) {
    cumulative += unit->chars;
    out << std::setw(6) << ++rank << "  " << std::left << std::setw(16) << range(unit->begin, unit->end - 1)
        << std::setw(16) << range(session.lines[unit->begin], session.lines[unit->end - 1]) << std::right
        << std::setw(12) << unit->chars << std::setw(14) << cumulative << '\n';
  }
  out << units.size() << " units, " << session.messages.size() << " messages, " << cumulative << " chars\n";
}

void print_stats(const NumberedSession& session, bool json, std::ostream& out) {
  const std::vector<ContextUnit> units = context_units(session.messages);
  const Counts counts = count(session.messages);
  std::uint64_t chars = 0;
  for (const ContextUnit& unit : units) chars += unit.chars;
  const auto largest = std::max_element(units.begin(), units.end(),
                                        [](const ContextUnit& a, const ContextUnit& b) { return a.chars < b.chars; });
  if (json) {
    Json result = Json::object();
    result["messages"] = session.messages.size();
    result["by_role"] = {{"user", counts.user}, {"assistant", counts.assistant}, {"tool", counts.tool}};
    result["tool_calls"] = counts.tool_calls;
    result["orphan_tool_results"] = counts.orphan_results;
    result["pending_tool_calls"] = counts.pending_calls;
    result["units"] = units.size();
    result["chars"] = chars;
    result["largest_unit"] = units.empty() ? Json(nullptr) : unit_json(session, *largest);
    result["newest_unit"] = units.empty() ? Json(nullptr) : unit_json(session, units.back());
    result["minimum_budget"] = units.empty() ? Json(nullptr) : Json(units.back().chars);
    out << result.dump() << '\n';
    return;
  }
  out << "messages: " << session.messages.size() << " (user " << counts.user << ", assistant " << counts.assistant
      << ", tool " << counts.tool << ")\n"
      << "tool calls: " << counts.tool_calls << "; orphan tool results: " << counts.orphan_results
      << "; pending tool calls: " << counts.pending_calls << '\n'
      << "units: " << units.size() << '\n'
      << "estimate: " << chars << " chars (UTF-16 code units)\n";
  if (units.empty()) {
    out << "minimum budget: none (an empty session cannot be trimmed)\n";
    return;
  }
  out << "largest unit: " << describe_unit(session, largest->begin, largest->end) << ", " << largest->chars
      << " chars\n"
      << "minimum budget: " << units.back().chars
      << " chars, the newest unit: " << describe_unit(session, units.back().begin, units.back().end) << '\n';
}

}  // namespace agent_session::cli
