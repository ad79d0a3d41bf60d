#include "conform/rules/rules_table.hpp"

#include "base/printable.hpp"
#include "conform/runner/conform_judge.hpp"  // is_rule_id, printable, shown

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>
#include <set>

namespace agent_session::conform::rules {
namespace {

std::string joined(const std::vector<std::string>& words, const char* between) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : between) + word;
  return text;
}

// Findings about SPEC.md itself: its sentences with a key word and no ID,
// its IDs written twice.
void spec_findings(const SpecRules& spec, const std::string& path, std::vector<std::string>& findings) {
  for (const auto& sentence : spec.untraced) {
    findings.push_back(path + ":" + std::to_string(sentence.line) + ": a sentence with " + sentence.keyword +
                       " has no rule ID (SPEC.md Conventions, \"Rule IDs\"): " + runner::printable(sentence.text));
  }
  for (const auto& repeated : spec.repeated) {
    findings.push_back(path + ":" + std::to_string(repeated.line) + ": " + repeated.id +
                       " is written again (first at line " + std::to_string(repeated.first_line) +
                       "): an ID tags one rule");
  }
}

}  // namespace

std::vector<Reason> parse_reasons(std::string_view text, const std::string& file, std::vector<std::string>& findings) {
  std::vector<Reason> reasons;
  std::size_t number = 0;
  for (std::size_t from = 0; from < text.size();) {
    const auto end = std::min(text.find('\n', from), text.size());
    const std::string_view line = text.substr(from, end - from);
    from = end + 1;
    ++number;
    if (line.empty() || line.front() == '#') continue;
    const auto space = line.find(' ');
    const std::string_view id = line.substr(0, space);
    const std::string_view reason = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
    if (!runner::is_rule_id(id) || reason.find_first_not_of(' ') == std::string_view::npos) {
      findings.push_back(file + ":" + std::to_string(number) +
                         ": not a rule ID, a space and a reason: " + runner::printable(line));
      continue;
    }
    reasons.push_back({number, std::string(id), runner::shown(reason, 1024)});
  }
  return reasons;
}

RulesTable build_table(const SpecRules& spec, std::vector<VectorRules> vectors, const std::vector<Reason>& reasons,
                       const TableSources& sources) {
  RulesTable table;
  table.rules = spec.rules;
  spec_findings(spec, sources.spec, table.findings);
  std::set<std::string> known;
  for (const auto& rule : spec.rules) {
    known.insert(rule.id);
    table.vectors_of[rule.id];
  }
  for (const auto& vector : vectors) {
    if (!vector.problem.empty()) {
      table.findings.push_back("vector " + vector.name + " is unusable: " + vector.problem);
      continue;
    }
    if (vector.rules.empty()) {
      table.findings.push_back("vector " + vector.name + " names no rule (expect.json's \"rules\")");
    }
    for (const auto& id : vector.rules) {
      if (known.count(id)) {
        table.vectors_of[id].push_back(vector.name);
      } else {
        table.findings.push_back("vector " + vector.name + " names " + id + ", which is no rule of " + sources.spec);
      }
    }
  }
  table.vectors = std::move(vectors);
  std::map<std::string, const Reason*> reason_of;
  for (const auto& reason : reasons) {
    const std::string at = sources.reasons + ":" + std::to_string(reason.line) + ": ";
    if (!known.count(reason.id)) {
      table.findings.push_back(at + reason.id + " is no rule of " + sources.spec);
    } else if (!table.vectors_of[reason.id].empty()) {
      table.findings.push_back(at + reason.id + " has vectors (" + joined(table.vectors_of[reason.id], ", ") +
                               "): a reason is only for a rule that has none");
    } else if (!reason_of.emplace(reason.id, &reason).second) {
      table.findings.push_back(at + reason.id + " is given a reason again (first at line " +
                               std::to_string(reason_of[reason.id]->line) + ")");
    }
  }
  for (const auto& rule : spec.rules) {
    if (!table.vectors_of[rule.id].empty()) continue;
    if (const auto found = reason_of.find(rule.id); found != reason_of.end()) {
      table.untested.push_back(*found->second);
    } else {
      table.findings.push_back(sources.spec + ":" + std::to_string(rule.line) + ": " + rule.id +
                               " has no vector and no reason in " + sources.reasons);
    }
  }
  return table;
}

void write_text(const RulesTable& table, std::ostream& out) {
  out << "rule -> vectors\n";
  std::size_t pinned = 0;
  for (const auto& rule : table.rules) {
    const auto& names = table.vectors_of.at(rule.id);
    if (names.empty()) continue;
    ++pinned;
    out << "  " << rule.id << "  " << joined(names, " ") << '\n';
  }
  out << "vector -> rules\n";
  std::size_t usable = 0;
  for (const auto& vector : table.vectors) {
    if (!vector.problem.empty()) continue;
    ++usable;
    out << "  " << vector.name << "  " << (vector.rules.empty() ? "(none)" : joined(vector.rules, " ")) << '\n';
  }
  out << "rules without a vector\n";
  for (const auto& reason : table.untested) out << "  " << reason.id << "  " << reason.reason << '\n';
  out << base::counted(table.rules.size(), "rule") << ": " << pinned << " pinned by " << base::counted(usable, "vector")
      << ", " << table.untested.size() << " without a vector, each with its reason; "
      << base::counted(table.findings.size(), "finding") << '\n';
  for (const auto& finding : table.findings) out << "FAIL " << finding << '\n';
}

void write_json(const RulesTable& table, const TableSources& sources, const std::string& vectors, std::ostream& out) {
  nlohmann::ordered_json json;
  json["format"] = "agent-session-conform-rules";
  json["format_version"] = 1;
  json["spec"] = sources.spec;
  json["vectors"] = vectors;
  std::map<std::string, std::string> reason_of;
  for (const auto& reason : table.untested) reason_of[reason.id] = reason.reason;
  auto& rules = json["rules"] = nlohmann::ordered_json::array();
  for (const auto& rule : table.rules) {
    nlohmann::ordered_json entry = {{"id", rule.id}, {"line", rule.line}, {"vectors", table.vectors_of.at(rule.id)}};
    if (const auto found = reason_of.find(rule.id); found != reason_of.end()) entry["reason"] = found->second;
    rules.push_back(std::move(entry));
  }
  auto& by_vector = json["by_vector"] = nlohmann::ordered_json::array();
  for (const auto& vector : table.vectors) {
    nlohmann::ordered_json entry = {{"name", vector.name}, {"rules", vector.rules}};
    if (!vector.problem.empty()) entry["problem"] = vector.problem;
    by_vector.push_back(std::move(entry));
  }
  json["findings"] = table.findings;
  out << json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace agent_session::conform::rules
