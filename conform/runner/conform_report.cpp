#include "conform/runner/conform_report.hpp"
#include "base/utf8.hpp"

#include "base/printable.hpp"
#include "conform/runner/known_failures.hpp"
#include "conform/runner/report_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <ostream>
#include <sstream>

namespace agent_session::conform::runner {

namespace {

bool needs_no_quotes(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
  });
}

std::string sh_quoted(std::string_view word) {
  if (needs_no_quotes(word)) return std::string(word);
  std::string text = "'";
  for (const char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

std::string octal(unsigned char c) {
  char buffer[5];
  std::snprintf(buffer, sizeof buffer, "\\%03o", c);
  return buffer;
}

// "trim --max-chars 5 FILE", with " (check 3)" when the vector holds the
// same arguments twice, so every test case has its own name.
std::string case_name(const VectorOutcome& vector, const CheckOutcome& check) {
  std::string name = check.args + (check.from_stdin ? " -" : " FILE") + (check.after.empty() ? "" : " " + check.after);
  const auto same = std::count_if(vector.checks.begin(), vector.checks.end(), [&](const CheckOutcome& other) {
    return other.args == check.args && other.from_stdin == check.from_stdin;
  });
  if (same > 1) name += " (check " + std::to_string(check.index + 1) + ")";
  return name;
}

// Why a vector of the skip file is reported as skipped.
std::string skip_reason(const VectorOutcome& vector) {
  return vector.skip_passes ? kSkipPasses : "listed in the skip file";
}

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds);
  return buffer;
}

std::string yaml_string(const std::string& text) {
  // JSON's escaped strings are YAML 1.2 double-quoted scalars.
  return nlohmann::json(text).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

}  // namespace

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "fail";
    case Verdict::skip: return "skip";
    case Verdict::xfail: return "xfail";
    case Verdict::xpass: return "xpass";
  }
  return "fail";
}

std::string KnownFailure::text() const { return link.empty() ? reason : reason + " (" + link + ")"; }

bool VectorOutcome::failed() const {
  return !skipped && ((!problem.empty() && !known) ||
                      std::any_of(checks.begin(), checks.end(),
                                  [](const CheckOutcome& check) { return check.verdict == Verdict::fail; }));
}

Verdict VectorOutcome::verdict() const {
  const auto any = [&](Verdict wanted) {
    return std::any_of(checks.begin(), checks.end(),
                       [&](const CheckOutcome& check) { return check.verdict == wanted; });
  };
  if (skipped) return Verdict::skip;
  if (failed()) return Verdict::fail;
  if (any(Verdict::xpass)) return Verdict::xpass;
  if (!problem.empty() || any(Verdict::xfail)) return Verdict::xfail;
  return Verdict::pass;
}

namespace {

// `line` as is when every byte of it may reach a terminal, else as
// eval "$(printf '...')" (shell_command's header).
std::string printable_shell_line(const std::string& line) {
  bool printable = true;
  for (std::size_t i = 0; i < line.size() && printable;) {
    const std::size_t n = base::printable_length(line, i);
    printable = n > 0;
    i += n;
  }
  if (printable) return line;
  // printf's format: its own specials and the quote as octal too, so the
  // format needs no quoting of its own. The line ends with a quote, never
  // a newline that the command substitution would drop.
  std::string format;
  for (std::size_t i = 0; i < line.size();) {
    const std::size_t n = base::printable_length(line, i);
    if (n == 0 || line[i] == '\'' || line[i] == '\\' || line[i] == '%') {
      format += octal(static_cast<unsigned char>(line[i]));
      ++i;
    } else {
      format.append(line, i, n);
      i += n;
    }
  }
  return "eval \"$(printf '" + format + "')\"";
}

}  // namespace

std::string shell_command(const std::vector<std::string>& argv, const std::string& stdin_file) {
  std::string line;
  for (const auto& word : argv) line += (line.empty() ? "" : " ") + sh_quoted(word);
  if (!stdin_file.empty()) line += " < " + sh_quoted(stdin_file);
  return printable_shell_line(line);
}

std::string shell_file_command(const std::vector<std::string>& argv, const std::string& stdin_bytes,
                               const std::string& copy_from, bool dash) {
  // printf's format: every byte but letters, digits and a few safe
  // punctuation marks in octal, so bytes that are no text travel too.
  std::string format;
  for (const char c : stdin_bytes) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = byte >= 0x20 && byte < 0x7f && c != '\'' && c != '\\' && c != '%';
    format += plain ? std::string(1, c) : octal(byte);
  }
  std::string command;
  for (const auto& word : argv) command += (command.empty() ? "" : " ") + sh_quoted(word);
  const std::string run = "printf '" + format + "' | " + command;
  if (dash) return printable_shell_line(run + " -");
  const std::string make = copy_from.empty() ? "" : " && cp " + sh_quoted(copy_from) + " \"$f\"";
  return printable_shell_line("f=$(mktemp -d)/session.jsonl" + make + " && " + run + " \"$f\"; cat \"$f\"");
}

