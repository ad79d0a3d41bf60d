#include "conform/properties/prop_report.hpp"

#include "conform/runner/conform_report.hpp"

#include <cstdio>

namespace agent_session::conform::properties {
namespace {

using nlohmann::ordered_json;

double rate_of(std::uint64_t violations, std::uint64_t judged) {
  return judged ? static_cast<double>(violations) / static_cast<double>(judged) : 0.0;
}

std::string name_of(const PropRun& run) { return run.name + (run.version.empty() ? "" : " " + run.version); }

// The cases of one invariant, in the order found (the first is the one a
// report names first).
std::vector<const WrittenCase*> cases_of(const PropRun& run, Invariant invariant) {
  std::vector<const WrittenCase*> cases;
  for (const auto& written : run.cases) {
    if (written.found.invariant == invariant) cases.push_back(&written);
  }
  return cases;
}

std::string case_text(const WrittenCase& written) {
  return written.file + " (" + std::to_string(written.found.session.lines.size()) + " messages, budget " +
         std::to_string(written.found.budget) + ")";
}

std::string attr(const std::string& text) { return "\"" + runner::xml_escaped(text, true) + "\""; }

}  // namespace

std::string rate_percent(std::uint64_t violations, std::uint64_t judged, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f%%", decimals, 100 * rate_of(violations, judged));
  return text;
}

std::string rate_text(std::uint64_t violations, std::uint64_t judged) {
  return std::to_string(violations) + " of " + std::to_string(judged) + " sessions (" +
         rate_percent(violations, judged) + ")";
}

std::string json_report(const PropRun& run) {
  ordered_json invariants = ordered_json::object();
  for (std::size_t i = 0; i < kInvariantCount; ++i) {
    const auto invariant = static_cast<Invariant>(i);
    ordered_json files = ordered_json::array();
    for (const auto* written : cases_of(run, invariant)) files.push_back(written->file);
    invariants[invariant_name(invariant)] = {
        {"violations", run.violations[i]}, {"rate", rate_of(run.violations[i], run.judged)}, {"cases", files}};
  }
  ordered_json cases = ordered_json::array();
  for (const auto& written : run.cases) {
    ordered_json lines = ordered_json::array();
    for (const auto& line : written.found.session.lines) lines.push_back(ordered_json::parse(line));
    const std::string file = written.file;
    cases.push_back({{"invariant", invariant_name(written.found.invariant)},
                     {"detail", written.found.detail},
                     {"budget", written.found.budget},
                     {"file", file},
                     {"folder", file.substr(0, file.find_last_of('/'))},
                     {"session", lines},
                     {"returned", written.found.returned}});
  }
  const ordered_json document = {{"format", "agent-session-conform-properties"},
                                 {"format_version", 1},
                                 {"seed", run.seed},
                                 {"runs", run.runs},
                                 {"judged", run.judged},
                                 {"unjudged", run.unjudged},
                                 {"command", run.command},
                                 {"port", {{"name", run.name}, {"version", run.version}}},
                                 {"adapter", run.adapter},
                                 {"invariants", invariants},
                                 {"cases", cases}};
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string junit_report(const PropRun& run) {
  std::size_t failures = 0;
  for (const auto count : run.violations) failures += count ? 1 : 0;
  const std::string counts = " tests=\"" + std::to_string(kInvariantCount) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"0\" skipped=\"0\"";
  std::string command;
  for (const auto& word : run.command) command += (command.empty() ? "" : " ") + word;
  std::string text =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"agent-session-conform properties\"" + counts +
      ">\n  <testsuite name=" + attr("properties: " + name_of(run)) + counts + ">\n" + "    <properties>\n" +
      "      <property name=\"seed\" value=\"" + std::to_string(run.seed) + "\"/>\n" +
      "      <property name=\"judged\" value=\"" + std::to_string(run.judged) + "\"/>\n" +
      "      <property name=\"unjudged\" value=\"" + std::to_string(run.unjudged) + "\"/>\n" +
      "      <property name=\"command\" value=" + attr(command) + "/>\n    </properties>\n";
  for (std::size_t i = 0; i < kInvariantCount; ++i) {
    const auto invariant = static_cast<Invariant>(i);
    text += "    <testcase classname=\"properties\" name=\"" + std::string(invariant_name(invariant)) + "\"";
    if (!run.violations[i]) {
      text += "/>\n";
      continue;
    }
    const auto cases = cases_of(run, invariant);
    std::string message = rate_text(run.violations[i], run.judged);
    message += cases.empty() ? "; no case written (--cases 0)" : "; first case: " + case_text(*cases.front());
    // The body: every case written, with what broke, and how to replay one.
    std::string body;
    for (const auto* written : cases) body += case_text(*written) + ": " + written->found.detail + "\n";
    if (!cases.empty()) {
      body +=
          "replay: send the session and its budget as a trim request (corpus/conformance/adapter.md §3); "
          "returned.json beside it is what the trimmer answered\n";
    }
    text += ">\n      <failure message=" + attr(message) + ">" + runner::xml_escaped(body, false) +
            "</failure>\n    </testcase>\n";
  }
  return text + "  </testsuite>\n</testsuites>\n";
}

std::string markdown_report(const PropRun& run) {
  const auto cell = [](std::string text) {
    std::string out;
    for (char c : text) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
    return out;
  };
  std::uint64_t total = 0;
  for (const auto count : run.violations) total += count;
  std::string text = "### Trimmer properties: " + cell(name_of(run)) + "\n\n" + std::to_string(run.judged) +
                     " sessions judged (seed " + std::to_string(run.seed) + ") on SPEC.md §5's unit invariants: " +
                     (total ? std::to_string(total) + " violations" : std::string("no violation")) + ".";
  if (run.unjudged) text += " " + std::to_string(run.unjudged) + " sessions not judged (a count or trim failed).";
  text += "\n\n| invariant | violations | rate | first case |\n| --- | ---: | ---: | --- |\n";
  for (std::size_t i = 0; i < kInvariantCount; ++i) {
    const auto invariant = static_cast<Invariant>(i);
    const auto cases = cases_of(run, invariant);
    text += "| `" + std::string(invariant_name(invariant)) + "` | " + std::to_string(run.violations[i]) + " | " +
            rate_percent(run.violations[i], run.judged, 2) + " | " +
            (cases.empty()
                 ? std::string()
                 : "`" + cell(cases.front()->file) + "` (" + std::to_string(cases.front()->found.session.lines.size()) +
                       " messages, budget " + std::to_string(cases.front()->found.budget) + ")") +
            " |\n";
  }
  return text;
}

}  // namespace agent_session::conform::properties
