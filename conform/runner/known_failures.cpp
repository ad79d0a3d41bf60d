#include "conform/runner/known_failures.hpp"

#include "base/decimal.hpp"
#include "base/printable.hpp"
#include "conform/runner/conform_judge.hpp"
#include "conform/runner/stream_checks.hpp"

#include <algorithm>
#include <stdexcept>

namespace agent_session::conform::runner {
namespace {

using agent_session::base::terminal_safe;

[[noreturn]] void refuse(std::size_t line, const std::string& why) {
  throw std::invalid_argument("line " + std::to_string(line) + ": " + why);
}

bool blank(char c) { return c == ' ' || c == '\t'; }

// The line's words: runs of bytes that are not blanks.
std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> words;
  for (std::size_t at = 0; at < line.size();) {
    if (blank(line[at])) {
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < line.size() && !blank(line[end])) ++end;
    words.push_back(line.substr(at, end - at));
    at = end;
  }
  return words;
}

// The line without its comment: `#` at its start or after a blank starts
// one, as in a skip file (a `#` inside a word, as in y_x#2 or a link's
// fragment, does not).
std::string_view without_comment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || blank(line[i - 1]))) return line.substr(0, i);
  }
  return line;
}

// Whether every character of `line` may reach a terminal raw (a tab
// aside): no control character, no byte that is not UTF-8, no bidi
// control (base/printable.hpp), so a reason is printed as it was written.
std::optional<std::size_t> first_unprintable(std::string_view line) {
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == '\t') {
      ++i;
      continue;
    }
    const std::size_t n = base::printable_length(line, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

bool is_link(std::string_view word) { return word.starts_with("https://") || word.starts_with("http://"); }

// The entry of one line that holds one (comment and blanks gone).
KnownEntry parse_entry(std::string_view line, std::size_t number, const VectorProblem& problem_with) {
  std::vector<std::string_view> words = words_of(line);
  const std::string_view target = words.front();
  // A vector whose own name holds a '#' is named whole; else the last '#'
  // starts a check's number.
  const bool whole = !problem_with(std::string(target));
  const auto hash = whole ? std::string_view::npos : target.rfind('#');
  KnownEntry entry;
  entry.vector = std::string(target.substr(0, hash));
  if (const auto problem = problem_with(entry.vector)) refuse(number, *problem);
  if (hash != std::string_view::npos) {
    const std::string_view digits = target.substr(hash + 1);
    const auto n = base::parse_decimal(digits);
    if (!n || *n == 0 || digits.front() == '0' || *n > kMaxChecks) {
      refuse(number, printable(target, 200) + ": a check is numbered from 1, as VECTOR#N (y_x#2: its second check)");
    }
    entry.check = static_cast<std::size_t>(*n - 1);
  }
  words.erase(words.begin());
  if (!words.empty() && is_link(words.back())) {
    entry.note.link = std::string(words.back());
    words.pop_back();
  }
  if (words.empty()) refuse(number, std::string(target) + " has no reason: say after it why it fails");
  // The reason as written between the target and the link.
  const std::size_t from = static_cast<std::size_t>(words.front().data() - line.data());
  const std::size_t to = static_cast<std::size_t>(words.back().data() + words.back().size() - line.data());
  entry.note.reason = terminal_safe(line.substr(from, to - from));
  entry.note.link = terminal_safe(entry.note.link);
  entry.note.line = number;
  return entry;
}

}  // namespace

KnownFailures parse_known_failures(std::string_view text, const VectorProblem& problem_with) {
  if (text.size() > kMaxKnownFailuresFile) {
    throw std::invalid_argument("holds " + std::to_string(text.size()) + " bytes, more than the " +
                                std::to_string(kMaxKnownFailuresFile) + " a known-failures file may");
  }
  KnownFailures known;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const auto end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    ++number;
    at = end + 1;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.size() > kMaxKnownFailuresLine) {
      refuse(number, "holds " + std::to_string(line.size()) + " bytes, more than the " +
                         std::to_string(kMaxKnownFailuresLine) + " a line may");
    }
    if (const auto bad = first_unprintable(line)) {
      refuse(number, "byte " + std::to_string(*bad + 1) +
                         " is a control character or not UTF-8; a known-failures file is printable text");
    }
    line = without_comment(line);
    if (words_of(line).empty()) continue;
    KnownEntry entry = parse_entry(line, number, problem_with);
    auto& listed = known[terminal_safe(entry.vector)];
    for (const KnownEntry& other : listed) {
      // One entry per vector or check: a check of a listed vector is listed already.
      if (!other.check || !entry.check || *other.check == *entry.check) {
        refuse(number, entry.vector + (entry.check ? "#" + std::to_string(*entry.check + 1) : "") +
                           " is covered by line " + std::to_string(other.note.line) + " already");
      }
    }
    listed.push_back(std::move(entry));
  }
  return known;
}

