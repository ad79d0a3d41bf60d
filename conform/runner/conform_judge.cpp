#include "conform/runner/conform_judge.hpp"

#include "base/printable.hpp"
#include "conform/runner/stream_checks.hpp"
#include "conform/runner/text_search.hpp"
#include "harness/argument_forms.hpp"
#include "harness/base64.hpp"
#include "harness/untrusted_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <new>
#include <sstream>
#include <stdexcept>

namespace agent_session::conform::runner {
namespace {

using agent_session::base::terminal_safe;
using harness::argument_form_problem;
using harness::base64_decode;
using harness::member;
using harness::parse_untrusted_json;
using harness::UntrustedJson;

}  // namespace

namespace {

// The first `limit` bytes of `text`, fewer rather than a UTF-8 character
// cut in two.
std::string_view cut(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  for (int back = 0; back < 3 && end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80; ++back) --end;
  if ((static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) end = limit;  // not UTF-8: bytes, then
  return text.substr(0, end);
}

std::string in_all(std::string_view text, std::size_t limit) {
  return text.size() > limit ? "... (" + std::to_string(text.size()) + " bytes in all)" : "";
}

}  // namespace

std::string shown(std::string_view text, std::size_t limit) {
  return terminal_safe(cut(text, limit)) + in_all(text, limit);
}

std::string printable(std::string_view text, std::size_t limit) {
  return "\"" + terminal_safe(cut(text, limit)) + "\"" + in_all(text, limit);
}

std::string excerpt(std::string_view text, std::size_t from, std::size_t limit) {
  from = std::min(from, text.size());
  std::string part = printable(text.substr(from, limit), limit);
  if (from > 0) part.insert(0, "...");
  if (from + limit < text.size()) part += "...";
  return part;
}

std::string describe_difference(const std::string& what, const std::string& expected, const std::string& actual) {
  const auto [e, a] = std::mismatch(expected.begin(), expected.end(), actual.begin(), actual.end());
  const auto at = static_cast<std::size_t>(e - expected.begin());
  const auto line = 1 + std::count(expected.begin(), e, '\n');
  const std::size_t from = at > 20 ? at - 20 : 0;
  std::ostringstream text;
  text << what << " differs at byte " << at << " (line " << line << "): expected " << excerpt(expected, from, 60)
       << ", got " << excerpt(actual, from, 60);
  if (expected.size() != actual.size()) {
    text << " (" << expected.size() << " bytes expected, " << actual.size() << " got)";
  }
  return text.str();
}

namespace {

// `json[key]` or, base64, `json[key + "_b64"]`: at most one of them;
// nothing when neither is there. `null` is allowed only where `nullable`.
std::optional<std::optional<std::string>> bytes_field(const nlohmann::json& json, const std::string& key,
                                                      bool nullable) {
  const bool plain = json.contains(key), encoded = json.contains(key + "_b64");
  if (plain && encoded) throw std::runtime_error("a check gives both " + key + " and " + key + "_b64");
  if (!plain && !encoded) return std::nullopt;
  const auto& value = json.at(plain ? key : key + "_b64");
  if (value.is_null() && nullable) return std::optional<std::string>();
  if (plain) return std::optional<std::string>(value.get<std::string>());
  auto bytes = base64_decode(value.get<std::string>());
  if (!bytes) throw std::runtime_error(key + "_b64 is not padded base64 (RFC 4648 section 4)");
  return std::optional<std::string>(std::move(*bytes));
}

// The fields of a file check (corpus/conformance/README.md "Checks that
// write FILE"): a check with "stdin" says what FILE is before the run and
// must be after.
void parse_file_check(const nlohmann::json& json, Check& check) {
  const auto in = bytes_field(json, "stdin", false);
  const auto after = bytes_field(json, "file_after", true);
  if (!in) {
    if (after || json.contains("file")) throw std::runtime_error("file and file_after need stdin (a file check)");
    return;
  }
  check.stdin_bytes = **in;
  if (json.contains("file")) {
    const auto file = json.at("file").get<std::string>();
    if (file != "absent" && file != "-") throw std::runtime_error("file must be \"absent\" or \"-\"");
    check.file_before = file == "-" ? Check::FileBefore::dash : Check::FileBefore::absent;
  }
  if (check.file_before == Check::FileBefore::dash) {
    if (after) throw std::runtime_error("a check with file \"-\" has no file_after");
    return;
  }
  if (!after) throw std::runtime_error("a file check needs file_after (null: FILE must not exist)");
  if (!*after && check.file_before == Check::FileBefore::copy)
    throw std::runtime_error("file_after null (no FILE after the run) needs file \"absent\"");
  check.file_after = *after;
}

// Checks the shape README.md promises, so a typo in a vector fails loudly
// instead of passing vacuously.
Check parse_check(const nlohmann::json& json) {
  Check check;
  check.args = json.at("args").get<std::vector<std::string>>();
  // An exit status is a byte; any other number (1e100, -1, 1.5) would be
  // converted, not compared, and out of an int's range undefinedly so.
  const auto& exit = json.at("exit");
  if (!exit.is_number_integer() || exit.get<std::int64_t>() < 0 || exit.get<std::int64_t>() > 255 ||
      (exit.is_number_unsigned() && exit.get<std::uint64_t>() > 255)) {
    throw std::runtime_error("exit must be an integer from 0 to 255");
  }
  check.exit = exit.get<int>();
  if (check.exit == 1) check.error = json.at("error").get<std::string>();
  parse_file_check(json, check);
  if (const auto problem = argument_form_problem(check.args, check.stdin_bytes.has_value())) {
    throw std::runtime_error(*problem);
  }
  // A file check's standard output is always empty (SPEC.md §6: append
  // prints nothing), so it gives none: a runner older than file checks
  // then finds the vector unusable instead of running it on input.jsonl.
  if (check.stdin_bytes && json.contains("stdout")) throw std::runtime_error("a file check gives no stdout");
  if (check.exit == 0 && !check.stdin_bytes) check.stdout_bytes = json.at("stdout").get<std::string>();
  return check;
}

// The port's standard error as a check's message quotes it. A runner's
// check on its own temporary folder names that folder "$d", as its
// reproduce command does: the name changes from run to run (and from exec
// to harness mode), the verdict must not.
std::string stderr_hint(const Check& check, const ProcessResult& result) {
  if (result.err.empty()) return "";
  std::string err = result.err;
  if (check.own_file != Check::OwnFile::session) {
    std::filesystem::path folder(check.file);
    if (check.own_file == Check::OwnFile::in_missing_folder) folder = folder.parent_path().parent_path();
    const std::string name = folder.string();
    for (std::size_t at = name.empty() ? std::string::npos : err.find(name); at != std::string::npos;
         at = err.find(name, at + 2)) {
      err.replace(at, name.size(), "$d");
    }
  }
  return "; stderr: " + excerpt(err, 0, 160);
}

// Whether `text` contains `part`, ASCII letters compared without case.
bool contains_ignoring_case(std::string_view text, std::string_view part) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  const auto at = std::search(text.begin(), text.end(), part.begin(), part.end(),
                              [&](char a, char b) { return lower(a) == lower(b); });
  return at != text.end() || part.empty();
}

}  // namespace

bool is_rule_id(std::string_view id) {
  if (id.size() > kMaxRuleIdBytes || id.size() < 4 || id.front() != 'R') return false;
  // Numbers of one or more digits, none starting with 0, separated by
  // dots before the `-` and one after it.
  bool dash = false, number_start = true;
  for (std::size_t i = 1; i < id.size(); ++i) {
    const char c = id[i];
    if (c >= '0' && c <= '9') {
      if (number_start && c == '0') return false;
      number_start = false;
    } else if ((c == '.' && !dash) || (c == '-' && !dash)) {
      if (number_start) return false;
      dash = c == '-';
      number_start = true;
    } else {
      return false;
    }
  }
  return dash && !number_start;
}

std::vector<std::string> parse_rules(const nlohmann::json& rules) {
  std::vector<std::string> ids;
  if (rules.is_null()) return ids;
  if (!rules.is_array()) throw std::runtime_error("expect.json's \"rules\" is not an array of rule IDs");
  if (rules.size() > kMaxRules) {
    throw std::runtime_error("expect.json's \"rules\" names more than " + std::to_string(kMaxRules) + " rules");
  }
  for (const auto& item : rules) {
    if (!item.is_string() || !is_rule_id(item.get_ref<const std::string&>())) {
      throw std::runtime_error("expect.json's \"rules\" holds " + harness::shown_value(item, kShownBytes) +
                               ", which is no rule ID (SPEC.md Conventions: R2.1-4)");
    }
    const auto& id = item.get_ref<const std::string&>();
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
      throw std::runtime_error("expect.json's \"rules\" names " + id + " twice");
    }
    ids.push_back(id);
  }
  return ids;
}

