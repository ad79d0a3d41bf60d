#include "conform/fuzz/campaign_tally.hpp"

#include "base/printable.hpp"
#include "conform/fuzz/reference_checks.hpp"
#include "conform/fuzz/rule_triggers.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <set>

namespace agent_session::conform::fuzz {

std::string_view kind_name(DifferenceKind kind) {
  switch (kind) {
    case DifferenceKind::no_exit: return "no-exit";
    case DifferenceKind::exit: return "exit";
    case DifferenceKind::stdout_bytes: return "stdout";
    case DifferenceKind::streams: return "streams";
    case DifferenceKind::error_text: return "error";
  }
  return "exit";
}

DifferenceKind difference_kind(const runner::Check& check, const runner::ProcessResult& result) {
  if (result.end != runner::ProcessEnd::exited) return DifferenceKind::no_exit;
  if (result.exit_code != check.exit) return DifferenceKind::exit;
  if (check.exit == 0 && result.out != check.stdout_bytes) return DifferenceKind::stdout_bytes;
  // judge's next two reasons: SPEC.md §6's stream rules.
  if ((check.exit != 0 && !result.out.empty()) || (check.exit == 0 && !result.err.empty()))
    return DifferenceKind::streams;
  return DifferenceKind::error_text;
}

std::string Signature::text() const { return section + " " + std::string(kind_name(kind)); }

Signature signature_of(const Mismatch& mismatch, const std::string& file) {
  if (mismatch.kind == DifferenceKind::streams) return {"§6", mismatch.kind};
  // spec_rule's words start "SPEC §N: ...": the section is "§N".
  const std::string rule = spec_rule(mismatch.check, file);
  const auto from = rule.find("§");
  const auto end = rule.find(':', from);
  return {from == std::string::npos ? rule : rule.substr(from, end - from), mismatch.kind};
}

std::vector<std::string> exercised_rules(const std::vector<runner::Check>& checks, const std::string& file,
                                         std::string_view bytes, const std::optional<std::vector<Message>>& messages) {
  std::set<std::string> ids;
  // spec_rule_ids reads only the error's kind, else the command: one call
  // for each (an invalid line's costs a load of `file`).
  std::set<std::string> asked;
  for (const runner::Check& check : checks) {
    const std::string key = check.error.empty() ? "command " + check.args.front() : check.error.substr(0, 22);
    ids.insert(check.exit == 0 ? "R6-16" : "R6-15");
    // An error's text on standard error, as §2's "How the text is written" says.
    if (check.exit == 1) ids.insert({"R6-14", "R2-21", "R2-22"});
    if (!asked.insert(key).second) continue;
    for (auto& id : spec_rule_ids(check, file)) ids.insert(std::move(id));
  }
  // What the input itself holds: the rules it puts to the test.
  for (auto& id : triggered_rules(bytes, messages)) ids.insert(std::move(id));
  return {ids.begin(), ids.end()};
}

std::vector<std::string> broken_rules(const Mismatch& mismatch, const std::string& file) {
  if (mismatch.kind == DifferenceKind::streams) return {mismatch.check.exit == 0 ? "R6-16" : "R6-15"};
  std::vector<std::string> ids = spec_rule_ids(mismatch.check, file);
  if (mismatch.kind == DifferenceKind::error_text) ids.insert(ids.begin(), "R6-14");
  return ids;
}

std::vector<RuleCount> coverage_table(const std::vector<std::string>& spec_rules,
                                      const std::map<std::string, RuleCount>& reached) {
  std::vector<RuleCount> table;
  std::set<std::string> listed;
  for (const std::string& id : spec_rules) {
    const auto found = reached.find(id);
    table.push_back(found == reached.end() ? RuleCount{id} : found->second);
    table.back().id = id;
    listed.insert(id);
  }
  for (const auto& [id, count] : reached) {
    if (!listed.count(id)) table.push_back(count);
  }
  return table;
}

nlohmann::ordered_json campaign_json(const Campaign& campaign) {
  nlohmann::ordered_json json;
  json["seed"] = campaign.seed;
  json["inputs"] = campaign.inputs;
  json["differences"] = campaign.differences;
  json["stop_at_first"] = campaign.stop_at_first;
  json["signatures"] = nlohmann::ordered_json::array();
  for (const SignatureRow& row : campaign.signatures) {
    nlohmann::ordered_json item;
    item["section"] = row.signature.section;
    item["kind"] = std::string(kind_name(row.signature.kind));
    item["count"] = row.count;
    item["first_input"] = row.first_input;
    item["vector"] = row.vector;
    item["check"] = base::terminal_safe(row.check);
    item["reason"] = row.reason;
    json["signatures"].push_back(std::move(item));
  }
  json["coverage"] = nlohmann::ordered_json::array();
  std::size_t reached = 0;
  for (const RuleCount& rule : campaign.coverage) {
    json["coverage"].push_back({{"rule", rule.id}, {"inputs", rule.inputs}, {"differences", rule.differences}});
    reached += rule.inputs > 0;
  }
  json["rules_reached"] = reached;
  json["rules_never_reached"] = campaign.coverage.size() - reached;
  return json;
}

void write_campaign_text(const Campaign& campaign, std::ostream& out) {
  if (!campaign.signatures.empty()) {
    out << base::counted(campaign.signatures.size(), "signature") << " of "
        << base::counted(campaign.differences, "difference") << ":\n"
        << "  section kind     count  first input  vector\n";
    for (const SignatureRow& row : campaign.signatures) {
      out << "  " << std::left << std::setw(8) << row.signature.section << std::setw(8) << kind_name(row.signature.kind)
          << std::right << std::setw(6) << row.count << "  " << std::setw(11) << row.first_input << "  "
          << base::terminal_safe(row.vector) << '\n';
    }
  }
  std::vector<std::string> never;
  std::size_t reached = 0;
  for (const RuleCount& rule : campaign.coverage) reached += rule.inputs > 0;
  out << "rule coverage: " << reached << " of " << base::counted(campaign.coverage.size(), "rule")
      << " reached (inputs, differences):";
  for (const RuleCount& rule : campaign.coverage) {
    if (rule.inputs > 0) {
      out << ' ' << rule.id << ' ' << rule.inputs << ',' << rule.differences;
    } else {
      never.push_back(rule.id);
    }
  }
  out << "\nnever reached:";
  for (const std::string& id : never) out << ' ' << id;
  out << (never.empty() ? " none\n" : "\n");
}

}  // namespace agent_session::conform::fuzz