KnownFailures read_known_failures(const std::string& path, const std::vector<VectorDir>& all,
                                  const std::vector<SelectedVector>& selected) {
  const std::string file = "known-failures file '" + terminal_safe(path) + "'";
  std::string text;
  try {
    text = read_named_file(path, kMaxKnownFailuresFile, "a known-failures file");
  } catch (const std::runtime_error& error) {
    throw std::invalid_argument("cannot read the " + file + ": " + terminal_safe(error.what()));
  }
  const auto dir_of = [&](const std::string& name) {
    return std::find_if(all.begin(), all.end(), [&](const VectorDir& d) { return d.path.filename().string() == name; });
  };
  const auto problem_with = [&](const std::string& name) -> std::optional<std::string> {
    const auto dir = dir_of(name);
    if (dir == all.end()) return "no vector named " + printable(name, 200);
    const bool skipped = std::any_of(selected.begin(), selected.end(), [&](const SelectedVector& chosen) {
      return chosen.skipped && chosen.dir.path == dir->path;
    });
    if (skipped) return name + " is in the skip file too: a skipped vector is not judged";
    return std::nullopt;
  };
  KnownFailures known;
  try {
    known = parse_known_failures(text, problem_with);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(file + " " + error.what());
  }
  // A check entry's number within its vector's checks: each such vector
  // read now, once (a vector entry needs none).
  for (const auto& [name, entries] : known) {
    std::optional<Vector> vector;
    for (const KnownEntry& entry : entries) {
      if (!entry.check) continue;
      if (!vector) {
        const auto dir = dir_of(entry.vector);
        vector = !dir->runner_check.empty()   ? runner_check_vector(dir->runner_check, "session.jsonl")
                 : !dir->missing_file.empty() ? missing_file_vector(dir->missing_file)
                                              : load_vector(*dir);
      }
      const std::string where = file + " line " + std::to_string(entry.note.line) + ": ";
      if (!vector->problem.empty()) {
        throw std::invalid_argument(where + entry.vector + " is unusable (" + shown(vector->problem, 200) +
                                    "): list the vector, not one of its checks");
      }
      const std::size_t count = vector->checks.size();
      if (*entry.check >= count) {
        throw std::invalid_argument(where + entry.vector + "#" + std::to_string(*entry.check + 1) + ": " +
                                    entry.vector + " has " + base::counted(count, "check") + ", numbered from 1 to " +
                                    std::to_string(count));
      }
    }
  }
  return known;
}

void mark_known(VectorOutcome& vector, const KnownFailures& known) {
  if (vector.skipped) return;
  const auto found = known.find(vector.name);
  if (found == known.end()) return;
  for (const KnownEntry& entry : found->second) {
    if (!entry.check) {
      const bool fails = vector.failed();
      vector.known = entry.note;
      for (auto& run : vector.checks) {
        if (fails && run.verdict != Verdict::fail) continue;
        if (!fails && run.verdict != Verdict::pass) continue;
        run.verdict = fails ? Verdict::xfail : Verdict::xpass;
        run.known = entry.note;
      }
      continue;
    }
    std::vector<CheckOutcome*> runs;
    for (auto& run : vector.checks) {
      if (run.index == *entry.check) runs.push_back(&run);
    }
    const bool passes = !runs.empty() && std::all_of(runs.begin(), runs.end(), [](const CheckOutcome* run) {
      return run->verdict == Verdict::pass;
    });
    for (CheckOutcome* run : runs) {
      if (!passes && run->verdict != Verdict::fail) continue;
      run->verdict = passes ? Verdict::xpass : Verdict::xfail;
      run->known = entry.note;
    }
  }
}

std::vector<std::string> unexpected_pass_lines(const VectorOutcome& vector) {
  const auto line = [](const std::string& what, const KnownFailure& known) {
    return "XPASS " + what + ": line " + std::to_string(known.line) +
           " of the known-failures file lists it, but it passes; remove that line (" + known.text() + ")";
  };
  if (vector.known && !vector.checks.empty() &&
      std::all_of(vector.checks.begin(), vector.checks.end(),
                  [](const CheckOutcome& run) { return run.verdict == Verdict::xpass; })) {
    return {line(vector.name, *vector.known)};
  }
  std::vector<std::string> lines;
  std::size_t last = SIZE_MAX;
  for (const auto& run : vector.checks) {
    if (run.verdict != Verdict::xpass || run.index == last) continue;
    last = run.index;
    lines.push_back(line(vector.name + "#" + std::to_string(run.index + 1) + " (" + run.args + ")", *run.known));
  }
  return lines;
}

std::string expected_failure(const KnownFailure& known) { return "expected failure: " + known.text(); }

std::string unexpected_pass(const KnownFailure& known) {
  return "unexpected pass: line " + std::to_string(known.line) +
         " of the known-failures file lists it, but it passes; remove that line";
}

nlohmann::ordered_json known_json(const KnownFailure& known) {
  nlohmann::ordered_json entry;
  entry["line"] = known.line;
  entry["reason"] = known.reason;
  if (!known.link.empty()) entry["link"] = known.link;
  return entry;
}

std::string todo_reason(const VectorOutcome& vector) {
  if (vector.known) return vector.known->text();
  std::string reasons;
  std::size_t last = SIZE_MAX;
  for (const auto& check : vector.checks) {
    if (!check.known || check.index == last) continue;
    last = check.index;
    reasons +=
        (reasons.empty() ? "" : "; ") + ("check " + std::to_string(check.index + 1) + ": ") + check.known->text();
  }
  return reasons;
}

}  // namespace agent_session::conform::runner
