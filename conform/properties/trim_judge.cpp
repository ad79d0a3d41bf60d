#include "conform/properties/trim_judge.hpp"

#include "harness/untrusted_json.hpp"

namespace agent_session::conform::properties {
namespace {

using harness::member;
using nlohmann::json;

constexpr std::array<const char*, kInvariantCount> kNames = {"orphan",    "split",     "suffix",
                                                             "unaltered", "non-empty", "budget"};

}  // namespace

const char* invariant_name(Invariant invariant) { return kNames[static_cast<std::size_t>(invariant)]; }

std::optional<Invariant> invariant_named(const std::string& name) {
  for (std::size_t i = 0; i < kInvariantCount; ++i) {
    if (name == kNames[i]) return static_cast<Invariant>(i);
  }
  return std::nullopt;
}

runner::HarnessAnswer TrimJudge::send(const char* op, std::uint64_t budget, const std::vector<std::string>& lines) {
  const bool trim = std::string(op) == "trim";
  if (!port_) {
    nlohmann::ordered_json request = {{"op", op}};
    if (trim) request["budget"] = budget;
    request["messages"] = nlohmann::ordered_json::parse(messages_array(lines));
    return adapter_.ask(std::move(request));
  }
  // A port (SPEC.md §6): count is `estimate -`, trim is `trim --max-chars
  // B -`, whose exit 1 is the refusal §5.2 asks for; a port answers no
  // indices, so its output lines are taken as the newest ones, and the
  // judge compares each with the input line it claims to be (unaltered)
  // instead of trusting the claim.
  std::string jsonl;
  for (const auto& line : lines) jsonl += line + "\n";
  std::vector<std::string> argv = {"estimate", "-"};
  if (trim) argv = {"trim", "--max-chars", std::to_string(budget), "-"};
  const runner::ProcessResult result = adapter_.run(argv, jsonl);
  runner::HarnessAnswer answer;
  if (result.end != runner::ProcessEnd::exited) {
    answer.problem = "the port's " + argv[0] + " failed: " + (result.error.empty() ? "no exit" : result.error);
    return answer;
  }
  if (trim && result.exit_code == 1) {
    answer.value = {{"refused", result.err.substr(0, result.err.find('\n'))}};
    return answer;
  }
  if (result.exit_code != 0) {
    answer.problem = "the port's " + argv[0] + " exited " + std::to_string(result.exit_code);
    return answer;
  }
  if (!trim) {
    const std::string digits = result.out.substr(0, result.out.find('\n'));
    if (digits.empty() || digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos) {
      answer.problem = "the port's estimate printed no whole number";
    } else {
      answer.value = {{"count", std::stoull(digits)}};
    }
    return answer;
  }
  json kept = json::array(), messages = json::array();
  std::vector<std::string> out;
  for (std::size_t at = 0; at < result.out.size();) {
    const std::size_t end = result.out.find('\n', at);
    out.push_back(result.out.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end == std::string::npos ? result.out.size() : end + 1;
  }
  if (out.size() > lines.size()) {
    answer.problem = "the port's trim printed more lines than it was given";
    return answer;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const harness::UntrustedJson message = harness::parse_untrusted_json(out[i]);
    if (!message) {
      answer.problem = "the port's trim printed a line that is not JSON: " + message.reason;
      return answer;
    }
    kept.push_back(lines.size() - out.size() + i);
    messages.push_back(message.value);
  }
  answer.value = {{"kept", kept}, {"messages", messages}};
  return answer;
}

std::optional<std::uint64_t> TrimJudge::count(const std::vector<std::string>& lines, std::string& why) {
  std::string key;
  for (const auto& line : lines) key += line + "\n";
  if (const auto known = counted_.find(key); known != counted_.end()) return known->second;
  ++requests_;
  const runner::HarnessAnswer answer = send("count", 0, lines);
  if (!answer) {
    why = "the adapter failed a count request: " + answer.problem;
    return std::nullopt;
  }
  const json& refused = member(answer.value, "refused");
  if (refused.is_string()) {
    why = "the adapter's count refused: " + refused.get<std::string>();
    return std::nullopt;
  }
  const json& value = member(answer.value, "count");
  if (!value.is_number_unsigned()) {
    why = "the adapter answered count without a count (a non-negative integer)";
    return std::nullopt;
  }
  if (counted_.size() >= 256) counted_.clear();
  counted_.emplace(std::move(key), value.get<std::uint64_t>());
  return value.get<std::uint64_t>();
}

std::optional<std::uint64_t> TrimJudge::suffix_count(const PropSession& session, std::size_t units, std::string& why) {
  const std::size_t begin = session.units[session.units.size() - units].begin;
  return count(
      std::vector<std::string>(session.lines.begin() + static_cast<std::ptrdiff_t>(begin), session.lines.end()), why);
}

Verdict TrimJudge::judge(const PropSession& session, std::uint64_t budget) {
  Verdict verdict;
  const auto broke = [&](Invariant invariant, std::string detail) {
    verdict.broken = invariant;
    verdict.detail = std::move(detail);
    return verdict;
  };
  const auto failed = [&](std::string why) {
    verdict.failure = std::move(why);
    return verdict;
  };
  const std::size_t n = session.lines.size();
  std::string why;
  const std::size_t newest_begin = session.units.back().begin;
  const auto newest = suffix_count(session, 1, why);
  if (!newest) return failed(why);
  const bool newest_fits = *newest <= budget;
  const std::string newest_text = "the newest unit (messages " + std::to_string(newest_begin) + " to " +
                                  std::to_string(n - 1) + ") counts " + std::to_string(*newest) + " <= budget " +
                                  std::to_string(budget);
  ++requests_;
  const runner::HarnessAnswer answer = send("trim", budget, session.lines);
  if (!answer) return failed("the adapter failed a trim request: " + answer.problem);
  verdict.returned = json::object();
  for (const char* key : {"refused", "kept", "messages"}) {
    if (answer.value.contains(key)) verdict.returned[key] = answer.value[key];
  }
  if (member(answer.value, "refused").is_string()) {
    // SPEC.md §5.2: an error only when the newest unit does not fit.
    if (newest_fits)
      return broke(Invariant::non_empty,
                   "refused (" + member(answer.value, "refused").get<std::string>() + ") though " + newest_text);
    return verdict;
  }
  const json& kept = member(answer.value, "kept");
  const json& messages = member(answer.value, "messages");
  if (!kept.is_array() || !messages.is_array() || kept.size() != messages.size()) {
    return failed("the adapter answered trim without kept and messages (arrays of one length)");
  }
  std::vector<std::optional<std::size_t>> indices;
  for (const json& index : kept) {
    if (index.is_null()) {
      indices.push_back(std::nullopt);
    } else if (index.is_number_unsigned() && index.get<std::uint64_t>() < n) {
      indices.push_back(static_cast<std::size_t>(index.get<std::uint64_t>()));
    } else {
      return failed("the adapter answered trim with a kept index that is neither null nor one of the input's");
    }
  }
  if (indices.empty()) {
    if (newest_fits) return broke(Invariant::non_empty, "kept nothing though " + newest_text);
    return verdict;
  }
  std::vector<bool> is_kept(n, false);
  for (const auto& index : indices) {
    if (index) is_kept[*index] = true;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto& declaring = session.declaring[i];
    if (is_kept[i] && declaring && !is_kept[*declaring]) {
      return broke(Invariant::orphan, "kept tool result " + std::to_string(i) + " without its declaring assistant " +
                                          std::to_string(*declaring));
    }
    if (!is_kept[i] && declaring && is_kept[*declaring]) {
      return broke(Invariant::split,
                   "kept assistant " + std::to_string(*declaring) + " without its tool result " + std::to_string(i));
    }
  }
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const std::size_t expected = n - indices.size() + i;
    if (indices[i] != expected) {
      return broke(Invariant::suffix, "kept[" + std::to_string(i) + "] is " +
                                          (indices[i] ? std::to_string(*indices[i]) : std::string("null")) + ", not " +
                                          std::to_string(expected) + " (a suffix of " + std::to_string(n) +
                                          " messages)");
    }
  }
  // Compared as JSON values: the answer's text is the adapter's
  // JSON.stringify, which prints what SPEC.md §3 prints, and both are read
  // by the one parser; the order of keys inside a tool call's input is not
  // judged (the kit's reader of answers sorts them).
  std::vector<std::string> returned;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (json::parse(session.lines[*indices[i]]) != messages[i]) {
      return broke(Invariant::unaltered,
                   "message " + std::to_string(*indices[i]) + " came back as " + messages[i].dump().substr(0, 200));
    }
    returned.push_back(session.lines[*indices[i]]);
  }
  const auto size = count(returned, why);
  if (!size) return failed(why);
  if (*size > budget) {
    return broke(Invariant::budget, "kept " + std::to_string(indices.size()) + " messages counting " +
                                        std::to_string(*size) + " > budget " + std::to_string(budget));
  }
  return verdict;
}

}  // namespace agent_session::conform::properties