std::string xml_escaped(std::string_view text, bool attribute) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '&':
        out += "&amp;";
        ++i;
        continue;
      case '<':
        out += "&lt;";
        ++i;
        continue;
      case '>':
        out += "&gt;";
        ++i;
        continue;
      case '"':
        out += "&quot;";
        ++i;
        continue;
      case '\'':
        out += "&apos;";
        ++i;
        continue;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        ++i;
        continue;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        ++i;
        continue;
      case '\r':
        out += "&#13;";
        ++i;
        continue;
      default: break;
    }
    const std::size_t n = c < 0x80 ? 1 : base::utf8_sequence_length(text, i);
    if (n == 0 || c < 0x20 || c == 0x7F) {
      base::append_escape(out, 'x', c);
      ++i;
      continue;
    }
    // XML 1.0 has no U+FFFE or U+FFFF; the rest as a terminal sees it.
    const char32_t point = base::decode_utf8(text.substr(i, n));
    if (point == 0xFFFE || point == 0xFFFF || base::hidden_code_point(point)) {
      base::append_escape(out, 'u', point);
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

void write_junit(const RunOutcome& run, std::ostream& out) {
  const auto attr = [](std::string_view text) { return "\"" + xml_escaped(text, true) + "\""; };
  std::size_t tests = 0, failures = 0, skipped = 0;
  for (const auto& vector : run.results) {
    if (vector.skipped || !vector.problem.empty()) {
      ++tests;
      ++(vector.skipped ? skipped : failures);
      continue;
    }
    for (const auto& check : vector.checks) {
      ++tests;
      failures += check.verdict == Verdict::fail || (check.verdict == Verdict::xpass && run.strict) ? 1 : 0;
      skipped += check.verdict == Verdict::skip || check.verdict == Verdict::xfail ? 1 : 0;
    }
  }
  const std::string counts = " tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) +
                             "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
                             seconds_text(run.seconds) + "\"";
  const std::string version = run.vectors_version.empty() ? "unknown" : run.vectors_version;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"agent-session conform\"" << counts << ">\n"
      << "  <testsuite name=" << attr("conformance vectors " + version) << counts << ">\n"
      << "    <properties>\n"
      << "      <property name=\"runner_version\" value=" << attr(run.runner_version) << "/>\n"
      << "      <property name=\"vectors_version\" value=" << attr(version) << "/>\n";
  if (!run.vectors_version_problem.empty()) {
    out << "      <property name=\"vectors_version_problem\" value=" << attr(run.vectors_version_problem) << "/>\n";
  }
  std::string command;
  for (const auto& word : run.command) command += (command.empty() ? "" : " ") + word;
  out << "      <property name=\"vectors\" value=" << attr(run.vectors) << "/>\n"
      << "      <property name=\"command\" value=" << attr(command) << "/>\n"
      << "    </properties>\n";
  const auto testcase = [&](const std::string& classname, const std::string& name, double seconds) {
    out << "    <testcase classname=" << attr(classname) << " name=" << attr(name) << " time=\""
        << seconds_text(seconds) << "\"";
  };
  for (const auto& vector : run.results) {
    if (vector.skipped || !vector.problem.empty()) {
      testcase(vector.name, "vector", vector.seconds);
      if (vector.skipped) {
        out << ">\n      <skipped message=" << attr(skip_reason(vector)) << "/>\n    </testcase>\n";
      } else if (vector.known) {
        out << ">\n      <skipped message=" << attr(expected_failure(*vector.known)) << ">"
            << xml_escaped(vector.problem, false) << "</skipped>\n    </testcase>\n";
      } else {
        out << ">\n      <failure message=" << attr(vector.problem) << ">" << xml_escaped(vector.problem, false)
            << "</failure>\n    </testcase>\n";
      }
      continue;
    }
    for (const auto& check : vector.checks) {
      testcase(vector.name, case_name(vector, check), check.seconds);
      if (check.verdict == Verdict::pass || (check.verdict == Verdict::xpass && !run.strict)) {
        out << "/>\n";
      } else if (check.verdict == Verdict::xpass) {  // --strict: it fails the run
        out << ">\n      <failure message=" << attr(unexpected_pass(*check.known)) << "/>\n    </testcase>\n";
      } else if (check.verdict == Verdict::xfail) {
        out << ">\n      <skipped message=" << attr(expected_failure(*check.known)) << ">"
            << xml_escaped(check.message + "\nreproduce: " + check.reproduce, false) << "</skipped>\n"
            << "    </testcase>\n";
      } else if (check.verdict == Verdict::skip) {
        out << ">\n      <skipped message=" << attr(check.message) << "/>\n    </testcase>\n";
      } else {
        out << ">\n      <failure message=" << attr(check.message) << ">"
            << xml_escaped(check.message + "\nreproduce: " + check.reproduce, false) << "</failure>\n"
            << "    </testcase>\n";
      }
    }
  }
  out << "  </testsuite>\n</testsuites>\n";
}

void write_json_report(const RunOutcome& run, std::ostream& out) {
  nlohmann::ordered_json report;
  report["format"] = "agent-session-conform-report";
  report["format_version"] = 1;
  report["runner_version"] = run.runner_version;
  report["vectors_version"] = nullptr;
  if (!run.vectors_version.empty()) report["vectors_version"] = run.vectors_version;
  if (!run.vectors_version_problem.empty()) report["vectors_version_problem"] = run.vectors_version_problem;
  report["vectors"] = run.vectors;
  report["command"] = run.command;
  std::string label = run.label;  // else the command line (fuzz's reports too)
  if (label.empty()) {
    for (const auto& word : run.command) label += (label.empty() ? "" : " ") + word;
  }
  report["label"] = label;
  report["port"] = nullptr;
  if (run.port) {
    report["port"] = {{"name", base::terminal_safe(run.port->name)},
                      {"version", base::terminal_safe(run.port->version)},
                      {"language", base::terminal_safe(run.port->language)}};
  }
  report["strict"] = run.strict;
  report["summary"] = {{"vectors", run.results.size()},
                       {"passed", run.passed},
                       {"failed", run.failed},
                       {"skipped", run.skipped},
                       {"skipped_passing", run.skipped_passing},
                       {"expected_failures", run.expected_failures},
                       {"unexpected_passes", run.unexpected_passes},
                       {"seconds", run.seconds}};
  auto& results = report["results"] = nlohmann::ordered_json::array();
  for (const auto& vector : run.results) {
    nlohmann::ordered_json entry = {{"name", vector.name}, {"verdict", verdict_name(vector.verdict())}};
    if (!vector.rule.empty()) entry["rule"] = vector.rule;
    if (!vector.problem.empty()) entry["problem"] = vector.problem;
    if (vector.known) entry["known_failure"] = known_json(*vector.known);
    if (vector.skipped) entry["message"] = skip_reason(vector);
    entry["rules"] = vector.rules;
    entry["seconds"] = vector.seconds;
    auto& checks = entry["checks"] = nlohmann::ordered_json::array();
    for (const auto& check : vector.checks) {
      nlohmann::ordered_json item;
      item["index"] = check.index;
      item["args"] = check.words;
      item["input"] = check.from_stdin ? "stdin" : "file";
      if (!check.after.empty()) item["after"] = check.after;
      item["verdict"] = verdict_name(check.verdict);
      if (!check.message.empty()) item["message"] = check.message;
      if (!check.reproduce.empty()) item["reproduce"] = check.reproduce;
      if (check.known) item["known_failure"] = known_json(*check.known);
      item["seconds"] = check.seconds;
      checks.push_back(std::move(item));
    }
    results.push_back(std::move(entry));
  }
  out << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

namespace {

// `#` would start a directive (TAP version 14).
std::string tap_escaped(const std::string& text) {
  std::string escaped;
  for (const char c : text) escaped += c == '#' ? std::string("\\#") : std::string(1, c);
  return escaped;
}

}  // namespace

void write_tap_header(std::size_t vectors, std::ostream& out) { out << "TAP version 14\n1.." << vectors << '\n'; }

void write_tap_vector(const VectorOutcome& vector, std::size_t number, std::ostream& out) {
  const std::string description = tap_escaped(vector.name);
  const Verdict verdict = vector.verdict();
  const bool not_ok = verdict == Verdict::fail || verdict == Verdict::xfail;
  out << (not_ok ? "not ok " : "ok ") << number << " - " << description;
  if (vector.skipped) out << " # SKIP " << skip_reason(vector);
  // TAP's TODO: a failure is expected; an ok TODO is a harness's unexpected pass.
  if (verdict == Verdict::xfail || verdict == Verdict::xpass) out << " # TODO " << tap_escaped(todo_reason(vector));
  out << '\n';
  if (!not_ok) return;
  out << "  ---\n";
  if (!vector.problem.empty()) out << "  message: " << yaml_string(vector.problem) << '\n';
  std::string failures;
  for (const auto& check : vector.checks) {
    if (check.verdict == Verdict::pass || check.verdict == Verdict::xpass) continue;
    failures += "    - check: " + yaml_string(case_name(vector, check)) +
                "\n      verdict: " + verdict_name(check.verdict) + "\n      message: " + yaml_string(check.message) +
                '\n';
    if (!check.reproduce.empty()) failures += "      reproduce: " + yaml_string(check.reproduce) + '\n';
  }
  if (!failures.empty()) out << "  checks:\n" << failures;
  out << "  ...\n";
}

bool write_reports(const RunOutcome& run, const std::vector<std::string>& reports, const std::string& me,
                   std::ostream& err) {
  bool written = true;
  for (const auto& report : reports) {
    const auto equals = report.find('=');
    const std::string kind = report.substr(0, equals), file = report.substr(equals + 1);
    std::ostringstream text;
    kind == "junit" ? write_junit(run, text) : write_json_report(run, text);
    if (const auto why = write_report_file(file, text.str())) {
      err << me << "cannot write the " << kind << " report '" << base::terminal_safe(file) << "': " << *why << '\n';
      written = false;
    }
  }
  return written;
}

}  // namespace agent_session::conform::runner