Vector missing_file_vector(const std::filesystem::path& missing) {
  Vector vector;
  vector.name = kMissingFileVector;
  vector.rule = "SPEC §6: a FILE that does not exist is exit 3, named on standard error";
  // SPEC.md §6: exit 3 (R6-13), nothing on standard output (R6-15), a
  // line naming the path and "no such file" (R6-19).
  vector.rules = {"R6-13", "R6-15", "R6-19"};
  vector.input_path = missing;
  for (std::vector<std::string> args :
       {std::vector<std::string>{"check"}, {"estimate"}, {"canon"}, {"trim", "--max-chars", "100"}}) {
    Check check;
    check.args = std::move(args);
    check.exit = 3;
    check.file = missing.string();
    check.stderr_mentions = {"no such file", missing.string()};
    vector.checks.push_back(std::move(check));
  }
  return vector;
}

Vector load_vector(const VectorDir& dir) {
  Vector vector;
  vector.name = dir.path.filename().string();
  vector.input_path = dir.path / "input.jsonl";
  if (!dir.problem.empty()) {
    vector.problem = "unusable vector: " + dir.problem;
    return vector;
  }
  if (vector.name == kMissingFileVector) {  // one name, one vector: the skip file and reports name it
    vector.problem = std::string("unusable vector: ") + kMissingFileVector + " is the runner's built-in vector's name";
    return vector;
  }
  if (is_runner_check(vector.name)) {
    vector.problem = "unusable vector: " + vector.name + " is the name of one of the runner's own checks";
    return vector;
  }
  try {
    // Both files from the one folder opened, never through a link.
    const base::Fd folder = open_vector_folder(dir.path);
    vector.input = read_file_at(folder.get(), "input.jsonl", "input.jsonl");
    // One check at a time (src/harness/untrusted_json.hpp): what a vector costs
    // is its checks, never expect.json's DOM (corpus/conformance/README.md
    // states the bound).
    const UntrustedJson expect = parse_untrusted_json(
        read_file_at(folder.get(), "expect.json", "expect.json"), "checks", [&](const nlohmann::json& check) {
          if (vector.checks.size() == kMaxChecks) {
            throw std::runtime_error("expect.json has more than " + std::to_string(kMaxChecks) + " checks");
          }
          vector.checks.push_back(parse_check(check));
        });
    if (!expect) throw std::runtime_error("expect.json: " + expect.reason);
    if (!member(expect.value, "checks").is_array()) throw std::runtime_error("expect.json has no array \"checks\"");
    // Not compared (README.md "Layout"): reported, so a matrix of reports
    // can group the vectors by SPEC section (reports.md), and exported.
    if (const auto& rule = member(expect.value, "rule"); rule.is_string()) vector.rule = rule.get<std::string>();
    if (const auto& about = member(expect.value, "about"); about.is_string()) vector.about = about.get<std::string>();
    if (vector.checks.empty()) vector.problem = "expect.json has no checks";
    vector.rules = parse_rules(member(expect.value, "rules"));
  } catch (const std::bad_alloc&) {
    throw;  // the machine's problem, not the vector's
  } catch (const std::exception& error) {
    vector.problem = std::string("unusable vector: ") + error.what();
  }
  return vector;
}

