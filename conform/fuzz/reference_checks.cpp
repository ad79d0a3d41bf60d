#include "fuzz/reference_checks.hpp"

#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "cli/cli.hpp"

#include <algorithm>
#include <exception>
#include <new>
#include <random>
#include <set>
#include <sstream>

namespace agent_session::fuzz {

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

std::string spec_rule(const cli::Check& check) {
  if (check.error.starts_with("invalid session JSON")) return "SPEC §2.1: the line is not JSON by the strict rules";
  if (check.error.starts_with("invalid session record")) return "SPEC §1.1: the line is JSON but not a message";
  if (check.error.starts_with("context budget")) return "SPEC §5.2: packing (a budget error)";
  const std::string& command = check.args.empty() ? "" : check.args.front();
  if (command == "estimate") return "SPEC §4: the character estimate";
  if (command == "canon") return "SPEC §3: the canonical serialization";
  if (command == "trim") return "SPEC §5: trimming (units and packing)";
  return "SPEC §2: loading";
}

cli::Check reference_check(const std::vector<std::string>& args, const std::string& file) {
  std::vector<std::string> line = args;
  line.push_back(file);
  std::istringstream in;
  std::ostringstream out, err;
  cli::Check check;
  check.args = args;
  check.exit = cli::run(line, in, out, err);
  if (check.exit == 0) check.stdout_bytes = out.str();
  if (check.exit == 1) check.error = spec_error(err.str());
  return check;
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

std::vector<cli::Check> reference_checks(const std::string& bytes, const std::string& file, std::uint64_t seed) {
  std::vector<cli::Check> checks;
  for (const char* command : {"check", "estimate", "canon"}) checks.push_back(reference_check({command}, file));
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> chosen = {1000000};
  if (checks.front().exit == 0) {
    try {
      chosen = budgets(load_session_from_memory(bytes), rng);
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception&) {
      // Loads from the file but not from memory: the one budget then.
    }
  }
  for (const std::uint64_t budget : chosen) {
    // Past 2^64 - 1 now and then: it must saturate (SPEC.md §6.1).
    const std::string text = budget == ~std::uint64_t{0} ? "18446744073709551616" : std::to_string(budget);
    checks.push_back(reference_check({"trim", "--max-chars", text}, file));
  }
  return checks;
}

}  // namespace agent_session::fuzz
