#include "conform/fuzz/reference_checks.hpp"

#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "base/decimal.hpp"

#include <algorithm>
#include <exception>
#include <new>
#include <optional>
#include <random>
#include <set>
#include <string_view>

namespace agent_session::conform::fuzz {

std::string spec_error(const std::string& err, bool with_line_number) {
  static const std::vector<std::string> kTexts = {"invalid session JSON at line ", "invalid session record at line ",
                                                  "context budget cannot contain the smallest consistent message unit",
                                                  "context budget cannot be empty"};
  for (const auto& text : kTexts) {
    for (auto at = err.find(text); at != std::string::npos; at = err.find(text, at + 1)) {
      auto end = at + text.size();
      if (text.back() == ' ') {
        const auto digits = err.find_first_not_of("0123456789", end);
        if (digits == end) continue;
        end = digits == std::string::npos ? err.size() : digits;
      }
      const std::string_view rest = std::string_view(err).substr(end, 2);
      if (!rest.empty() && rest[0] != '\n' && rest != ": ") continue;
      return with_line_number ? err.substr(at, end - at) : text;
    }
  }
  return "";
}

namespace {

// Whether the first line of `file` that is not JSON breaks one of SPEC
// §2.1's rules, which JSON.parse does not have, rather than JSON's grammar
// (§2): the reference's detail names the rule (reference/json_line.cpp).
bool breaks_a_strict_rule(const std::string& file) {
  try {
    load_session(file);
  } catch (const SessionError& error) {
    for (const std::string_view rule :
         {"ill-formed UTF-8", "surrogate U+", "number overflow parsing", "nesting deeper than 512 levels"}) {
      if (error.detail().find(rule) != std::string::npos) return true;
    }
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception&) {
  }
  return false;
}

}  // namespace

std::string spec_rule(const runner::Check& check, const std::string& file) {
  if (check.error.starts_with("invalid session JSON")) {
    return breaks_a_strict_rule(file) ? "SPEC §2.1: the line is not JSON by the strict rules"
                                      : "SPEC §2: the line is not JSON (JSON.parse's grammar)";
  }
  if (check.error.starts_with("invalid session record")) return "SPEC §1.1: the line is JSON but not a message";
  if (check.error.starts_with("context budget")) return "SPEC §5.2: packing (a budget error)";
  const std::string& command = check.args.empty() ? "" : check.args.front();
  if (command == "estimate") return "SPEC §4: the character estimate";
  if (command == "canon") return "SPEC §3: the canonical serialization";
  if (command == "trim") return "SPEC §5: trimming (units and packing)";
  return "SPEC §2: loading";
}

std::vector<std::string> spec_rule_ids(const runner::Check& check, const std::string& file) {
  if (check.error.starts_with("invalid session JSON")) {
    return breaks_a_strict_rule(file) ? std::vector<std::string>{"R2.1-1", "R2-19"}
                                      : std::vector<std::string>{"R2-17", "R2-19"};
  }
  if (check.error.starts_with("invalid session record")) return {"R1.1-1", "R2-19"};
  if (check.error.starts_with("context budget")) return {"R5.2-1", "R5.2-4"};
  const std::string& command = check.args.empty() ? "" : check.args.front();
  if (command == "estimate") return {"R4-3", "R6-4"};
  if (command == "canon") return {"R3-2", "R6-5"};
  if (command == "trim") return {"R5.1-4", "R5.2-1"};
  return {"R2-1", "R6-3"};
}

namespace {

// FILE loaded once, as each of SPEC.md §6's commands starts: its messages,
// or the exit code (and the spec's error) every command then gives.
struct Loaded {
  std::optional<std::vector<Message>> messages;
  int exit = 0;
  std::string error;
};

Loaded load(const std::string& file) {
  try {
    Loaded loaded;
    loaded.messages = load_session(file);
    return loaded;
  } catch (const SessionError& error) {
    return {std::nullopt, 1, spec_error(error.what())};
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception&) {
    return {std::nullopt, 3, ""};  // an I/O error (SPEC.md §6: exit 3)
  }
}

// SPEC.md §6's table on a loaded FILE: `check` prints "N messages",
// `estimate` the estimate (§4), `canon` the canonical JSONL (§3), `trim
// --max-chars B` the canonical JSONL of what trimming keeps (§5), where a
// budget past 2^64 - 1 means 2^64 - 1 (§6.1) and a budget error is exit 1.
runner::Check answer(const std::vector<std::string>& args, const Loaded& loaded) {
  runner::Check check;
  check.args = args;
  check.exit = loaded.exit;
  check.error = loaded.error;
  if (!loaded.messages) return check;
  const std::vector<Message>& messages = *loaded.messages;
  const std::string& command = args.front();
  if (command == "check") check.stdout_bytes = std::to_string(messages.size()) + " messages\n";
  if (command == "estimate") check.stdout_bytes = std::to_string(estimate_context_chars(messages)) + "\n";
  if (command == "canon") check.stdout_bytes = to_canonical_jsonl(messages);
  if (command == "trim") {
    const std::uint64_t budget = base::parse_decimal(args.at(2)).value_or(~std::uint64_t{0});
    try {
      check.stdout_bytes = to_canonical_jsonl(trim_context(messages, budget));
    } catch (const ContextError& error) {
      check.exit = 1;
      check.error = spec_error(error.what());
    }
  }
  return check;
}

}  // namespace

runner::Check reference_check(const std::vector<std::string>& args, const std::string& file) {
  return answer(args, load(file));
}

namespace {

// Budgets around the unit boundaries of a session that loads, at most 8.
std::vector<std::uint64_t> budgets(const std::vector<Message>& messages, std::mt19937_64& rng) {
  const auto below = [&](std::uint64_t n) { return n == 0 ? 0 : rng() % n; };
  std::set<std::uint64_t> chosen;
  if (below(10) == 0) chosen.insert(0);
  const std::vector<ContextUnit> units = context_units(messages);
  if (units.empty()) {
    chosen.insert(below(100));
    return {chosen.begin(), chosen.end()};
  }
  std::vector<std::uint64_t> suffix;  // suffix[k]: the newest k + 1 units
  for (auto unit = units.rbegin(); unit != units.rend(); ++unit) {
    suffix.push_back((suffix.empty() ? 0 : suffix.back()) + unit->chars);
  }
  for (const std::uint64_t size : {suffix.front(), suffix[below(suffix.size())], suffix[below(suffix.size())]}) {
    chosen.insert(size);
    chosen.insert(size - 1);
  }
  const std::size_t from = below(messages.size());
  chosen.insert(estimate_context_chars(std::span(messages).subspan(from)));
  if (below(20) == 0) chosen.insert(~std::uint64_t{0});
  return {chosen.begin(), chosen.end()};
}

}  // namespace

std::vector<runner::Check> reference_checks(const std::string& file, std::uint64_t seed,
                                            std::optional<std::vector<Message>>* messages) {
  Loaded loaded = load(file);
  std::vector<runner::Check> checks;
  for (const char* command : {"check", "estimate", "canon"}) checks.push_back(answer({command}, loaded));
  std::mt19937_64 rng(seed);
  const std::vector<std::uint64_t> chosen =
      loaded.messages ? budgets(*loaded.messages, rng) : std::vector<std::uint64_t>{1000000};
  for (const std::uint64_t budget : chosen) {
    // Past 2^64 - 1 now and then: it must saturate (SPEC.md §6.1).
    const std::string text = budget == ~std::uint64_t{0} ? "18446744073709551616" : std::to_string(budget);
    checks.push_back(answer({"trim", "--max-chars", text}, loaded));
  }
  if (messages) *messages = std::move(loaded.messages);
  return checks;
}

}  // namespace agent_session::conform::fuzz