// Why `result` fails `check`, or nothing when it passes.
std::optional<std::string> judge(const Check& check, const ProcessResult& result, std::chrono::milliseconds timeout) {
  if (result.end != ProcessEnd::exited)
    return describe_end(result, timeout) + ", expected exit " + std::to_string(check.exit);
  if (result.exit_code != check.exit) {
    return "exit " + std::to_string(result.exit_code) + ", expected " + std::to_string(check.exit) +
           stderr_hint(check, result);
  }
  if (check.exit == 0 && result.out != check.stdout_bytes)
    return describe_difference("stdout", check.stdout_bytes, result.out);
  // SPEC.md §6's two stream rules, for every check: a failing command
  // prints nothing on standard output, a succeeding one nothing on
  // standard error.
  if (check.exit != 0 && !result.out.empty()) {
    return "stdout is not empty (" + std::to_string(result.out.size()) + " bytes: " + excerpt(result.out, 0, 60) +
           "), expected nothing after a failure (SPEC.md §6: no output on standard output but on exit 0)";
  }
  if (check.exit == 0 && !result.err.empty()) {
    return "stderr is not empty (" + std::to_string(result.err.size()) + " bytes: " + excerpt(result.err, 0, 60) +
           "), expected nothing on success (SPEC.md §6: nothing on standard error on exit 0)";
  }
  if (check.exit == 1 && !contains_error(result.err, check.error)) {
    return "stderr lacks " + printable(check.error) + " followed by end of line or \": \"" +
           (result.err.empty() ? "; stderr is empty" : stderr_hint(check, result));
  }
  if (check.one_stderr_line) {
    const std::string_view err = result.err;
    const std::size_t breaks = static_cast<std::size_t>(std::count(err.begin(), err.end(), '\n'));
    if (err.empty()) return "stderr is empty, expected one line with the reason (SPEC.md §6)";
    if (breaks > 1 || (breaks == 1 && err.back() != '\n')) {
      return "stderr holds " + std::to_string(breaks + (err.back() == '\n' ? 0 : 1)) + " lines (" +
             excerpt(result.err, 0, 60) + "), expected exactly one (SPEC.md §6)";
    }
  }
  for (const auto& mention : check.stderr_mentions) {
    if (!contains_ignoring_case(result.err, mention)) {
      return "stderr lacks " + printable(mention) + " (letter case aside)" +
             (result.err.empty() ? "; stderr is empty" : stderr_hint(check, result));
    }
  }
  return std::nullopt;
}

bool contains_error(std::string_view stderr_text, std::string_view expected, std::size_t* comparisons) {
  return find_each(
      stderr_text, expected,
      [&](std::size_t at) {
        const std::string_view rest = stderr_text.substr(at + expected.size(), 2);
        return rest.empty() || rest[0] == '\n' || rest == ": ";
      },
      comparisons);
}

}  // namespace agent_session::conform::runner
